from typing import Any

from django.conf import settings

from akten.models import Dokument

from .services import dokument_index
from .tasks import dokument_index_task


def on_dokument_saved(sender: Any, dokument: Dokument, *, index_now: bool = False, **kwargs: Any) -> None:
    """Make a stored document searchable. Full text at once (for all but very large texts, unless
    the sender asks for it with `index_now`: a batch re-extraction that must see the index fail);
    the embedding, which takes CPU time, in the task worker."""
    if index_now or len(dokument.text) <= settings.HELENA_SYNC_INDEX_CHARS:
        dokument_index(dokument)
    dokument_index_task.enqueue(dokument.pk)
