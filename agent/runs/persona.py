"""The database inputs of Helena's system prompt (agent/engine/prompt.py builds it)."""

from __future__ import annotations

from agent.engine.prompt import MAX_REJECTIONS, AkteContext, Rejection
from agent.models import Message
from akten.models import Akte, Beteiligter, User
from akten.policy import sees_internal
from drafts.selectors import drafts_rejected

MAX_BETEILIGTE = 12


def persona_context_load(*, user: User, akte: Akte | None) -> tuple[AkteContext | None, list[Rejection], bool]:
    """The database inputs of the prompt: the Akte (the caller has checked access), the latest
    rejected drafts on it, and whether this is the user's first contact with Helena.

    Everything is loaded for `user` through the chokepoint and the field policy
    (`akten.policy`): a MANDANT's prompt carries no Sachstand, no addresses and no rejections."""
    first_contact = not Message.objects.filter(conversation__user=user, role=Message.Role.ASSISTANT).exists()
    if akte is None:
        return None, [], first_contact
    internal = sees_internal(user)
    beteiligte = tuple(
        f"{b.get_rolle_display()}: {b.kontakt.display_name}"
        for b in Beteiligter.objects.visible_to(user).filter(akte=akte).select_related("kontakt").order_by("pk")[:MAX_BETEILIGTE]
    )
    context = AkteContext(
        aktenzeichen=akte.aktenzeichen,
        kurzrubrum=akte.kurzrubrum,
        sachgebiet=akte.get_sachgebiet_display(),
        status=akte.get_status_display(),
        wegen=akte.wegen,
        zusammenfassung=akte.zusammenfassung if internal else "",
        beteiligte=beteiligte,
    )
    # The title of a draft proposed after reading text of others is that text's, not the firm's:
    # an injected "SYSTEM: ..." title would stand in every later prompt of the Akte. Its type stands
    # instead; the reason and categories are the reviewer's own words.
    rejections = [
        Rejection(
            titel=d.get_typ_display() if d.untrusted_input else d.titel,
            reason=d.rejection_reason,
            categories=tuple(d.rejection_categories),
            origin_run_id=d.origin_run_id,
        )
        for d in drafts_rejected(user=user, akte=akte, limit=MAX_REJECTIONS)
    ]
    return context, rejections, first_contact
