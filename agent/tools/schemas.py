"""JSON schemas of the tools' parameters, generated from their pydantic models."""

from __future__ import annotations

import copy
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
    model (once per model; callers get their own copy)."""
    return copy.deepcopy(_parameters_schema(tool.params))


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


_OLLAMA_TYPES = ("string", "number", "integer", "boolean", "array", "object")


def _ollama_property(node: dict[str, Any]) -> dict[str, Any]:
    """Reduce a JSON schema node to what Ollama's ToolProperty understands: one type, description,
    enum, items and (for objects) properties/required; constraints go into the description."""
    if "anyOf" in node:
        branches = node["anyOf"]
        # Decimal: number or numeric string → number; otherwise the first branch wins.
        chosen = next((b for b in branches if b.get("type") == "number"), branches[0])
        node = {**chosen, **{k: v for k, v in node.items() if k != "anyOf"}}
    out: dict[str, Any] = {"type": node.get("type", "string")}
    if out["type"] not in _OLLAMA_TYPES:
        out["type"] = "string"
    hints = []
    if node.get("format") == "date":
        hints.append("date YYYY-MM-DD")
    elif node.get("format") == "time":
        hints.append("time HH:MM")
    for key, label in (("minimum", "min"), ("maximum", "max"), ("minLength", "min length"), ("maxLength", "max length")):
        if key in node:
            hints.append(f"{label} {node[key]}")
    if "default" in node:
        hints.append(f"default {json.dumps(node['default'], ensure_ascii=False)}")
    description = node.get("description", "")
    if node.get("type") == "object" and "properties" in node:
        out["properties"] = {k: _ollama_property(v) for k, v in node["properties"].items()}
        out["required"] = list(node.get("required", []))
        fields = ", ".join(f"{k} ({v['type']})" for k, v in out["properties"].items())
        hints.append(f"object with fields: {fields}")
    if "items" in node:
        out["items"] = _ollama_property(node["items"])
    if "enum" in node:
        out["enum"] = list(node["enum"])
    if hints:
        description = f"{description} ({'; '.join(hints)})" if description else "; ".join(hints)
    if description:
        out["description"] = description
    return out


def ollama_tool_schema(tool: Tool) -> dict[str, Any]:
    """Ollama /api/chat tool format: the same envelope, parameters reduced to Ollama's property model."""
    schema = parameters_schema(tool)
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": {
                "type": "object",
                "properties": {k: _ollama_property(v) for k, v in schema["properties"].items()},
                "required": list(schema.get("required", [])),
            },
        },
    }
