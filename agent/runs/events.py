"""Event persistence of a real run.

The loop only knows the `EventSink` protocol (agent/engine/events.py, with `ListSink` / `NullSink`
for tests and benchmarks). A real run uses `RunEventSink`, which numbers the events of one run
(`seq`), stamps them (`at`), persists each one as an `AgentStep` row and only then calls the
optional `publish(event)` callback (see agent/runs/delivery.py): a browser that misses a publish
replays the rows, so the row must exist before anyone can be told about it. `event_row_append`
writes the events of runs that never reach the loop (rate limit, cancel before start, orphans).

Wire shape of every event: `{"type", "run", "seq", "at", **payload}` (README, "Ereignisse").
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from asgiref.sync import sync_to_async
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from agent.models import AgentRun, AgentStep
from helena.db import trace_write

if TYPE_CHECKING:
    from agent.models import AgentRun
from agent.engine.events import TERMINAL_EVENT_TYPES, Event, EventType

logger = logging.getLogger(__name__)
Publish = Callable[[Event], Awaitable[None]]
# Called with each event in the thread that has just committed its row (agent/chat/inline.py).
Relay = Callable[[Event], None]
# Written together with the event that follows them at once (see RunEventSink).
HELD_EVENT_TYPES = frozenset({EventType.MODEL_RESPONSE, EventType.TOOL_RESULT})
# Written while the engine goes on: a model call or the tools follow, and the next awaited emit
# waits for them (see RunEventSink).
UNAWAITED_EVENT_TYPES = frozenset({EventType.STEP_STARTED, EventType.TOOL_CALL})


def _jsonable(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload as it will read back from the JSONField (dates as ISO strings, Decimals as str)."""
    result: dict[str, Any] = json.loads(json.dumps(payload, cls=DjangoJSONEncoder, ensure_ascii=False))
    return result


class RunEventSink:
    """Persists every event of one run as an `AgentStep` and then publishes it: through `relay`
    right after the commit, in the persisting thread, and/or by awaiting `publish`.

    `seq` continues after the highest existing step of the run, so events written before the engine
    started (or by an earlier attempt) keep their place. Writes are chained in emit order: tool calls
    running concurrently still get gap-free, ordered numbers. A failing `publish` is logged and
    never ends the run (the row is there for replay).

    Events the engine emits immediately before another one are held until that one and written in
    the same transaction: `model.response` (token figures; the thought, tool call or answer follows)
    and `tool.result` (the results of a step are reported together, then the next step starts or
    the run ends). Two database rounds of a step less, and no event waits for anything slower than
    the engine's own bookkeeping; nothing that precedes a model call or a tool call is held. A held
    event is still persisted before it is published; `flush()` writes held events when a run ends
    without another event.

    `step.started` and `tool.call` are not waited for: the model call or the tools of the step
    start while their rows are written (the database round overlaps with the model or the tools).
    They are still written and published before anything emitted after them, and the engine
    waits for them at its next awaited emit and at the end of the run (`flush()`).

    A `draft.created` event carrying `draft` (the draft's id) and `call_id` links the draft to the
    `tool.call` step of that call (HelenaDraft.origin_step), so a draft points at its run, step and
    tool call.
    """

    def __init__(self, run: AgentRun, publish: Publish | None = None, *, relay: Relay | None = None) -> None:
        self.run = run
        self.publish = publish
        self.relay = relay
        self._seq: int | None = None
        self._call_steps: dict[str, int] = {}
        self._held: list[tuple[str, dict[str, Any]]] = []
        self._last_write: asyncio.Future[None] | None = None

    async def emit(self, type: str, **payload: Any) -> None:
        if type in HELD_EVENT_TYPES:
            self._held.append((type, payload))
            return
        batch, self._held = [*self._held, (type, payload)], []
        write = self._chain(batch)
        if type not in UNAWAITED_EVENT_TYPES:
            await asyncio.shield(write)  # a cancelled run still gets its rows written

    async def flush(self) -> None:
        """Persist and publish what is held or still being written (at the end of a run)."""
        if self._held:
            batch, self._held = self._held, []
            self._chain(batch)
        if self._last_write is not None:
            await asyncio.shield(self._last_write)

    def _chain(self, batch: list[tuple[str, dict[str, Any]]]) -> asyncio.Future[None]:
        """Queue the write of `batch` after the writes before it: rows and publishes stay in emit
        order, and a failed write fails the ones after it (the next awaited emit raises)."""
        write = asyncio.ensure_future(self._write(self._last_write, batch))
        self._last_write = write
        return write

    async def _write(self, previous: asyncio.Future[None] | None, batch: list[tuple[str, dict[str, Any]]]) -> None:
        if previous is not None:
            await previous
        events = await sync_to_async(self._persist)(batch)
        await self._publish(events)

    async def _publish(self, events: list[Event]) -> None:
        if self.publish is None:
            return
        for event in events:
            try:
                await self.publish(event)
            except Exception:
                logger.exception("Ereignis %s von Lauf %s konnte nicht zugestellt werden", event["type"], self.run.pk)

    def _persist(self, batch: list[tuple[str, dict[str, Any]]]) -> list[Event]:
        from agent.models import AgentStep

        if self._seq is None:
            self._seq = AgentStep.objects.filter(run_id=self.run.pk).aggregate(m=Max("seq"))["m"] or 0
        events = []
        # Progress events need not wait for their WAL flush (helena.db.trace_write); a terminal
        # event, like the run's final state, is committed synchronously.
        terminal = any(type in TERMINAL_EVENT_TYPES for type, _ in batch)
        at = timezone.now().isoformat()
        steps = []
        for type, payload in batch:
            self._seq += 1
            steps.append(AgentStep(run_id=self.run.pk, seq=self._seq, type=type, payload=_jsonable({**payload, "at": at})))
        with transaction.atomic() if terminal else trace_write():
            AgentStep.objects.bulk_create(steps)  # one INSERT for the batch; the ids come back
            for step in steps:
                body = step.payload
                if step.type == EventType.TOOL_CALL and body.get("call_id"):
                    self._call_steps[str(body["call_id"])] = step.pk
                elif step.type == EventType.DRAFT_CREATED:
                    self._link_draft(body)
                events.append({"type": step.type, "run": self.run.pk, "seq": step.seq, **body})
        if self.relay is not None:
            for event in events:
                self.relay(event)
        return events

    def _link_draft(self, body: dict[str, Any]) -> None:
        from drafts.models import HelenaDraft

        step_id = self._call_steps.get(str(body.get("call_id") or ""))
        draft_id = body.get("draft")
        if step_id is None or not isinstance(draft_id, int):
            return
        HelenaDraft.objects.filter(pk=draft_id, origin_run_id=self.run.pk, origin_step__isnull=True).update(
            origin_step_id=step_id
        )


def event_row_append(run: AgentRun, type: str, **payload: Any) -> None:
    """An event written outside the engine (rate limit, orphan clean-up), numbered after the rest."""
    last = AgentStep.objects.filter(run=run).order_by("-seq").values_list("seq", flat=True).first() or 0
    AgentStep.objects.create(run=run, seq=last + 1, type=type, payload={**payload, "at": timezone.now().isoformat()})
