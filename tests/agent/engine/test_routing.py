"""Routing: the classifier table, the tier router, escalation in the loop, the response guard."""

from __future__ import annotations

import socket

import pytest

from agent.engine.loop import DEMO_NOTE, RunStatus
from agent.engine.routing import (
    BACKGROUND,
    INLINE,
    Route,
    TaskType,
    TierRouter,
    apply_user_choice,
    classify_rules,
    classify_with_llm,
)
from tests.support.scripted_llm import OLLAMA_TOOL_PARSER_ERROR

from .support import MemoryToolBox, call, echo, ollama, openai, run

CLASSIFIER_TABLE = [
    ("Wann läuft die Frist in 12/25 ab?", TaskType.FRAGE, INLINE, 1),
    ("Prüfe die Erfolgsaussichten der Berufung", TaskType.PRUEFUNG, INLINE, 2),
    ("pruefe die Kündigung auf Formfehler", TaskType.PRUEFUNG, INLINE, 2),
    ("Bitte überprüfe den Mietvertrag", TaskType.PRUEFUNG, INLINE, 2),
    ("Entwirf einen Schriftsatz zur Klageerwiderung", TaskType.SCHRIFTSATZ, BACKGROUND, 2),
    ("schriftsaetze fuer die Berufung vorbereiten", TaskType.SCHRIFTSATZ, BACKGROUND, 2),
    ("Recherchiere Rechtsprechung zu § 573 BGB", TaskType.RECHERCHE, BACKGROUND, 2),
    ("Vergleiche die beiden Gutachten", TaskType.VERGLEICH, BACKGROUND, 2),
    ("Erstelle eine Wiedervorlage für Freitag", TaskType.ENTWURF, INLINE, 1),
    ("Lege eine Frist für die Stellungnahme an", TaskType.ENTWURF, INLINE, 1),
    ("Was steht in der Akte? " + "Details " * 100, TaskType.FRAGE, BACKGROUND, 2),
]


@pytest.mark.parametrize(("text", "task_type", "mode", "tier"), CLASSIFIER_TABLE)
def test_classifier_table(text, task_type, mode, tier):
    result = classify_rules(text)
    assert (result.task_type, result.mode, result.tier) == (task_type, mode, tier)


def test_explicit_user_choice_overrides_the_classifier():
    heavy = classify_rules("Recherchiere Rechtsprechung zur Mietminderung")
    chosen = apply_user_choice(heavy, mode="INLINE", tier=1)
    assert (chosen.mode, chosen.tier, chosen.task_type) == (INLINE, 1, TaskType.RECHERCHE)
    assert apply_user_choice(heavy, mode=None, tier=None) == heavy


@pytest.mark.asyncio
async def test_llm_classifier_on_tier_1_and_its_fallback(scripted_llm):
    scripted_llm.script([{"text": '{"typ": "SCHRIFTSATZ", "komplex": true}'}, {"text": "keine Ahnung"}])
    by_llm = await classify_with_llm("Kannst du mir helfen?", ollama(scripted_llm))
    assert (by_llm.task_type, by_llm.mode, by_llm.tier) == (TaskType.SCHRIFTSATZ, BACKGROUND, 2)
    fallback = await classify_with_llm("Kannst du mir helfen?", ollama(scripted_llm))
    assert fallback == classify_rules("Kannst du mir helfen?")


class _Client:
    def __init__(self, name):
        self.model, self.context_window = name, 8192


def test_router_skips_outage_only_routes_unless_unreachable():
    routes = [
        Route(client=_Client("t1"), tier=1),
        Route(client=_Client("demo"), tier=1, demo=True, outage_only=True),
        Route(client=_Client("t2"), tier=2),
    ]
    router = TierRouter(routes)
    assert router.escalate(outage=False).client.model == "t2"
    assert router.escalate(outage=True) is None
    router = TierRouter(routes)
    assert router.escalate(outage=True).client.model == "demo"


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class _Down:
    url = closed_port_url()


@pytest.mark.asyncio
async def test_provider_down_escalates_to_the_next_tier_and_continues(scripted_llm):
    scripted_llm.script([{"tool_calls": [call("search", q="a")]}, {"text": "Antwort von Stufe 2."}])
    router = TierRouter([Route(client=ollama(_Down, timeout=2), tier=1), Route(client=openai(scripted_llm), tier=2)])

    outcome, sink = await run(router, MemoryToolBox({"search": echo}))

    assert outcome.status == RunStatus.DONE and outcome.tier == 2
    escalation = sink.of_type("escalation")[0]
    assert (escalation["from_tier"], escalation["to_tier"]) == (1, 2)
    assert "nicht erreichbar" in escalation["reason"]
    assert escalation["cause"] == "Modell nicht erreichbar"  # the category alone, for the operators' log


