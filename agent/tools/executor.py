"""The executor: the ToolBox of one run and how it executes a call.

- `toolbox_for(ctx)` (sync) / `await atoolbox_for(ctx)`: the RunToolBox of one run, with the tools
  the matrix allows the user's role (agent/tools/permissions.py).
- `RunToolBox.schemas()` (OpenAI format), `.names()`, `.label(name)`,
  `await .execute(name, arguments, call_id=...) -> ToolResult` (never raises; fills
  `meta` = {tool, duration_ms, tool_ms (the tool body alone), count, cached, summary}; sets
  `ctx.untrusted_seen`). Each call: the matrix row and the user's access read in one query,
  arguments validated (German errors), the run's cache (keyed by the user's access scope, Akte
  re-checked on a hit), the tool, one ToolCallAudit row.
- `result_summary(result)`: the ≤ 200-character summary used for audit rows and events.

Tools run on the process's tool threads (`helena-tool`, settings.HELENA_TOOL_THREADS of them, so at
most that many tool calls and their database connections at once per process); each thread keeps
its connection for CONN_MAX_AGE like a request would (opening one per call costs more than most
tools). The hand-off is a plain `run_in_executor` with the caller's context: asgiref's
`sync_to_async` cost about a tenth of a millisecond more per call in each direction
(bench/engine.py). settings.HELENA_TOOLS_THREAD_SENSITIVE = True runs them in the main sync thread
instead (tests that keep their data in the test transaction).
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import dataclasses
import functools
import json
import logging
import pickle
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from agent.engine.tools import ToolResult
from agent.llm.base import without_nul
from agent.models import ToolCallAudit
from agent.tools.base import Tool, ToolContext, default_label
from agent.tools.common import ToolError
from agent.tools.discovery import all_tools
from agent.tools.permissions import tool_row_allows, tool_usable, tools_for_user
from agent.tools.schemas import openai_tool_schema
from akten.models import Akte, User, access_scope, access_scope_query, access_scope_reused
from helena.db import connection_tidy, trace_insert
from helena.validation import german_error

logger = logging.getLogger(__name__)
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


TOOL_THREAD_PREFIX = "helena-tool"


@functools.cache
def _tool_threads() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=max(1, settings.HELENA_TOOL_THREADS), thread_name_prefix=TOOL_THREAD_PREFIX)


def tool_session_limits(sender: Any, connection: Any, **kwargs: Any) -> None:
    """A tool thread's new database connection gets `statement_timeout` and `lock_timeout` of
    settings.HELENA_TOOL_STATEMENT_TIMEOUT_SECONDS (connection_created, agent/apps.py): a tool whose
    statement waits on a lock or runs away ends with an error instead of holding one of the
    process's few tool threads after its run has gone (the run's own time limit does not stop a
    thread). Once per connection, not per call."""
    if connection.vendor != "postgresql" or not threading.current_thread().name.startswith(TOOL_THREAD_PREFIX):
        return
    milliseconds = max(1, int(settings.HELENA_TOOL_STATEMENT_TIMEOUT_SECONDS * 1000))
    with connection.cursor() as cursor:  # one statement each: server-side binding takes no second one
        cursor.execute(f"SET statement_timeout = {milliseconds}")
        cursor.execute(f"SET lock_timeout = {milliseconds}")


# --- execution ---------------------------------------------------------------------------------


def canonical_json(value: Any) -> str:
    """JSON with keys sorted at every depth and no insignificant whitespace: the cache key's body."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _jsonable(value: Any) -> Any:
    return json.loads(canonical_json(value))


def _clip_strings(value: Any) -> Any:
    """Arguments for the audit: long strings (document drafts, notes) are clipped."""
    if isinstance(value, str):
        return value if len(value) <= AUDIT_ARG_CHARS else value[:AUDIT_ARG_CHARS] + "…"
    if isinstance(value, list):
        return [_clip_strings(v) for v in value]
    if isinstance(value, dict):
        return {k: _clip_strings(v) for k, v in value.items()}
    return value


