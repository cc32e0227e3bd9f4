"""The engine's view of tools: a `ToolBox` offers the schemas and executes calls, each ending in a
`ToolResult`; a `CancelToken` stops the run. The Django side implements the ToolBox
(agent/tools/executor.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass, field
from typing import Any, Protocol


class CancelToken:
    """Set by whoever cancels the run (any thread); checked by the loop at every await point and by
    long tools. The loop also waits on it (`future`) next to a model request or a tool batch, so a
    cancel lands at once instead of at the next look."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def cancel(self) -> None:
        with self._lock:
            self._event.set()
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            with contextlib.suppress(RuntimeError):  # that loop has closed: nobody waits any more
                loop.call_soon_threadsafe(_resolve, future)

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def future(self) -> asyncio.Future[None]:
        """A future of the running loop that is done once the token is cancelled (at once if it is
        already). Give it back with `forget` when no longer waiting."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._event.is_set():
                future.set_result(None)
            else:
                self._waiters.append((loop, future))
        return future

    def forget(self, future: asyncio.Future[None]) -> None:
        with self._lock:
            self._waiters = [(loop, waiting) for loop, waiting in self._waiters if waiting is not future]
        future.cancel()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


@dataclass
class ToolResult:
    data: Any = None
    error: str = ""
    source: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    # True when `data` carries text written by third parties (documents, decisions, web).
    untrusted: bool = False

    @property
    def ok(self) -> bool:
        return not self.error

    def as_observation(self) -> dict[str, Any]:
        """What the model sees: data or error, source, _meta."""
        body: dict[str, Any] = {"error": self.error} if self.error else {"data": self.data}
        if self.source:
            body["source"] = self.source
        body["_meta"] = self.meta
        return body


class ToolBox(Protocol):
    """The tools one run may use: what the engine offers the model and how it executes a call.

    Built by the registry for a ToolContext (role filter applied). `execute` never raises: every
    problem (unknown or forbidden tool, invalid arguments, access, exceptions) is an error result.
    """

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI-format function specs of the offered tools ({"type": "function", "function": {...}})."""
        ...

    def names(self) -> set[str]:
        """The tools usable now: one taken away during the run (role × tool matrix) drops out, and
        the loop offers the model only these."""
        ...

    def label(self, name: str) -> str:
        """The German progress label of a call of `name` ("Durchsuche Gesetze …"), also for a name
        that is not offered."""
        ...

    async def execute(self, name: str, arguments: dict[str, Any], *, call_id: str = "") -> ToolResult: ...
