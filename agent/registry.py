"""The tool registry: discovery, the role × tool matrix, JSON schemas, and the executor.

Discovery: every module under `agent/tools/read/` and `agent/tools/write/` (names not starting with
"_") must define `TOOL = Tool(...)` whose name equals the module name. `all_tools()` imports them
once; AgentConfig.ready() calls it, so a broken tool module stops the start-up.

The matrix (ToolPermission rows, a missing row means "not allowed") is seeded lazily with the
defaults of `default_allowed` for every (role, tool) pair that has no row yet. A MANDANT never gets
a `cross_akte` tool, whatever the matrix says.

Public API for the engine:
- `toolbox_for(ctx)` (sync) / `await atoolbox_for(ctx)`: the RunToolBox of one run.
- `RunToolBox.schemas()` (OpenAI format), `.ollama_schemas()`, `.names()`,
  `await .execute(name, arguments, call_id=...) -> ToolResult` (never raises; fills
  `meta` = {tool, duration_ms, tool_ms (the tool body alone), count, cached, summary}; sets `ctx.untrusted_seen`).
- `result_summary(result)`: the ≤ 200-character summary used for audit rows and events.
For admin and seeding: `tool_matrix()`, `tool_matrix_update(by=..., allowed=...)`,
`tool_matrix_ensure_defaults()` (also run after `migrate`).

Tools run in a worker thread (`sync_to_async(thread_sensitive=False)`); each pool thread keeps its
database connection for CONN_MAX_AGE like a request would (opening one per call costs more than most
tools). settings.HELENA_TOOLS_THREAD_SENSITIVE = True runs
them in the main sync thread instead (tests that keep their data in the test transaction).
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import functools
import importlib
import json
import logging
import pkgutil
import re
import time
import traceback
from collections.abc import Iterable
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import close_old_connections, transaction
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from akten.models import Akte, Role, User, access_scope, access_scope_reused
from helena.db import trace_write

from .models import ConfigChange, ToolCallAudit, ToolPermission
from .tools.base import Tool, ToolContext, ToolResult
from .tools.common import ToolError

logger = logging.getLogger(__name__)

TOOL_PACKAGES = {"agent.tools.read": False, "agent.tools.write": True}  # package → its tools write
TOOL_NAME = re.compile(r"^[a-z][a-z0-9_]{1,63}$")
SUMMARY_CHARS = 200
AUDIT_ARG_CHARS = 200

ERR_TOOL_UNAVAILABLE = "Das Werkzeug „{name}“ steht dir nicht zur Verfügung. Verfügbar sind: {available}."
ERR_ARGS_NOT_OBJECT = 'Die Argumente für {name} müssen ein JSON-Objekt sein, z. B. {{"akte": "12/25"}}.'
ERR_INVALID_ARGS = "Ungültige Argumente für {name}: {details}. Korrigiere die Argumente und rufe das Werkzeug erneut auf."
ERR_INVALID_VALUES = "Ungültige Angaben: {details}"
ERR_INTERNAL = (
    "Beim Ausführen von {name} ist ein interner Fehler aufgetreten. Versuche es mit anderen Argumenten oder nutze ein "
    "anderes Werkzeug."
)
ERR_CANCELLED = "Der Lauf wurde abgebrochen; das Werkzeug wurde nicht ausgeführt."
ERR_MATRIX_FORBIDDEN = "Nur die Administration darf die Werkzeugrechte ändern."


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


# --- role × tool matrix ------------------------------------------------------------------------


def default_allowed(role: str, tool: Tool) -> bool:
    """The seeded default: ADMIN and ANWALT everything; SACHBEARBEITER everything but update_akte;
    SEKRETARIAT reads and create_notiz; PRAKTIKANT and MANDANT reads (MANDANT no cross-Akte search)."""
    if role in (Role.ADMIN, Role.ANWALT):
        return True
    if role == Role.SACHBEARBEITER:
        return tool.name != "update_akte"
    if role == Role.SEKRETARIAT:
        return not tool.writes or tool.name == "create_notiz"
    if role == Role.PRAKTIKANT:
        return not tool.writes
    if role == Role.MANDANT:
        return not tool.writes and not tool.cross_akte
    return False


def role_may_ever_use(role: str, tool: Tool) -> bool:
    """Hard limits above the matrix: a MANDANT never searches across Akten or firm documents."""
    return not (role == Role.MANDANT and tool.cross_akte)


def tool_matrix_ensure_defaults(*, using: str = "default") -> int:
    """Create the missing (role, tool) rows with their defaults; existing rows are kept. Returns how many."""
    tools = all_tools()
    existing = set(ToolPermission.objects.using(using).values_list("role", "tool"))
    missing = [
        ToolPermission(role=role, tool=tool.name, allowed=default_allowed(role, tool))
        for tool in tools.values()
        for role in Role.values
        if (role, tool.name) not in existing
    ]
    ToolPermission.objects.using(using).bulk_create(missing, ignore_conflicts=True)
    return len(missing)


def tool_matrix() -> dict[str, dict[str, bool]]:
    """{tool: {role: allowed}} for every discovered tool and role (defaults seeded first)."""
    tool_matrix_ensure_defaults()
    tools = all_tools()
    grid = {name: dict.fromkeys(Role.values, False) for name in sorted(tools)}
    for role, name, allowed in ToolPermission.objects.filter(tool__in=tools).values_list("role", "tool", "allowed"):
        if role in grid[name]:
            grid[name][role] = allowed and role_may_ever_use(role, tools[name])
    return grid


@transaction.atomic
def tool_matrix_update(*, by: User, allowed: Iterable[tuple[str, str]]) -> list[ConfigChange]:
    """Set the matrix to exactly `allowed` ((role, tool) pairs) and record each change with its actor.

    Locks the matrix rows (pk order). Raises PermissionDenied unless `by` is ADMIN or superuser.
    Pairs a role may never have (MANDANT × cross-Akte tools) and unknown tools are ignored.
    """
    if not (by.is_active and by.is_admin_role):
        raise PermissionDenied(ERR_MATRIX_FORBIDDEN)
    tool_matrix_ensure_defaults()
    tools = all_tools()
    wanted = {(role, name) for role, name in allowed if name in tools and role_may_ever_use(role, tools[name])}
    changes: list[ConfigChange] = []
    for row in ToolPermission.objects.select_for_update().filter(tool__in=tools).order_by("pk"):
        new = (row.role, row.tool) in wanted
        if row.allowed == new:
            continue
        changes.append(
            ConfigChange(
                user=by,
                model=ToolPermission._meta.label,
                object_repr=f"{row.get_role_display()} × {row.tool}"[:200],
                before={"role": row.role, "tool": row.tool, "allowed": row.allowed},
                after={"role": row.role, "tool": row.tool, "allowed": new},
            )
        )
        row.allowed = new
        row.save(update_fields=["allowed"])
    ConfigChange.objects.bulk_create(changes)
    return changes


def tools_for_user(user: User) -> dict[str, Tool]:
    """The tools the matrix allows `user`'s role and that are available right now (search_web)."""
    if not user.is_active:
        return {}
    tool_matrix_ensure_defaults()
    tools = all_tools()
    names = set(ToolPermission.objects.filter(role=user.role, allowed=True).values_list("tool", flat=True))
    return {
        name: tool
        for name, tool in sorted(tools.items())
        if name in names and role_may_ever_use(user.role, tool) and tool.available()
    }


