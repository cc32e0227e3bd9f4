from typing import Any

from django.core.management.base import BaseCommand

from recherche.services import chunk_postings_rebuild


class Command(BaseCommand):
    help = (
        "Baut die Volltext-Postings aller Abschnitte neu auf (nach einem Schreiben an den Triggern vorbei, "
        "etwa einer Wiederherstellung nur der Daten)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        count = chunk_postings_rebuild()
        self.stdout.write(f"{count} Postings neu aufgebaut.")
