"""Admin for the agent app, one module per area (runs, tools, configuration)."""

from agent.admin import config, runs, tools  # noqa: F401