@pytest.mark.asyncio
async def test_all_local_tiers_down_uses_the_demo_model_marked_as_demo(scripted_llm):
    scripted_llm.script([{"text": "Demo-Antwort."}])
    router = TierRouter(
        [Route(client=ollama(_Down, timeout=2), tier=1), Route(client=ollama(scripted_llm), tier=1, demo=True, outage_only=True)]
    )
    outcome, sink = await run(router, MemoryToolBox({"search": echo}))
    assert outcome.status == RunStatus.DONE and outcome.demo
    assert outcome.answer == "Demo-Antwort." + DEMO_NOTE
    assert sink.events[-1]["demo"] is True


@pytest.mark.asyncio
async def test_the_demo_model_takes_over_with_one_clear_line_its_own_prompt_and_compact_tools(scripted_llm):
    scripted_llm.script([{"text": "Demo-Antwort."}])
    compact = "Du bist Helena (Demo). Antworte kurz."
    demo = Route(client=ollama(scripted_llm), tier=1, demo=True, outage_only=True, system_prompt=compact)
    tools = MemoryToolBox({"search": echo})
    outcome, sink = await run(TierRouter([Route(client=ollama(_Down, timeout=2), tier=1), demo]), tools)

    assert outcome.status == RunStatus.DONE and outcome.demo
    (escalation,) = sink.of_type("escalation")
    assert escalation["reason"] == "Stufe 1 nicht erreichbar – das eingebaute Demo-Modell antwortet."
    assert escalation["demo"] is True and escalation["model"] == "scripted-model"
    sent = scripted_llm.chat_requests[-1].body
    assert sent["messages"][0] == {"role": "system", "content": compact}
    assert sent["tools"][0]["function"]["description"] == "Testwerkzeug search"


@pytest.mark.asyncio
async def test_a_run_that_starts_on_the_demo_model_says_why_once(scripted_llm):
    scripted_llm.script([{"text": "Demo-Antwort."}])
    note = "Kein Ollama erreichbar – das eingebaute Demo-Modell antwortet."
    demo = Route(client=ollama(scripted_llm), tier=1, demo=True, system_prompt="Kurz.", note=note)
    outcome, sink = await run(TierRouter([demo]), MemoryToolBox({"search": echo}))

    assert outcome.status == RunStatus.DONE
    started = sink.of_type("run.started")[0]
    assert started["note"] == note and started["demo"] is True
    assert not sink.of_type("escalation")
    assert scripted_llm.chat_requests[0].body["messages"][0]["content"] == "Kurz."


@pytest.mark.asyncio
async def test_tool_parser_500_is_retried_once_then_escalated(scripted_llm):
    parser_500 = {"status": 500, "error": OLLAMA_TOOL_PARSER_ERROR}
    scripted_llm.script([parser_500, {"tool_calls": [call("search", q="a")]}, parser_500, parser_500, {"text": "Stufe 2."}])
    router = TierRouter([Route(client=ollama(scripted_llm), tier=1), Route(client=ollama(scripted_llm), tier=2)])

    outcome, sink = await run(router, MemoryToolBox({"search": echo}))

    assert outcome.status == RunStatus.DONE and outcome.tier == 2
    assert len(sink.of_type("escalation")) == 1
    assert sum("Parserfehler" in e["what"] for e in sink.of_type("guard.repair")) == 2


@pytest.mark.asyncio
async def test_stall_escalates_and_continues_from_the_same_transcript(scripted_llm):
    scripted_llm.script(
        [
            {"tool_calls": [call("search", q="a")]},
            {"tool_calls": [call("search", q="a")]},
            {"text": "Die große Stufe antwortet."},
        ]
    )
    router = TierRouter([Route(client=ollama(scripted_llm), tier=1), Route(client=ollama(scripted_llm), tier=2)])

    outcome, sink = await run(router, MemoryToolBox({"search": echo}))

    assert outcome.status == RunStatus.DONE and outcome.tier == 2
    assert "festgefahren" in sink.of_type("escalation")[0]["reason"]
    third = scripted_llm.chat_requests[2].body["messages"]
    assert [m["role"] for m in third] == ["system", "user", "assistant", "tool", "assistant", "tool"]


@pytest.mark.asyncio
async def test_guard_repairs_broken_arguments_and_records_it(scripted_llm):
    scripted_llm.script([{"tool_calls": [{"name": "search", "arguments": "{'q': 'Müller’s Miete',}"}]}, {"text": "Gefunden."}])
    tools = MemoryToolBox({"search": echo})
    outcome, sink = await run(openai(scripted_llm), tools)
    assert outcome.status == RunStatus.DONE
    assert tools.executed[0][1] == {"q": "Müller’s Miete"}
    assert sink.of_type("guard.repair") and outcome.repairs >= 1


