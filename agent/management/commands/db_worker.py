"""`manage.py db_worker`, extended: before taking tasks it marks runs that a crashed process left
RUNNING as FAILED, and keeps doing so while it works (agent precedes django_tasks_db in
INSTALLED_APPS, so this command wins)."""

from __future__ import annotations

import logging
import threading
from typing import Any

from django.db import close_old_connections
from django_tasks_db.management.commands.db_worker import Command as DatabaseWorkerCommand

logger = logging.getLogger(__name__)

ORPHAN_STALE_SECONDS = 60
ORPHAN_SWEEP_SECONDS = 5.0


def fail_orphaned_runs() -> int:
    from agent.services import runs_fail_orphaned

    failed = runs_fail_orphaned(stale_after_seconds=ORPHAN_STALE_SECONDS)
    if failed:
        logger.warning("%d verwaiste Läufe als fehlgeschlagen markiert", failed)
    return failed


def _sweep_forever(stop: threading.Event) -> None:
    while not stop.wait(ORPHAN_SWEEP_SECONDS):
        try:
            fail_orphaned_runs()
        except Exception:
            logger.exception("orphan sweep failed")
        finally:
            close_old_connections()


class Command(DatabaseWorkerCommand):
    help = "Hintergrund-Worker: verwaiste Helena-Läufe beenden, dann Aufgaben der Warteschlange abarbeiten."

    def handle(self, *args: Any, **options: Any) -> None:
        fail_orphaned_runs()
        close_old_connections()
        stop = threading.Event()
        sweeper = threading.Thread(target=_sweep_forever, args=(stop,), name="helena-orphan-sweep", daemon=True)
        sweeper.start()
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