def tool_permitted(user: User, tool: Tool) -> bool:
    """The execution-time check of the matrix, read again from the database."""
    return (
        user.is_active
        and role_may_ever_use(user.role, tool)
        and tool.available()
        and ToolPermission.objects.filter(role=user.role, tool=tool.name, allowed=True).exists()
    )


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


# --- execution ---------------------------------------------------------------------------------


def canonical_json(value: Any) -> str:
    """JSON with keys sorted at every depth and no insignificant whitespace: the cache key's body."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _jsonable(value: Any) -> Any:
    return json.loads(canonical_json(value))


def _without_nul(value: Any) -> Any:
    """NUL characters cannot be stored by PostgreSQL (text or JSON); a model may still send them."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, list):
        return [_without_nul(v) for v in value]
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    return value


def _clip_strings(value: Any) -> Any:
    """Arguments for the audit: long strings (document drafts, notes) are clipped."""
    if isinstance(value, str):
        return value if len(value) <= AUDIT_ARG_CHARS else value[:AUDIT_ARG_CHARS] + "…"
    if isinstance(value, list):
        return [_clip_strings(v) for v in value]
    if isinstance(value, dict):
        return {k: _clip_strings(v) for k, v in value.items()}
    return value


_PYDANTIC_DE = {
    "missing": "fehlt (Pflichtangabe)",
    "extra_forbidden": "ist kein Argument dieses Werkzeugs",
    "int_parsing": "muss eine ganze Zahl sein",
    "int_type": "muss eine ganze Zahl sein",
    "int_from_float": "muss eine ganze Zahl sein",
    "float_parsing": "muss eine Zahl sein",
    "decimal_parsing": "muss eine Zahl sein",
    "decimal_type": "muss eine Zahl sein",
    "bool_parsing": "muss true oder false sein",
    "bool_type": "muss true oder false sein",
    "string_type": "muss ein Text sein",
    "date_parsing": "muss ein Datum im Format JJJJ-MM-TT sein",
    "date_from_datetime_parsing": "muss ein Datum im Format JJJJ-MM-TT sein",
    "date_from_datetime_inexact": "muss ein Datum ohne Uhrzeit sein",
    "date_type": "muss ein Datum im Format JJJJ-MM-TT sein",
    "time_parsing": "muss eine Uhrzeit im Format HH:MM sein",
    "time_type": "muss eine Uhrzeit im Format HH:MM sein",
    "list_type": "muss eine Liste sein",
    "dict_type": "muss ein Objekt sein",
    "model_type": "muss ein Objekt sein",
    "model_attributes_type": "muss ein Objekt sein",
}


