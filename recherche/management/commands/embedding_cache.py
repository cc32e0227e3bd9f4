from typing import Any

from django.core.management.base import CommandParser

from helena.command_base import GermanBaseCommand
from recherche.embeddings import get_backend
from recherche.models import Chunk
from recherche.vector_cache import VectorCache


class Command(GermanBaseCommand):
    help = "Schreibt die Vektoren der Gesetze, Urteile und Muster als Cache-Datei für neue Installationen."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "action", choices=["export"], metavar="aktion", help="export: die Vektoren in die Cache-Datei schreiben"
        )
        parser.add_argument(
            "--prune", action="store_true", help="nur die Vektoren der Datenbank schreiben (alte Einträge der Datei fallen weg)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        model = get_backend().name
        rows = (
            Chunk.objects.filter(embedding_model=model)
            .exclude(kind=Chunk.Kind.DOKUMENT)  # never ship the firm's documents
            .order_by("content_hash")
            .values_list("content_hash", "embedding")
        )
        # Merged with the shipped file, so an export from a partial database loses nothing; with
        # --prune (from a database holding the whole shipped corpus) stale vectors are dropped.
        merged = {} if options["prune"] else VectorCache.load(model).items()
        merged.update({h: list(map(float, v)) for h, v in rows})
        items = sorted(merged.items())
        path = VectorCache.save(model, items)
        self.stdout.write(f"{len(items)} Vektoren nach {path} geschrieben.")
