"""Feedback on Helena's answers: thumbs up or down with an optional comment, kept for evaluation.
Only the person Helena answered may rate the answer (their own conversation)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from agent.models import AgentRun, AnswerFeedback, Message
from agent.runs.selectors import messages_of
from akten.models import User
from helena.errors import NotFound

ERR_ANSWER_NOT_FOUND = "Diese Antwort gibt es nicht."
ERR_RATING = "Bitte wähle „hilfreich“ oder „nicht hilfreich“."
COMMENT_MAX = 2000


def answer_of_run(*, user: User, run_id: int) -> Message:
    """Helena's answer to `user` for the run (their own conversation only); otherwise NotFound."""
    message = messages_of(user).filter(run_id=run_id, role=Message.Role.ASSISTANT, run__user=user).order_by("-pk").first()
    if message is None:
        raise NotFound(ERR_ANSWER_NOT_FOUND)
    return message


@transaction.atomic
def feedback_save(*, user: User, run: AgentRun | int, rating: str, comment: str = "") -> AnswerFeedback:
    """Store (or replace) the user's verdict on Helena's answer of `run`."""
    message = answer_of_run(user=user, run_id=run if isinstance(run, int) else run.pk)
    if rating not in AnswerFeedback.Rating.values:
        raise ValidationError(ERR_RATING)
    feedback, _created = AnswerFeedback.objects.update_or_create(
        message=message, user=user, defaults={"rating": rating, "comment": (comment or "").strip()[:COMMENT_MAX]}
    )
    return feedback
