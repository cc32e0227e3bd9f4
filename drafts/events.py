"""The drafts' domain event: a draft was created, or its status or content changed (accepted,
edited, rejected, undone).

The services send it explicitly (`draft_changed_announce`, after their transaction commits), never
on every model save; whoever shows live draft cards subscribes to it (agent.apps connects the
websocket delivery). Drafts stay below the agent: they announce, they do not know who listens.
The event carries ids only; each listener loads what its own user may see.
"""

from __future__ import annotations

from django.db import transaction
from django.dispatch import Signal

from .models import HelenaDraft

# Sent with draft_id, akte_id (None for a general note draft), requested_by_id and created (True
# for a new draft, False for a change of an existing one).
draft_changed = Signal()


def draft_changed_announce(draft: HelenaDraft, *, created: bool = False) -> None:
    """Announce the creation or change of `draft` once the current transaction has committed."""
    draft_id, akte_id, requested_by_id = draft.pk, draft.akte_id, draft.requested_by_id
    transaction.on_commit(
        lambda: draft_changed.send_robust(
            sender=HelenaDraft, draft_id=draft_id, akte_id=akte_id, requested_by_id=requested_by_id, created=created
        )
    )
