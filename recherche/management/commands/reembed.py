from typing import Any

from django.core.management.base import CommandParser

from helena.command_base import GermanBaseCommand
from recherche.embeddings import get_backend
from recherche.models import Chunk

from .ingest_gesetze import embed


class Command(GermanBaseCommand):
    help = (
        "Wechselt das Embedding-Modell: bettet alle Abschnitte mit dem konfigurierten Modell neu ein "
        "(HELENA_EMBEDDING_*). Suchen verwenden nur Vektoren des konfigurierten Modells."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--drop-other-models", action="store_true", help="Vektoren anderer Modelle löschen")

    def handle(self, *args: Any, **options: Any) -> None:
        backend = get_backend()
        self.stdout.write(f"Konfiguriertes Modell: {backend.name} ({backend.dim} Dimensionen)")
        embed(self)
        if options["drop_other_models"]:
            dropped = (
                Chunk.objects.exclude(embedding_model=backend.name)
                .exclude(embedding_model="")
                .update(embedding=None, embedding_model="", embedding_dim=None)
            )
            self.stdout.write(f"{dropped} Vektoren anderer Modelle gelöscht.")
