"""Executing a run: claim it, prepare the loop's inputs, run the loop, persist the outcome.

The websocket consumer (inline, agent/chat/inline.py), the background task (agent/runs/tasks.py)
and `helena_run` call `run_execute`; the loop itself is agent/engine/loop.py and knows nothing of
the database. `run_execute` wires it up: the user's ToolBox (agent/tools/executor.py), the tier
routes (agent/runs/routes.py: classifier result, TierConfig rows, cloud rules, PII layer, demo
fallback), the persona prompt, the earlier turns of the conversation, and a `RunEventSink` that
persists every event before publishing it.

Cancellation reaches a running run two ways: in the same process at once (the cancel tokens of
the runs executing here, `local_cancels`), across processes through `AgentRun.cancel_requested`,
which one poll per process reads for all its runs every `CANCEL_POLL_SECONDS`. The same poll
writes `heartbeat_at`, so `runs_fail_orphaned` (agent/runs/services.py) can tell a run whose
worker died from one that is still working.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import close_old_connections, connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Length
from django.utils import timezone

from agent.engine.budget import estimate_tokens
from agent.engine.events import TERMINAL_EVENT_TYPES, terminal_event
from agent.engine.loop import (
    FAILED_PROCESS_STOPPED,
    UNTRUSTED_OPEN,
    Limits,
    RunOutcome,
    RunStatus,
    outcome_stopped,
    response_guard,
    run_agent,
)
from agent.engine.prompt import build_demo_prompt, build_system_prompt, with_intro
from agent.engine.routing import (
    TaskType,
    TierRouter,
)
from agent.engine.tools import CancelToken, ToolBox
from agent.llm.base import LLMClient, Message
from agent.models import AgentRun, AgentStep, Conversation, EngineConfig, TierConfig
from agent.models import Message as ChatMessage
from agent.runs.events import Publish, Relay, RunEventSink, event_row_append
from agent.runs.failures import ERR_RUN_FAILED, ERR_START, outcome_error_public
from agent.runs.persona import persona_context_load
from agent.runs.reads import SUMMARY_HISTORY, SUMMARY_REJECTIONS, reads_carry_over
from agent.runs.routes import DEMO_TOOLS, routes_build
from agent.runs.selectors import messages_of
from agent.tools.base import ToolContext
from agent.tools.discovery import all_tools
from akten.models import Akte
from drafts.models import HelenaDraft
from drafts.schemas import draft_prose
from helena.db import reconnect_after_error
from recherche.citations import answer_citation_trace

logger = logging.getLogger(__name__)
REPLY_CANCELLED = "_Abgebrochen, bevor Helena geantwortet hat._"
REPLY_NONE = "_Helena hat keine Antwort gegeben._"

CANCEL_POLL_SECONDS = 0.1
HEARTBEAT_EVERY_POLLS = 10
# earlier turns of the conversation may fill at most this share of the model's window
HISTORY_SHARE = 0.25
HISTORY_MAX_MESSAGES = 20
# What the model reads in the history for a turn that ended without an answer (cancelled, failed,
# limits): never the status text itself, which it would take for its own earlier reply and repeat.
HISTORY_NO_ANSWER = "[Auf diese Frage gab es keine Antwort: der Auftrag wurde abgebrochen oder endete mit einem Fehler.]"
DEMO_MAX_STEPS = 4

# cancel tokens of the runs executing in this process (run id → token)
local_cancels: dict[int, CancelToken] = {}
# A run's own database work (claim, preparation, final state) runs on these threads, not on the
# process-wide sync thread of sync_to_async that the web process's consumers share: a cancelled
# run's final write must not queue behind other runs' preparation or a page's queries.
_RUN_THREADS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="helena-run")
T = TypeVar("T")


async def _in_run_thread(fn: Callable[..., T], *args: Any) -> T:
    return await asyncio.get_running_loop().run_in_executor(_RUN_THREADS, functools.partial(_own_connection, fn, *args))


def _own_connection(fn: Callable[..., T], *args: Any) -> T:
    close_old_connections()  # each thread keeps its connection for CONN_MAX_AGE, like a request
    try:
        return fn(*args)
    finally:
        close_old_connections()


def _run_get(run_id: int) -> AgentRun:
    return AgentRun.objects.get(pk=run_id)


def _cancel_requested(run_id: int) -> bool:
    return AgentRun.objects.filter(pk=run_id, cancel_requested=True).exists()


# -- execute -------------------------------------------------------------------------------------


def toolbox_for(ctx: ToolContext) -> ToolBox:
    from agent.tools.executor import toolbox_for as registry_toolbox

    return registry_toolbox(ctx)


def _history(run: AgentRun, *, context_window: int) -> tuple[list[Message], set[int]]:
    """Earlier turns of the run's conversation that its user may still see (not those of a run that
    read an Akte gone for them since), newest kept first, within HISTORY_SHARE of the window; and
    the runs whose turns they are (their reads are carried over to `run`, agent/runs/reads.py)."""
    if run.conversation_id is None:
        return [], set()
    rows = (
        messages_of(run.user)
        .filter(conversation_id=run.conversation_id)
        .exclude(run_id=run.pk)
        .annotate(run_answer_chars=Length("run__answer"))
        .order_by("-created_at", "-pk")[:HISTORY_MAX_MESSAGES]
    )
    budget = int(context_window * HISTORY_SHARE)
    kept: list[Message] = []
    runs: set[int] = set()
    for row in rows:
        tokens = estimate_tokens(row.text)
        if tokens > budget:
            break
        budget -= tokens
        if row.role == ChatMessage.Role.USER:
            kept.append({"role": "user", "content": row.text})
        else:
            answered = row.run_id is None or bool(row.run_answer_chars)
            kept.append({"role": "assistant", "content": row.text if answered else HISTORY_NO_ANSWER})
        if row.run_id is not None:
            runs.add(row.run_id)
    kept.reverse()
    return kept, runs


@dataclass(frozen=True)
class _Prepared:
    """The loop's inputs for a claimed run (built by `_run_prepare`)."""

    run: AgentRun
    ctx: ToolContext
    tools: ToolBox
    router: TierRouter
    transcript: list[Message]
    limits: Limits
    first_contact: bool


