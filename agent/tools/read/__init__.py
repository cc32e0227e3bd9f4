"""Read tools: one module per tool, each defining `TOOL`; discovered by agent.registry."""
