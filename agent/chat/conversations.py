"""Behind the chat page: conversations (search, writes), and notes that hand Helena an `@Helena` task."""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q, QuerySet

from agent.models import AgentRun, Conversation
from agent.runs.selectors import conversation_list, messages_of
from akten import services as akten_services
from akten.models import Akte, Notiz, User

ERR_TITLE_EMPTY = "Bitte gib einen Titel ein."
DEFAULT_TITLE = "Neues Gespräch"
# "@Helena <Auftrag>" at the start of a note (case-insensitive, optional colon)
HELENA_MENTION_RE = re.compile(r"^\s*@helena\b[:,]?\s*(?P<auftrag>.+)", re.IGNORECASE | re.DOTALL)


def conversation_search(*, user: User, query: str = "") -> QuerySet[Conversation]:
    """The user's conversations, newest first; with `query`, those whose title as shown
    (`shown_title`) or any message they may still see (question or answer, `messages_of`) contains it."""
    conversations = conversation_list(user=user)
    query = " ".join(query.split())
    if query:
        matching = messages_of(user).filter(text__icontains=query).values("conversation_id")
        conversations = conversations.filter(Q(shown_title__icontains=query) | Q(pk__in=matching))
    return conversations


@transaction.atomic
def conversation_create(*, user: User, akte: Akte | None = None, title: str = "") -> Conversation:
    """The caller has checked that `user` may see `akte`."""
    conversation = Conversation(user=user, akte=akte, title=(title.strip() or DEFAULT_TITLE)[:200])
    conversation.full_clean()
    conversation.save()
    return conversation


@transaction.atomic
def conversation_rename(*, conversation: Conversation, title: str) -> Conversation:
    title = title.strip()
    if not title:
        raise ValidationError(ERR_TITLE_EMPTY)
    conversation.title = title[:200]
    conversation.full_clean()
    conversation.save(update_fields=["title", "updated_at"])
    return conversation


@transaction.atomic
def conversation_delete(*, conversation: Conversation) -> None:
    """Deletes the conversation and its messages; runs stay (audit) without the conversation."""
    conversation.delete()


def helena_mention(text: str) -> str:
    """The task of an `@Helena <Auftrag>` note, or "" when the note does not address Helena."""
    match = HELENA_MENTION_RE.match(text or "")
    return match["auftrag"].strip() if match else ""


class AuftragNichtAngenommen(Exception):  # noqa: N818 - German domain name, like the app's other errors
    """The note of an `@Helena` request is saved, its run was refused (`ursache`: rate limit, ...)."""

    def __init__(self, notiz: Notiz, ursache: Exception) -> None:
        super().__init__(str(ursache))
        self.notiz, self.ursache = notiz, ursache


def notiz_create_with_auftrag(*, akte: Akte, by: User, text: str, titel: str = "") -> tuple[Notiz, AgentRun | None]:
    """Create the note; if it starts with `@Helena`, also start a background run for the Akte.

    The run is queued after the transaction commits (agent.runs.tasks.run_enqueue). A note that
    cannot be created raises its error; a run that is refused (the rate limit, ...) leaves the note
    saved and raises AuftragNichtAngenommen after it is committed: the user's text is never lost
    because Helena could not take the request.
    """
    from agent.runs import services, tasks

    abgelehnt: Exception | None = None
    with transaction.atomic():
        notiz = akten_services.notiz_create(akte=akte, by=by, text=text, titel=titel)
        auftrag = helena_mention(text)
        if not auftrag:
            return notiz, None
        try:
            with transaction.atomic():  # a savepoint: a refused run takes nothing of the note with it
                run = services.run_create(user=by, text=auftrag, akte=akte, mode=AgentRun.Mode.BACKGROUND)
                if run.status in AgentRun.ACTIVE_STATUSES:
                    tasks.run_enqueue(run_id=run.pk)
        except Exception as exc:
            abgelehnt = exc
    if abgelehnt is not None:
        raise AuftragNichtAngenommen(notiz, abgelehnt) from abgelehnt
    return notiz, run