@transaction.atomic
def _run_claim(run_id: int) -> AgentRun | None:
    """Mark a PENDING run RUNNING under a row lock; None if it is not PENDING (someone else has it)."""
    run = AgentRun.objects.select_for_update(of=("self",)).select_related("user", "akte").filter(pk=run_id).first()
    if run is None or run.status != AgentRun.Status.PENDING:
        return None
    run.status = AgentRun.Status.RUNNING
    run.started_at = run.heartbeat_at = timezone.now()
    run.worker_id = f"{os.uname().nodename}:{os.getpid()}"[:100]
    run.save(update_fields=["status", "started_at", "heartbeat_at", "worker_id"])
    return run


def _run_failed_save(run: AgentRun, *, reason: str, error: str) -> None:
    """Save a locked run as FAILED with `reason` and the user's `error`, and its reply."""
    run.status = AgentRun.Status.FAILED
    run.finish_reason = reason
    run.error = error
    run.finished_at = run.heartbeat_at = timezone.now()
    run.save(update_fields=["status", "finish_reason", "error", "finished_at", "heartbeat_at"])
    conversation_reply_save(run)


@transaction.atomic
def _run_fail_start(run_id: int) -> None:
    run = AgentRun.objects.select_for_update().get(pk=run_id)
    _run_failed_save(run, reason="Start fehlgeschlagen", error=ERR_START)
    event_row_append(run, terminal_event(run.status), status=run.status, answer="", error=run.error, usage={})


