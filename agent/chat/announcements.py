"""New runs announced from the database, next to the channel layer's `run.announce`.

A tab learns of a run it did not start (in another tab, through the API, continued in the
background) when `user_notify_run` reaches the user's group. That message can be lost: Redis
restarting, a process's channel over capacity, or the in-memory layer of the embedded default,
which never reaches another process. So each web process keeps one announcer on its event loop:
while sockets are open here it reads, every few seconds and in one query for all of them, the runs
created since its last look, and hands each new run to its owner's sockets here as `run.announce`
does (`ChatConsumer.run_announce`). A run announced both ways is announced harmlessly twice: a
socket that tails the run, or has delivered its events, ignores it.

A socket hears only of its own user's runs, as through the user's group, and a deactivated user
of none.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.utils import timezone

from agent.runs import selectors
from agent.runs.delivery import layer_crosses_processes
from helena.db import reconnect_after_error

if TYPE_CHECKING:
    from agent.chat.consumers import ChatConsumer

logger = logging.getLogger(__name__)

# With Redis the channel layer announces runs across processes and this is the safety net; with
# the in-memory layer it is the only way a run of the worker reaches the tabs of daphne.
ANNOUNCE_POLL_SECONDS_LOCAL = 1.0
ANNOUNCE_POLL_SECONDS_SHARED_LAYER = 5.0
# Each look reads back this far before the previous one: a run's `created_at` is taken before its
# row commits, possibly in another process on another machine's clock.
ANNOUNCE_OVERLAP_SECONDS = 10.0
# Run ids already announced, so that the overlap announces none twice: far more than one window holds.
ANNOUNCED_REMEMBERED = 10_000

# One thread of its own (with its own connection): a look never waits behind the engine's writes on
# the sync thread of database_sync_to_async, nor behind the tails' reads.
_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="helena-announce")


def announce_poll_seconds() -> float:
    return ANNOUNCE_POLL_SECONDS_SHARED_LAYER if layer_crosses_processes() else ANNOUNCE_POLL_SECONDS_LOCAL


def _runs_created_since_sync(since: datetime) -> list[tuple[int, int]]:
    with reconnect_after_error():
        return selectors.runs_created_since(since=since)


class Announcer:
    """This process's sockets by user, and the task that announces their users' new runs to them:
    started with the first socket, stopped when the last one has gone."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.sockets: dict[int, set[ChatConsumer]] = {}
        self.task: asyncio.Task[None] | None = None
        self.announced: set[int] = set()
        self.announced_order: deque[int] = deque()

    def register(self, consumer: ChatConsumer) -> None:
        self.sockets.setdefault(consumer.user.pk, set()).add(consumer)
        if self.task is None:
            self.task = self.loop.create_task(self.run())

    def unregister(self, consumer: ChatConsumer) -> None:
        user_sockets = self.sockets.get(consumer.user.pk)
        if user_sockets is not None:
            user_sockets.discard(consumer)
            if not user_sockets:
                del self.sockets[consumer.user.pk]
        if not self.sockets and self.task is not None:
            self.task.cancel()
            self.task = None

    async def run(self) -> None:
        # Runs created before the first socket connected were announced to nobody here; nor are they now.
        started_at = timezone.now()
        last_look = started_at
        while True:
            await asyncio.sleep(announce_poll_seconds())
            look_at = timezone.now()
            since = max(started_at, last_look - timedelta(seconds=ANNOUNCE_OVERLAP_SECONDS))
            try:
                runs = await self.loop.run_in_executor(_executor, _runs_created_since_sync, since)
            except Exception:
                logger.exception("reading new runs to announce failed (sockets of %d users)", len(self.sockets))
                continue
            last_look = look_at
            for run_id, user_id in runs:
                if user_id in self.sockets and run_id not in self.announced:
                    self._remember(run_id)
                    await self._announce(run_id, user_id)

    def _remember(self, run_id: int) -> None:
        self.announced.add(run_id)
        self.announced_order.append(run_id)
        if len(self.announced_order) > ANNOUNCED_REMEMBERED:
            self.announced.discard(self.announced_order.popleft())

    async def _announce(self, run_id: int, user_id: int) -> None:
        for consumer in list(self.sockets.get(user_id, ())):
            try:
                await consumer.run_announce({"type": "run.announce", "run": run_id})
            except Exception:
                logger.exception("announcing run %s to a socket of user %s failed", run_id, user_id)


_announcer: Announcer | None = None


def socket_register(consumer: ChatConsumer) -> None:
    """Called by a socket once it is accepted (on the event loop that serves it)."""
    global _announcer
    loop = asyncio.get_running_loop()
    if _announcer is None or _announcer.loop is not loop:
        _announcer = Announcer(loop)
    _announcer.register(consumer)


def socket_unregister(consumer: ChatConsumer) -> None:
    if _announcer is not None:
        _announcer.unregister(consumer)
