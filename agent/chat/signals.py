"""Live draft cards: when a draft's status changes (accepted, rejected, undone, edited), every tab
looking at its Akte is told through the channel layer. The notice carries only the draft's id: each
tab loads the card for its own user at delivery time (`ChatConsumer.draft_changed`), so nobody
receives a card they may not see now."""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from drafts.models import HelenaDraft

logger = logging.getLogger(__name__)


@receiver(post_save, sender=HelenaDraft, dispatch_uid="agent.draft_changed")
def draft_saved(sender: type[HelenaDraft], instance: HelenaDraft, created: bool, **kwargs: Any) -> None:
    if created:
        return  # announced by the run's draft.created event
    draft_id = instance.pk
    transaction.on_commit(lambda: _announce(draft_id))


def _announce(draft_id: int) -> None:
    from agent.runs.delivery import draft_changed

    draft = HelenaDraft.objects.filter(pk=draft_id).values("akte_id", "requested_by_id").first()
    if draft is None:
        return
    try:
        async_to_sync(draft_changed)(akte_id=draft["akte_id"], user_id=draft["requested_by_id"], draft_id=draft_id)
    except Exception:
        # The card still shows the right status after a reload; a lost notice must not fail the approval.
        logger.exception("Entwurf %s: Statusänderung nicht zugestellt", draft_id)
