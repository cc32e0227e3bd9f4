from typing import Any

from django.conf import settings

from akten.models import Dokument

from .services import dokument_index
from .tasks import dokument_index_task


def on_dokument_saved(sender: Any, dokument: Dokument, **kwargs: Any) -> None:
    """Make a stored document searchable. Full text at once (for all but very large texts); the
    embedding, which takes CPU time, in the task worker."""
    if len(dokument.text) <= settings.HELENA_SYNC_INDEX_CHARS:
        dokument_index(dokument)
    dokument_index_task.enqueue(dokument.pk)
