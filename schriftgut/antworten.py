"""„Als Word speichern“: a chat answer becomes a DOKUMENT draft of its Akte. It composes the agent's
runs and the drafts, so it sits above both (the rendering services below them do not)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from agent.engine.prompt import without_intro
from agent.runs.selectors import runs_of
from akten.models import User
from drafts.models import HelenaDraft
from drafts.services import draft_create

ERR_ANTWORT_LEER = "Diese Antwort hat keinen Text, der sich speichern ließe."
ERR_ANTWORT_OHNE_AKTE = "Diese Antwort gehört zu keiner Akte; wähle im Chat eine Akte und frage erneut."


def antwort_als_entwurf(*, run_id: int, by: User, titel: str = "") -> Any:
    """„Als Word speichern“: a chat answer of `by`'s own run becomes a DOKUMENT draft of the run's
    Akte (approved like every draft). Another user's run or one `by` may no longer see (`runs_of`):
    LookupError (404);
    no Akte or no text: ValueError with a German message."""
    run = runs_of(by).filter(pk=run_id).select_related("akte").first()
    if run is None:  # another user's run, or one `by` may no longer see (its Akte, or one it read)
        raise LookupError("Antwort nicht gefunden.")
    if run.akte is None:
        raise ValueError(ERR_ANTWORT_OHNE_AKTE)
    if not run.answer.strip():
        raise ValueError(ERR_ANTWORT_LEER)
    from .platzhalter import datum_lang

    titel = titel.strip() or f"Antwort von Helena vom {datum_lang(timezone.localtime(run.created_at).date())}"
    return draft_create(
        typ=HelenaDraft.Typ.DOKUMENT,
        akte=run.akte,
        requested_by=by,
        # the greeting of a first contact is chat, not letter; notes on a cut or demo answer stay
        # (the reviewer must see them)
        payload={"titel": titel[:200], "inhalt_markdown": without_intro(run.answer)},
        run=run,  # the answer repeats what the run read: the draft follows the run (drafts.models)
    )
