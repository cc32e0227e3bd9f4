"""Run tails: each socket that watches a run delivers its persisted events in `seq` order, each
exactly once (agent/runs/delivery.py explains how events cross processes). A tail reads the rows
on its own threads, takes published events as a fast path, and completes events for its user
before sending them (answer HTML, draft cards).

A tail delivers only while its user may still see the run (`selectors.run_visible`): an ended
Vertretung, a deactivated account or an Akte moved to another Dezernat stop the live frames in the
middle of a run. It asks again when its last answer is ACCESS_RECHECK_SECONDS old, before the first
answer text after each model call or tool result (what follows may repeat what was just read) and
before every terminal event (which carries the answer), not per frame: a run streams its answer in
many small events. A run no longer visible ends the tail with the notice a missing run gets.

What a frame carries follows the written policy (akten/policy.py): for a viewer who does not see
the firm's internal side (a MANDANT) `viewer_event` leaves out the operating data - models, tiers,
token counts, model latency and the time stamps (run.started's would tell how long her run
waited behind others).

A tail reads the database only when there is something to read: after a gap in the published
events, or when the process's `TailWatch` sees rows it has not sent. The watch looks for all tails
of the process in one query (the last `seq` and whether the run is still active, per run) every
poll interval; before, every tail read its run's rows every interval itself, and 200 tabs of inline
runs spent most of a daphne process's CPU reading nothing (bench/ws.py)."""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from django.db import InterfaceError, OperationalError, connection

from agent.chat import inline
from agent.chat.cards import answer_html, draft_cards
from agent.engine.events import TERMINAL_EVENT_TYPES, EventType
from agent.models import AgentRun, AgentStep
from agent.runs import selectors
from agent.runs.delivery import tail_poll_seconds
from akten.models import User, user_access_refresh
from akten.policy import sees_internal
from helena.db import reconnect_after_error

if TYPE_CHECKING:
    from agent.chat.consumers import ChatConsumer

logger = logging.getLogger(__name__)

# A run that has ended (status) without its terminal event: its tail waits this long for new rows,
# then gives up (a worker that died in between). The final status is saved before the citation
# check of the answer and the terminal event; with 200 runs ending at once those took several
# seconds (bench/ws.py), and a tail that gave up after 2 s lost the rest of its run.
ENDED_GRACE_SECONDS = 30.0
# How often the watch looks while a watched run executes in this process. bench/ws.py, 200 inline
# runs with Redis, back to back: p95 0.59 / 0.49 s with 0.25 s against 0.82 / 0.92 s with 1 s.
POLL_SECONDS_EXECUTING_HERE = 0.25

# How long a tail trusts its last look at its user's access to the run (see the module docstring).
# A look is two queries, about 7 ms on a busy 2-CPU machine (mostly building the query): per frame
# it would cost more than the delivery itself; every 2 s, 20,000 deltas through a tail take as long
# as without it and a streamed answer's p50 per frame is unchanged (the look's frame waits for it).
ACCESS_RECHECK_SECONDS = 2.0
# After these, the next answer text asks for access again (see the module docstring).
RECHECK_BEFORE_NEXT_TEXT = frozenset({EventType.STEP_STARTED, EventType.TOOL_RESULT, EventType.MODEL_RESPONSE})
# Event fields of the firm's operations, left out for viewers who do not see its internal side.
INTERNAL_EVENT_FIELDS = frozenset({"at", "usage", "model", "tier", "ms", "from_tier", "to_tier"})

# Events the socket completes for its user before sending: the answer as HTML, the full draft card;
# and one it trims: an escalation goes out with its category, not the model server's error text
# (which can name internal hosts or echo what the server got), which stays in the trace.
ENRICHED_EVENTS = frozenset({EventType.DRAFT_CREATED, EventType.RUN_CAP_REACHED, EventType.ESCALATION, *TERMINAL_EVENT_TYPES})
ESCALATION_REASON = "Modell gewechselt"

# Tails read the event rows on their own threads (each keeps its connection), so that polling never
# queues behind the engine's writes on the process-wide sync thread of database_sync_to_async.
_tail_executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="helena-tail")


def _read_steps_sync(run_id: int, after_seq: int) -> list[dict[str, Any]]:
    try:
        return selectors.run_steps_after(run_id=run_id, after_seq=after_seq)
    except (OperationalError, InterfaceError):
        connection.close()  # reconnect on the next poll
        return []


_RUNS_STATE_SQL = (
    f"SELECT r.id, r.status = ANY(%s), COALESCE((SELECT MAX(s.seq) FROM {AgentStep._meta.db_table} s"  # noqa: S608 - _meta
    f" WHERE s.run_id = r.id), 0) FROM {AgentRun._meta.db_table} r WHERE r.id = ANY(%s)"
)


