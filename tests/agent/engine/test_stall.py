"""Stall shapes, pure, and each shape through the loop against the scripted server."""

from __future__ import annotations

import pytest

from agent.engine.loop import RunStatus
from agent.engine.stall import NUDGE, StallDetector, StallReason, canonical_call
from agent.engine.tools import ToolResult

from .support import MemoryToolBox, call, echo, ollama, run, tools_sent


def detector() -> StallDetector:
    return StallDetector(known_tools={"read_akte", "search"})


def test_same_call_twice_is_a_repeat_even_with_other_key_order_case_and_spaces():
    d = detector()
    assert d.check_call("search", {"q": "Miete", "limit": 5}) is None
    assert d.check_call("read_akte", {"id": 1}) is None
    assert d.check_call("read_akte", {"id": 2}) is None
    assert d.check_call("search", {"limit": 5, "q": " miete "}) == StallReason.REPEAT


def test_a_b_a_is_recognised_as_oscillation():
    d = detector()
    assert d.check_call("search", {"q": "a"}) is None
    assert d.check_call("read_akte", {"id": 1}) is None
    assert d.check_call("search", {"q": "a"}) == StallReason.OSCILLATION


def test_three_identical_results_in_a_row():
    d = detector()
    assert d.observe_result("[]") is None
    assert d.observe_result("[]") is None
    assert d.observe_result("[]") == StallReason.SAME_RESULT


def test_two_identical_results_then_another_are_fine():
    d = detector()
    for text in ("[]", "[]", "[1]", "[]"):
        assert d.observe_result(text) is None


def test_unknown_tool_twice():
    d = detector()
    assert d.check_call("lies_alles", {}) is None
    assert d.check_call("frag_google", {}) == StallReason.UNKNOWN_TOOLS


def test_legitimately_different_arguments_are_not_a_stall():
    d = detector()
    for akte_id in range(1, 8):
        assert d.check_call("read_akte", {"id": akte_id}) is None
        assert d.observe_result(f'{{"akte": {akte_id}}}') is None


def test_canonical_call_ignores_nulls_and_key_order():
    assert canonical_call("s", {"a": 1, "b": None, "c": "X"}) == canonical_call("s", {"c": "x", "a": 1})


def constant(arguments):
    return ToolResult(data=[])


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("shape", "script", "tools", "reason"),
    [
        (
            "repeat",
            [{"tool_calls": [call("search", q="Miete")]}, {"tool_calls": [call("search", q="Miete")]}],
            {"search": echo},
            "gleicher Werkzeugaufruf",
        ),
        (
            "oscillation",
            [
                {"tool_calls": [call("search", q="a")]},
                {"tool_calls": [call("read_akte", id=1)]},
                {"tool_calls": [call("search", q="a")]},
            ],
            {"search": echo, "read_akte": echo},
            "Pendeln",
        ),
        (
            "same_result",
            [{"tool_calls": [call("search", q=q)]} for q in ("a", "b", "c")],
            {"search": constant},
            "dreimal hintereinander",
        ),
        (
            "unknown_tools",
            [{"tool_calls": [call("lies_alles")]}, {"tool_calls": [call("frag_google")]}],
            {"search": echo},
            "unbekannte Werkzeuge",
        ),
    ],
)
async def test_every_stall_shape_ends_with_the_nudge_and_a_tool_free_answer(scripted_llm, shape, script, tools, reason):
    scripted_llm.script([*script, {"text": "Meine beste Antwort."}])

    outcome, sink = await run(ollama(scripted_llm), MemoryToolBox(tools), max_steps=10)

    assert outcome.status == RunStatus.STALLED, shape
    assert reason in outcome.finish_reason
    assert outcome.answer == "Meine beste Antwort."
    final = scripted_llm.chat_requests[-1].body
    assert not tools_sent(final)
    assert final["messages"][-1] == {"role": "user", "content": NUDGE}
    assert reason in sink.of_type("stall")[0]["reason"]
    assert len(scripted_llm.chat_requests) == len(script) + 1


@pytest.mark.asyncio
async def test_different_akte_ids_run_to_the_end(scripted_llm):
    scripted_llm.script([*({"tool_calls": [call("read_akte", id=i)]} for i in range(1, 5)), {"text": "Vier Akten gelesen."}])
    outcome, _ = await run(ollama(scripted_llm), MemoryToolBox({"read_akte": echo}), max_steps=10)
    assert outcome.status == RunStatus.DONE and outcome.tool_calls == 4


@pytest.mark.asyncio
async def test_repeated_call_is_not_executed_again(scripted_llm):
    scripted_llm.script([{"tool_calls": [call("search", q="x")]}, {"tool_calls": [call("search", q="x")]}, {"text": "Ende."}])
    tools = MemoryToolBox({"search": echo})
    outcome, _ = await run(ollama(scripted_llm), tools)
    assert len(tools.executed) == 1 and outcome.tool_calls == 1
