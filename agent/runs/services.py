"""The lifecycle of Helena's runs: create, cancel, continue in the background, fail the orphans.

Writes only; executing a run is agent/runs/execution.py, reading runs agent/runs/selectors.py.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from agent.engine.events import EventType, ToolResultEvent, terminal_event
from agent.engine.loop import INTERRUPTED, RunOutcome, RunStatus
from agent.engine.routing import (
    BACKGROUND,
    INLINE,
    Classification,
    apply_user_choice,
)
from agent.models import AgentRun, AgentStep, Conversation, EngineConfig, ToolCallAudit
from agent.models import Message as ChatMessage
from agent.runs.events import event_row_append
from agent.runs.execution import conversation_reply_save, local_cancels
from agent.runs.ratelimit import ratelimit_hit
from agent.runs.reads import SUMMARY_CONTINUED, reads_carry_over
from agent.runs.routes import task_classify
from agent.runs.selectors import conversation_get, question_title, run_get
from akten.models import Akte, User
from akten.selectors import akte_get

ERR_TEXT_EMPTY = "Bitte gib einen Auftrag ein."
ERR_HELENA_UNAVAILABLE = "Helena steht dir nicht zur Verfügung. Schreib deiner Anwältin oder deinem Anwalt eine Nachricht."
ERR_MODE_INVALID = "Unbekannter Modus: {mode}."
ERR_TIER_INVALID = "Unbekannte Modellstufe: {tier}."
ERR_NOT_CONTINUABLE = "Dieser Auftrag kann nicht im Hintergrund fortgesetzt werden."
ERR_ORPHANED = "Der Auftrag wurde unterbrochen: der ausführende Prozess antwortet nicht mehr."
CONTINUE_INSTRUCTION = (
    "Setze die Bearbeitung jetzt im Hintergrund fort: Nutze weitere Werkzeuge, wo nötig, und gib dann eine vollständige Antwort."
)


# -- create --------------------------------------------------------------------------------------


def _limits_for(mode: str, config: EngineConfig) -> tuple[int, int]:
    if mode == BACKGROUND:
        return config.background_max_steps, config.background_timeout_seconds
    return config.inline_max_steps, config.inline_timeout_seconds


def helena_available(user: User) -> bool:
    """May `user` start Helena runs at all? Staff always; a MANDANT only when the role × tool
    matrix grants her role at least one tool (`akten.policy`)."""
    from agent.tools.permissions import tools_for_user
    from akten.policy import is_mandant

    return not is_mandant(user) or bool(tools_for_user(user))


def run_create(
    *,
    user: User,
    text: str,
    conversation: Conversation | int | None = None,
    akte: Akte | int | None = None,
    mode: str | None = None,
    tier: int | None = None,
) -> AgentRun:
    """Create a PENDING run for `text` and store the user's message.

    Checks access to `akte` and `conversation` (NotFound, the same for missing and foreign), counts
    the run against the user's hourly limit (over it, the run is created already finished with
    status RATE_LIMITED and a German message with the reset time), classifies the task (mode and
    starting tier; an explicit `mode` / `tier` wins). Raises ValidationError for empty text or an
    unknown mode/tier. The caller executes the run (inline) or enqueues it (background).

    The classifier may call the tier-1 model: it runs before the transaction that writes the run,
    so no transaction (and no row lock) is held across a model call.
    """
    text = (text or "").strip()
    if not text:
        raise ValidationError(ERR_TEXT_EMPTY)
    if not helena_available(user):
        raise ValidationError(ERR_HELENA_UNAVAILABLE)
    if mode is not None and str(mode).upper() not in (INLINE, BACKGROUND):
        raise ValidationError(ERR_MODE_INVALID.format(mode=mode))
    if tier is not None and tier not in (1, 2, 3):
        raise ValidationError(ERR_TIER_INVALID.format(tier=tier))
    akte_obj = akte_get(user=user, pk=akte.pk if isinstance(akte, Akte) else akte) if akte is not None else None
    conv = None
    if conversation is not None:
        conv = conversation_get(user=user, pk=conversation.pk if isinstance(conversation, Conversation) else conversation)
    if akte_obj is None and conv is not None:
        akte_obj = conv.akte  # conversation_get finds only conversations on an Akte the user may see
    config = EngineConfig.load()
    classification = apply_user_choice(task_classify(text, config), mode=mode, tier=tier)
    with transaction.atomic():
        return _run_row_create(
            user=user, text=text, conversation=conv, akte=akte_obj, config=config, classification=classification
        )


def _run_row_create(
    *,
    user: User,
    text: str,
    conversation: Conversation | None,
    akte: Akte | None,
    config: EngineConfig,
    classification: Classification,
) -> AgentRun:
    """The rows of a new run (inside run_create's transaction): conversation, run, the user's message,
    and for a refused run its answer and terminal event."""
    if conversation is None:
        conversation = Conversation.objects.create(user=user, akte=akte, title=question_title(text))
    max_steps, timeout = _limits_for(classification.mode, config)
    run = AgentRun(
        user=user,
        akte=akte,
        conversation=conversation,
        task=text,
        task_type=classification.task_type,
        mode=classification.mode,
        tier=classification.tier,
        max_steps=max_steps,
        timeout_seconds=timeout,
    )
    decision = ratelimit_hit(user=user)
    if not decision.allowed:
        run.status = AgentRun.Status.RATE_LIMITED
        run.finish_reason = "Anfragelimit erreicht"
        run.error = decision.message  # no answer: the status line says "keine Antwort"
        run.finished_at = timezone.now()
    run.full_clean()
    run.save()
    ChatMessage.objects.create(conversation=conversation, role=ChatMessage.Role.USER, text=text, run=run)
    if not decision.allowed:
        ChatMessage.objects.create(conversation=conversation, role=ChatMessage.Role.ASSISTANT, text=decision.message, run=run)
        event_row_append(run, terminal_event(run.status), status=run.status, answer="", error=decision.message, usage={})
    conversation.save(update_fields=["updated_at"])
    return run


# -- cancel, continue, clean up ------------------------------------------------------------------


@transaction.atomic
def run_request_cancel(*, run_id: int, by: User) -> AgentRun:
    """Ask a run to stop (its owner only; NotFound otherwise).

    A PENDING run is cancelled right here; a RUNNING one gets `cancel_requested` and stops within a
    second (at once when it executes in this process). A finished run is returned unchanged.
    """
    run = run_get(user=by, pk=run_id, lock=True)
    if run.status == AgentRun.Status.PENDING:
        run.status = AgentRun.Status.CANCELLED
        run.cancel_requested = True
        run.finish_reason = "vom Benutzer abgebrochen"
        run.finished_at = timezone.now()
        run.save(update_fields=["status", "cancel_requested", "finish_reason", "finished_at"])
        conversation_reply_save(run)
        event_row_append(run, terminal_event(run.status), status=run.status, answer="", error="", usage={})
    elif run.status == AgentRun.Status.RUNNING:
        run.cancel_requested = True
        run.save(update_fields=["cancel_requested"])
        token = local_cancels.get(run.pk)
        if token is not None:
            token.cancel()
    return run


CONTINUABLE = frozenset({AgentRun.Status.CAP_REACHED, AgentRun.Status.TIMEOUT})


@transaction.atomic
def run_continue_background(*, run_id: int, by: User) -> AgentRun:
    """A new BACKGROUND run that continues a run which stopped at the inline step cap or time
    limit, from its transcript (`continued_from` points back). The caller enqueues it. Raises
    NotFound for a run of someone else and ValidationError for a run that cannot be continued."""
    previous = run_get(user=by, pk=run_id, lock=True)
    if previous.status not in CONTINUABLE or previous.mode != AgentRun.Mode.INLINE or not previous.transcript:
        raise ValidationError(ERR_NOT_CONTINUABLE)
    if previous.continuations.exists():
        return previous.continuations.order_by("pk").first()  # type: ignore[return-value]
    config = EngineConfig.load()
    transcript = [*previous.transcript, {"role": "user", "content": CONTINUE_INSTRUCTION}]
    run = AgentRun(
        user=previous.user,
        akte=previous.akte,
        conversation=previous.conversation,
        task=previous.task,
        task_type=previous.task_type,
        mode=AgentRun.Mode.BACKGROUND,
        tier=previous.tier,
        max_steps=config.background_max_steps,
        timeout_seconds=config.background_timeout_seconds,
        transcript=transcript,
        continued_from=previous,
    )
    run.full_clean()
    run.save()
    reads_carry_over(run=run, from_run_ids=[previous.pk], summary=SUMMARY_CONTINUED)
    return run


def runs_fail_orphaned(*, stale_after_seconds: int = 60) -> int:
    """Mark RUNNING runs whose heartbeat is older than `stale_after_seconds` as FAILED, or as
    CANCELLED when their user had asked them to stop (their events and transcript stay). Returns
    how many. Safe to call from every worker at start-up."""
    cutoff = timezone.now() - datetime.timedelta(seconds=stale_after_seconds)
    failed = 0
    candidates = AgentRun.objects.filter(status=AgentRun.Status.RUNNING, heartbeat_at__lt=cutoff) | AgentRun.objects.filter(
        status=AgentRun.Status.RUNNING, heartbeat_at__isnull=True, started_at__lt=cutoff
    )
    for run_id in candidates.values_list("pk", flat=True):
        with transaction.atomic():
            run = AgentRun.objects.select_for_update().get(pk=run_id)
            if run.status != AgentRun.Status.RUNNING or (run.heartbeat_at and run.heartbeat_at >= cutoff):
                continue
            if run.cancel_requested:
                # the user asked it to stop, and it has: cancelled, not failed
                run.status = AgentRun.Status.CANCELLED
                run.finish_reason = "vom Benutzer abgebrochen (Prozess nicht mehr erreichbar)"
                run.error = ""
            else:
                run.status = AgentRun.Status.FAILED
                run.finish_reason = "Prozess nicht mehr erreichbar"
                run.error = ERR_ORPHANED
            run.finished_at = timezone.now()
            run.save(update_fields=["status", "finish_reason", "error", "finished_at"])
            if not run.answer:
                conversation_reply_save(run)
            usage = _orphan_trace_close(run)
            event_row_append(
                run,
                terminal_event(run.status),
                status=run.status,
                answer=run.answer,
                error=run.error,
                usage=usage,
                finish_reason=run.finish_reason,
                continuable=False,
                demo=False,
            )
            failed += 1
    return failed


def _orphan_trace_close(run: AgentRun) -> dict[str, int]:
    """Close the trace of an orphaned run as the engine closes a stopped one: every `tool.call`
    without a `tool.result` gets one (not ok, INTERRUPTED). Returns the run's usage as its trace
    tells it (the engine saves its counts only at the end): the terminal event's `usage`."""
    rows = AgentStep.objects.filter(
        run=run, type__in=(EventType.STEP_STARTED, EventType.MODEL_RESPONSE, EventType.TOOL_CALL, EventType.TOOL_RESULT)
    ).order_by("seq")
    counts = RunOutcome(status=RunStatus.FAILED)  # its `usage`, as the engine reports it
    open_calls: dict[str, dict[str, Any]] = {}
    for type, payload in rows.values_list("type", "payload"):
        if type == EventType.STEP_STARTED:
            counts.steps = max(counts.steps, int(payload.get("step") or 0))
        elif type == EventType.MODEL_RESPONSE:
            tokens = payload.get("usage") or {}
            counts.model_calls += 1
            counts.tokens_in += int(tokens.get("prompt_tokens") or 0)
            counts.tokens_out += int(tokens.get("completion_tokens") or 0)
        elif type == EventType.TOOL_CALL:
            open_calls[str(payload.get("call_id", ""))] = payload
        else:
            open_calls.pop(str(payload.get("call_id", "")), None)
    # the calls that ran, as the engine counts them: each wrote its audit row; refused ones (repeated,
    # over the cap, unreadable) have a tool.result but never reached the tools
    counts.tool_calls = ToolCallAudit.objects.filter(run=run).count()
    for call_id, payload in open_calls.items():
        result = ToolResultEvent(
            step=int(payload.get("step") or 0),
            call_id=call_id,
            tool=str(payload.get("tool", "")),
            ok=False,
            summary=INTERRUPTED,
            source=[],
            cached=False,
            untrusted=False,
        )
        event_row_append(run, EventType.TOOL_RESULT, **result)
    return counts.usage
