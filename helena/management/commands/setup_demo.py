from pathlib import Path
from typing import Any

from django.core.management import call_command

from agent.runs.routes import tiers_ensure_defaults
from helena.command_base import GermanBaseCommand

DATA = Path(__file__).resolve().parents[3] / "recherche" / "data"


class Command(GermanBaseCommand):
    help = "Richtet Datenbank, Wissensbasis und Demo-Kanzlei ein (für `make run`; idempotent und schnell beim zweiten Mal)."

    def handle(self, *args: Any, **options: Any) -> None:
        # The cache table first: migrations that seed the tool matrix announce it through the cache
        # (without the table, a fresh start logged "tool matrix version not renewed").
        call_command("createcachetable", verbosity=0)
        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write("Wissensbasis: Gesetze, Muster, Demo-Entscheidungen …")
        call_command("ingest_gesetze", str(DATA / "gesetze"), verbosity=0, stdout=_Quiet())
        call_command("ingest_muster", str(DATA / "muster"), verbosity=0, stdout=_Quiet())
        call_command("ingest_urteile", str(DATA / "urteile"), verbosity=0, stdout=_Quiet())
        call_command("seed_demo")
        tiers_ensure_defaults()


class _Quiet:
    def write(self, *args: Any) -> None:
        pass

    def flush(self) -> None:
        pass
