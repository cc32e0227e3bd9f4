import json
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from helena.command_base import GermanBaseCommand
from recherche.models import Chunk
from recherche.services import lexem_statistik_refresh, urteil_ingest

from ._progress import progress_bar
from .ingest_gesetze import embed


def _utf8(file: Path) -> bool:
    try:
        file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return True


class Command(GermanBaseCommand):
    help = "Liest Entscheidungen im Open-Legal-Data-Format (JSON Lines) ein."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", metavar="pfad", help="*.jsonl-Datei oder Verzeichnis mit solchen Dateien")
        parser.add_argument("--no-embed", action="store_true", help="nur Volltext; Einbettung später mit embed_chunks")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["path"])
        if not path.exists():
            raise CommandError(f"{path} gibt es nicht.")
        files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
        unreadable = [file.name for file in files if not _utf8(file)]
        if unreadable:
            raise CommandError(f"Nicht als UTF-8-Text lesbar: {', '.join(unreadable)}.")
        lines = [
            (f, n, line) for f in files for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1) if line.strip()
        ]
        if not lines:
            raise CommandError(f"Keine Entscheidungen unter {path} gefunden.")
        errors = 0
        with progress_bar(len(lines), "Urteile") as bar:
            for file, number, line in lines:
                try:
                    urteil_ingest(json.loads(line))
                except (ValueError, KeyError) as exc:
                    errors += 1
                    self.stderr.write(f"{file.name}:{number}: übersprungen ({type(exc).__name__}: {exc})")
                bar.update(1)
        self.stdout.write(f"{len(lines) - errors} Entscheidungen eingelesen, {errors} übersprungen.")
        lexem_statistik_refresh(kind=Chunk.Kind.URTEIL)
        if not options["no_embed"]:
            embed(self, kinds=[Chunk.Kind.URTEIL])
        if errors:
            raise CommandError(f"{errors} Zeilen konnten nicht gelesen werden.")
