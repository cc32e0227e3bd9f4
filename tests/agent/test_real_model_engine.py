"""The whole engine with a real model: no tier configured and no Ollama, so the run goes to the
embedded demo model (SmolLM2-135M-Instruct through the llama.cpp server), asks a German question
about a demo Akte, calls a real tool, answers, and leaves a complete trace."""

from __future__ import annotations

import datetime

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone

pytest.importorskip("llama_cpp", reason="llama-cpp-python[server] ist nicht installiert (make test installiert es)")

from agent.llm.demo import stop_demo_server  # noqa: E402
from agent.models import AgentStep, ToolCallAudit  # noqa: E402
from agent.runs import execution, services
from akten.models import KalenderEintrag  # noqa: E402
from tests.factories import AkteFactory, KalenderEintragFactory  # noqa: E402


@pytest.fixture
def demo_server_stopped_afterwards():
    yield
    stop_demo_server()


@pytest.mark.django_db(transaction=True)
def test_german_question_on_a_demo_akte_runs_through_the_engine_with_the_real_model(demo_server_stopped_afterwards):
    akte = AkteFactory(kurzrubrum="Müller ./. Schmidt", wegen="Räumung und Mietrückstand")
    KalenderEintragFactory(
        akte=akte,
        typ=KalenderEintrag.Typ.FRIST,
        titel="Klageerwiderung",
        fristablauf=timezone.localdate() + datetime.timedelta(days=5),
    )
    run = services.run_create(
        user=akte.anwalt, text=f"Welche Fristen laufen in der Akte {akte.aktenzeichen}?", akte=akte, mode="BACKGROUND"
    )

    run = async_to_sync(execution.run_execute)(run.pk)

    events = list(AgentStep.objects.filter(run=run).order_by("seq").values_list("type", "payload"))
    types = [t for t, _ in events]
    assert types[0] == "run.started" and types[-1] == "run.finished", (types, run.status, run.error)
    started = events[0][1]
    # no tier at all: the demo model answers from the start, says why, with its own limits
    assert started["demo"] is True and "Demo-Modell antwortet" in started["note"]
    assert started["max_steps"] <= execution.DEMO_MAX_STEPS and "escalation" not in types
    assert not any(p.get("text", "").lstrip().startswith("functions.") for t, p in events if t == "answer.delta")
    calls = [p for t, p in events if t == "tool.call"]
    results = [p for t, p in events if t == "tool.result"]
    # the call is written under the demo grammar: the Fristen tool for the Akte of the question,
    # which really runs and finds the Frist
    assert [(c["tool"], c["args"]) for c in calls] == [("read_fristen", {"akte": akte.aktenzeichen})]
    assert [(r["call_id"], r["ok"]) for r in results] == [(calls[0]["call_id"], True)]
    assert ToolCallAudit.objects.filter(run=run).count() == 1
    assert run.status == "DONE" and run.answer.strip()
    assert "{" not in run.answer and not run.answer.lstrip().startswith("functions.")
    assert run.model_calls >= 2 and run.tool_calls >= 1 and run.tokens_in > 0
    assert "Demo" in run.model_name or "SmolLM2" in run.model_name
