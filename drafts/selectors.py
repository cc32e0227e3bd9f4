"""Reads of drafts and alerts, always through their `visible_to(user)` (which goes through
`Akte.objects.visible_to`): the API, the pages, the chat's draft cards and Helena's prompt read
here. `draft_get` is the one access helper of a draft (optionally locking its row)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Count, QuerySet

from akten.models import Akte, User, access_scope_reused

from .models import HelenaAlert, HelenaDraft, from_run_reading_hidden_akten

ERR_DRAFT_NOT_FOUND = "Entwurf nicht gefunden."
# What a draft card needs besides the draft (agent.chat.cards.draft_card).
CARD_RELATED = ("akte", "result_content_type")


# A list's drafts carry their version (services.draft_version) from the same query.
_VERSION = {"revision_count": Count("revisions", distinct=True)}


def draft_list(*, user: User, status: str = "", akte_id: int | None = None) -> QuerySet[HelenaDraft]:
    qs = HelenaDraft.objects.visible_to(user).select_related("akte", "reviewer", "result_content_type").annotate(**_VERSION)
    if status:
        qs = qs.filter(status=status)
    if akte_id is not None:
        qs = qs.filter(akte_id=akte_id)
    return qs


def draft_get(*, user: User, pk: int, lock: bool = False) -> HelenaDraft:
    """The draft if `user` may see it, else DraftNotFound (a NotFound). With `lock`, only the draft
    row is locked (`SELECT … FOR UPDATE OF`), never the joined Akte: call it inside a transaction."""
    from .services import DraftNotFound

    qs = HelenaDraft.objects.visible_to(user).select_related("akte", "reviewer", "origin_run")
    if lock:
        qs = qs.select_for_update(of=("self",))
    try:
        return qs.get(pk=pk)
    except HelenaDraft.DoesNotExist:
        raise DraftNotFound(ERR_DRAFT_NOT_FOUND) from None


def drafts_pending(*, user: User, akte: Akte | None = None) -> QuerySet[HelenaDraft]:
    """Open drafts the user may see (of one Akte, or all), with what their cards need."""
    qs = HelenaDraft.objects.visible_to(user).pending().select_related(*CARD_RELATED).annotate(**_VERSION)
    return qs.filter(akte=akte) if akte is not None else qs


def drafts_by_ids(*, user: User, draft_ids: Iterable[int]) -> QuerySet[HelenaDraft]:
    return HelenaDraft.objects.visible_to(user).filter(pk__in=list(draft_ids)).select_related(*CARD_RELATED).annotate(**_VERSION)


def drafts_of_runs(*, user: User, run_ids: Iterable[int]) -> QuerySet[HelenaDraft]:
    """The drafts Helena's runs proposed, as far as `user` may see them (`run_ids`: ids, or a
    queryset of them, which stays a subquery)."""
    runs = run_ids if isinstance(run_ids, QuerySet) else list(run_ids)
    return HelenaDraft.objects.visible_to(user).filter(origin_run_id__in=runs).select_related(*CARD_RELATED)


def drafts_rejected(*, user: User, akte: Akte, limit: int) -> list[HelenaDraft]:
    """The latest rejected drafts of an Akte that `user` may see (newest first), for the prompt of
    `user`'s run. Leaves out the drafts of a run that read an Akte `user` may not see now, also
    another user's run: the team of the Akte still sees such a draft in the list, but its title and
    rejection reason can repeat what that run read, and a new run's audit would not record that
    Akte among its reads (its answer and drafts would pass as derived from the Akte alone)."""
    with access_scope_reused():  # the user's access resolved once for both
        qs = HelenaDraft.objects.visible_to(user).filter(akte=akte, status=HelenaDraft.Status.REJECTED)
        qs = qs.exclude(from_run_reading_hidden_akten(user))
        return list(qs.order_by("-reviewed_at", "-pk")[:limit])


def alert_list(*, user: User, active_only: bool = False) -> QuerySet[HelenaAlert]:
    qs = HelenaAlert.objects.visible_to(user).select_related("akte")
    return qs.active() if active_only else qs
