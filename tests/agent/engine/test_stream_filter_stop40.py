"""The stream filter: a reply that is a tool call written as text (`name({...})`, `name: {...}`,
`functions.name: {...}`) is never streamed to the browser as answer text, whether the guard turns
it into a call or the loop rejects it; a normal answer still streams."""

from __future__ import annotations

import pytest

from agent.engine.loop import RunStatus

from .support import MemoryToolBox, echo, ollama, openai, run

pytestmark = pytest.mark.asyncio

ANSWER = "Die Berufungsfrist beträgt einen Monat ab Zustellung des vollständig abgefassten Urteils (§ 517 ZPO)."


def _streamed(sink) -> str:
    return "".join(e["text"] for e in sink.of_type("answer.delta"))


@pytest.mark.parametrize(
    "chunks",
    [
        ["lies_", "akte(", '{"akte": ', '"12/25"})'],
        ["lies_akte", ": ", '{"akte": "12/25", ', '"teil": "Fristen und Termine der Akte"}'],
        ["  lies_akte ", '({"akte": "12/25 Sommer ./. Winter wegen Mietzahlung"})'],
    ],
    ids=["parenthesis", "colon", "leading-space"],
)
@pytest.mark.parametrize("client", [ollama, openai], ids=["ollama", "openai"])
async def test_a_call_of_an_unknown_tool_written_as_text_is_not_streamed(scripted_llm, client, chunks):
    scripted_llm.script([{"text": "".join(chunks), "chunks": chunks}])

    outcome, sink = await run(client(scripted_llm), MemoryToolBox({"read_akte": echo}))

    assert outcome.status == RunStatus.FAILED and not outcome.answer
    assert not sink.of_type("answer.delta"), _streamed(sink)


async def test_a_call_of_a_known_tool_written_as_text_is_run_not_streamed_and_the_answer_streams(scripted_llm):
    chunks = ["read_akte(", '{"akte": "12/25", "teil": "Fristen und Termine der Akte Sommer"})']
    scripted_llm.script([{"text": "".join(chunks), "chunks": chunks}, {"text": ANSWER}])
    tools = MemoryToolBox({"read_akte": echo})

    outcome, sink = await run(ollama(scripted_llm), tools)

    assert outcome.status == RunStatus.DONE and outcome.answer == ANSWER
    assert [name for name, *_ in tools.executed] == ["read_akte"]
    assert _streamed(sink) == ANSWER
    assert all("read_akte" not in e["text"] and "{" not in e["text"] for e in sink.of_type("answer.delta"))


@pytest.mark.parametrize(
    "text",
    [ANSWER, "Fristen: Die Berufungsfrist (§ 517 ZPO) läuft einen Monat; {Klammern} im Text stören nicht."],
    ids=["sentence", "name-then-colon-prose"],
)
async def test_a_normal_answer_still_streams(scripted_llm, text):
    scripted_llm.script([{"text": text}])

    outcome, sink = await run(ollama(scripted_llm), MemoryToolBox({"read_akte": echo}))

    assert outcome.status == RunStatus.DONE and outcome.answer == text
    assert len(sink.of_type("answer.delta")) >= 1 and _streamed(sink) == text


@pytest.mark.parametrize(
    "text",
    [
        "Betreff: {Aktenzeichen}\n\nSehr geehrte Damen und Herren, anbei die Vorlage mit Platzhaltern.",
        "Antwort: {Ja}, die Frist läuft noch.",
    ],
    ids=["letter-placeholder", "braces-after-colon"],
)
async def test_an_answer_with_a_placeholder_in_braces_is_an_answer(scripted_llm, text):
    """A name, a colon and a brace was taken for a call written as text: a letter template with
    placeholders ended FAILED ("Werkzeugaufruf als Text"). A call's arguments are a JSON object."""
    scripted_llm.script([{"text": text}])

    outcome, sink = await run(ollama(scripted_llm), MemoryToolBox({"read_akte": echo}))

    assert outcome.status == RunStatus.DONE and outcome.answer == text
    assert _streamed(sink) == text