def _run_prepare(run: AgentRun, cancel: CancelToken, client_factory: Callable[[TierConfig], LLMClient] | None) -> _Prepared:
    """Everything the loop needs for a claimed run: tools, routes, prompt, transcript, limits."""
    user, akte = run.user, run.akte
    if akte is not None and not Akte.objects.visible_to(user).filter(pk=akte.pk).exists():
        akte = None  # access lost since the run was created: the run continues without the Akte
    ctx = ToolContext(user=user, akte=akte, run=run, cancel=cancel)
    tools = toolbox_for(ctx)
    task_type = run.task_type or TaskType.FRAGE
    akte_context, rejections, first_contact = persona_context_load(user=user, akte=akte)
    # the prompt repeats what the rejected drafts' runs proposed from what they read
    origin_runs = [r.origin_run_id for r in rejections if r.origin_run_id is not None]
    reads_carry_over(run=run, from_run_ids=origin_runs, summary=SUMMARY_REJECTIONS)
    demo_tools = [spec for spec in tools.schemas() if spec.get("function", {}).get("name") in DEMO_TOOLS]
    demo_prompt = build_demo_prompt(tools=demo_tools, akte=akte_context, today=timezone.localdate())
    router = TierRouter(
        routes_build(
            start_tier=run.tier or 1,
            task_type=task_type,
            user=user,
            akte=akte,
            client_factory=client_factory,
            demo_prompt=demo_prompt,
        )
    )
    system = build_system_prompt(
        tools=tools.schemas(),
        akte=akte_context,
        rejections=rejections,
        first_contact=first_contact,
        user_name=user.get_full_name() or "",
        today=timezone.localdate(),
    )
    if run.transcript:
        # a continuation: the same transcript with today's system prompt
        transcript = list(run.transcript)
        if transcript and transcript[0].get("role") == "system":
            transcript[0] = {"role": "system", "content": system}
    else:
        history, history_runs = _history(run, context_window=router.route.client.context_window)
        reads_carry_over(run=run, from_run_ids=history_runs, summary=SUMMARY_HISTORY)
        transcript = [{"role": "system", "content": system}, *history, {"role": "user", "content": run.task}]
    ctx.untrusted_seen = _untrusted_before(run, transcript)
    # A run that starts on the demo model gets its limits: a small model that has not answered
    # after a few steps will not answer later, and the next question waits for its server.
    demo = router.route.demo
    limits = Limits(
        max_steps=min(run.max_steps, DEMO_MAX_STEPS) if demo else run.max_steps,
        timeout_seconds=run.timeout_seconds,
        max_tokens=EngineConfig.load().max_tokens_per_run,
        offer_continuation=run.mode == AgentRun.Mode.INLINE,
        mode=run.mode.lower(),
    )
    return _Prepared(
        run=run, ctx=ctx, tools=tools, router=router, transcript=transcript, limits=limits, first_contact=first_contact
    )


def _untrusted_before(run: AgentRun, transcript: list[Message]) -> bool:
    """Whether `run` starts on text of others: a continued transcript with a fenced tool result, or
    an earlier run of its conversation that read such text (its answer, in the history, can repeat
    it; so can a later answer built on that one): by its steps, or once they are pruned by
    `AgentRun.read_untrusted`. Drafts of such a run are flagged from its first step
    (`untrusted_input`), as if it had read the text itself."""
    if any(m.get("role") == "tool" and str(m.get("content") or "").startswith(UNTRUSTED_OPEN) for m in transcript):
        return True
    if run.conversation_id is None:
        return False
    fenced = AgentStep.objects.filter(run=OuterRef("pk"), type="tool.result", payload__untrusted=True)
    earlier = AgentRun.objects.filter(conversation_id=run.conversation_id).exclude(pk=run.pk)
    return earlier.filter(Q(read_untrusted=True) | Q(Exists(fenced))).exists()


class RunEndedElsewhere(Exception):
    """The run is no longer RUNNING when its outcome is to be saved: the orphan sweep of another
    process ended it (its heartbeat had stopped, e.g. while the database was away). Its first
    terminal status stands: the browser, the conversation and the trace already have it."""


def _run_finish(run_id: int, outcome: RunOutcome) -> AgentRun:
    with transaction.atomic():
        run = AgentRun.objects.select_for_update().get(pk=run_id)
        if run.status != AgentRun.Status.RUNNING:
            raise RunEndedElsewhere(run_id)
        run.status = AgentRun.Status(str(outcome.status))
        run.finish_reason = outcome.finish_reason[:200]
        run.error = outcome.error
        run.answer = outcome.answer
        run.transcript = outcome.transcript
        run.steps_used = min(outcome.steps, 32767)
        run.model_calls = outcome.model_calls
        run.tool_calls = outcome.tool_calls
        run.tokens_in = outcome.tokens_in
        run.tokens_out = outcome.tokens_out
        run.tier = outcome.tier if outcome.tier in (1, 2, 3) else run.tier
        run.model_name = outcome.model[:200]
        run.finished_at = run.heartbeat_at = timezone.now()
        run.save()
        conversation_reply_save(run)
    return run


