"""Reads around Helena's runs and conversations, always scoped to the user.

The `*_get` selectors return the object or raise `NotFound` with one uniform German message, the
same for a missing row and for another user's row, so that nobody can probe for ids.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from agent.models import AgentRun, AgentStep, Conversation, Message
from akten.models import Akte
from drafts.models import HelenaDraft

ERR_RUN_NOT_FOUND = "Auftrag nicht gefunden."
ERR_CONVERSATION_NOT_FOUND = "Gespräch nicht gefunden."
ERR_AKTE_NOT_FOUND = "Akte nicht gefunden."

TERMINAL_EVENTS = frozenset({"run.finished", "run.failed", "run.cancelled"})


class NotFound(Exception):
    """The object does not exist or the user may not see it (deliberately indistinguishable)."""


def run_list(*, user: Any) -> QuerySet[AgentRun]:
    return AgentRun.objects.filter(user=user).select_related("akte", "conversation").order_by("-created_at", "-pk")


def run_get(*, user: Any, pk: int) -> AgentRun:
    try:
        return AgentRun.objects.get(pk=pk, user=user)
    except AgentRun.DoesNotExist:
        raise NotFound(ERR_RUN_NOT_FOUND) from None


def run_active_ids(*, user: Any) -> list[int]:
    return list(AgentRun.objects.filter(user=user, status__in=AgentRun.ACTIVE_STATUSES).values_list("pk", flat=True))


def run_steps_after(*, run_id: int, after_seq: int, limit: int = 500) -> list[dict[str, Any]]:
    """Persisted events of a run with seq > after_seq, in order, as the wire dicts."""
    rows = AgentStep.objects.filter(run_id=run_id, seq__gt=after_seq).order_by("seq")[:limit]
    return [step_as_event(step) for step in rows]


def step_as_event(step: AgentStep) -> dict[str, Any]:
    event = dict(step.payload or {})
    event.update({"type": step.type, "run": step.run_id, "seq": step.seq})
    event.setdefault("at", step.created_at.isoformat())
    return event


def run_drafts(*, user: Any, run_ids: list[int]) -> QuerySet[HelenaDraft]:
    return HelenaDraft.objects.visible_to(user).filter(origin_run_id__in=run_ids).select_related("akte")


def conversation_list(*, user: Any) -> QuerySet[Conversation]:
    return Conversation.objects.filter(user=user).select_related("akte").order_by("-updated_at", "-pk")


def conversation_get(*, user: Any, pk: int) -> Conversation:
    """The user's own conversation. Its Akte is dropped from view when the user lost access to it."""
    try:
        conversation = Conversation.objects.select_related("akte").get(pk=pk, user=user)
    except Conversation.DoesNotExist:
        raise NotFound(ERR_CONVERSATION_NOT_FOUND) from None
    if conversation.akte_id is not None and not Akte.objects.visible_to(user).filter(pk=conversation.akte_id).exists():
        conversation.akte = None
    return conversation


def conversation_messages(*, conversation: Conversation) -> QuerySet[Message]:
    return conversation.messages.select_related("run").order_by("created_at", "pk")


def akte_for_chat(*, user: Any, pk: int) -> Akte:
    try:
        return Akte.objects.visible_to(user).get(pk=pk)
    except Akte.DoesNotExist:
        raise NotFound(ERR_AKTE_NOT_FOUND) from None


def akten_for_chat(*, user: Any) -> QuerySet[Akte]:
    return Akte.objects.visible_to(user).order_by("aktenzeichen").only("pk", "aktenzeichen", "kurzrubrum")
