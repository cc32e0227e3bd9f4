"""Tool discovery: every module under `agent/tools/read/` and `agent/tools/write/` (names not
starting with "_") must define `TOOL = Tool(...)` whose name equals the module name.

`all_tools()` imports them once; AgentConfig.ready() calls it, so a broken tool module stops the
start-up (`ToolRegistryError`), never a run.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from django.core.exceptions import ImproperlyConfigured
from pydantic import BaseModel

from agent.tools.base import Tool
from agent.tools.schemas import parameters_schema

TOOL_PACKAGES = {"agent.tools.read": False, "agent.tools.write": True}  # package → its tools write
TOOL_NAME = re.compile(r"^[a-z][a-z0-9_]{1,63}$")


class ToolRegistryError(ImproperlyConfigured):
    """A tool module is broken: raised at start-up, never at run time."""


# --- discovery -------------------------------------------------------------------------------

_tools: dict[str, Tool] | None = None


def discover_tools() -> dict[str, Tool]:
    """Import every tool module and check its TOOL. Raises ToolRegistryError (or the import error)."""
    found: dict[str, Tool] = {}
    for package_name, writes in TOOL_PACKAGES.items():
        package = importlib.import_module(package_name)
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
            if info.name.startswith("_"):
                continue
            module_name = f"{package_name}.{info.name}"
            module = importlib.import_module(module_name)
            tool = _checked_tool(module_name, info.name, getattr(module, "TOOL", None), writes)
            if tool.name in found:
                raise ToolRegistryError(f"{module_name}: duplicate tool name {tool.name!r}")
            found[tool.name] = tool
    return found


def _checked_tool(module_name: str, stem: str, tool: object, writes: bool) -> Tool:
    if not isinstance(tool, Tool):
        raise ToolRegistryError(f"{module_name} must define TOOL = Tool(...)")
    if tool.name != stem or not TOOL_NAME.match(tool.name):
        raise ToolRegistryError(f"{module_name}: the tool name must be the snake_case module name {stem!r}, not {tool.name!r}")
    if tool.writes != writes:
        raise ToolRegistryError(f"{module_name}: tools under {module_name.rsplit('.', 1)[0]} must have writes={writes}")
    if not (isinstance(tool.params, type) and issubclass(tool.params, BaseModel)):
        raise ToolRegistryError(f"{module_name}: params must be a pydantic model")
    if not tool.description.strip() or "Example:" not in tool.description:
        raise ToolRegistryError(f"{module_name}: the description must explain the tool and end with an example")
    if not callable(tool.execute):
        raise ToolRegistryError(f"{module_name}: execute must be callable")
    try:
        parameters_schema(tool)
    except Exception as exc:
        raise ToolRegistryError(f"{module_name}: no JSON schema for its parameters ({exc})") from exc
    return tool


def all_tools() -> dict[str, Tool]:
    """Every discovered tool by name (imported once per process)."""
    global _tools
    if _tools is None:
        _tools = discover_tools()
    return _tools