def _runs_state_sync(run_ids: list[int]) -> dict[int, tuple[bool, int]]:
    """Per run: still active, and the last seq written (one statement for every run)."""
    with reconnect_after_error(), connection.cursor() as cursor:
        cursor.execute(_RUNS_STATE_SQL, [list(AgentRun.ACTIVE_STATUSES), run_ids])
        return {run_id: (bool(active), int(last)) for run_id, active, last in cursor.fetchall()}


def _run_visible_sync(user: User, run_id: int) -> bool:
    """May the socket's user still see the run, with their role and account as they are now?"""
    try:
        user_access_refresh(user)
        return selectors.run_visible(user=user, run_id=run_id)
    except (OperationalError, InterfaceError):
        connection.close()  # a dropped connection: reconnect once
        user_access_refresh(user)
        return selectors.run_visible(user=user, run_id=run_id)


async def _read_steps(run_id: int, after_seq: int) -> list[dict[str, Any]]:
    return await asyncio.get_running_loop().run_in_executor(_tail_executor, _read_steps_sync, run_id, after_seq)


class RunTail:
    """Delivers one run's events to one socket, in seq order, each exactly once."""

    def __init__(self, consumer: ChatConsumer, run_id: int, after_seq: int, *, access_checked_at: float | None = None) -> None:
        """`access_checked_at`: when the caller last found the run visible to the socket's user
        (time.monotonic()); None: the first event asks."""
        self.consumer = consumer
        self.run_id = run_id
        self.last_seq = after_seq
        self.wake = asyncio.Event()
        self.lock = asyncio.Lock()
        self.done = False
        self.task: asyncio.Task[None] | None = None
        # when the watch first saw the run ended without new rows; set when the tail gives up
        self.ended_since: float | None = None
        self.gave_up = False
        self.access_checked_at = access_checked_at
        self.cut = False  # the user lost access: nothing more is sent
        self.recheck_before_text = False  # a model call or tool result went out since the last check

    async def deliver(self, event: dict[str, Any]) -> bool:
        """Send `event` if it is the next one and the user may still see the run; False when there
        is a gap to fill from the database."""
        async with self.lock:
            seq = int(event.get("seq", 0))
            if self.cut or seq <= self.last_seq:
                return True
            if seq != self.last_seq + 1:
                return False
            if self._access_stale(event) and not await self._may_still_see():
                await self._cut()
                return True
            if event.get("type") in RECHECK_BEFORE_NEXT_TEXT:
                self.recheck_before_text = True
            await self.consumer.send_json(viewer_event(event, self.consumer.user))
            self.last_seq = seq
            self.consumer.seen[self.run_id] = seq
            if event.get("type") in TERMINAL_EVENT_TYPES:
                self.done = True
            return True

    def _access_stale(self, event: dict[str, Any]) -> bool:
        """Must the user's access be asked again before `event` goes out (see the module docstring)?"""
        checked = self.access_checked_at
        if checked is None or event.get("type") in TERMINAL_EVENT_TYPES:
            return True
        if self.recheck_before_text and event.get("type") == EventType.ANSWER_DELTA:
            return True
        return time.monotonic() - checked >= ACCESS_RECHECK_SECONDS

    async def _may_still_see(self) -> bool:
        now = time.monotonic()
        try:
            loop = asyncio.get_running_loop()
            visible = await loop.run_in_executor(_tail_executor, _run_visible_sync, self.consumer.user, self.run_id)
        except Exception:
            logger.exception("run %s: access check failed, delivery stopped", self.run_id)
            return False
        self.access_checked_at = now
        self.recheck_before_text = False
        return visible

    async def _cut(self) -> None:
        """The user may no longer see the run: nothing more of it; the socket hears what it would
        hear of a missing run (the run stays `seen`, so an announcement does not start it again)."""
        self.cut = self.done = True
        self.consumer.seen.setdefault(self.run_id, self.last_seq)
        self.wake.set()
        await self.consumer.send_error(selectors.ERR_RUN_NOT_FOUND, code="not_found", run=self.run_id)

    async def on_event(self, event: dict[str, Any]) -> None:
        """A published event (from the channel layer or, for a run executing in this process,
        straight from its relay): forward it if it is the next one, else let the tail read the gap."""
        if self.cut or int(event.get("seq", 0)) <= self.last_seq:
            return
        if event.get("type") in ENRICHED_EVENTS:
            event = await self.consumer.enrich(event)
        if not await self.deliver(event):
            self.wake.set()

    async def on_crash(self) -> None:
        await self.consumer.run_crashed({"run": self.run_id})

    def unwatch(self) -> None:
        local = inline.watchers.get(self.run_id)
        if local is not None:
            local.discard(self)
            if not local:
                del inline.watchers[self.run_id]

    def observe(self, active: bool, last_seq: int, now: float) -> None:
        """What the watch saw of the run: rows this tail has not sent wake it; a run that has
        ended without its terminal event ends the tail after ENDED_GRACE_SECONDS."""
        if last_seq > self.last_seq:
            self.ended_since = None
            self.wake.set()
        elif active:
            self.ended_since = None
        elif self.ended_since is None:
            self.ended_since = now
        elif now - self.ended_since >= ENDED_GRACE_SECONDS:
            self.gave_up = True
            self.wake.set()

    async def run(self) -> None:
        watch = tail_watch()
        watch.add(self)
        try:
            while not self.done:
                self.wake.clear()
                events = await _read_steps(self.run_id, self.last_seq)
                for event in events:
                    if self.cut:
                        break
                    await self.deliver(await self.consumer.enrich(event))
                if events:
                    continue
                if self.gave_up:
                    break  # ended (status) and still without its terminal event: e.g. a crashed worker
                await self.wake.wait()
        finally:
            watch.discard(self)
        await self.consumer.tail_finished(self)

    @property
    def poll_seconds(self) -> float:
        """How soon the watch must look for this tail: a run executing here hands every event to
        it directly (agent/chat/inline.py), but under load a tab that has fallen behind catches up
        sooner by reading the rows than through the relay's queue; runs elsewhere come through
        the layer (the look is a safety net) or, with the in-memory layer, only through the watch."""
        return POLL_SECONDS_EXECUTING_HERE if self.run_id in inline.executing_here else tail_poll_seconds()