@pytest.mark.asyncio
async def test_guard_recovers_a_call_written_as_text(scripted_llm):
    scripted_llm.script(
        [
            {"text": '```json\n{"name": "search", "arguments": {"q": "§ 193 BGB"}}\n```'},
            {"text": "§ 193 BGB verschiebt das Fristende."},
        ]
    )
    tools = MemoryToolBox({"search": echo})
    outcome, sink = await run(ollama(scripted_llm), tools)
    assert outcome.status == RunStatus.DONE and tools.executed[0][1] == {"q": "§ 193 BGB"}
    assert not sink.of_type("answer.delta")[:1] or "```" not in sink.of_type("answer.delta")[0]["text"]


@pytest.mark.asyncio
async def test_validation_errors_go_back_twice_then_escalate(scripted_llm):
    broken = {"tool_calls": [{"name": "search", "arguments": "{q: [unklar"}]}
    scripted_llm.script([broken, broken, broken, {"text": "Stufe 2 übernimmt."}])
    router = TierRouter([Route(client=openai(scripted_llm), tier=1), Route(client=openai(scripted_llm), tier=2)])

    outcome, sink = await run(router, MemoryToolBox({"search": echo}), max_steps=10)

    assert outcome.status == RunStatus.DONE and outcome.tier == 2
    assert sink.of_type("escalation")[0]["reason"] == "wiederholt ungültige Werkzeugaufrufe"
    second = scripted_llm.chat_requests[1].body["messages"]
    assert "kein gültiges JSON" in second[-1]["content"]


@pytest.mark.asyncio
async def test_validation_errors_without_a_next_tier_end_stalled_with_an_answer(scripted_llm):
    broken = {"tool_calls": [{"name": "search", "arguments": "{q: [unklar"}]}
    scripted_llm.script([broken, broken, broken, {"text": "Ich konnte nicht suchen."}])
    outcome, _ = await run(openai(scripted_llm), MemoryToolBox({"search": echo}), max_steps=10)
    assert outcome.status == RunStatus.STALLED and outcome.answer == "Ich konnte nicht suchen."


@pytest.mark.asyncio
async def test_cloud_responses_skip_the_local_guard(scripted_llm):
    scripted_llm.script([{"text": '{"name": "search", "arguments": {"q": "x"}}'}])
    router = TierRouter([Route(client=openai(scripted_llm), tier=3, local=False)])
    outcome, _ = await run(router, MemoryToolBox({"search": echo}))
    # not turned into a call (no guard for the cloud); and a call as text is no answer either
    assert outcome.tool_calls == 0
    assert outcome.status == RunStatus.FAILED and outcome.answer == ""


class _Broken:
    model, context_window = "kaputt", 8192

    async def chat(self, messages, *, tools=None, on_delta=None):
        raise AttributeError("module 'x' has no attribute 'y'")


@pytest.mark.asyncio
async def test_a_client_breaking_its_contract_is_escalated_like_a_provider_error(scripted_llm):
    scripted_llm.script([{"text": "Stufe 2 antwortet.", "usage": (0, 0)}])
    router = TierRouter([Route(client=_Broken(), tier=1), Route(client=ollama(scripted_llm), tier=2)])
    outcome, sink = await run(router, MemoryToolBox({"search": echo}))
    assert outcome.status == RunStatus.DONE and outcome.tier == 2
    assert "AttributeError" in sink.of_type("escalation")[0]["reason"]
    # the server reported no usage: the engine counted it
    assert outcome.tokens_in > 0 and outcome.tokens_out > 0


@pytest.mark.asyncio
async def test_an_overloaded_server_is_asked_again_after_a_pause_then_the_run_fails_with_a_logged_cause(scripted_llm, caplog):
    """Review of stop 34: HTTP 429 ended the run FAILED at once, and nothing kept why."""
    overloaded = {"status": 429, "error": {"error": "Too Many Requests for Mandantin Erika Muster"}}
    scripted_llm.script([overloaded, {"text": "Nach der Pause."}])
    outcome, sink = await run(ollama(scripted_llm), MemoryToolBox({}))
    assert outcome.status == RunStatus.DONE and outcome.answer.startswith("Nach der Pause.")
    assert any("überlastet" in e["what"] for e in sink.of_type("guard.repair"))

    scripted_llm.script([overloaded, overloaded])
    with caplog.at_level("WARNING", logger="agent.engine.loop"):
        outcome, _sink = await run(ollama(scripted_llm), MemoryToolBox({}))
    assert outcome.status == RunStatus.FAILED
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "HTTP 429" in logged and "überlastet" in logged
    assert "Erika" not in logged  # the server's text (may repeat the prompt) is never logged
