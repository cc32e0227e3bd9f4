from typing import Any

from helena.command_base import GermanBaseCommand
from helena.demo import DEMO_PASSWORD, DEMO_USERS, seed_demo


class Command(GermanBaseCommand):
    help = "Legt die Demo-Kanzlei an (idempotent) und zeigt die Demo-Zugänge."

    def handle(self, *args: Any, **options: Any) -> None:
        result = seed_demo()
        if result["akten"]:
            self.stdout.write(self.style.SUCCESS(f"Demo-Kanzlei angelegt: {result['akten']} Akten."))
        else:
            self.stdout.write("Demo-Kanzlei ist bereits vorhanden.")
        self.stdout.write(f"\nDemo-Zugänge (Passwort für alle: {DEMO_PASSWORD}):")
        for spec in DEMO_USERS:
            self.stdout.write(f"  {spec.role:<15} {spec.email}")
