"""Runs that end from outside end honestly: a run whose task its own process cancels (shutdown)
FAILED, unless its user had asked to stop; what was streamed stays, marked as cut off; every
`tool.call` of the trace gets its `tool.result`, also when the orphan sweep ends the run."""

from __future__ import annotations

import asyncio
import datetime
import time
from collections.abc import Callable

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.utils import timezone

from agent.engine.events import ListSink
from agent.engine.loop import (
    ERR_PROCESS_STOPPED,
    INTERRUPTED,
    PROCESS_CUT,
    Limits,
    run_agent,
)
from agent.engine.tools import ToolResult
from agent.models import AgentRun, AgentStep, Message, ToolCallAudit
from agent.runs import execution, services
from tests.agent.engine.support import MemoryToolBox, call, ollama, start_transcript
from tests.factories import UserFactory

DB = pytest.mark.django_db(transaction=True)
PARTIAL = "Die Berufungsfrist beträgt einen Monat ab Zustellung des vollständig abgefassten Urteils (§ 517 ZPO). "


def _wait_for_step(run_id: int, type: str) -> None:
    """Wait (in a thread) until the run's trace has an event of `type`."""
    try:
        for _ in range(200):
            if AgentStep.objects.filter(run_id=run_id, type=type).exists():
                return
            time.sleep(0.05)
        raise AssertionError(f"no {type} event")
    finally:
        connection.close()


def _request_cancel_in_db(run_id: int) -> None:
    try:
        AgentRun.objects.filter(pk=run_id).update(cancel_requested=True)
    finally:
        connection.close()


def _stop_by_process(run: AgentRun, *, user_asked: bool = False, when: Callable[[], object] | None = None) -> None:
    """Execute `run` as a task, cancel the task (the process shutting down, as a worker's event loop
    does on exit) once `when` returns: by default once an answer fragment is streamed."""

    async def scenario() -> None:
        task = asyncio.create_task(execution.run_execute(run.pk))
        await asyncio.to_thread(when or (lambda: _wait_for_step(run.pk, "answer.delta")))
        if user_asked:
            await asyncio.to_thread(_request_cancel_in_db, run.pk)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    async_to_sync(scenario)()


def _types(run: AgentRun) -> list[str]:
    return list(AgentStep.objects.filter(run=run).order_by("seq").values_list("type", flat=True))


@DB
def test_a_run_its_process_stops_fails_honestly_and_keeps_what_was_streamed_marked(tier1, scripted_llm):
    scripted_llm.script([{"chunks": [PARTIAL, "Sie ist eine Notfrist ", "und nicht verlängerbar."], "chunk_delay": 10}])
    run = services.run_create(user=UserFactory(), text="Wie lang ist die Berufungsfrist?", mode="INLINE")

    _stop_by_process(run)

    run.refresh_from_db()
    assert (run.status, run.cancel_requested) == (AgentRun.Status.FAILED, False)
    assert run.error == ERR_PROCESS_STOPPED and run.error.startswith("Der Auftrag wurde unterbrochen")
    assert run.answer.endswith(PROCESS_CUT) and PARTIAL.strip() in run.answer
    reply = Message.objects.get(run=run, role=Message.Role.ASSISTANT).text
    assert reply == run.answer and reply != execution.REPLY_CANCELLED
    steps = list(AgentStep.objects.filter(run=run).order_by("seq"))
    assert steps[-1].type == "run.failed"
    assert steps[-1].payload["error"] == ERR_PROCESS_STOPPED and steps[-1].payload["answer"] == run.answer
    assert "run.cancelled" not in _types(run)


@DB
def test_a_run_its_process_stops_before_any_answer_fails_without_an_answer(tier1, scripted_llm):
    scripted_llm.script([{"chunks": ["Ja"], "delay": 10}])
    run = services.run_create(user=UserFactory(), text="Wie lang ist die Berufungsfrist?", mode="INLINE")

    _stop_by_process(run, when=lambda: scripted_llm.wait_for_requests(1))

    run.refresh_from_db()
    assert (run.status, run.answer, run.error) == (AgentRun.Status.FAILED, "", ERR_PROCESS_STOPPED)
    assert Message.objects.get(run=run, role=Message.Role.ASSISTANT).text == ERR_PROCESS_STOPPED
    assert _types(run)[-1] == "run.failed"


