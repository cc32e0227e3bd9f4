"""Inline runs in the web process: executed on their own event loop, delivered from the web loop.

A chat answer in inline mode executes in the process that holds the user's socket (it must start
at once, and a background run can take it over). Executing it on the web loop itself would put
every websocket frame of every tab behind the engine work of every running answer: with many
answers at once, an event written to the database would wait for its turn on a saturated loop
before anyone saw it.

So inline runs execute on one dedicated engine loop (a daemon thread per process, started on first
use), and their events take a short path out: the sink calls `Relay` in the thread that has just
committed the event row, and the relay hands the event to the web loop, which gives it straight to
the sockets of this process watching the run (`watchers`) and publishes it to the run's group for
tabs in other processes (in order per run). The web loop only relays and serves sockets; the
engine loop never sits between a persisted event and its delivery, and a local tab does not wait
for a round trip through the channel layer. Nothing else changes: events are persisted before they
are published, a tab that misses one reads it from the rows, and cancel works through the run's
CancelToken (thread-safe) or the database flag.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
import threading
from collections.abc import Coroutine
from typing import Any, Protocol

from channels.layers import get_channel_layer

from agent.runs.delivery import event_publish, layer_crosses_processes, run_group

logger = logging.getLogger(__name__)

# The process's own event loops, each on a daemon thread of its name (started on first use).
_loops: dict[str, asyncio.AbstractEventLoop] = {}
_loops_lock = threading.Lock()
# Runs executing inline in this process, and the sockets of this process watching them: each
# watcher is called on the web loop with every event of the run, in order.
executing_here: set[int] = set()


class Watcher(Protocol):
    async def on_event(self, event: dict[str, Any]) -> None: ...

    async def on_crash(self) -> None: ...


watchers: dict[int, set[Watcher]] = {}
# Keeps the futures of inline runs referenced while they run (they outlive the socket that
# started them: a reload must not kill the answer).
_inline_runs: set[concurrent.futures.Future[None]] = set()


def _loop_thread(name: str) -> asyncio.AbstractEventLoop:
    """The loop that runs until the process ends on the daemon thread `name`, started on first use."""
    with _loops_lock:
        loop = _loops.get(name)
        if loop is None or loop.is_closed():
            loop = _loops[name] = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name=name, daemon=True).start()
        return loop


def engine_loop() -> asyncio.AbstractEventLoop:
    """The process's engine loop."""
    return _loop_thread("helena-engine")


def publish_loop() -> asyncio.AbstractEventLoop:
    """The process's loop for publishing inline runs' events to a channel layer across processes
    (Redis). Each publish is several Redis round trips; on the web loop, each of their socket calls
    waited for the interpreter lock behind the engine's and the tools' threads, and every local
    tab's frame waited behind them (py-spy on bench/ws.py: a third of the web loop's time)."""
    return _loop_thread("helena-publish")


def run_on_engine_loop(coro: Coroutine[Any, Any, None]) -> concurrent.futures.Future[None]:
    future = asyncio.run_coroutine_threadsafe(coro, engine_loop())
    _inline_runs.add(future)
    future.add_done_callback(_inline_runs.discard)
    return future


class Relay:
    """Called with each event in the thread that committed its row; from `loop` (the web loop) it
    hands the event to this process's tabs watching the run and publishes it to the run's group.
    Each of the two goes one event after the other per run, so tabs receive them in order; the
    local hand-over never waits for the channel layer's round trips."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        # A layer across processes is published to from the publish loop; the in-memory layer
        # (one process, bound to the web loop) from the web loop.
        self.publisher = publish_loop() if layer_crosses_processes() else loop
        self._last: dict[tuple[str, int], asyncio.Future[None]] = {}

    def __call__(self, event: dict[str, Any]) -> None:
        # Called in order by one writer thread; each loop runs its callbacks in that order.
        for loop, deliver in ((self.loop, self._hand_over_in_turn), (self.publisher, self._publish_in_turn)):
            with contextlib.suppress(RuntimeError):  # that loop is gone (shutdown): the rows stay for replay
                loop.call_soon_threadsafe(deliver, event)

    def _hand_over_in_turn(self, event: dict[str, Any]) -> None:
        self._after_last(self.loop, ("local", int(event["run"])), self._hand_over(event))

    def _publish_in_turn(self, event: dict[str, Any]) -> None:
        self._after_last(self.publisher, ("layer", int(event["run"])), self._publish(event))

    def _after_last(self, loop: asyncio.AbstractEventLoop, key: tuple[str, int], work: Coroutine[Any, Any, None]) -> None:
        # each key is only ever touched from its own loop
        task = loop.create_task(self._in_turn(self._last.get(key), work))
        self._last[key] = task
        task.add_done_callback(functools.partial(self._forget, key))

    async def _in_turn(self, previous: asyncio.Future[None] | None, work: Coroutine[Any, Any, None]) -> None:
        if previous is not None:
            await asyncio.wait([previous])
        await work

    async def _hand_over(self, event: dict[str, Any]) -> None:
        for watcher in list(watchers.get(int(event["run"]), ())):
            try:
                await watcher.on_event(event)
            except Exception:
                logger.exception("Ereignis %s von Lauf %s: Zustellung fehlgeschlagen", event.get("type"), event.get("run"))

    async def _publish(self, event: dict[str, Any]) -> None:
        try:
            await event_publish(event)
        except Exception:
            logger.exception("Ereignis %s von Lauf %s konnte nicht zugestellt werden", event.get("type"), event.get("run"))

    def _forget(self, key: tuple[str, int], task: asyncio.Future[None]) -> None:
        if self._last.get(key) is task:
            del self._last[key]


def execute_inline(run_id: int) -> concurrent.futures.Future[None]:
    """Start an inline run on the engine loop; its events are published from the calling (web) loop."""
    relay = Relay(asyncio.get_running_loop())
    executing_here.add(run_id)  # before any tab starts watching: they register as local watchers
    return run_on_engine_loop(_execute(run_id, relay))


async def _execute(run_id: int, relay: Relay) -> None:
    """The engine ends every run with an honest status; should it still raise, the tabs watching
    the run hear a German error instead of waiting forever."""
    from agent.runs import execution

    try:
        await execution.run_execute(run_id, relay=relay)
    except Exception:
        logger.exception("inline run %s crashed", run_id)
        with contextlib.suppress(RuntimeError):  # the web loop is gone: nobody is waiting
            asyncio.run_coroutine_threadsafe(_tell_crash(run_id), relay.loop)
    finally:
        executing_here.discard(run_id)


async def _tell_crash(run_id: int) -> None:
    for watcher in list(watchers.get(run_id, ())):
        await watcher.on_crash()
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(run_group(run_id), {"type": "run.crashed", "run": run_id})
