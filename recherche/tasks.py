"""Background work of the knowledge base (Django Tasks API)."""

from django_tasks import task

from akten.models import Dokument

from .embeddings import get_backend
from .services import dokument_index_and_embed, vector_indexes_ensure


@task()
def dokument_index_task(dokument_id: int) -> None:
    """Index (if not done yet) and embed a document; a deleted document is skipped."""
    dokument = Dokument.objects.select_related("akte").filter(pk=dokument_id).first()
    if dokument is None:
        return
    backend = get_backend()
    dokument_index_and_embed(dokument, backend=backend)
    vector_indexes_ensure(model_name=backend.name, dim=backend.dim)
