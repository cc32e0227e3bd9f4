"""How run events get from wherever a run executes to every browser tab watching it.

The database is the source of truth: the engine persists every event as an `AgentStep` row before
it calls `publish`. Each websocket consumer that watches a run *tails* those rows (seq > last sent)
and sends them in order, so delivery never depends on the channel layer reaching across processes:

- `publish` (called by the engine after the row is written) sends the event to the run's
  channel-layer group. A consumer that is exactly one event behind forwards it at once (the fast
  path); otherwise the message only wakes its tail, which reads the gap from the database.
- In the embedded default (in-memory channel layer) a run executed by the `db_worker` process
  cannot reach daphne's consumers through the layer, so their tails poll every 100 ms. With Redis
  the layer crosses processes and the poll is only a safety net (1 s).
- A tab learns of a run it did not start through `user_notify_run` (`run.announce` to the user's
  group) and, should that be lost, from its process's announcer (agent/chat/announcements.py):
  one query per process every 1 s (in-memory layer) or 5 s (Redis) for the runs created since its
  last look by the users with a socket there.

The same code serves both shapes; nothing is lost if a publish or an announcement is dropped, and
a reconnecting tab replays from the rows with `run.resume`.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

logger = logging.getLogger(__name__)

POLL_SECONDS_LOCAL = 0.1
POLL_SECONDS_SHARED_LAYER = 1.0


def run_group(run_id: int) -> str:
    return f"helena.run.{run_id}"


def user_group(user_id: int) -> str:
    return f"helena.user.{user_id}"


def akte_group(akte_id: int) -> str:
    return f"helena.akte.{akte_id}"


def layer_crosses_processes() -> bool:
    backend = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "")
    return "InMemory" not in backend


def tail_poll_seconds() -> float:
    return POLL_SECONDS_SHARED_LAYER if layer_crosses_processes() else POLL_SECONDS_LOCAL


async def event_publish(event: dict[str, Any]) -> None:
    """The engine's `publish` callback: the event row is already persisted."""
    layer = get_channel_layer()
    if layer is None:
        return
    await layer.group_send(run_group(int(event["run"])), {"type": "run.event", "event": event})


async def user_notify_run(*, user_id: int, run_id: int) -> None:
    """Tell every open tab of the user that a run exists, so they start tailing it."""
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(user_group(user_id), {"type": "run.announce", "run": run_id})


async def draft_changed(*, akte_id: int | None, user_id: int, draft_id: int) -> None:
    """A draft's status changed: tell everyone looking at the Akte (or the owner). Only the id
    travels; each recipient's socket loads the card with its own user's access at delivery time."""
    layer = get_channel_layer()
    if layer is None:
        return
    message = {"type": "draft.changed", "draft": draft_id}
    await layer.group_send(akte_group(akte_id) if akte_id else user_group(user_id), message)


async def akte_drafts_added(*, akte_id: int) -> None:
    """New drafts exist on the Akte: wake the sockets following it, which then read the new cards
    for their own user (the message carries no draft, only the Akte's id)."""
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(akte_group(akte_id), {"type": "akte.drafts_added", "akte": akte_id})


def draft_changed_deliver(
    sender: Any, *, draft_id: int, akte_id: int | None, requested_by_id: int, created: bool = False, **kwargs: Any
) -> None:
    """Receiver of `drafts.events.draft_changed` (connected in agent.apps), called after the
    draft service's transaction has committed."""
    try:
        if created:
            # The run that created it shows its card in its own events; the Akte page learns of it here.
            if akte_id is not None:
                async_to_sync(akte_drafts_added)(akte_id=akte_id)
            return
        async_to_sync(draft_changed)(akte_id=akte_id, user_id=requested_by_id, draft_id=draft_id)
    except Exception:
        # The card still shows the right status after a reload; a lost notice must not fail the approval.
        logger.exception("Entwurf %s: Statusänderung nicht zugestellt", draft_id)
