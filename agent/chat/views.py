"""The chat page, conversations, "Meine Aufträge" and `@Helena` notes (German, server-rendered;
live updates come through the websocket, see agent/chat/consumers.py)."""

from __future__ import annotations

import logging
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from agent.chat import conversations, feedback, notifications
from agent.chat.cards import answer_html, draft_card, with_open_citations
from agent.chat.consumers import german_error
from agent.llm.demo import DEMO_MODEL
from agent.models import AgentRun, AnswerFeedback, Message
from agent.runs import selectors, services
from akten.models import User
from akten.policy import sees_internal
from akten.selectors import ERR_AKTE_NOT_FOUND, akte_get
from drafts.selectors import drafts_of_runs
from helena.api import request_user
from helena.errors import NotFound
from helena.text import as_id

logger = logging.getLogger(__name__)

ERR_NOTE_EMPTY = "Die Notiz ist leer."
ERR_RUN_REFUSED = "Helena konnte den Auftrag nicht annehmen. Die Notiz wurde gespeichert."
MSG_RUN_STARTED = "Die Notiz ist gespeichert. Helena arbeitet im Hintergrund an: „{auftrag}“ (siehe Meine Aufträge)."
MSG_NOTE_SAVED = "Die Notiz ist gespeichert."
ERR_NOTE_FAILED = "Die Notiz konnte nicht gespeichert werden. Bitte versuche es noch einmal."
MSG_CANCEL_REQUESTED = "Der Abbruch ist angefordert."
MSG_FEEDBACK_SAVED = "Danke für deine Rückmeldung."
ERR_NO_NOTIFICATIONS = "Diese Seite gibt es nicht."


def _turns(user: User, conversation: Any) -> list[dict[str, Any]]:
    """The conversation as shown: each question, each answer with its run, steps and draft cards."""
    items = list(selectors.conversation_messages(user=user, conversation=conversation))
    run_ids = [m.run_id for m in items if m.run_id]
    cards: dict[int, list[dict[str, Any]]] = {}
    drafts = list(drafts_of_runs(user=user, run_ids=run_ids))
    for draft, card in zip(drafts, with_open_citations([draft_card(d, viewer=user) for d in drafts]), strict=True):
        cards.setdefault(draft.origin_run_id or 0, []).append(card)
    ratings = dict(
        AnswerFeedback.objects.filter(user=user, message__in=[m.pk for m in items]).values_list("message_id", "rating")
    )
    internal = sees_internal(user)
    turns = []
    for message in items:
        turn: dict[str, Any] = {"message": message, "run": message.run}
        turn["demo"] = message.run is not None and message.run.model_name == DEMO_MODEL
        # the model and its tier are the firm's set-up, not shown to a Mandant (as in the websocket replay)
        turn["model"] = message.run.model_name if internal and message.run is not None else ""
        if message.role == Message.Role.ASSISTANT:
            turn["html"] = mark_safe(answer_html(message.text, user=user))  # noqa: S308 - sanitised by nh3
            turn["cards"] = cards.get(message.run_id or 0, [])
            turn["rating"] = ratings.get(message.pk, "")
        turns.append(turn)
    return turns


@login_required
def chat(request: HttpRequest, pk: int | None = None) -> HttpResponse:
    user = request_user(request)
    conversation = selectors.conversation_get(user=user, pk=pk) if pk else None
    query = request.GET.get("q", "").strip()[:200]
    turns = _turns(user, conversation) if conversation else []
    answered = {t["run"].pk for t in turns if t["run"] is not None and t["message"].role == Message.Role.ASSISTANT}
    open_runs = []
    if conversation is not None:
        open_runs = [
            {"run": r.pk, "after_seq": 0}
            for r in selectors.runs_of(user).filter(conversation=conversation).order_by("created_at")
            if r.is_active or r.pk not in answered
        ]
    context = {
        "conversation": conversation,
        "conversations": conversations.conversation_search(user=user, query=query)[:100],
        "query": query,
        "akten": selectors.akten_for_chat(user=user),
        "turns": turns,
        "chat_state": {
            "conversation": conversation.pk if conversation else None,
            "akte": conversation.akte_id if conversation and conversation.akte_id else None,
            "open_runs": open_runs,
        },
        "preselected_akte": conversation.akte_id if conversation else _int(request.GET.get("akte")),
        "cards_by_run": {str(t["run"].pk): t["cards"] for t in turns if t.get("cards")},
        "helena_available": services.helena_available(user),
    }
    return render(request, "agent/chat.html", context)


