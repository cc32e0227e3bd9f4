"""The chat without any model server, as a new user meets it: the embedded demo model answers at
once, says what it is, gets its compact prompt and few tools, and a run that ends at the time
limit keeps what was shown and offers to go on in the background (issue 15, sections 1 and 2)."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from agent.llm.ollama import OllamaClient
from agent.models import AgentRun, EngineConfig, TierConfig
from agent.runs import routes as run_routes
from tests.factories import AkteFactory

from .conftest import is_terminal, receive_until, ws_connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def _dead_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.fixture
def no_ollama(scripted_llm: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The default local tiers point at an address where nothing listens; the 'demo model' is the
    scripted server (the real one is tested in tests/agent/test_real_model*.py)."""
    TierConfig.objects.all().delete()
    for tier in (1, 2):
        TierConfig.objects.create(tier=tier, name=f"Stufe {tier}", model="qwen2.5:7b", base_url=_dead_url(), enabled=True)

    class ScriptedDemo(OllamaClient):
        is_demo = True

        def __init__(self, *, aktenzeichen: str | None = None) -> None:
            super().__init__(model="SmolLM2-135M-Instruct", host=scripted_llm.url, context_window=8192, timeout=20)

    monkeypatch.setattr(run_routes, "DemoClient", ScriptedDemo)
    return scripted_llm


async def test_without_ollama_the_demo_model_answers_at_once_and_says_so(no_ollama):
    akte = await sync_to_async(AkteFactory)(kurzrubrum="Sommer ./. Winter")
    no_ollama.script(
        [
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
            {"text": "Die Akte betrifft Sommer ./. Winter."},
        ]
    )
    async with ws_connect(akte.anwalt) as (comm, _c, _code):
        await comm.send_json_to({"type": "chat.send", "text": "Worum geht es in der Akte?", "akte": akte.pk, "mode": "INLINE"})
        await comm.receive_json_from(timeout=10)
        events = await receive_until(comm, is_terminal, within=60)

    started = events[0]
    assert started["type"] == "run.started" and started["demo"] is True
    assert started["model"] == "SmolLM2-135M-Instruct"
    assert started["note"] == "Kein Ollama erreichbar – das eingebaute Demo-Modell antwortet."
    assert not [e for e in events if e["type"] == "escalation"]
    assert [e["tool"] for e in events if e["type"] == "tool.call"] == ["read_akte"]
    final = events[-1]
    assert final["type"] == "run.finished" and final["status"] == "DONE" and final["demo"] is True
    assert "Demo-Modell" in final["answer"]
    first = no_ollama.chat_requests[0].body
    system = first["messages"][0]["content"]
    assert len(system) < 1200, "a compact prompt for a 135M model, not the full persona"
    assert akte.aktenzeichen in system
    assert {t["function"]["name"] for t in first["tools"]} <= run_routes.DEMO_TOOLS
    assert len(str(first["tools"])) < 3000
    run = await sync_to_async(AgentRun.objects.get)(pk=final["run"])
    assert run.model_name == "SmolLM2-135M-Instruct"


async def test_a_time_limit_keeps_the_streamed_text_and_offers_the_background(scripted_tier, scripted_llm, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    config = await sync_to_async(EngineConfig.load)()
    config.inline_timeout_seconds = 2
    await sync_to_async(config.save)()
    shown = "Die Kündigungsfrist für den Mieter beträgt drei Monate (§ 573c BGB). "
    scripted_llm.script([{"text": shown + "Für den Vermieter …", "chunks": [shown, "Für den Vermieter …"], "chunk_delay": 10.0}])
    akte = await sync_to_async(AkteFactory)()
    async with ws_connect(akte.anwalt) as (comm, _c, _code):
        await comm.send_json_to({"type": "chat.send", "text": "Wie lang ist die Kündigungsfrist?", "mode": "INLINE"})
        accepted = await comm.receive_json_from(timeout=10)
        events = await receive_until(comm, is_terminal, within=60)
        final = events[-1]
        assert final["status"] == "TIMEOUT" and final["continuable"] is True
        assert shown.strip() in final["answer"]
        assert "noch kein Ergebnis" not in final["answer"]
        offer = next(e for e in events if e["type"] == "run.cap_reached")
        assert "Zeitlimit" in offer["message"]
        scripted_llm.script([{"text": "Für den Vermieter hängt sie von der Mietdauer ab."}])
        await comm.send_json_to({"type": "run.continue_background", "run": accepted["run"]})
        reply = await comm.receive_json_from(timeout=10)
    assert reply["type"] != "error", reply
    continuation = await sync_to_async(AgentRun.objects.get)(continued_from_id=accepted["run"])
    assert continuation.mode == AgentRun.Mode.BACKGROUND
