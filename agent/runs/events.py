"""Event persistence of a real run.

The loop only knows the `EventSink` protocol (agent/engine/events.py, with `ListSink` / `NullSink`
for tests and benchmarks). A real run uses `RunEventSink`: it stamps each event when the engine
emits it (`at`) and hands it to the process's `EventWriter`, which numbers it (`seq`) and persists
it as an `AgentStep` row; only then is it given to the optional `relay(event)` (in the writer's
thread, right after the commit) and `publish(event)` (awaited on the run's loop, see
agent/runs/delivery.py): a browser that misses a publish replays the rows, so the row must exist
before anyone can be told about it. The row's `created_at` is its write time, so `created_at - at`
is the event's write lag. `event_row_append` writes the events of runs that never reach the loop
(rate limit, cancel before start, orphans).

Wire shape of every event: `{"type", "run", "seq", "at", **payload}` (README, "Ereignisse").
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import threading
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DatabaseError, connection
from django.db.models import Max
from django.utils import timezone

from agent.models import AgentRun, AgentStep
from helena.db import connection_tidy, trace_insert, trace_thread

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
# An event as emitted: its type and its payload with `at`.
Pending = tuple[str, dict[str, Any]]


def _jsonable(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload as it will read back from the JSONField (dates as ISO strings, Decimals as str)."""
    result: dict[str, Any] = json.loads(json.dumps(payload, cls=DjangoJSONEncoder, ensure_ascii=False))
    return result


@dataclass(eq=False)
class _RunTrace:
    """What the writer keeps per run; touched by the writer's thread only."""

    run_id: int
    relay: Relay | None
    # the last seq written (None: not read yet)
    seq: int | None = None
    # call_id → pk of its tool.call step (draft.created links the draft to it)
    call_steps: dict[str, int] = field(default_factory=dict)
    # after a failed write nothing more of the run is written: its seq stay gap-free
    failed: BaseException | None = None


@dataclass(eq=False)
class _Job:
    run: _RunTrace
    batch: list[Pending]
    future: concurrent.futures.Future[list[Event]]
    events: list[Event] = field(default_factory=list)


