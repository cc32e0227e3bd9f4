"""`manage.py db_worker`, extended: before taking tasks it marks runs that a crashed process left
RUNNING as FAILED, and keeps doing so while it works (agent precedes django_tasks_db in
INSTALLED_APPS, so this command wins). The web processes sweep too (`agent.runs.orphans`)."""

from __future__ import annotations

import threading
from typing import Any

from django.db import close_old_connections
from django_tasks_db.management.commands.db_worker import Command as DatabaseWorkerCommand

from agent.runs.orphans import fail_orphaned_runs, orphan_sweeper_start


class Command(DatabaseWorkerCommand):
    help = "Hintergrund-Worker: verwaiste Helena-Läufe beenden, dann Aufgaben der Warteschlange abarbeiten."

    def handle(self, *args: Any, **options: Any) -> None:
        fail_orphaned_runs()
        close_old_connections()
        stop = threading.Event()
        orphan_sweeper_start(stop=stop)
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
