"""Review of runs (2026-12-03): honest ends, caps that parallel calls cannot pass, a terminal event
on every path, management commands that fail loudly and keep client data out of their progress."""

from __future__ import annotations

import asyncio
import datetime
import http.server
import json
import threading
from io import StringIO

import pytest
from asgiref.sync import async_to_sync
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import OperationalError
from django.utils import timezone

from agent.engine.events import TERMINAL_EVENT_TYPES, ListSink
from agent.engine.loop import MAX_TOOL_CALLS_PER_STEP, Limits, RunStatus, run_agent
from agent.engine.tools import CancelToken, ToolResult
from agent.llm.ollama import OllamaClient
from agent.llm.openai_compat import OpenAICompatClient
from agent.models import AgentRun, AgentStep, EngineConfig, Message
from agent.runs import execution, services
from tests.agent.engine.support import MemoryToolBox, call, echo, ollama, run, start_transcript, tools_sent
from tests.factories import AkteFactory, UserFactory

THOUGHT = "Ich schaue mir zuerst die Akte an, einen Moment bitte, das kann dauern."
DB = pytest.mark.django_db(transaction=True)


def assert_trace_complete(run: AgentRun) -> list[AgentStep]:
    steps = list(AgentStep.objects.filter(run=run).order_by("seq"))
    assert [s.seq for s in steps] == list(range(1, len(steps) + 1))
    assert [s.type for s in steps if s.type in TERMINAL_EVENT_TYPES] == [steps[-1].type]
    return steps


# -- the engine: no answer claimed that was not given ----------------------------------------------


@pytest.mark.asyncio
async def test_an_empty_reply_is_no_answer_and_the_run_is_not_done(scripted_llm):
    scripted_llm.script([{"text": ""}])

    outcome, sink = await run(ollama(scripted_llm), MemoryToolBox({"search": echo}))

    assert outcome.status == RunStatus.FAILED and outcome.answer == ""
    assert "leere Antwort" in outcome.error
    assert sink.events[-1]["type"] == "run.failed" and sink.events[-1]["answer"] == ""


@pytest.mark.asyncio
async def test_a_last_call_at_the_step_cap_with_only_tool_calls_gives_no_answer_but_says_so(scripted_llm):
    scripted_llm.script([{"tool_calls": [call("search", q="a")]}, {"tool_calls": [call("search", q="b")]}])

    outcome, sink = await run(ollama(scripted_llm), MemoryToolBox({"search": echo}), max_steps=1, inline=False)

    assert outcome.status == RunStatus.CAP_REACHED
    assert outcome.answer == "" and "keine Antwort" in outcome.error
    assert sink.events[-1]["answer"] == ""


@pytest.mark.asyncio
async def test_an_answer_cut_by_the_models_output_limit_says_so(scripted_llm):
    scripted_llm.script([{"text": "Die Berufungsfrist beträgt einen Monat ab", "finish_reason": "length"}])

    outcome, sink = await run(ollama(scripted_llm), MemoryToolBox({"search": echo}))

    assert outcome.answer.startswith("Die Berufungsfrist beträgt einen Monat ab")
    assert outcome.answer.endswith("abgeschnitten.)_") and "abgeschnitten" in outcome.finish_reason
    assert sink.events[-1]["answer"] == outcome.answer


@pytest.mark.asyncio
async def test_a_cancel_during_the_tools_does_not_turn_the_thought_into_a_cut_answer(scripted_llm):
    async def slow(arguments):
        await asyncio.sleep(5)
        return ToolResult(data="spät")

    scripted_llm.script([{"text": THOUGHT, "tool_calls": [call("slow", n=1)]}])
    cancel = CancelToken()

    async def cancel_soon():
        await asyncio.sleep(0.5)
        cancel.cancel()

    canceller = asyncio.create_task(cancel_soon())
    outcome, sink = await run(ollama(scripted_llm), MemoryToolBox({"slow": slow}), cancel=cancel)
    await canceller

    assert outcome.status == RunStatus.CANCELLED
    assert outcome.answer == "" and sink.events[-1]["answer"] == ""
    # the thought is in the transcript once, with its call
    assert [m.get("content") for m in outcome.transcript].count(THOUGHT) == 1