def _german_error(item: Any) -> str:
    kind, ctx = item["type"], item.get("ctx") or {}
    if kind in _PYDANTIC_DE:
        return _PYDANTIC_DE[kind]
    if kind == "literal_error":
        return f"muss einer dieser Werte sein: {ctx.get('expected', '')}"
    if kind in ("greater_than_equal", "greater_than"):
        return f"muss {'mindestens' if kind == 'greater_than_equal' else 'größer als'} {ctx.get('ge', ctx.get('gt'))} sein"
    if kind in ("less_than_equal", "less_than"):
        return f"muss {'höchstens' if kind == 'less_than_equal' else 'kleiner als'} {ctx.get('le', ctx.get('lt'))} sein"
    if kind == "string_too_short":
        return "darf nicht leer sein" if ctx.get("min_length") == 1 else f"braucht mindestens {ctx.get('min_length')} Zeichen"
    if kind == "string_too_long":
        return f"darf höchstens {ctx.get('max_length')} Zeichen lang sein"
    if kind == "too_long":
        return f"darf höchstens {ctx.get('max_length')} Einträge haben"
    if kind in ("decimal_max_digits", "decimal_max_places", "decimal_whole_digits"):
        return "hat zu viele Stellen"
    if kind == "value_error":
        return str(item["msg"]).removeprefix("Value error, ")
    return f"ist ungültig ({item['msg']})"


