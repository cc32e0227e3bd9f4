"""Recognise the text of stored documents again with today's extraction: documents stored before an
extraction rule changed keep their old text otherwise (a PDF its hidden layers' text, a Word file its
hidden text, a legacy Windows text its replacement characters). Each document goes through
`akten.services.dokument_text_erneuern`, which stores a changed text and re-indexes it in the same
transaction: a document whose index fails keeps its old text and is counted as an "Index-Fehler",
so that the next run finds the text changed again and repairs text and index together. The output
names counts and document numbers only, never a title or text."""

from __future__ import annotations

import logging
from typing import Any

from django.core.management.base import CommandError, CommandParser

from akten.extraction import ExtractionError
from akten.models import Akte, Dokument
from akten.services import IndexFehler, dokument_text_erneuern
from helena.command_base import GermanBaseCommand

logger = logging.getLogger(__name__)

PDF_TYPE = "application/pdf"


class Command(GermanBaseCommand):
    help = (
        "Erkennt den Text gespeicherter Dokumente mit den heutigen Regeln neu (etwa ohne den Text "
        "verborgener PDF-Ebenen) und aktualisiert Suche und Embeddings der geänderten. Fotos und Scans "
        "haben keine Texterkennung und werden übersprungen; die Dateien selbst bleiben unverändert."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--nur-pdf", action="store_true", help="nur PDFs prüfen (sonst auch Word, Text, Markdown, E-Mails)")
        parser.add_argument("--akte", metavar="AKTENZEICHEN", help="nur die Dokumente dieser Akte prüfen")
        parser.add_argument("--dry-run", action="store_true", help="nur zählen, was sich ändern würde; nichts speichern")

    def handle(self, *args: Any, nur_pdf: bool, akte: str | None, dry_run: bool, **options: Any) -> None:
        dokumente = Dokument.objects.exclude(mime_type__startswith="image/")
        if nur_pdf:
            dokumente = dokumente.filter(mime_type=PDF_TYPE)
        if akte is not None:
            gefunden = Akte.objects.filter(aktenzeichen=akte.strip()).first()
            if gefunden is None:
                raise CommandError(f"Eine Akte mit dem Aktenzeichen „{akte.strip()}“ gibt es nicht.", returncode=2)
            dokumente = dokumente.filter(akte=gefunden)
        geprueft = geaendert = 0
        fehler: list[int] = []
        index_fehler: list[int] = []
        for dokument_id in dokumente.order_by("pk").values_list("pk", flat=True).iterator():
            geprueft += 1
            try:
                if dokument_text_erneuern(dokument_id=dokument_id, speichern=not dry_run):
                    geaendert += 1
                    if options["verbosity"] >= 2:
                        self.stdout.write(f"Dokument {dokument_id}: Text geändert")
            except Dokument.DoesNotExist:
                geprueft -= 1  # deleted meanwhile
            except IndexFehler as exc:
                logger.warning("search index update failed for document %s (%s)", dokument_id, str(exc))
                index_fehler.append(dokument_id)
                self.stderr.write(
                    f"Dokument {dokument_id}: Index-Fehler ({exc}), der neue Text ist nicht gespeichert; "
                    "der nächste Lauf versucht es wieder"
                )
            except ExtractionError as exc:  # the reason is one of the extraction's fixed German texts
                fehler.append(dokument_id)
                self.stderr.write(f"Dokument {dokument_id}: Text jetzt nicht erkannt, der bisherige bleibt ({exc})")
            except Exception as exc:  # one unreadable file must not stop the others
                logger.warning("text re-extraction failed for document %s (%s)", dokument_id, type(exc).__name__)
                fehler.append(dokument_id)
                self.stderr.write(f"Dokument {dokument_id}: Datei nicht lesbar ({type(exc).__name__})")
        zaehlung = f"{len(fehler)} Fehler" + (f", {len(index_fehler)} Index-Fehler" if index_fehler else "")
        if dry_run:
            self.stdout.write(f"Probelauf: {geprueft} geprüft, {geaendert} würden geändert, {zaehlung}. Nichts gespeichert.")
        else:
            self.stdout.write(f"{geprueft} geprüft, {geaendert} geändert, {zaehlung}.")
        meldungen = []
        if fehler:
            meldungen.append(f"Bei {len(fehler)} Dokument(en) blieb der Text, wie er war: Nummer {_nummern(fehler)}")
        if index_fehler:
            meldungen.append(
                f"Bei {len(index_fehler)} Dokument(en) ließ sich die Suche nicht aktualisieren (Index-Fehler); ihr Text "
                f"blieb, wie er war, und wird beim nächsten Lauf erneut erkannt: Nummer {_nummern(index_fehler)}"
            )
        if meldungen:
            raise CommandError(". ".join(meldungen))


def _nummern(dokument_ids: list[int]) -> str:
    return ", ".join(map(str, dokument_ids[:20])) + (" …" if len(dokument_ids) > 20 else "")