class EventWriter:
    """Writes the event rows of every run of this process, on one thread with its own connection.

    Whatever the runs have queued while the writer was busy goes into the next transaction, one
    INSERT for all of them (group commit): a run's backlog and its terminal event wait for the
    write in progress, never for a chain of round trips per event, and a process with hundreds of
    runs needs a few transactions per second, not one per event. The connection serves trace rows
    only, so its session runs with `synchronous_commit = off` (helena.db.trace_thread); a
    transaction that carries a terminal event commits synchronously. Runs keep their order: the
    jobs of a run are written in the order they were queued, numbered after its last row.

    A failing transaction is retried run by run, so one run's broken write (its run row deleted)
    does not fail the others; the run whose write failed gets the error for this and every later
    job (the next awaited emit raises).
    """

    def __init__(self) -> None:
        self._queue: list[_Job] = []
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, run: _RunTrace, batch: list[Pending]) -> concurrent.futures.Future[list[Event]]:
        """Queue `batch` of `run`; the future gets its events (with run and seq) once committed."""
        job = _Job(run=run, batch=batch, future=concurrent.futures.Future())
        with self._cond:
            self._queue.append(job)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="helena-events", daemon=True)
                self._thread.start()
            self._cond.notify()
        return job.future

    def _work(self) -> None:
        with trace_thread():
            while True:
                self._cycle()

    def _cycle(self) -> None:
        """Write whatever is queued (waiting for work first)."""
        with self._cond:
            while not self._queue:
                self._cond.wait()
            jobs, self._queue = self._queue, []
        try:
            self._write(jobs)
        except Exception:  # the writer serves every run of the process: it must not end
            logger.exception("Ereignis-Schreiber: unerwarteter Fehler")
        with self._cond:
            idle = not self._queue
        if idle:
            # like the end of a request (CONN_MAX_AGE, broken connections), without the health check
            # round trip that `close_old_connections` would cause at the next write
            connection_tidy()

    def _write(self, jobs: list[_Job]) -> None:
        # From here on nobody can cancel a job's future: its rows are written whoever waits for them.
        awaited = {job for job in jobs if job.future.set_running_or_notify_cancel()}
        try:
            self._persist(jobs)
            done = set(jobs)
        except Exception:
            logger.warning("Ereignisse: gemeinsames Schreiben fehlgeschlagen, einzeln je Lauf", exc_info=True)
            connection.close_if_unusable_or_obsolete()
            done = set()
            for run in dict.fromkeys(job.run for job in jobs):
                of_run = [job for job in jobs if job.run is run]
                try:
                    self._persist(of_run)
                    done.update(of_run)
                except Exception as exc:
                    logger.exception("Ereignisse von Lauf %s konnten nicht gespeichert werden", run.run_id)
                    connection.close_if_unusable_or_obsolete()
                    run.failed = exc
        for job in jobs:
            if job in done and job.run.failed is None:
                self._deliver(job, awaited=job in awaited)
            elif job in awaited:
                job.future.set_exception(job.run.failed or RuntimeError("Ereignis nicht gespeichert"))

    def _persist(self, jobs: list[_Job]) -> None:
        """Number and write the jobs: one INSERT, its own transaction. The runs' state changes only
        once it is committed."""
        jobs = [job for job in jobs if job.run.failed is None]
        runs = list(dict.fromkeys(job.run for job in jobs))
        unread = [run.run_id for run in runs if run.seq is None]
        last = (
            dict(AgentStep.objects.filter(run_id__in=unread).values("run_id").annotate(m=Max("seq")).values_list("run_id", "m"))
            if unread
            else {}
        )
        seqs = {run: run.seq if run.seq is not None else last.get(run.run_id) or 0 for run in runs}
        rows: list[AgentStep] = []
        for job in jobs:
            for type, payload in job.batch:
                seqs[job.run] += 1
                rows.append(AgentStep(run_id=job.run.run_id, seq=seqs[job.run], type=type, payload=_jsonable(payload)))
        durable = any(row.type in TERMINAL_EVENT_TYPES for row in rows)
        trace_insert(rows, durable=durable)
        calls = {run: dict(run.call_steps) for run in runs}
        steps = iter(rows)
        for job in jobs:
            job.events = []
            for _ in job.batch:
                step = next(steps)
                body = step.payload
                if step.type == EventType.TOOL_CALL and body.get("call_id"):
                    calls[job.run][str(body["call_id"])] = step.pk
                elif step.type == EventType.DRAFT_CREATED:
                    _link_draft(job.run.run_id, calls[job.run], body)
                job.events.append({"type": step.type, "run": job.run.run_id, "seq": step.seq, **body})
        for run in runs:
            run.seq, run.call_steps = seqs[run], calls[run]

    def _deliver(self, job: _Job, *, awaited: bool) -> None:
        if job.run.relay is not None:
            for event in job.events:
                try:
                    job.run.relay(event)
                except Exception:
                    logger.exception("Ereignis %s von Lauf %s: Weitergabe fehlgeschlagen", event["type"], job.run.run_id)
        if awaited:
            job.future.set_result(job.events)


_writer = EventWriter()


def _link_draft(run_id: int, call_steps: dict[str, int], body: dict[str, Any]) -> None:
    """Point the draft at the tool.call step of its call; a failure costs the pointer, not the rows."""
    from drafts.models import HelenaDraft

    step_id = call_steps.get(str(body.get("call_id") or ""))
    draft_id = body.get("draft")
    if step_id is None or not isinstance(draft_id, int):
        return
    try:
        HelenaDraft.objects.filter(pk=draft_id, origin_run_id=run_id, origin_step__isnull=True).update(origin_step_id=step_id)
    except DatabaseError:
        logger.exception("Lauf %s: Entwurf %s nicht mit seinem Werkzeugaufruf verknüpft", run_id, draft_id)


