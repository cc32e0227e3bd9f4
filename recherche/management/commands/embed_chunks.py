from typing import Any

from django.core.management.base import CommandParser

from helena.command_base import GermanBaseCommand
from recherche.models import Chunk

from .ingest_gesetze import embed


class Command(GermanBaseCommand):
    help = "Bettet alle Abschnitte ein, die noch keinen Vektor des konfigurierten Modells haben."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--kind", choices=Chunk.Kind.values, nargs="*", help="nur Abschnitte dieser Arten (Standard: alle Arten)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        embed(self, kinds=options["kind"])
