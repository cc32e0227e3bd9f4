from typing import Any

from helena.command_base import GermanBaseCommand
from recherche.services import chunk_postings_rebuild


class Command(GermanBaseCommand):
    help = (
        "Baut die Volltext-Postings aller Abschnitte neu auf (nach einem Schreiben an den Triggern vorbei, "
        "etwa einer Wiederherstellung nur der Daten)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        count = chunk_postings_rebuild()
        self.stdout.write(f"{count} Postings neu aufgebaut.")