def _run_end_after_error(run_id: int, outcome: RunOutcome | None) -> AgentRun:
    """The end of a run whose loop raised while saving its outcome or writing its terminal event.
    A run still RUNNING gets its outcome saved once more (a database that was briefly away), else it
    becomes FAILED (with its reply in the conversation); a trace without a terminal event gets one,
    numbered after the rows written. A run already saved keeps its status."""
    if outcome is not None and AgentRun.objects.filter(pk=run_id, status=AgentRun.Status.RUNNING).exists():
        try:
            _run_finish(run_id, outcome)
        except Exception:
            logger.exception("Lauf %s: Ergebnis auch beim zweiten Versuch nicht gespeichert", run_id)
    return _run_close(run_id)


@transaction.atomic
def _run_close(run_id: int) -> AgentRun:
    run = AgentRun.objects.select_for_update().get(pk=run_id)
    if run.status == AgentRun.Status.RUNNING:
        _run_failed_save(run, reason="interner Fehler", error=ERR_RUN_FAILED)
    last = AgentStep.objects.filter(run_id=run_id).order_by("-seq").values_list("type", flat=True).first()
    if last not in TERMINAL_EVENT_TYPES:
        event_row_append(
            run,
            terminal_event(run.status),
            status=run.status,
            answer=run.answer,
            error=run.error,
            usage={},
            finish_reason=run.finish_reason,
        )
    return run


def conversation_reply_save(run: AgentRun) -> None:
    """The run's turn in its conversation: the answer, else what happened (cancelled, the error),
    so that every question is followed by its reply after a reload, cancelled runs included."""
    if run.conversation_id is None:
        return
    text = run.answer or (REPLY_CANCELLED if run.status == AgentRun.Status.CANCELLED else run.error) or REPLY_NONE
    ChatMessage.objects.create(conversation_id=run.conversation_id, role=ChatMessage.Role.ASSISTANT, text=text, run=run)
    Conversation.objects.filter(pk=run.conversation_id).update(updated_at=run.finished_at or timezone.now())


def _citation_trace(run_id: int, answer: str) -> dict[str, object]:
    """The answer.citations payload: the final answer and the texts of the run's drafts checked
    (every type: a Frist's legal basis and a fee note's numbers are citations too)."""
    texts = {
        draft.pk: draft_prose(draft.typ, draft.payload)
        for draft in HelenaDraft.objects.filter(origin_run_id=run_id).only("pk", "typ", "payload")
    }
    return answer_citation_trace(answer, entwuerfe={pk: text for pk, text in texts.items() if text})


_CANCEL_POLL_SQL = f"SELECT id FROM {AgentRun._meta.db_table} WHERE id = ANY(%s) AND cancel_requested"  # noqa: S608 - _meta


def _poll(run_ids: list[int], beat: bool) -> list[int]:
    """Which of `run_ids` have `cancel_requested` (and write the heartbeat of those RUNNING): two
    queries at most, however many runs execute here."""
    with reconnect_after_error():
        if beat:
            AgentRun.objects.filter(pk__in=run_ids, status=AgentRun.Status.RUNNING).update(heartbeat_at=timezone.now())
        # ten times a second: a statement of our own, as the ORM's compile costs more than the query
        with connection.cursor() as cursor:
            cursor.execute(_CANCEL_POLL_SQL, [run_ids])
            return [row[0] for row in cursor.fetchall()]


class _CancelWatch:
    """Polls the database for cancel requests of all runs executing in this process
    (`local_cancels`): every CANCEL_POLL_SECONDS one query for all of them, every
    HEARTBEAT_EVERY_POLLS-th poll one heartbeat UPDATE. On its own thread with one long-lived
    connection (given back while no run executes here): a query per run and poll would put a
    cancel behind hundreds of other runs' polls, and a poll must not wait for the runs' own
    database work."""

    def __init__(self) -> None:
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def watch(self, run_id: int, cancel: CancelToken) -> None:
        local_cancels[run_id] = cancel
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="helena-cancel-poll", daemon=True)
                self._thread.start()
        self._wake.set()

    def unwatch(self, run_id: int) -> None:
        local_cancels.pop(run_id, None)

    def _work(self) -> None:
        polls = 0
        while True:
            if not local_cancels:
                connection.close()  # no run left to watch: give the connection back
                self._wake.clear()
                if not local_cancels:
                    self._wake.wait()
                continue
            time.sleep(CANCEL_POLL_SECONDS)
            runs = dict(local_cancels)
            if not runs:
                continue
            polls += 1
            try:
                requested = _poll(list(runs), polls % HEARTBEAT_EVERY_POLLS == 0)
            except Exception:
                logger.warning("Abbruch-Abfrage für %s Läufe fehlgeschlagen", len(runs), exc_info=True)
                continue
            for run_id in requested:
                runs[run_id].cancel()


