"""Write tools (proposals only): one module per tool, each defining `TOOL`; discovered by agent.registry."""