@DB
def test_a_run_its_process_stops_after_its_user_asked_to_stop_is_cancelled(tier1, scripted_llm):
    scripted_llm.script([{"chunks": [PARTIAL, "Sie ist eine Notfrist."], "chunk_delay": 10}])
    run = services.run_create(user=UserFactory(), text="Wie lang ist die Berufungsfrist?", mode="INLINE")

    _stop_by_process(run, user_asked=True)

    run.refresh_from_db()
    assert (run.status, run.error) == (AgentRun.Status.CANCELLED, "")
    assert run.answer.startswith(PARTIAL.strip()) and PROCESS_CUT not in run.answer
    assert _types(run)[-1] == "run.cancelled"


def test_a_process_stop_during_a_tool_call_still_pairs_the_call_with_a_result(scripted_llm):
    started = asyncio.Event()

    async def slow(_arguments):
        started.set()
        await asyncio.sleep(30)
        return ToolResult(data={})

    scripted_llm.script([{"tool_calls": [call("lies_akte")]}])
    tools = MemoryToolBox({"lies_akte": slow})
    sink = ListSink()

    async def scenario() -> None:
        task = asyncio.create_task(
            run_agent(transcript=start_transcript(), model=ollama(scripted_llm), tools=tools, sink=sink, limits=Limits(5, 60))
        )
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())

    types = sink.types()
    assert types[-3:] == ["tool.call", "tool.result", "run.failed"]
    result = sink.of_type("tool.result")[0]
    assert (result["ok"], result["summary"]) == (False, INTERRUPTED)
    assert sink.events[-1]["finish_reason"] and sink.events[-1]["error"] == ERR_PROCESS_STOPPED


# -- the orphan sweep ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_orphan_sweep_closes_open_tool_calls_before_the_terminal_event():
    run = services.run_create(user=UserFactory(), text="Welche Fristen laufen?")
    old = timezone.now() - datetime.timedelta(minutes=5)
    AgentRun.objects.filter(pk=run.pk).update(status="RUNNING", started_at=old, heartbeat_at=old)
    rows = [
        ("run.started", {"mode": "inline", "tier": 1, "model": "m", "max_steps": 5, "demo": False, "note": ""}),
        ("step.started", {"step": 1, "max_steps": 5, "label": "Schritt 1/5"}),
        ("tool.call", {"step": 1, "call_id": "c1", "tool": "read_fristen", "args": {}, "label": "Fristen"}),
        ("tool.call", {"step": 1, "call_id": "c2", "tool": "read_akte", "args": {}, "label": "Akte"}),
        (
            "tool.result",
            {
                "step": 1,
                "call_id": "c1",
                "tool": "read_fristen",
                "ok": True,
                "summary": "2 Treffer",
                "source": [],
                "cached": False,
                "untrusted": False,
            },
        ),
    ]
    # a call the engine refused (repeated) has its result but never reached the tools: no audit row
    refused = {"step": 1, "call_id": "c3", "tool": "read_fristen", "args": {}, "label": "Fristen"}
    rows.insert(4, ("tool.call", refused))
    rows.append(("tool.result", {**rows[-1][1], "call_id": "c3", "ok": False, "summary": "wiederholt", "cached": True}))
    for seq, (type, payload) in enumerate(rows, start=1):
        AgentStep.objects.create(run=run, seq=seq, type=type, payload=payload)
    ToolCallAudit.objects.create(run=run, user=run.user, tool="read_fristen", call_id="c1", summary="2 Treffer")

    assert services.runs_fail_orphaned(stale_after_seconds=60) == 1

    steps = list(AgentStep.objects.filter(run=run).order_by("seq"))
    assert [s.type for s in steps][-2:] == ["tool.result", "run.failed"]
    closing = steps[-2].payload
    assert (closing["call_id"], closing["tool"], closing["ok"], closing["step"]) == ("c2", "read_akte", False, 1)
    assert closing["summary"] == INTERRUPTED and closing["source"] == []
    terminal = steps[-1].payload
    assert terminal["finish_reason"] == "Prozess nicht mehr erreichbar"
    assert (terminal["status"], terminal["error"], terminal["continuable"], terminal["demo"]) == (
        "FAILED",
        services.ERR_ORPHANED,
        False,
        False,
    )
    # the calls that ran, as the engine counts them (the refused one counted too before)
    assert terminal["usage"]["tool_calls"] == 1 and terminal["usage"]["steps"] == 1
