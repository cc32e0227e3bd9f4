"""The events of a run: every type, its payload, the terminal set, and where they go.

One definition each (pydantic-ai's event classes are the model): `EventType` names every event,
`PAYLOADS` maps each to the TypedDict of its payload, `TERMINAL_EVENT_TYPES` is the one set of
events that end a run (the browser receives it from the server, see `client_config`). Every event
travels as `{"type", "run", "seq", "at", **payload}`: `run`, `seq` and `at` are added by the sink
that persists it (agent/runs/events.py).

The loop writes to an `EventSink` (`await sink.emit(type, **payload)`); tests and benchmarks use
`ListSink` / `NullSink`. Plain Python: no Django.
"""

# No `from __future__ import annotations` here: Python 3.11 sees NotRequired only in evaluated
# annotations; postponed ones made every optional payload key a required one.
from enum import StrEnum
from typing import Any, NotRequired, Protocol, TypedDict


class EventType(StrEnum):
    RUN_STARTED = "run.started"
    STEP_STARTED = "step.started"
    MODEL_RESPONSE = "model.response"
    ANSWER_DELTA = "answer.delta"
    THOUGHT = "thought"
    TOOL_CALL = "tool.call"
    TOOL_RESULT = "tool.result"
    GUARD_REPAIR = "guard.repair"
    ESCALATION = "escalation"
    STALL = "stall"
    BUDGET_TRUNCATED = "budget.truncated"
    BUDGET_TOOLS_COMPACTED = "budget.tools_compacted"
    DRAFT_CREATED = "draft.created"
    ANSWER_CITATIONS = "answer.citations"
    RUN_CAP_REACHED = "run.cap_reached"
    RUN_FINISHED = "run.finished"
    RUN_FAILED = "run.failed"
    RUN_CANCELLED = "run.cancelled"


TERMINAL_EVENT_TYPES = frozenset({EventType.RUN_FINISHED, EventType.RUN_FAILED, EventType.RUN_CANCELLED})

# The offer at the inline step cap (the `message` of run.cap_reached; the browser shows it for a
# `continuable` run too).
CONTINUE_OFFER = "Ich habe das Schrittlimit für den Chat erreicht. Soll ich im Hintergrund weitermachen?"
TIMEOUT_OFFER = "Ich habe das Zeitlimit für den Chat erreicht. Soll ich im Hintergrund weitermachen?"


class RunStarted(TypedDict):
    mode: str
    tier: int | None
    model: str
    max_steps: int
    demo: bool
    # why the run starts on this model when that is news to the user (the demo model stands in), else ""
    note: str


class StepStarted(TypedDict):
    step: int
    max_steps: int
    label: str


class Usage(TypedDict):
    prompt_tokens: int
    completion_tokens: int


class ModelResponse(TypedDict):
    step: int
    tier: int | None
    model: str
    usage: Usage
    finish_reason: str
    tool_calls: int
    ms: int


class AnswerDelta(TypedDict):
    step: int
    text: str


class Thought(TypedDict):
    step: int
    text: str
    streamed: bool


class ToolCallEvent(TypedDict):
    step: int
    call_id: str
    tool: str
    args: dict[str, Any]
    label: str
    # what the model sent when it was no JSON object even after repair (`args` is then {}), capped
    raw_args: NotRequired[str]


class ToolResultEvent(TypedDict):
    """One shape for every result: executed, refused by the guard, or a repeated call."""

    step: int
    call_id: str
    tool: str
    ok: bool
    summary: str
    source: list[dict[str, Any]]
    cached: bool
    untrusted: bool


class GuardRepair(TypedDict):
    step: int
    what: str
    # set for a repair of one call (the guard's Repair); absent for a retry after a parser error
    kind: NotRequired[str]
    detail: NotRequired[str]
    tool: NotRequired[str]
    call_id: NotRequired[str]
    model: NotRequired[str]


class Escalation(TypedDict):
    from_tier: int | None
    to_tier: int | None
    reason: str
    # the fixed category of `reason` ("Modell nicht erreichbar", "festgefahren", …), without error text
    cause: str
    model: str
    demo: bool


class Stall(TypedDict):
    step: int
    reason: str


class BudgetTruncated(TypedDict):
    step: int
    tools: list[str]
    limit: int


class BudgetToolsCompacted(TypedDict):
    step: int
    reason: str


class DraftCreated(TypedDict):
    step: int
    call_id: str
    draft: int
    card: dict[str, Any]


class CapReached(TypedDict):
    """The offer to continue in the background, at the inline step cap or time limit."""

    max_steps: int
    message: str
    # "steps" or "time"
    limit: str


class RunEnded(TypedDict):
    """run.finished / run.failed / run.cancelled. Events written outside the loop (rate limit,
    cancel before the start, a failed start, an orphaned run) carry status, answer, error, usage."""

    status: str
    answer: str
    error: str
    usage: dict[str, int]
    finish_reason: NotRequired[str]
    continuable: NotRequired[bool]
    demo: NotRequired[bool]


class AnswerCitations(TypedDict):
    """The citation check of the final answer (recherche.citations): how many norm and decision
    citations were checked, how many are not in the corpus, and the citations themselves; the same
    for each document or note draft of the run (`entwuerfe`), and the total not in the corpus."""

    geprueft: int
    nicht_im_bestand: int
    normen: list[dict[str, Any]]
    urteile: list[dict[str, Any]]
    entwuerfe: NotRequired[list[dict[str, Any]]]
    nicht_im_bestand_gesamt: NotRequired[int]
    fehler: NotRequired[str]  # the check itself failed (exception type only): nothing was marked


PAYLOADS: dict[EventType, type] = {
    EventType.RUN_STARTED: RunStarted,
    EventType.STEP_STARTED: StepStarted,
    EventType.MODEL_RESPONSE: ModelResponse,
    EventType.ANSWER_DELTA: AnswerDelta,
    EventType.THOUGHT: Thought,
    EventType.TOOL_CALL: ToolCallEvent,
    EventType.TOOL_RESULT: ToolResultEvent,
    EventType.GUARD_REPAIR: GuardRepair,
    EventType.ESCALATION: Escalation,
    EventType.STALL: Stall,
    EventType.BUDGET_TRUNCATED: BudgetTruncated,
    EventType.BUDGET_TOOLS_COMPACTED: BudgetToolsCompacted,
    EventType.DRAFT_CREATED: DraftCreated,
    EventType.ANSWER_CITATIONS: AnswerCitations,
    EventType.RUN_CAP_REACHED: CapReached,
    EventType.RUN_FINISHED: RunEnded,
    EventType.RUN_FAILED: RunEnded,
    EventType.RUN_CANCELLED: RunEnded,
}


def terminal_event(status: str) -> EventType:
    """The event that ends a run with `status` (a RunStatus / AgentRun.Status code)."""
    if status == "CANCELLED":
        return EventType.RUN_CANCELLED
    if status in ("FAILED", "RATE_LIMITED"):
        return EventType.RUN_FAILED
    return EventType.RUN_FINISHED


def client_config(*, ws_path: str) -> dict[str, Any]:
    """What the browser's scripts take from the server instead of copying it (static/js/helena-socket.js)."""
    return {"ws_path": ws_path, "terminal": sorted(TERMINAL_EVENT_TYPES), "continue_offer": CONTINUE_OFFER}


class EventSink(Protocol):
    """Where the loop's events go: `ListSink`, `NullSink` here, `RunEventSink` in agent/runs/events.py."""

    async def emit(self, type: str, **payload: Any) -> None: ...


Event = dict[str, Any]


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