def format_validation_error(name: str, error: PydanticValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"])
        message = german_error(item)
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


@dataclass
class _Call:
    """One tool call on its way through the executor."""

    name: str
    call_id: str
    audit_args: Any
    result: ToolResult = field(default_factory=ToolResult)
    cached: bool = False
    # count and Akte of the result, for `meta` and the audit row
    hints: dict[str, Any] = field(default_factory=dict)
    # seconds inside the tool itself, without the executor's checks and audit
    body_seconds: float = 0.0


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

    def label(self, name: str) -> str:
        tool = self._tools.get(name) or all_tools().get(name)
        return tool.progress_label if tool is not None else default_label(name)

    def schemas(self) -> list[dict[str, Any]]:
        return [openai_tool_schema(tool) for _, tool in sorted(self._tools.items())]

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
            try:
                if self._thread_sensitive:
                    result = await sync_to_async(self._execute_sync, thread_sensitive=True)(name, arguments, call_id)
                else:
                    call = functools.partial(contextvars.copy_context().run, self._execute_sync, name, arguments, call_id)
                    result = await asyncio.get_running_loop().run_in_executor(_tool_threads(), call)
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
            connection_tidy()
        try:
            return self._call(name, arguments, call_id)
        finally:
            if not self._thread_sensitive:
                # Pool threads own their connections: close a broken or aged one after each call.
                connection_tidy()

    def _call(self, name: str, arguments: Any, call_id: str) -> ToolResult:
        with access_scope_reused(fresh=True):  # one resolution of the user's access per call, re-checked per call
            return self._call_scoped(name, arguments, call_id)

    def _call_scoped(self, name: str, arguments: Any, call_id: str) -> ToolResult:
        """Admit the call (cancel, matrix, arguments), answer it from the run's cache or the tool,
        fill `meta`, write the audit row."""
        started = time.monotonic()
        arguments = without_nul(arguments)
        call = _Call(name=name, call_id=call_id, audit_args=arguments if isinstance(arguments, dict) else {"_raw": arguments})
        admitted = self._admit(name, arguments)
        if isinstance(admitted, ToolResult):
            call.result = admitted
        else:
            tool, params = admitted
            call.audit_args = params.model_dump(mode="json")
            self._answer(call, tool, params)
        result = call.result
        result.meta = {
            "tool": name,
            "duration_ms": int((time.monotonic() - started) * 1000),
            "tool_ms": round(call.body_seconds * 1000, 3),
            "count": _count(result, call.hints.get("count")),
            "cached": call.cached,
        }
        result.meta["summary"] = result_summary(result)
        self._audit(name, call_id, call.audit_args, result, call.hints)
        return result

    def _admit(self, name: str, arguments: Any) -> ToolResult | tuple[Tool, BaseModel]:
        """The tool and its validated parameters, or the error result that refuses the call."""
        tool = self._tools.get(name)
        if self.ctx.cancel.cancelled:
            return ToolResult(error=ERR_CANCELLED)
        if tool is None or not self._permitted(tool):
            # taken away during the run (matrix, role): neither listed as available nor offered again
            self._tools.pop(name, None)
            return ToolResult(error=ERR_TOOL_UNAVAILABLE.format(name=name, available=", ".join(sorted(self._tools))))
        if not isinstance(arguments, dict):
            return ToolResult(error=ERR_ARGS_NOT_OBJECT.format(name=name))
        try:
            return tool, tool.params.model_validate(arguments)
        except PydanticValidationError as exc:
            return ToolResult(error=format_validation_error(name, exc))

    def _permitted(self, tool: Tool) -> bool:
        """The matrix row as it is now, read in the same query that resolves the user's access for
        this call (kept for the call by `access_scope_reused`): one round trip for both checks."""
        user = self.ctx.user
        for _attempt in range(2):  # once more if role or superuser flag changed meanwhile: the new matrix row
            role, superuser = user.role, user.is_superuser
            if not tool_usable(user, tool):
                return False
            _, values = access_scope_query(user, permitted=tool_row_allows(role, tool.name))
            if (user.role, user.is_superuser) == (role, superuser):
                return bool(values["permitted"])
        return False

    def _answer(self, call: _Call, tool: Tool, params: BaseModel) -> None:
        """From the run's cache (reads only, never errors) or by running the tool.

        The user's resolved access is part of the key, and an Akte-bound hit is checked again: an
        ended Vertretung or a changed Dezernat never answers from the cache."""
        ctx = self.ctx
        key = f"{call.name}:{access_scope(ctx.user)!r}:{canonical_json(call.audit_args)}"
        hit = None if tool.writes else ctx.cache.get(key)
        if hit is not None and not _still_visible(ctx.user, hit.meta.get("akte_id"), hit.meta.get("akten_ids")):
            del ctx.cache[key]
            hit = None
        if hit is not None:
            call.result, call.cached = _copied(hit), True
            call.hints = {k: hit.meta.get(k) for k in _HINTS}
            return
        body_started = time.perf_counter()
        call.result, resolved = self._run_tool(tool, params, call.call_id)
        call.body_seconds = time.perf_counter() - body_started
        call.hints = {k: call.result.meta.get(k) for k in _HINTS}
        resolved.discard(call.hints["akte_id"])
        if resolved:  # Akten the call resolved beyond the one its result names (also on an error)
            call.hints["akten_ids"] = sorted(resolved.union(call.hints["akten_ids"] or ()))
        if call.result.ok and not tool.writes:
            stored = _copied(call.result)
            stored.meta = {k: v for k, v in call.hints.items() if v is not None}
            ctx.cache[key] = stored

    def _run_tool(self, tool: Tool, params: BaseModel, call_id: str) -> tuple[ToolResult, set[int]]:
        """The tool's result, and the Akten it resolved on the way (ToolContext.akten_resolved)."""
        call_ctx = dataclasses.replace(self.ctx, call_id=call_id, akten_resolved=set())
        try:
            result = tool.execute(call_ctx, params)
            if not isinstance(result, ToolResult):
                raise TypeError(f"{tool.name} returned {type(result).__name__}, not ToolResult")
        except ToolError as exc:
            result = ToolResult(error=exc.message)
        except DjangoValidationError as exc:
            result = ToolResult(error=ERR_INVALID_VALUES.format(details="; ".join(exc.messages)))
        except Exception as exc:
            _log_exception(tool.name, call_id, self.ctx, exc)
            result = ToolResult(error=ERR_INTERNAL.format(name=tool.name))
        return result, call_ctx.akten_resolved

    def _audit(self, name: str, call_id: str, arguments: Any, result: ToolResult, hints: dict[str, Any]) -> None:
        ctx = self.ctx
        akte_id = hints.get("akte_id")
        try:
            row = ToolCallAudit(
                run=ctx.run,
                user=ctx.user,
                akte_id=akte_id if isinstance(akte_id, int) else (ctx.akte.pk if ctx.akte else None),
                akten=list(hints.get("akten_ids") or ()),
                tool=name[:60],
                call_id=call_id[:100],
                arguments=_clip_strings(_jsonable(arguments)),
                summary=result.meta.get("summary") or result_summary(result),
                ok=result.ok,
                cached=bool(result.meta.get("cached")),
                duration_ms=max(0, int(result.meta.get("duration_ms", 0))),
            )
            # One statement, one round trip, not waiting for the WAL flush (helena.db). Written here, in
            # the tool's thread: handed to the event writer instead, it made that one serial writer
            # the bottleneck of 200 runs (bench/overload.py: cancel p95 455 → 677 ms).
            trace_insert([row])
        except Exception as exc:  # the audit must never break the run; its failure is logged
            _log_exception(f"{name} (audit)", call_id, ctx, exc)


# What a tool's result tells the registry (common.ok): kept with a cached result, written to the audit.
_HINTS = ("count", "akte_id", "akten_ids")


def _copied(result: ToolResult) -> ToolResult:
    """A deep copy of a cached result (the run may change what it hands on). Results are plain
    data, for which a pickle round trip is several times cheaper than `copy.deepcopy`."""
    try:
        copied: ToolResult = pickle.loads(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))  # noqa: S301 - our own bytes
    except Exception:  # something unpicklable in a result: the general copy
        return copy.deepcopy(result)
    return copied


def _still_visible(user: User, akte_id: Any, akten_ids: Any) -> bool:
    """May `user` still see the Akte a cached result came from, and every Akte a search across
    Akten showed (True for results of no Akte)?"""
    shown = set(akten_ids or ()) | ({akte_id} if akte_id is not None else set())
    return not shown or Akte.objects.visible_to(user).filter(pk__in=shown).count() == len(shown)


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
