"""JSON schemas of the tools' parameters, generated from their pydantic models."""

from __future__ import annotations

import functools
import json
from typing import Any

from pydantic import BaseModel

from agent.tools.base import Tool

# --- JSON schemas ------------------------------------------------------------------------------

_DROP_KEYS = {"title"}


def _resolve(node: Any, defs: dict[str, Any]) -> Any:
    """Inline $ref, drop titles and turn `X | None` into X (optional = not required)."""
    if isinstance(node, list):
        return [_resolve(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _resolve(merged, defs)
    out = {k: _resolve(v, defs) for k, v in node.items() if k not in _DROP_KEYS and k != "$defs"}
    if "anyOf" in out:
        branches = [b for b in out["anyOf"] if b.get("type") != "null"]
        if len(branches) == 1:
            del out["anyOf"]
            out = {**branches[0], **out}
        else:
            out["anyOf"] = branches
        if out.get("default", ...) is None:
            del out["default"]
    return out


def parameters_schema(tool: Tool) -> dict[str, Any]:
    """The self-contained JSON schema (no $ref) of a tool's parameters, generated from its pydantic
    model (once per model; callers get their own copy: a JSON round trip, several times cheaper
    than `copy.deepcopy` for this plain data)."""
    copied: dict[str, Any] = json.loads(_parameters_schema_json(tool.params))
    return copied


@functools.cache
def _parameters_schema_json(params: type[BaseModel]) -> str:
    return json.dumps(_parameters_schema(params))


@functools.cache
def _parameters_schema(params: type[BaseModel]) -> dict[str, Any]:
    raw = params.model_json_schema()
    schema = _resolve(raw, raw.get("$defs", {}))
    schema.setdefault("properties", {})
    schema["type"] = "object"
    schema.setdefault("required", [])
    return schema


def openai_tool_schema(tool: Tool) -> dict[str, Any]:
    """OpenAI chat-completions tool format: {"type": "function", "function": {name, description, parameters}}."""
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": parameters_schema(tool)},
    }
