"""Live draft cards: when a draft's status changes (accepted, rejected, undone, edited), every tab
looking at its Akte gets the new card through the channel layer."""

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
    from .cards import draft_card
    from .delivery import draft_changed

    draft = HelenaDraft.objects.select_related("akte", "result_content_type").filter(pk=draft_id).first()
    if draft is None:
        return
    try:
        async_to_sync(draft_changed)(akte_id=draft.akte_id, user_id=draft.requested_by_id, draft=draft_card(draft))
    except Exception:
        # The card still shows the right status after a reload; a lost notice must not fail the approval.
        logger.exception("Entwurf %s: Statusänderung nicht zugestellt", draft_id)
