from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from helena.command_base import GermanBaseCommand
from recherche.models import Chunk
from recherche.services import lexem_statistik_refresh, muster_ingest

from ._progress import progress_bar
from .ingest_gesetze import embed


def _utf8(file: Path) -> bool:
    try:
        file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return True


class Command(GermanBaseCommand):
    help = "Liest Muster (Markdown mit YAML-Kopf: name, kategorie, kanzlei_eigen, beschreibung) ein."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", metavar="pfad", help="Verzeichnis mit *.md-Dateien oder eine Datei")
        parser.add_argument("--no-embed", action="store_true", help="nur Volltext; Einbettung später mit embed_chunks")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["path"])
        if not path.exists():
            raise CommandError(f"{path} gibt es nicht.")
        files = sorted(path.glob("*.md")) if path.is_dir() else [path]
        unreadable = [file.name for file in files if not _utf8(file)]
        if unreadable:
            raise CommandError(f"Nicht als UTF-8-Text lesbar: {', '.join(unreadable)}.")
        if not files:
            raise CommandError(f"Keine Muster unter {path} gefunden.")
        with progress_bar(len(files), "Muster") as bar:
            for file in files:
                muster_ingest(file)
                bar.update(1)
        self.stdout.write(f"{len(files)} Muster eingelesen.")
        lexem_statistik_refresh(kind=Chunk.Kind.MUSTER)
        if not options["no_embed"]:
            embed(self, kinds=[Chunk.Kind.MUSTER])
