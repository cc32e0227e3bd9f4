"""Write tools (proposals only): one module per tool, each defining `TOOL`; found by agent.tools.discovery."""