class TailWatch:
    """Every tail of this process's event loop, looked after with one query per poll interval (the
    shortest any tail needs): started with the first tail, ended with the last."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.tails: set[RunTail] = set()
        self.task: asyncio.Task[None] | None = None

    def add(self, tail: RunTail) -> None:
        self.tails.add(tail)
        if self.task is None or self.task.done():
            self.task = self.loop.create_task(self._work())

    def discard(self, tail: RunTail) -> None:
        self.tails.discard(tail)

    async def _work(self) -> None:
        while self.tails:
            await asyncio.sleep(min(tail.poll_seconds for tail in self.tails))
            watched = list(self.tails)
            if not watched:
                break
            run_ids = sorted({tail.run_id for tail in watched})
            try:
                state = await self.loop.run_in_executor(_tail_executor, _runs_state_sync, run_ids)
            except Exception:
                logger.exception("looking for new events failed (%d runs watched)", len(run_ids))
                continue
            now = time.monotonic()
            for tail in watched:
                active, last_seq = state.get(tail.run_id, (False, 0))
                tail.observe(active, last_seq, now)


_watch: TailWatch | None = None


def tail_watch() -> TailWatch:
    """The watch of the running event loop."""
    global _watch
    loop = asyncio.get_running_loop()
    if _watch is None or _watch.loop is not loop:
        _watch = TailWatch(loop)
    return _watch


def viewer_event(event: dict[str, Any], user: User) -> dict[str, Any]:
    """`event` as `user` receives it: without INTERNAL_EVENT_FIELDS for a viewer who does not see
    the firm's internal side (akten.policy.sees_internal); unchanged for staff."""
    if sees_internal(user) or not INTERNAL_EVENT_FIELDS.intersection(event):
        return event
    return {key: value for key, value in event.items() if key not in INTERNAL_EVENT_FIELDS}


def enriched_sync(event: dict[str, Any], user: User) -> dict[str, Any]:
    try:
        return _enriched(event, user)
    except (OperationalError, InterfaceError):
        connection.close()  # a dropped connection: reconnect once
        return _enriched(event, user)


def _enriched(event: dict[str, Any], user: User) -> dict[str, Any]:
    event = dict(event)
    if event["type"] == "draft.created":
        # The stored card is the one its run saw; the socket sends the card as `user` may see it now,
        # or none (an ended Vertretung, a draft no longer theirs to see): the id alone goes out.
        draft_id = event.get("draft")
        cards = draft_cards(user=user, draft_ids=[draft_id]) if isinstance(draft_id, int) else []
        if cards:
            event["card"] = cards[0]
        else:
            event.pop("card", None)
    elif event["type"] == EventType.ESCALATION:
        event["reason"] = str(event.get("cause") or ESCALATION_REASON)
    elif event.get("answer"):
        event["answer_html"] = answer_html(str(event["answer"]), user=user)
    return event


async def enrich(event: dict[str, Any], user: User) -> dict[str, Any]:
    """Add what the browser cannot compute: the sanitised answer HTML, the full draft card (for
    `user`). On the tail threads, like the reads: never behind the engine's writes on the sync thread."""
    if event.get("type") not in ENRICHED_EVENTS:
        return event
    return await asyncio.get_running_loop().run_in_executor(_tail_executor, enriched_sync, event, user)
