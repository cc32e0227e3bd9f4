"""The engine's view of tools: a `ToolBox` offers the schemas and executes calls, each ending in a
`ToolResult`; a `CancelToken` stops the run. The Django side implements the ToolBox
(agent/tools/executor.py).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol


class CancelToken:
    """Set by whoever cancels the run; checked by the loop at every await point and by long tools."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


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

    def names(self) -> set[str]: ...

    def label(self, name: str) -> str:
        """The German progress label of a call of `name` ("Durchsuche Gesetze …"), also for a name
        that is not offered."""
        ...

    async def execute(self, name: str, arguments: dict[str, Any], *, call_id: str = "") -> ToolResult: ...