def format_validation_error(name: str, error: PydanticValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"])
        message = _german_error(item)
        parts.append(f"{where} {message}" if where else message)
    return ERR_INVALID_ARGS.format(name=name, details="; ".join(parts))


def _count(result: ToolResult, hint: Any) -> int:
    if isinstance(hint, int):
        return hint
    if not result.ok:
        return 0
    return len(result.data) if isinstance(result.data, list) else 1


def result_summary(result: ToolResult) -> str:
    """≤ 200 characters for audit rows and `tool.result` events: the error, or the count and the
    labels of the sources (titles, citations, Aktenzeichen) - never document text."""
    if not result.ok:
        text = f"Fehler: {result.error}"
    else:
        labels = []
        for item in result.source:
            label = item.get("label") or item.get("zitat") or item.get("muster") or item.get("rechner")
            if not label and "query" in item:
                label = f"Suche „{item['query']}“"
            if label:
                labels.append(str(label))
        count = result.meta.get("count")
        head = f"{count} Ergebnis{'' if count == 1 else 'se'}" if isinstance(count, int) else "ok"
        text = head + (": " + "; ".join(labels) if labels else "")
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


class RunToolBox:
    """The ToolBox of one run (agent.tools.base.ToolBox): the offered tools and their executor."""

    def __init__(self, ctx: ToolContext, tools: dict[str, Tool], *, thread_sensitive: bool = False) -> None:
        self.ctx = ctx
        self._tools = tools
        self._thread_sensitive = thread_sensitive
        self._reads_in_flight = 0
        self._reads_idle: asyncio.Event | None = None

    def names(self) -> set[str]:
        return set(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        return [openai_tool_schema(tool) for _, tool in sorted(self._tools.items())]

    def ollama_schemas(self) -> list[dict[str, Any]]:
        return [ollama_tool_schema(tool) for _, tool in sorted(self._tools.items())]

    async def execute(self, name: str, arguments: dict[str, Any], *, call_id: str = "") -> ToolResult:
        """Run one tool call; never raises. Every call writes one ToolCallAudit row.

        Calls of one step may run concurrently. A write waits for the reads running next to it, so
        that a draft proposed in the same step as an untrusted read carries the untrusted flag.
        """
        tool = self._tools.get(name)
        writes = tool is not None and tool.writes
        if writes:
            await asyncio.sleep(0)  # let the sibling calls of the same step start and register
            if self._reads_in_flight and self._reads_idle is not None:
                await self._reads_idle.wait()
        else:
            if not self._reads_in_flight:
                # A new Event per batch of reads: it belongs to the event loop that runs this step.
                self._reads_idle = asyncio.Event()
            self._reads_in_flight += 1
        try:
            run_sync = sync_to_async(self._execute_sync, thread_sensitive=self._thread_sensitive)
            try:
                result = await run_sync(name, arguments, call_id)
            except Exception as exc:  # the sync part catches everything; this guards the thread hand-off
                _log_exception(name, call_id, self.ctx, exc)
                result = ToolResult(
                    error=ERR_INTERNAL.format(name=name), meta={"tool": name, "duration_ms": 0, "count": 0, "cached": False}
                )
            if result.ok and result.untrusted:
                self.ctx.untrusted_seen = True
        finally:
            if not writes:
                self._reads_in_flight -= 1
                if not self._reads_in_flight and self._reads_idle is not None:
                    self._reads_idle.set()
        return result

    def _execute_sync(self, name: str, arguments: Any, call_id: str) -> ToolResult:
        if not self._thread_sensitive:
            close_old_connections()
        try:
            return self._call(name, arguments, call_id)
        finally:
            if not self._thread_sensitive:
                # Pool threads own their connections; end the "request" like Django does.
                close_old_connections()

    def _call(self, name: str, arguments: Any, call_id: str) -> ToolResult:
        with access_scope_reused():  # one resolution of the user's access per call, re-checked per call
            return self._call_scoped(name, arguments, call_id)

    def _call_scoped(self, name: str, arguments: Any, call_id: str) -> ToolResult:
        started = time.monotonic()
        ctx = self.ctx
        tool = self._tools.get(name)
        arguments = _without_nul(arguments)
        audit_args: Any = arguments if isinstance(arguments, dict) else {"_raw": arguments}
        cached = False
        hints: dict[str, Any] = {}
        body_seconds = 0.0  # inside the tool itself, without the registry's checks and audit
        if ctx.cancel.cancelled:
            result = ToolResult(error=ERR_CANCELLED)
        elif tool is None or not tool_permitted(ctx.user, tool):
            result = ToolResult(error=ERR_TOOL_UNAVAILABLE.format(name=name, available=", ".join(sorted(self._tools))))
        elif not isinstance(arguments, dict):
            result = ToolResult(error=ERR_ARGS_NOT_OBJECT.format(name=name))
        else:
            try:
                params = tool.params.model_validate(arguments)
            except PydanticValidationError as exc:
                result = ToolResult(error=format_validation_error(name, exc))
            else:
                audit_args = params.model_dump(mode="json")
                # The user's resolved access is part of the key, and an Akte-bound hit is checked
                # again: an ended Vertretung or a changed Dezernat never answers from the cache.
                key = f"{name}:{access_scope(ctx.user)!r}:{canonical_json(audit_args)}"
                hit = None if tool.writes else ctx.cache.get(key)
                if hit is not None and not _still_visible(ctx.user, hit.meta.get("akte_id")):
                    del ctx.cache[key]
                    hit = None
                if hit is not None:
                    result, cached = copy.deepcopy(hit), True
                    hints = {"count": hit.meta.get("count"), "akte_id": hit.meta.get("akte_id")}
                else:
                    body_started = time.perf_counter()
                    result = self._run_tool(tool, params, call_id)
                    body_seconds = time.perf_counter() - body_started
                    hints = {k: result.meta.get(k) for k in ("count", "akte_id")}
                    if result.ok and not tool.writes:
                        stored = copy.deepcopy(result)
                        stored.meta = {k: v for k, v in hints.items() if v is not None}
                        ctx.cache[key] = stored
        duration_ms = int((time.monotonic() - started) * 1000)
        result.meta = {
            "tool": name,
            "duration_ms": duration_ms,
            "tool_ms": round(body_seconds * 1000, 3),
            "count": _count(result, hints.get("count")),
            "cached": cached,
        }
        result.meta["summary"] = result_summary(result)
        self._audit(name, call_id, audit_args, result, hints.get("akte_id"))
        return result

    def _run_tool(self, tool: Tool, params: BaseModel, call_id: str) -> ToolResult:
        call_ctx = dataclasses.replace(self.ctx, call_id=call_id)
        try:
            result = tool.execute(call_ctx, params)
            if not isinstance(result, ToolResult):
                raise TypeError(f"{tool.name} returned {type(result).__name__}, not ToolResult")
            return result
        except ToolError as exc:
            return ToolResult(error=exc.message)
        except DjangoValidationError as exc:
            return ToolResult(error=ERR_INVALID_VALUES.format(details="; ".join(exc.messages)))
        except Exception as exc:
            _log_exception(tool.name, call_id, self.ctx, exc)
            return ToolResult(error=ERR_INTERNAL.format(name=tool.name))

    def _audit(self, name: str, call_id: str, arguments: Any, result: ToolResult, akte_id: Any) -> None:
        ctx = self.ctx
        try:
            with trace_write():
                ToolCallAudit.objects.create(
                    run=ctx.run,
                    user=ctx.user,
                    akte_id=akte_id if isinstance(akte_id, int) else (ctx.akte.pk if ctx.akte else None),
                    tool=name[:60],
                    call_id=call_id[:100],
                    arguments=_clip_strings(_jsonable(arguments)),
                    summary=result.meta.get("summary") or result_summary(result),
                    ok=result.ok,
                    cached=bool(result.meta.get("cached")),
                    duration_ms=max(0, int(result.meta.get("duration_ms", 0))),
                )
        except Exception as exc:  # the audit must never break the run; its failure is logged
            _log_exception(f"{name} (audit)", call_id, ctx, exc)


def _still_visible(user: User, akte_id: Any) -> bool:
    """May `user` still see the Akte a cached result came from (True for results of no one Akte)?"""
    return akte_id is None or Akte.objects.visible_to(user).filter(pk=akte_id).exists()


def _log_exception(name: str, call_id: str, ctx: ToolContext, exc: BaseException) -> None:
    """Log where it failed (the traceback's frames and the exception type), never the message:
    exception texts may carry client data."""
    frames = "".join(traceback.format_tb(exc.__traceback__))
    logger.error(
        "tool %s failed: %s (run %s, call %s, user %s)\n%s",
        name,
        type(exc).__name__,
        getattr(ctx.run, "pk", None),
        call_id,
        ctx.user.pk,
        frames,
    )


def toolbox_for(ctx: ToolContext, *, thread_sensitive: bool | None = None) -> RunToolBox:
    """The ToolBox for a run: the tools the user's role may use (matrix), available now.

    Sync (reads the matrix); from async code use `atoolbox_for`. Tools run in a worker thread;
    `thread_sensitive` (default settings.HELENA_TOOLS_THREAD_SENSITIVE, else False) runs them in
    the main sync thread instead, which tests need to see their own transaction.
    """
    if thread_sensitive is None:
        thread_sensitive = bool(getattr(settings, "HELENA_TOOLS_THREAD_SENSITIVE", False))
    return RunToolBox(ctx, tools_for_user(ctx.user), thread_sensitive=thread_sensitive)


async def atoolbox_for(ctx: ToolContext, *, thread_sensitive: bool | None = None) -> RunToolBox:
    return await sync_to_async(toolbox_for)(ctx, thread_sensitive=thread_sensitive)
