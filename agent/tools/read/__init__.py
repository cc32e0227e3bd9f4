"""Read tools: one module per tool, each defining `TOOL`; found by agent.tools.discovery."""
