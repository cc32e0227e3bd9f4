"""How runs end on odd paths: a run swept as orphan while its process still lives (its heartbeat
had stopped, e.g. while the database was away) keeps its first terminal status, with no second
terminal event and no second reply; a NUL character in a model's reply does not stop the trace."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from django.db import connection

from agent.engine.events import TERMINAL_EVENT_TYPES
from agent.models import AgentRun, AgentStep, Message
from agent.runs import execution, services
from tests.factories import UserFactory


def _terminal(run: AgentRun) -> list[str]:
    steps = list(AgentStep.objects.filter(run=run).order_by("seq"))
    assert [s.seq for s in steps] == list(range(1, len(steps) + 1))
    return [s.type for s in steps if s.type in TERMINAL_EVENT_TYPES]


@pytest.mark.django_db(transaction=True)
def test_a_run_swept_as_orphan_mid_call_is_not_overwritten_by_its_late_outcome(tier1, scripted_llm):
    swept: list[int] = []

    def sweep_then_answer(body):
        # Another process's sweep sees the heartbeat as stale while the model is still answering.
        try:
            swept.append(services.runs_fail_orphaned(stale_after_seconds=0))
        finally:
            connection.close()
        return {"text": "Die Berufungsfrist beträgt einen Monat."}

    scripted_llm.script([sweep_then_answer])
    run = services.run_create(user=UserFactory(), text="Wie lang ist die Berufungsfrist?", mode="INLINE")

    finished = async_to_sync(execution.run_execute)(run.pk)

    assert swept == [1]
    run.refresh_from_db()
    assert run.status == finished.status == AgentRun.Status.FAILED
    assert run.error == services.ERR_ORPHANED and run.answer == ""
    assert _terminal(run) == ["run.failed"]
    assert list(Message.objects.filter(run=run, role=Message.Role.ASSISTANT).values_list("text", flat=True)) == [
        services.ERR_ORPHANED
    ]


@pytest.mark.django_db(transaction=True)
def test_a_nul_character_in_the_models_reply_and_tool_arguments_does_not_stop_the_trace(tier1, scripted_llm):
    scripted_llm.script(
        [
            {"tool_calls": [{"name": "search_gesetze", "arguments": {"query": "Berufung\x00sfrist"}}]},
            {"text": "Die Berufungsfrist\x00 beträgt einen Monat."},
        ]
    )
    run = services.run_create(user=UserFactory(role="ANWALT"), text="Wie lang ist die Berufungsfrist?", mode="INLINE")

    finished = async_to_sync(execution.run_execute)(run.pk)

    assert finished.status == AgentRun.Status.DONE, finished.error
    assert finished.answer.endswith("Die Berufungsfrist beträgt einen Monat.")
    assert _terminal(run) == ["run.finished"]
    call = AgentStep.objects.get(run=run, type="tool.call")
    assert call.payload["args"] == {"query": "Berufungsfrist"}