class RunEventSink:
    """Persists every event of one run as an `AgentStep` and then publishes it: through `relay`
    right after the commit, in the writer's thread, and/or by awaiting `publish`.

    `at` is the time of the emit, not of the write. `seq` continues after the highest existing
    step of the run, so events written before the engine started (or by an earlier attempt) keep
    their place. Events are written and published in emit order: tool calls running concurrently
    still get gap-free, ordered numbers. A failing `publish` is logged and never ends the run (the
    row is there for replay).

    Events the engine emits immediately before another one are held until that one and written in
    the same batch: `model.response` (token figures; the thought, tool call or answer follows) and
    `tool.result` (the results of a step are reported together, then the next step starts or the
    run ends). A held event is still persisted before it is published; `flush()` writes held
    events when a run ends without another event.

    `step.started` and `tool.call` are not waited for: the model call or the tools of the step
    start while their rows are written. They are still written and published before anything
    emitted after them, and the engine waits for them at its next awaited emit and at the end of
    the run (`flush()`).

    Backpressure: at most `backlog` events (default settings.HELENA_EVENT_BACKLOG) may be emitted
    and not yet written and published; past that, `emit` waits for the oldest of them. A run that
    emits faster than the database takes its rows slows down instead of piling up a backlog that
    its cancel and its terminal event would have to wait for.

    A `draft.created` event carrying `draft` (the draft's id) and `call_id` links the draft to the
    `tool.call` step of that call (HelenaDraft.origin_step), so a draft points at its run, step and
    tool call.
    """

    def __init__(
        self, run: AgentRun, publish: Publish | None = None, *, relay: Relay | None = None, backlog: int | None = None
    ) -> None:
        self.run = run
        self.publish = publish
        self.backlog = max(1, settings.HELENA_EVENT_BACKLOG if backlog is None else backlog)
        self._trace = _RunTrace(run_id=run.pk, relay=relay)
        self._held: list[Pending] = []
        # deliveries (write, then publish) not finished yet, oldest first, and their event counts
        self._deliveries: deque[tuple[asyncio.Future[None], int]] = deque()
        self._last: asyncio.Future[None] | None = None

    @property
    def pending(self) -> int:
        """Events handed to the writer and not yet written and published."""
        return sum(count for _, count in self._deliveries)

    async def emit(self, type: str, **payload: Any) -> None:
        event = (type, {**payload, "at": timezone.now().isoformat()})
        if type == EventType.ESCALATION:
            # Why a run changed tier, for the operators; only the fixed category, never the reason's
            # text (it may quote what the model server echoed of the conversation).
            logger.info(
                "run %s escalated from tier %s to tier %s: %s",
                self.run.pk,
                payload.get("from_tier"),
                payload.get("to_tier"),
                payload.get("cause", "?"),
            )
        if type in HELD_EVENT_TYPES:
            self._held.append(event)
            return
        batch, self._held = [*self._held, event], []
        delivery = self._submit(batch)
        if type not in UNAWAITED_EVENT_TYPES:
            await asyncio.shield(delivery)  # a cancelled run still gets its rows written
        while self._deliveries and self.pending > self.backlog:
            await asyncio.shield(self._deliveries[0][0])

    async def flush(self) -> None:
        """Persist and publish what is held or still being written (at the end of a run)."""
        if self._held:
            batch, self._held = self._held, []
            self._submit(batch)
        if self._last is not None:
            await asyncio.shield(self._last)

    def _submit(self, batch: list[Pending]) -> asyncio.Future[None]:
        """Hand `batch` to the writer; its delivery publishes it after the ones before it."""
        written = asyncio.wrap_future(_writer.submit(self._trace, batch))
        delivery = asyncio.ensure_future(self._deliver(self._last, written))
        self._deliveries.append((delivery, len(batch)))
        self._last = delivery
        return delivery

    async def _deliver(self, previous: asyncio.Future[None] | None, written: asyncio.Future[list[Event]]) -> None:
        try:
            try:
                events = await written
            finally:
                if previous is not None:
                    await previous  # publish in order; a failed write before this one failed this one too
            await self._publish(events)
        finally:
            self._deliveries.popleft()  # deliveries end in order: each waits for the one before

    async def _publish(self, events: list[Event]) -> None:
        if self.publish is None:
            return
        for event in events:
            try:
                await self.publish(event)
            except Exception:
                logger.exception("Ereignis %s von Lauf %s konnte nicht zugestellt werden", event["type"], self.run.pk)


def event_row_append(run: AgentRun, type: str, **payload: Any) -> None:
    """An event written outside the engine (rate limit, orphan clean-up), numbered after the rest."""
    last = AgentStep.objects.filter(run=run).order_by("-seq").values_list("seq", flat=True).first() or 0
    AgentStep.objects.create(run=run, seq=last + 1, type=type, payload={**payload, "at": timezone.now().isoformat()})