@pytest.mark.asyncio
async def test_the_time_limit_during_the_tools_does_not_call_the_thought_a_cut_answer(scripted_llm):
    async def slow(arguments):
        await asyncio.sleep(5)
        return ToolResult(data="spät")

    scripted_llm.script([{"text": THOUGHT, "tool_calls": [call("slow", n=1)]}])

    outcome, _sink = await run(ollama(scripted_llm), MemoryToolBox({"slow": slow}), run_seconds=1.0, inline=False)

    assert outcome.status == RunStatus.TIMEOUT
    assert "die Antwort ist hier abgebrochen" not in outcome.answer
    # nor any answer at all (review of stop 34): the error says what happened and names the tools
    assert outcome.answer == "" and THOUGHT not in outcome.error and "Genutzte Werkzeuge: slow" in outcome.error
    assert [m.get("content") for m in outcome.transcript].count(THOUGHT) == 1


FRAGMENTS = ("Die Berufungsfrist ", "beträgt einen ")


def _serve_cut_off(content_type: str, lines: list[str]):
    """A model server that answers every POST with `lines` and closes without ending the answer."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the http.server interface
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.end_headers()
            for line in lines:
                self.wfile.write(line.encode())
            self.wfile.flush()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def ollama_cut_mid_answer():
    """An Ollama-like server that streams the start of an answer and closes without `done`."""
    part = {"model": "m", "created_at": "2026-12-03T08:00:00Z", "message": {"role": "assistant"}, "done": False}
    lines = [json.dumps({**part, "message": {**part["message"], "content": f}}) + "\n" for f in FRAGMENTS]
    yield from _serve_cut_off("application/x-ndjson", lines)


@pytest.mark.asyncio
async def test_an_answer_whose_stream_broke_off_is_not_done(ollama_cut_mid_answer):
    client = OllamaClient(model="m", host=ollama_cut_mid_answer, context_window=8192, timeout=5.0)

    outcome, _sink = await run(client, MemoryToolBox({"search": echo}))

    assert outcome.status == RunStatus.FAILED
    assert outcome.answer == ""


@pytest.fixture
def openai_cut_mid_answer():
    """An OpenAI-compatible server that streams the start of an answer and closes the stream cleanly,
    without a chunk that says how it finished (a worker restarted behind a proxy)."""
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    choice = {"index": 0, "finish_reason": None}
    lines = [f"data: {json.dumps({**chunk, 'choices': [{**choice, 'delta': {'content': f}}]})}\n\n" for f in FRAGMENTS]
    for base in _serve_cut_off("text/event-stream", lines):
        yield f"{base}/v1"


@pytest.mark.asyncio
async def test_an_openai_stream_that_ends_without_finishing_is_not_an_answer(openai_cut_mid_answer):
    client = OpenAICompatClient(model="m", base_url=openai_cut_mid_answer, context_window=8192, timeout=5.0)

    outcome, _sink = await run(client, MemoryToolBox({"search": echo}))

    assert outcome.status == RunStatus.FAILED
    assert outcome.answer == "" and "abgebrochen" in outcome.error


# -- the engine: tool-call caps --------------------------------------------------------------------


@pytest.mark.asyncio
async def test_parallel_calls_of_one_response_cannot_pass_the_per_step_cap(scripted_llm):
    per_step = MAX_TOOL_CALLS_PER_STEP
    many = per_step + 5
    scripted_llm.script([{"tool_calls": [call("search", n=i) for i in range(many)]}, {"text": "Das sind alle Treffer."}])
    tools = MemoryToolBox({"search": echo})

    outcome, sink = await run(ollama(scripted_llm), tools)

    assert len(tools.executed) == per_step == outcome.tool_calls
    results = sink.of_type("tool.result")
    assert len(results) == many and sum(not r["ok"] for r in results) == 5
    assert outcome.status == RunStatus.DONE and outcome.answer == "Das sind alle Treffer."


@pytest.mark.asyncio
async def test_parallel_calls_cannot_pass_the_run_cap_and_the_run_ends_at_it(scripted_llm):
    scripted_llm.script([{"tool_calls": [call("search", n=i) for i in range(5)]}, {"text": "Mehr weiß ich nicht."}])
    tools = MemoryToolBox({"search": echo})
    sink = ListSink()

    outcome = await run_agent(
        transcript=start_transcript(),
        model=ollama(scripted_llm),
        tools=tools,
        sink=sink,
        limits=Limits(max_steps=5, timeout_seconds=10, max_tool_calls=3),
    )

    assert len(tools.executed) == 3 == outcome.tool_calls
    assert outcome.status == RunStatus.CAP_REACHED and outcome.finish_reason == "Werkzeuglimit erreicht"
    assert outcome.answer == "Mehr weiß ich nicht."
    assert not tools_sent(scripted_llm.chat_requests[-1].body)


# -- execution: a kept trace with its terminal event on error paths --------------------------------


@DB
def test_an_empty_reply_fails_the_run_with_a_german_error_and_a_reply_in_the_conversation(tier1, scripted_llm):
    scripted_llm.script([{"text": ""}])
    run = services.run_create(user=UserFactory(), text="Worum geht es?", mode="INLINE")

    finished = async_to_sync(execution.run_execute)(run.pk)

    assert finished.status == AgentRun.Status.FAILED and finished.answer == ""
    assert finished.error.startswith("Das Sprachmodell hat keine Antwort geliefert.")
    reply = Message.objects.get(run=run, role=Message.Role.ASSISTANT)
    assert reply.text == finished.error
    assert assert_trace_complete(run)[-1].type == "run.failed"


@DB
def test_a_failing_citation_check_still_ends_the_trace_with_its_terminal_event(tier1, scripted_llm, monkeypatch):
    def broken(run_id, answer):
        raise OperationalError("connection lost")

    monkeypatch.setattr(execution, "_citation_trace", broken)
    scripted_llm.script([{"text": "Die Frist beträgt einen Monat."}])
    run = services.run_create(user=UserFactory(), text="Wie lang ist die Frist?", mode="INLINE")

    finished = async_to_sync(execution.run_execute)(run.pk)

    assert finished.status == AgentRun.Status.DONE
    steps = assert_trace_complete(run)
    assert steps[-1].type == "run.finished" and steps[-1].payload["status"] == "DONE"


@DB
def test_a_run_whose_outcome_cannot_be_saved_ends_failed_with_a_terminal_event(tier1, scripted_llm, monkeypatch):
    def broken(run_id, outcome):
        raise OperationalError("connection lost")

    monkeypatch.setattr(execution, "_run_finish", broken)
    scripted_llm.script([{"text": "Die Frist beträgt einen Monat."}])
    run = services.run_create(user=UserFactory(), text="Wie lang ist die Frist?", mode="INLINE")

    finished = async_to_sync(execution.run_execute)(run.pk)

    run.refresh_from_db()
    assert run.status == finished.status == AgentRun.Status.FAILED and run.finished_at is not None
    assert "Fehler" in run.error
    assert Message.objects.filter(run=run, role=Message.Role.ASSISTANT).count() == 1
    assert assert_trace_complete(run)[-1].type == "run.failed"


@DB
def test_an_outcome_that_could_not_be_saved_at_first_is_saved_on_the_second_try(tier1, scripted_llm, monkeypatch):
    save = execution._run_finish
    attempts: list[int] = []

    def flaky(run_id, outcome):
        attempts.append(run_id)
        if len(attempts) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return save(run_id, outcome)

    monkeypatch.setattr(execution, "_run_finish", flaky)
    scripted_llm.script([{"text": "Die Frist beträgt einen Monat."}])
    run = services.run_create(user=UserFactory(), text="Wie lang ist die Frist?", mode="INLINE")

    finished = async_to_sync(execution.run_execute)(run.pk)

    assert finished.status == AgentRun.Status.DONE and "einen Monat" in finished.answer
    assert Message.objects.filter(run=run, role=Message.Role.ASSISTANT).count() == 1
    steps = assert_trace_complete(run)
    assert steps[-1].type == "run.finished" and "einen Monat" in steps[-1].payload["answer"]


# -- management commands -------------------------------------------------------------------------


@pytest.mark.django_db
def test_prune_run_traces_with_an_invalid_retention_fails_with_a_nonzero_exit():
    with pytest.raises(CommandError) as failed:
        call_command("prune_run_traces", "--days", "0", stdout=StringIO(), stderr=StringIO())
    assert failed.value.returncode != 0 and "mindestens einen Tag" in str(failed.value)


@DB
def test_helena_run_counts_a_run_without_an_answer_as_failed_and_keeps_client_data_out_of_progress(tier1, scripted_llm):
    config = EngineConfig.load()
    config.inline_max_steps = 1
    config.save()
    akte = AkteFactory(kurzrubrum="Sommer ./. Winter")
    scripted_llm.script(
        [
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": "Mandant Sommer"}}]},
        ]
    )
    out, err = StringIO(), StringIO()

    with pytest.raises(CommandError) as failed:
        call_command("helena_run", "Was schreibt Herr Sommer?", user=akte.anwalt.email, mode="inline", stdout=out, stderr=err)

    assert failed.value.returncode == 1
    [result] = [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]
    assert result["status"] == "CAP_REACHED" and result["answer"] == "" and not result["ok"]
    progress = err.getvalue()
    assert "→ read_akte" in progress
    assert akte.aktenzeichen not in progress and "Sommer" not in progress


def test_db_worker_exits_nonzero_when_its_task_loops_end_by_an_error(monkeypatch):
    from agent.management.commands import db_worker

    class BrokenWorker:
        def __init__(self, **kwargs):
            self.worker_id = kwargs["worker_id"]
            self.running = True

        def run(self):
            raise RuntimeError("kaputt")

    monkeypatch.setattr(db_worker, "Worker", BrokenWorker)
    monkeypatch.setattr(db_worker.signal, "signal", lambda *args: None)
    monkeypatch.setattr(db_worker.connections, "close_all", lambda: None)
    command = db_worker.Command()
    monkeypatch.setattr(command, "configure_logging", lambda verbosity: None)

    with pytest.raises(CommandError) as failed:
        command.run_concurrently(
            2,
            verbosity=0,
            queue_name="default",
            interval=0.1,
            batch=True,
            backend_name="default",
            startup_delay=False,
            max_tasks=None,
            worker_id="test",
            exclude_queues="",
        )
    assert failed.value.returncode == 1


@DB
def test_a_background_task_that_cannot_claim_its_run_at_first_retries_instead_of_stranding_it(tier1, scripted_llm, monkeypatch):
    from agent.runs import tasks

    claim = execution._run_claim
    calls: list[int] = []

    def flaky_claim(run_id):
        calls.append(run_id)
        if len(calls) == 1:
            raise OperationalError("the database system is starting up")
        return claim(run_id)

    monkeypatch.setattr(execution, "_run_claim", flaky_claim)
    monkeypatch.setattr(tasks, "CLAIM_RETRY_SECONDS", 0.01, raising=False)
    scripted_llm.script([{"text": "Erledigt."}])
    run = services.run_create(user=UserFactory(), text="Fasse die Akte zusammen.", mode="BACKGROUND")

    finished = async_to_sync(tasks._execute)(run.pk)

    assert len(calls) == 2
    assert finished.status == AgentRun.Status.DONE
    assert_trace_complete(run)


@pytest.mark.django_db
def test_an_orphaned_run_whose_user_had_cancelled_it_ends_cancelled_not_failed():
    user = UserFactory()
    run = services.run_create(user=user, text="Fasse die Akte zusammen.", mode="BACKGROUND")
    old = timezone.now() - datetime.timedelta(minutes=5)
    AgentRun.objects.filter(pk=run.pk).update(status="RUNNING", started_at=old, heartbeat_at=old, cancel_requested=True)
    AgentStep.objects.create(run=run, seq=1, type="run.started", payload={})

    assert services.runs_fail_orphaned(stale_after_seconds=60) == 1

    run.refresh_from_db()
    assert run.status == AgentRun.Status.CANCELLED and run.error == ""
    assert assert_trace_complete(run)[-1].type == "run.cancelled"
    assert Message.objects.get(run=run, role=Message.Role.ASSISTANT).text == execution.REPLY_CANCELLED


@pytest.mark.asyncio
@pytest.mark.parametrize("provider", ["ollama", "openai"])
async def test_a_stream_that_broke_off_is_named_so_not_an_unreachable_model(provider, request):
    """The server answered and broke off: the run said "Kein Sprachmodell erreichbar" (stop 40)."""
    from agent.engine.loop import FAILED_STREAM_CUT
    from agent.runs.failures import outcome_error_public

    if provider == "ollama":
        client = OllamaClient(model="m", host=request.getfixturevalue("ollama_cut_mid_answer"), context_window=8192, timeout=5.0)
    else:
        base = request.getfixturevalue("openai_cut_mid_answer")
        client = OpenAICompatClient(model="m", base_url=base, context_window=8192, timeout=5.0)

    outcome, _sink = await run(client, MemoryToolBox({"search": echo}))

    assert outcome.status == RunStatus.FAILED and outcome.finish_reason == FAILED_STREAM_CUT
    assert (
        outcome_error_public(outcome)
        == "Der Modellserver hat seine Antwort vor ihrem Ende abgebrochen. Bitte versuche es erneut."
    )
