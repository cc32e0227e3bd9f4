"""Reads around Helena's runs and conversations, always scoped to the user.

The `*_get` selectors return the object or raise `NotFound` with one uniform German message, the
same for a missing row and for another user's row, so that nobody can probe for ids.

A user's own history follows the access rule of today (`runs_of`, `conversations_of`): a run or a
conversation on an Akte the user can no longer see (an ended Vertretung, a changed Dezernat, a
mandate the Mandant no longer has) is gone for them with its task, steps, answer and
notifications, as if it did not exist; so is a run that read such an Akte (in the general chat, or
with a search across Akten), with its turns in the conversation and the conversation's title when
that is its question (`with_shown_title`); so is everything of a deactivated account, also on a
socket it opened before. The rows stay (admin view, retention).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Case, CharField, Count, Exists, F, OuterRef, Q, QuerySet, Subquery, Value, When
from django.db.models.functions import Coalesce

from agent.models import AgentRun, AgentStep, Conversation, Message, ToolCallAudit
from akten.models import Akte, User, access_scope_reused
from akten.policy import sees_internal
from helena.errors import NotFound
from helena.text import shorten

ERR_RUN_NOT_FOUND = "Auftrag nicht gefunden."
ERR_CONVERSATION_NOT_FOUND = "Gespräch nicht gefunden."
TITLE_HIDDEN = "Gespräch (verborgen)"


def on_visible_akte(user: Any) -> Q:
    """Rows without an Akte or on an Akte `user` may see now (the chokepoint): the rule for a user's
    own runs, conversations and tool-call audit rows (with ToolCallAudit.objects.showing_hidden_akten
    for what a run read), here and in the admin."""
    return Q(akte__isnull=True) | Q(akte__in=Akte.objects.visible_to(user).values("pk"))


def runs_of(user: User) -> QuerySet[AgentRun]:
    """The runs of `user` that `user` may still see (see the module's docstring): also not a run
    that read an Akte gone for them since (a run without an Akte, a search across Akten), whose
    answer can repeat what it read. The user's access is resolved once for both."""
    with access_scope_reused():
        read_hidden = ToolCallAudit.objects.showing_hidden_akten(user).filter(run=OuterRef("pk"))
        mine = AgentRun.objects.filter(on_visible_akte(user), user=user, user__is_active=True)
    return mine.exclude(Exists(read_hidden))


def conversations_of(user: User) -> QuerySet[Conversation]:
    """The conversations of `user` that `user` may still see (see the module's docstring)."""
    return Conversation.objects.filter(on_visible_akte(user), user=user, user__is_active=True)


def messages_of(user: User) -> QuerySet[Message]:
    """The messages `user` may still see: in their conversations they may still see
    (`conversations_of`), and not the question and the answer of a run gone for them (`runs_of`)."""
    with access_scope_reused():
        visible_runs = runs_of(user).values("pk")
        conversations = conversations_of(user).values("pk")
    return Message.objects.filter(Q(run__isnull=True) | Q(run__in=visible_runs), conversation__in=conversations)


def run_list(*, user: User) -> QuerySet[AgentRun]:
    return runs_of(user).select_related("akte", "conversation").order_by("-created_at", "-pk")


def run_queue_positions(*, user: User) -> dict[int, int]:
    """{run id: place in the queue} for the user's background runs that wait for a worker (1: the
    next to start). All waiting runs count, in the order they were created, but only the user's
    own runs are returned: of the others a user learns how many wait ahead, nothing more. A
    MANDANT learns not even that (akten/policy.py): none, her runs only say that they wait."""
    if not sees_internal(user):
        return {}
    queued = AgentRun.objects.filter(mode=AgentRun.Mode.BACKGROUND, status=AgentRun.Status.PENDING)
    ahead = (
        queued.filter(Q(created_at__lt=OuterRef("created_at")) | Q(created_at=OuterRef("created_at"), pk__lt=OuterRef("pk")))
        .order_by()
        .values("mode")
        .annotate(n=Count("pk"))
        .values("n")
    )
    mine = queued.filter(user=user).annotate(ahead=Coalesce(Subquery(ahead), 0))
    return {pk: n + 1 for pk, n in mine.values_list("pk", "ahead")}


def run_get(*, user: User, pk: int, lock: bool = False) -> AgentRun:
    """The user's own run that they may still see, else NotFound. With `lock`, its row is locked:
    call it in a transaction."""
    qs = runs_of(user).select_for_update(of=("self",)) if lock else runs_of(user)
    try:
        return qs.get(pk=pk)
    except AgentRun.DoesNotExist:
        raise NotFound(ERR_RUN_NOT_FOUND) from None


def run_visible(*, user: User, run_id: int) -> bool:
    """May `user` still see their run `run_id` (`runs_of`)? Asked again while its events are
    delivered live (agent/chat/tails.py): access can end in the middle of a run."""
    return runs_of(user).filter(pk=run_id).exists()


def runs_created_since(*, since: datetime) -> list[tuple[int, int]]:
    """(run id, user id) of the runs of active users created at or after `since`, oldest first: what
    a web process's announcer tells the owners' sockets there (agent/chat/announcements.py). It
    picks the owners with a socket itself: a list of their ids in the query (up to a thousand
    sockets per process) cost ten times the query."""
    rows = AgentRun.objects.filter(created_at__gte=since, user__is_active=True)
    return list(rows.order_by("created_at", "pk").values_list("pk", "user_id"))


def run_steps_after(*, run_id: int, after_seq: int, limit: int = 500) -> list[dict[str, Any]]:
    """Persisted events of a run with seq > after_seq, in order, as the wire dicts."""
    rows = AgentStep.objects.filter(run_id=run_id, seq__gt=after_seq).order_by("seq")[:limit]
    return [step_as_event(step) for step in rows]


def step_as_event(step: AgentStep) -> dict[str, Any]:
    event = dict(step.payload or {})
    event.update({"type": step.type, "run": step.run_id, "seq": step.seq})
    event.setdefault("at", step.created_at.isoformat())
    return event


def question_title(text: str) -> str:
    """The title of a conversation that a question starts (agent/runs/services.py): the question
    on one line, cut after a whole word."""
    return shorten(text, 60)


def with_shown_title(conversations: QuerySet[Conversation], *, user: User) -> QuerySet[Conversation]:
    """`conversations` of `user` with `shown_title`, what every page, search and frame shows: the
    title, or TITLE_HIDDEN where the title is the question of a run gone for `user` (`runs_of`),
    which goes with its run. A title they gave it themselves stays. Reads those runs once."""
    hidden_runs = AgentRun.objects.filter(user=user, conversation__in=conversations.values("pk")).exclude(
        pk__in=runs_of(user).values("pk")
    )
    rows = hidden_runs.values_list("conversation_id", "conversation__title", "task")
    titled_by_hidden = {pk for pk, title, task in rows if title == question_title(task)}
    shown = Case(When(pk__in=titled_by_hidden, then=Value(TITLE_HIDDEN)), default=F("title"), output_field=CharField())
    return conversations.annotate(shown_title=shown)


def conversation_list(*, user: User) -> QuerySet[Conversation]:
    conversations = with_shown_title(conversations_of(user), user=user)
    return conversations.select_related("akte").order_by("-updated_at", "-pk")


def conversation_get(*, user: User, pk: int) -> Conversation:
    """The user's own conversation that they may still see (with `shown_title`), else NotFound."""
    try:
        return with_shown_title(conversations_of(user).filter(pk=pk), user=user).select_related("akte").get()
    except Conversation.DoesNotExist:
        raise NotFound(ERR_CONVERSATION_NOT_FOUND) from None


def conversation_title(*, user: User, pk: int) -> str:
    """The title of the user's conversation `pk` as they see it (`with_shown_title`), else NotFound."""
    shown: str = conversation_get(user=user, pk=pk).shown_title  # type: ignore[attr-defined]  # the annotation
    return shown


def conversation_messages(*, user: User, conversation: Conversation) -> list[Message]:
    """The turns `user` may still see (`messages_of`) in order: each question, then the replies of
    its run (a cancelled run's reply is written when the run stops, which may be after the next
    question was sent)."""
    rows = list(messages_of(user).filter(conversation=conversation).select_related("run").order_by("created_at", "pk"))
    return turns_in_order(rows)


def turns_in_order(rows: list[Message]) -> list[Message]:
    """`rows` (by time) with every reply moved right behind the question of the same run."""
    replies: dict[int, list[Message]] = {}
    asked = {row.run_id for row in rows if row.role == Message.Role.USER and row.run_id}
    for row in rows:
        if row.role != Message.Role.USER and row.run_id in asked:
            replies.setdefault(row.run_id, []).append(row)
    ordered: list[Message] = []
    for row in rows:
        if row.role == Message.Role.USER:
            ordered.append(row)
            ordered += replies.get(row.run_id or 0, []) if row.run_id else []
        elif row.run_id not in asked:
            ordered.append(row)
    return ordered


def akten_for_chat(*, user: User) -> QuerySet[Akte]:
    return Akte.objects.visible_to(user).order_by("aktenzeichen").only("pk", "aktenzeichen", "kurzrubrum")