def _int(value: str | None) -> int | None:
    return as_id(value)


@login_required
@require_POST
def conversation_new(request: HttpRequest) -> HttpResponse:
    akte_pk = request.POST.get("akte", "")
    akte = akte_get(user=request_user(request), pk=akte_pk) if akte_pk else None
    title = f"Akte {akte.aktenzeichen}" if akte else ""
    conversation = conversations.conversation_create(user=request_user(request), akte=akte, title=title)
    return redirect("helena-conversation", pk=conversation.pk)


@login_required
@require_POST
def conversation_rename(request: HttpRequest, pk: int) -> HttpResponse:
    conversation = selectors.conversation_get(user=request_user(request), pk=pk)
    try:
        conversations.conversation_rename(conversation=conversation, title=request.POST.get("title", ""))
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    return redirect("helena-conversation", pk=pk)


@login_required
def conversation_delete(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks for confirmation (a page of its own, works without JavaScript); POST deletes. The chat
    script posts only after its undo time has passed and asks for JSON (helena-conversations.js)."""
    conversation = selectors.conversation_get(user=request_user(request), pk=pk)
    if request.method != "POST":
        return render(request, "agent/conversation_delete.html", {"conversation": conversation})
    conversations.conversation_delete(conversation=conversation)
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"deleted": pk})
    messages.info(request, "Das Gespräch wurde gelöscht.")
    return redirect("helena-chat")


@login_required
@require_POST
def answer_feedback(request: HttpRequest, pk: int) -> HttpResponse:
    """Thumbs up or down (and an optional comment) on Helena's answer of run `pk`. JSON for the
    chat script (Accept: application/json), otherwise back to the conversation."""
    user = request_user(request)
    wants_json = "application/json" in request.headers.get("Accept", "")
    try:
        saved = feedback.feedback_save(
            user=user, run=pk, rating=request.POST.get("rating", ""), comment=request.POST.get("comment", "")
        )
    except ValidationError as exc:
        if wants_json:
            return JsonResponse({"error": " ".join(exc.messages)}, status=400)
        messages.error(request, " ".join(exc.messages))
        message = feedback.answer_of_run(user=user, run_id=pk)
        return redirect("helena-conversation", pk=message.conversation_id)
    if wants_json:
        return JsonResponse({"rating": saved.rating, "message": MSG_FEEDBACK_SAVED})
    messages.info(request, MSG_FEEDBACK_SAVED)
    return HttpResponseRedirect(reverse("helena-conversation", args=[saved.message.conversation_id]) + f"#run-{pk}")


@login_required
def notification_list(request: HttpRequest) -> HttpResponse:
    """The list; opening it marks everything shown as read."""
    user = request_user(request)
    if not sees_internal(user):
        raise NotFound(ERR_NO_NOTIFICATIONS)
    items = notifications.notification_list(user=user)
    response = render(request, "agent/notifications.html", {"items": items})
    notifications.notifications_seen(user=user)
    return response


@login_required
def notification_count(request: HttpRequest) -> JsonResponse:
    """For the navigation counter and the optional browser notification (polled by helena-notify.js)."""
    user = request_user(request)
    if not sees_internal(user):
        return JsonResponse({"count": 0, "mehr": False, "latest": []})
    unread = [n for n in notifications.notification_list(user=user) if n.unread]
    return JsonResponse(
        {
            "count": len(unread),
            # the list holds the newest LIMIT: with as many unread there may be more ("30+")
            "mehr": len(unread) >= notifications.LIMIT,
            "latest": [{"text": n.text, "url": n.url, "when": n.when.isoformat()} for n in unread[:5]],
        }
    )


@login_required
def run_list(request: HttpRequest) -> HttpResponse:
    user = request_user(request)
    runs = list(selectors.run_list(user=user)[:200])
    drafts: dict[int, int] = {}
    for run_id in drafts_of_runs(user=user, run_ids=[r.pk for r in runs]).values_list("origin_run_id", flat=True):
        drafts[run_id or 0] = drafts.get(run_id or 0, 0) + 1
    positions = selectors.run_queue_positions(user=user)
    rows = [
        {
            "run": r,
            "drafts": drafts.get(r.pk, 0),
            "duration": _duration(r, ab_auftrag=not sees_internal(user)),
            "progress": _progress(r),
            "queue_position": positions.get(r.pk),
        }
        for r in runs
    ]
    context = {
        "rows": rows,
        "active_ids": [r.pk for r in runs if r.is_active],
        # token counts are for whoever pays for the models, not for the people asking
        "show_tokens": user.is_admin_role,
    }
    return render(request, "agent/runs.html", context)


def _duration(run: AgentRun, *, ab_auftrag: bool = False) -> str:
    """From the start (or, for a run cancelled before it started, from its creation) to the end;
    `ab_auftrag` (a MANDANT): from the creation, so that the time it waited behind others does not show."""
    end = run.finished_at
    if end is None:
        return "läuft" if run.started_at else "–"
    beginn = run.created_at if ab_auftrag else (run.started_at or run.created_at)
    seconds = max(0, int((end - beginn).total_seconds()))
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


def _progress(run: AgentRun) -> str:
    """A finished run says what it did, not how far it got towards its step limit."""
    steps = f"{run.steps_used} Schritt" + ("" if run.steps_used == 1 else "en")
    if run.status == AgentRun.Status.CANCELLED:
        return (
            f"abgebrochen nach {steps}"
            if run.steps_used
            else "abgebrochen vor dem Start"
            if not run.started_at
            else "abgebrochen"
        )
    if run.status == AgentRun.Status.RATE_LIMITED:
        return "nicht gestartet"
    return f"beendet nach {steps}"


@login_required
@require_POST
def run_cancel(request: HttpRequest, pk: int) -> HttpResponse:

    run = selectors.run_get(user=request_user(request), pk=pk)
    if run.is_active:
        services.run_request_cancel(run_id=run.pk, by=request_user(request))
        messages.info(request, MSG_CANCEL_REQUESTED)
    return redirect("helena-runs")


@login_required
@require_POST
def akte_note_create(request: HttpRequest, pk: int) -> HttpResponse:
    """A note on the Akte page; `@Helena <Auftrag>` also starts a background run for the Akte.
    Notes are internal: a MANDANT has no notes section (404, like a foreign Akte)."""
    if not sees_internal(request.user):
        raise NotFound(ERR_AKTE_NOT_FOUND)
    akte = akte_get(user=request_user(request), pk=pk)
    target = reverse("akte-detail", args=[akte.pk]) + "#not-h"
    text = request.POST.get("text", "").strip()
    if not text:
        messages.error(request, ERR_NOTE_EMPTY)
        return HttpResponseRedirect(target)
    try:
        _notiz, run = conversations.notiz_create_with_auftrag(
            akte=akte, by=request_user(request), text=text, titel=request.POST.get("titel", "").strip()
        )
    except conversations.AuftragNichtAngenommen as exc:
        if not isinstance(exc.ursache, ValidationError | NotFound | PermissionDenied):
            logger.exception("@Helena note: run refused")
        grund = german_error(exc.ursache, "")
        messages.error(request, f"{grund} {ERR_RUN_REFUSED}".strip() if grund else ERR_RUN_REFUSED)
        return HttpResponseRedirect(target)
    except ValidationError as exc:  # the note itself
        messages.error(request, " ".join(exc.messages))
        return HttpResponseRedirect(target)
    except Exception:
        logger.exception("@Helena note failed")
        messages.error(request, ERR_NOTE_FAILED)
        return HttpResponseRedirect(target)
    if run is None:
        messages.info(request, MSG_NOTE_SAVED)
    elif run.status in AgentRun.ACTIVE_STATUSES:
        messages.info(request, MSG_RUN_STARTED.format(auftrag=conversations.helena_mention(text)[:80]))
    else:
        messages.error(request, run.error or ERR_RUN_REFUSED)
    return HttpResponseRedirect(target)
