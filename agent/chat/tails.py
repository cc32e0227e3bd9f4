"""Run tails: each socket that watches a run delivers its persisted events in `seq` order, each
exactly once (agent/runs/delivery.py explains how events cross processes). A tail reads the rows
on its own threads, takes published events as a fast path, and completes events for its user
before sending them (answer HTML, draft cards)."""

from __future__ import annotations

import asyncio
import contextlib
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from django.db import InterfaceError, OperationalError, connection

from agent.chat import inline
from agent.chat.cards import answer_html, draft_cards
from agent.engine.events import TERMINAL_EVENT_TYPES, EventType
from agent.models import AgentRun
from agent.runs import selectors
from agent.runs.delivery import POLL_SECONDS_SHARED_LAYER, tail_poll_seconds
from akten.models import User

if TYPE_CHECKING:
    from agent.chat.consumers import ChatConsumer

# Check the run's status every this many empty polls, for a run that ended without a final event.
STATUS_CHECK_EVERY = 20

# Events the socket completes for its user before sending: the answer as HTML, the full draft card.
ENRICHED_EVENTS = frozenset({EventType.DRAFT_CREATED, EventType.RUN_CAP_REACHED, *TERMINAL_EVENT_TYPES})

# Tails read the event rows on their own threads (each keeps its connection), so that polling never
# queues behind the engine's writes on the process-wide sync thread of database_sync_to_async.
_tail_executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="helena-tail")


def _read_steps_sync(run_id: int, after_seq: int) -> list[dict[str, Any]]:
    try:
        return selectors.run_steps_after(run_id=run_id, after_seq=after_seq)
    except (OperationalError, InterfaceError):
        connection.close()  # reconnect on the next poll
        return []


def _run_active_sync(run_id: int) -> bool:
    try:
        return AgentRun.objects.filter(pk=run_id, status__in=AgentRun.ACTIVE_STATUSES).exists()
    except (OperationalError, InterfaceError):
        connection.close()
        return True


async def _read_steps(run_id: int, after_seq: int) -> list[dict[str, Any]]:
    return await asyncio.get_running_loop().run_in_executor(_tail_executor, _read_steps_sync, run_id, after_seq)


class RunTail:
    """Delivers one run's events to one socket, in seq order, each exactly once."""

    def __init__(self, consumer: ChatConsumer, run_id: int, after_seq: int) -> None:
        self.consumer = consumer
        self.run_id = run_id
        self.last_seq = after_seq
        self.wake = asyncio.Event()
        self.lock = asyncio.Lock()
        self.done = False
        self.task: asyncio.Task[None] | None = None

    async def deliver(self, event: dict[str, Any]) -> bool:
        """Send `event` if it is the next one; False when there is a gap to fill from the database."""
        async with self.lock:
            seq = int(event.get("seq", 0))
            if seq <= self.last_seq:
                return True
            if seq != self.last_seq + 1:
                return False
            await self.consumer.send_json(event)
            self.last_seq = seq
            self.consumer.seen[self.run_id] = seq
            if event.get("type") in TERMINAL_EVENT_TYPES:
                self.done = True
            return True

    async def on_event(self, event: dict[str, Any]) -> None:
        """A published event (from the channel layer or, for a run executing in this process,
        straight from its relay): forward it if it is the next one, else let the tail read the gap."""
        if int(event.get("seq", 0)) <= self.last_seq:
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

    async def run(self) -> None:
        empty_polls = 0
        ended_without_final_event = False
        while not self.done:
            events = await _read_steps(self.run_id, self.last_seq)
            for event in events:
                await self.deliver(await self.consumer.enrich(event))
            if events:
                empty_polls = 0
                continue
            empty_polls += 1
            if empty_polls % STATUS_CHECK_EVERY == 0 and not await self._still_active():
                # The run's final state is saved just before its terminal event is written, so an
                # ended run may still be writing its last events: give up only when it is still
                # without a terminal event at the next status check (e.g. a crashed worker).
                if ended_without_final_event:
                    break
                ended_without_final_event = True
            # A run executing in this process hands every event to this tail directly (agent/chat/inline.py);
            # only runs elsewhere (the worker) need the short poll when the layer is in-memory.
            poll = POLL_SECONDS_SHARED_LAYER if self.run_id in inline.executing_here else tail_poll_seconds()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), timeout=poll)
            self.wake.clear()
        await self.consumer.tail_finished(self)

    async def _still_active(self) -> bool:
        return await asyncio.get_running_loop().run_in_executor(_tail_executor, _run_active_sync, self.run_id)


def enriched_sync(event: dict[str, Any], user: User) -> dict[str, Any]:
    try:
        return _enriched(event, user)
    except (OperationalError, InterfaceError):
        connection.close()  # a dropped connection: reconnect once
        return _enriched(event, user)


def _enriched(event: dict[str, Any], user: User) -> dict[str, Any]:
    event = dict(event)
    if event["type"] == "draft.created" and isinstance(event.get("draft"), int):
        cards = draft_cards(user=user, draft_ids=[event["draft"]])
        if cards:
            event["card"] = cards[0]
    elif event.get("answer"):
        event["answer_html"] = answer_html(str(event["answer"]), user=user)
    return event


async def enrich(event: dict[str, Any], user: User) -> dict[str, Any]:
    """Add what the browser cannot compute: the sanitised answer HTML, the full draft card (for
    `user`). On the tail threads, like the reads: never behind the engine's writes on the sync thread."""
    if event.get("type") not in ENRICHED_EVENTS:
        return event
    return await asyncio.get_running_loop().run_in_executor(_tail_executor, enriched_sync, event, user)
