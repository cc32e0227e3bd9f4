"""The events of a run: the sink protocol the loop writes to, the terminal set, and the sinks of tests and benchmarks."""

from __future__ import annotations

from typing import Any, Protocol


class EventSink(Protocol):
    """Where the loop's events go (agent/events.py: ListSink, NullSink, RunEventSink)."""

    async def emit(self, type: str, **payload: Any) -> None: ...


Event = dict[str, Any]

TERMINAL_EVENT_TYPES = frozenset({"run.finished", "run.failed", "run.cancelled"})


class NullSink:
    """Drops every event (benchmarks of the bare loop)."""

    async def emit(self, type: str, **payload: Any) -> None:
        return None


class ListSink:
    """Keeps the events in memory, numbered like the real sink (tests)."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    async def emit(self, type: str, **payload: Any) -> None:
        self.events.append({"type": type, "seq": len(self.events) + 1, **payload})

    def types(self) -> list[str]:
        return [event["type"] for event in self.events]

    def of_type(self, type: str) -> list[Event]:
        return [event for event in self.events if event["type"] == type]
