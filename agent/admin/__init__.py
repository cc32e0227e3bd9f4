"""Admin for the agent app, one module per area (runs, tools, configuration)."""

from . import config, runs, tools  # noqa: F401
