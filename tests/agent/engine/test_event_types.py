"""Every event the loop emits is one of the defined types and carries exactly its payload
(agent/engine/events.py), whatever path the run takes."""

from __future__ import annotations

import pytest

from agent.engine.events import PAYLOADS, TERMINAL_EVENT_TYPES, EventType, client_config, terminal_event
from agent.engine.tools import ToolResult

from .support import MemoryToolBox, call, echo, ollama, run

WIRE_KEYS = {"type", "seq"}


def assert_payloads_match(events):
    for event in events:
        kind = EventType(event["type"])  # raises for an undefined type
        payload = PAYLOADS[kind]
        keys = set(event) - WIRE_KEYS
        assert payload.__required_keys__ <= keys, (kind, payload.__required_keys__ - keys)
        assert keys <= payload.__required_keys__ | payload.__optional_keys__, (kind, keys - payload.__required_keys__)


@pytest.mark.asyncio
async def test_a_run_with_tools_a_refused_call_a_repeat_a_draft_and_the_cap_emits_only_typed_payloads(scripted_llm):
    def create_draft(arguments):
        return ToolResult(data={"draft_id": 7, "typ": "Notiz", "titel": "Notiz", "vorschau": "x"})

    scripted_llm.script(
        [
            {"text": "Ich lese.", "tool_calls": [call("read_akte", id=1), call("gibt_es_nicht")]},
            {"tool_calls": [call("create_notiz", text="x")]},
            {"tool_calls": [call("read_akte", id=1)]},
            {"text": "Fertig."},
        ]
    )
    outcome, sink = await run(ollama(scripted_llm), MemoryToolBox({"read_akte": echo, "create_notiz": create_draft}), max_steps=4)

    types = set(sink.types())
    assert {
        "run.started",
        "step.started",
        "model.response",
        "tool.call",
        "tool.result",
        "thought",
        "draft.created",
        "stall",
    } <= types
    assert sink.types()[-1] in TERMINAL_EVENT_TYPES
    assert_payloads_match(sink.events)
    # refused, repeated and executed calls report their result in one shape
    assert {tuple(sorted(e)) for e in sink.of_type("tool.result")} == {
        tuple(sorted({"type", "seq", *PAYLOADS[EventType.TOOL_RESULT].__required_keys__}))
    }


@pytest.mark.asyncio
async def test_the_end_of_a_run_at_the_inline_cap_is_typed_too(scripted_llm):
    scripted_llm.script([{"tool_calls": [call("search", q="a")]}, {"text": "Bisher: a."}])
    outcome, sink = await run(ollama(scripted_llm), MemoryToolBox({"search": echo}), max_steps=1)

    assert sink.types()[-2:] == ["run.cap_reached", "run.finished"]
    assert_payloads_match(sink.events)


def test_each_status_ends_with_one_terminal_event():
    assert terminal_event("DONE") == terminal_event("CAP_REACHED") == terminal_event("STALLED") == "run.finished"
    assert terminal_event("TIMEOUT") == "run.finished"
    assert terminal_event("FAILED") == terminal_event("RATE_LIMITED") == "run.failed"
    assert terminal_event("CANCELLED") == "run.cancelled"
    assert {terminal_event(s) for s in ("DONE", "FAILED", "CANCELLED")} == TERMINAL_EVENT_TYPES


def test_the_browser_gets_the_terminal_set_and_the_continuation_text_from_the_server():
    config = client_config(ws_path="/ws/helena/")
    assert config["terminal"] == ["run.cancelled", "run.failed", "run.finished"]
    assert config["continue_offer"].endswith("Soll ich im Hintergrund weitermachen?")
    assert config["ws_path"] == "/ws/helena/"
