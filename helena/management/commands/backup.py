"""Back up the database and the document store: `manage.py backup [--to DIR]` (helena.backup)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError, CommandParser

from helena.backup import BackupError, create_backup
from helena.command_base import GermanBaseCommand
from helena.text import zahl


class Command(GermanBaseCommand):
    help = "Datenbank und Dokumentenspeicher sichern (pg_dump und Archiv, mit Prüfsummen und Zeilenzahlen)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--to",
            type=Path,
            default=None,
            metavar="VERZEICHNIS",
            help="Zielverzeichnis (Standard: $HELENA_DATA_DIR/sicherungen)",
        )

    def handle(self, *args: Any, to: Path | None, **options: Any) -> None:
        target = to or Path(settings.DATA_DIR) / "sicherungen"
        try:
            result = create_backup(target_dir=target)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        manifest = result.manifest
        rows = sum(manifest["counts"].values())
        self.stdout.write(
            f"Sicherung angelegt: {result.path}\n"
            f"  Datenbank: {zahl(manifest['database']['bytes'])} Bytes, {zahl(rows)} Zeilen "
            f"in {len(manifest['counts'])} Tabellen\n"
            f"  Dokumente: {manifest['media']['files']} Dateien, {zahl(manifest['media']['bytes'])} Bytes\n"
            "Die Sicherung enthält Mandantendaten: verschlüsselt und getrennt vom Server aufbewahren."
        )
