"""Notifications: what happened in the user's background runs while they looked elsewhere — a run
finished, or it proposed a draft. Only the user's own runs, and of their drafts only those the
user may see now (drafts.selectors applies the access rule), so a MANDANT never gets staff's."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from agent.models import AgentRun, NotificationCursor
from agent.runs.selectors import runs_of
from akten.models import User, access_scope_reused
from drafts.selectors import drafts_of_runs
from helena.text import shorten

LIMIT = 30
RUN_FINISHED = "Auftrag „{task}“: {status}"
DRAFT_CREATED = "Neuer Entwurf ({typ}): „{titel}“"


@dataclass(frozen=True)
class Notification:
    when: datetime.datetime
    text: str
    url: str
    unread: bool


def _seen_at(user: User) -> datetime.datetime | None:
    cursor = NotificationCursor.objects.filter(user=user).first()
    return cursor.seen_at if cursor else None


def notification_list(*, user: User, limit: int = LIMIT) -> list[Notification]:
    """The newest notifications of `user`, newest first (on every page: the user's access is
    resolved once for its queries)."""
    with access_scope_reused():
        return _notifications(user, limit)


def _notifications(user: User, limit: int) -> list[Notification]:
    seen_at = _seen_at(user)
    runs = list(
        runs_of(user)
        .filter(mode=AgentRun.Mode.BACKGROUND)
        .exclude(status__in=AgentRun.ACTIVE_STATUSES)
        .filter(finished_at__isnull=False)
        .order_by("-finished_at")[:limit]
    )
    items: list[Notification] = []
    for run in runs:
        url = reverse("helena-conversation", args=[run.conversation_id]) + f"#run-{run.pk}" if run.conversation_id else ""
        items.append(
            Notification(
                when=run.finished_at or run.created_at,
                text=RUN_FINISHED.format(task=shorten(run.task, 60), status=run.get_status_display()),
                url=url or reverse("helena-runs"),
                unread=seen_at is None or (run.finished_at or run.created_at) > seen_at,
            )
        )
    background_runs = runs_of(user).filter(mode=AgentRun.Mode.BACKGROUND).values_list("pk", flat=True)
    for draft in drafts_of_runs(user=user, run_ids=background_runs).order_by("-created_at")[:limit]:
        items.append(
            Notification(
                when=draft.created_at,
                text=DRAFT_CREATED.format(typ=draft.get_typ_display(), titel=draft.shown_titel),
                url=reverse("akte-detail", args=[draft.akte_id]) + "#dr-h" if draft.akte_id else reverse("helena-runs"),
                unread=seen_at is None or draft.created_at > seen_at,
            )
        )
    items.sort(key=lambda n: n.when, reverse=True)
    return items[:limit]


def unread_count(*, user: User) -> int:
    return sum(1 for n in notification_list(user=user) if n.unread)


@transaction.atomic
def notifications_seen(*, user: User) -> None:
    NotificationCursor.objects.update_or_create(user=user, defaults={"seen_at": timezone.now()})