_cancel_watch = _CancelWatch()


async def run_execute(
    run_id: int,
    *,
    publish: Publish | None = None,
    relay: Relay | None = None,
    client_factory: Callable[[TierConfig], LLMClient] | None = None,
) -> AgentRun:
    """Execute a PENDING run to its end and return it with its final status.

    Idempotent: a run that is not PENDING (already claimed, finished, rate-limited) is returned as
    it is. Every event is persisted (AgentStep) before `relay(event)` is called (in the thread that
    wrote it) and `publish(event)` is awaited. The final status, answer, tokens and transcript are
    saved before the terminal event is emitted.
    `client_factory` builds the client of a TierConfig (default: `client_for_tier`).
    """
    cancel = CancelToken()
    claimed = await _in_run_thread(_run_claim, run_id)
    if claimed is None:
        return await _in_run_thread(_run_get, run_id)
    try:
        prepared = await _in_run_thread(_run_prepare, claimed, cancel, client_factory)
    except Exception:
        logger.exception("Lauf %s konnte nicht starten", run_id)
        await _in_run_thread(_run_fail_start, run_id)
        return await _in_run_thread(_run_get, run_id)
    _cancel_watch.watch(run_id, cancel)
    finished: list[AgentRun] = []
    settled: list[RunOutcome] = []

    async def finish(outcome: RunOutcome) -> None:
        if outcome.finish_reason == FAILED_PROCESS_STOPPED and await _in_run_thread(_cancel_requested, run_id):
            # stopped by its process after its user had asked to stop, before the poll told the loop
            outcome_stopped(outcome, user_cancelled=True)
        outcome.error = outcome_error_public(outcome)  # saved, then the terminal event carries it
        if prepared.first_contact and outcome.answer and outcome.status != RunStatus.CANCELLED:
            outcome.answer = with_intro(outcome.answer)
        settled.append(outcome)
        finished.append(await _in_run_thread(_run_finish, run_id, outcome))
        if outcome.answer or outcome.draft_ids:
            # Every norm and decision citation of the final answer and of the run's document and
            # note drafts is checked against the corpus; the trace event (a step in the admin run
            # view) counts those not in the corpus. A failing check costs this event, never the
            # terminal event after it.
            try:
                citations = await _in_run_thread(_citation_trace, run_id, outcome.answer)
            except Exception:
                logger.exception("Lauf %s: Zitate nicht geprüft", run_id)
            else:
                await sink.emit("answer.citations", **citations)

    sink = RunEventSink(prepared.run, publish, relay=relay)
    withheld = frozenset(all_tools()) - set(prepared.tools.names())
    ended = False
    try:
        await run_agent(
            transcript=prepared.transcript,
            model=prepared.router,
            tools=prepared.tools,
            sink=sink,
            limits=prepared.limits,
            cancel=cancel,
            guard=functools.partial(response_guard, withheld=withheld),
            on_finish=finish,
            untrusted_before=prepared.ctx.untrusted_seen,
        )
        ended = True
    except RunEndedElsewhere:
        logger.warning("Lauf %s: schon anderswo beendet (verwaist), Ergebnis verworfen", run_id)
    except Exception:
        # Saving the outcome or writing the terminal event failed (the database, the trace writer):
        # handled below, once what is queued is written.
        logger.exception("Lauf %s: Ende nicht gespeichert", run_id)
    finally:
        try:
            await sink.flush()
        except Exception:
            logger.exception("Lauf %s: letztes Ereignis nicht gespeichert", run_id)
        _cancel_watch.unwatch(run_id)
    if not ended:
        return await _in_run_thread(_run_end_after_error, run_id, settled[0] if settled else None)
    # as saved before the terminal event: no further round trip between that event and the return
    return finished[0] if finished else await _in_run_thread(_run_get, run_id)
