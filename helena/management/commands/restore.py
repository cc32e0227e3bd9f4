"""Restore a backup into a new database: `manage.py restore DIR --database NAME` (helena.backup)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from helena.backup import BackupError, restore_backup
from helena.command_base import GermanBaseCommand
from helena.text import zahl


class Command(GermanBaseCommand):
    help = (
        "Eine Sicherung in eine neue Datenbank auf demselben Server wiederherstellen (nie in die laufende) "
        "und die Dokumente in ein leeres Verzeichnis entpacken; prüft Prüfsummen und Zeilenzahlen."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("source", type=Path, metavar="sicherung", help="Verzeichnis der Sicherung (mit manifest.json)")
        parser.add_argument("--database", required=True, metavar="NAME", help="Name der neuen Datenbank")
        parser.add_argument(
            "--media-root",
            type=Path,
            default=None,
            metavar="VERZEICHNIS",
            help="leeres Verzeichnis für die Dokumente (Standard: MEDIA_ROOT)",
        )

    def handle(self, *args: Any, source: Path, database: str, media_root: Path | None, **options: Any) -> None:
        try:
            counts = restore_backup(source=source, database=database, media_root=media_root)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"Wiederhergestellt in die Datenbank „{database}“: {zahl(sum(counts.values()))} Zeilen in {len(counts)} "
            "Tabellen, wie in der Sicherung.\n"
            "Nächster Schritt: Helena stoppen, DATABASE_URL (bzw. HELENA_EMBEDDED_DB_NAME) auf diese Datenbank "
            "und MEDIA_ROOT auf das Dokumentenverzeichnis setzen, dann wieder starten (migrate läuft mit)."
        )
