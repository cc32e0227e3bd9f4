"""`manage.py db_worker`, extended: before taking tasks it marks runs that a crashed process left
RUNNING as FAILED, and keeps doing so while it works (agent precedes django_tasks_db in
INSTALLED_APPS, so this command wins). The web processes sweep too (`agent.runs.orphans`).

`--concurrency N` (default HELENA_WORKER_CONCURRENCY) runs N task loops in threads of this
process, each claiming its own tasks (`SELECT … FOR UPDATE SKIP LOCKED`), so N background runs
execute at once; more worker processes add up. The first SIGTERM/SIGINT lets running tasks finish
and takes no new ones; a second one ends the process (the sweep then fails what was running).

While it lives the process writes its heartbeat row (agent/runs/heartbeat.py: task slots, busy
slots) every few seconds and deletes it when it stops cleanly; /readyz and /metrics read them."""

from __future__ import annotations

import logging
import signal
import sys
import threading
import time
from argparse import ArgumentParser, ArgumentTypeError
from collections.abc import Callable
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError
from django.db import DatabaseError, close_old_connections, connections
from django_tasks_db.management.commands.db_worker import Command as DatabaseWorkerCommand
from django_tasks_db.management.commands.db_worker import Worker

from agent.runs.heartbeat import worker_heartbeat_remove, worker_heartbeat_start
from agent.runs.orphans import fail_orphaned_runs, orphan_sweeper_start
from helena.command_base import GermanBaseCommand

logger = logging.getLogger("helena.worker")

DATABASE_RETRY_SECONDS = 2.0


WHOLE_NUMBER_FROM_ONE = "Eine ganze Zahl ab 1 erwartet, nicht „{value}“."

# The options of django_tasks_db's worker, described in German; its checks answer in English, so
# each checked option gets one German message for any value its check refuses.
INHERITED_OPTION_HELP = {
    "queue_name": "Warteschlangen, die der Worker abarbeitet, durch Kommas getrennt; * für alle (Standard: %(default)s)",
    "exclude_queues": "Warteschlangen, die er auslässt, durch Kommas getrennt",
    "interval": "Sekunden Pause, wenn keine Aufgabe wartet, bis zur nächsten Nachschau (Standard: %(default)s)",
    "batch": "alle wartenden Aufgaben abarbeiten, dann enden (auch zusammen mit --max-tasks)",
    "reload": "bei Codeänderungen neu starten; nicht im Betrieb, laufende Aufgaben enden dann nicht sauber (Standard: DEBUG)",
    "backend_name": "Aufgaben-Backend aus TASKS (Standard: %(default)s)",
    "startup_delay": "ohne die kurze Wartezeit beim Start",
    "max_tasks": "nach so vielen Aufgaben enden",
    "worker_id": "Kennung dieses Workers, eindeutig unter allen Workern (Standard: zufällig)",
}
INHERITED_OPTION_METAVAR = {
    "queue_name": "WARTESCHLANGEN",
    "exclude_queues": "WARTESCHLANGEN",
    "interval": "SEKUNDEN",
    "backend_name": "BACKEND",
    "max_tasks": "ANZAHL",
    "worker_id": "KENNUNG",
}
INHERITED_OPTION_REFUSED = {
    "interval": "Eine Zahl ab 0 (Sekunden) erwartet, nicht „{value}“.",
    "max_tasks": WHOLE_NUMBER_FROM_ONE,
    "worker_id": "Eine Kennung mit 1 bis 64 Zeichen erwartet.",
    "backend_name": "„{value}“ ist kein Datenbank-Backend aus TASKS.",
}


def positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise ValueError("must be at least 1")
    return number


def refused_in_german(check: Callable[[str], Any], message: str) -> Callable[[str], Any]:
    """The option type `check`, answering any value it refuses with the German `message`."""

    def convert(value: str) -> Any:
        try:
            return check(value)
        except (ArgumentTypeError, TypeError, ValueError):
            raise ArgumentTypeError(message.format(value=value)) from None

    return convert


class Command(GermanBaseCommand, DatabaseWorkerCommand):
    help = "Hintergrund-Worker: verwaiste Helena-Läufe beenden, dann Aufgaben der Warteschlange abarbeiten."

    def add_arguments(self, parser: ArgumentParser) -> None:
        super().add_arguments(parser)
        for action in parser._actions:
            action.help = INHERITED_OPTION_HELP.get(action.dest, action.help)
            action.metavar = INHERITED_OPTION_METAVAR.get(action.dest, action.metavar)
            if action.dest in INHERITED_OPTION_REFUSED and callable(action.type):
                action.type = refused_in_german(action.type, INHERITED_OPTION_REFUSED[action.dest])
        parser.add_argument(
            "--concurrency",
            type=refused_in_german(positive_int, WHOLE_NUMBER_FROM_ONE),
            metavar="ANZAHL",
            default=settings.HELENA_WORKER_CONCURRENCY,
            help="Aufgaben, die dieser Prozess gleichzeitig ausführt (Standard: HELENA_WORKER_CONCURRENCY)",
        )

    def handle(self, *args: Any, **options: Any) -> None:  # type: ignore[override]
        concurrency: int = options.pop("concurrency")
        fail_orphaned_runs()
        close_old_connections()
        stop = threading.Event()
        orphan_sweeper_start(stop=stop)
        beating = worker_heartbeat_start(name=options["worker_id"], concurrency=concurrency, stop=stop)
        try:
            if concurrency == 1:
                super().handle(*args, **options)
            else:
                self.run_concurrently(concurrency, **options)
        finally:
            stop.set()
            beating.join(timeout=5)
            try:
                worker_heartbeat_remove()
            except DatabaseError:
                logger.warning("worker heartbeat not removed (database unavailable)")

    def run_concurrently(
        self,
        concurrency: int,
        *,
        verbosity: int,
        queue_name: str,
        interval: float,
        batch: bool,
        backend_name: str,
        startup_delay: bool,
        max_tasks: int | None,
        worker_id: str,
        exclude_queues: str,
        **options: Any,
    ) -> None:
        self.configure_logging(verbosity)
        workers = [
            Worker(
                queue_names=queue_name.split(","),
                interval=interval,
                batch=batch,
                backend_name=backend_name,
                startup_delay=startup_delay,
                max_tasks=max_tasks,
                worker_id=f"{worker_id[:60]}-{n}",
                excluded_queue_names=exclude_queues.split(",") if exclude_queues else [],
            )
            for n in range(1, concurrency + 1)
        ]

        crashed: list[str] = []

        def loop(worker: Worker) -> None:
            # A database that is briefly away (restart, failover) must not end the task loop: it
            # waits and tries again, with a fresh connection, until the process is told to stop.
            while worker.running:
                try:
                    worker.run()
                    return
                except DatabaseError:
                    logger.warning("worker loop %s: database unavailable, retrying", worker.worker_id)
                    connections.close_all()
                    time.sleep(DATABASE_RETRY_SECONDS)
                except Exception:
                    logger.exception("worker loop %s ended by an error", worker.worker_id)
                    crashed.append(worker.worker_id)
                    return
                finally:
                    connections.close_all()

        def shutdown(signum: int, frame: FrameType | None) -> None:
            if not any(w.running for w in workers):
                logger.warning("second %s: ending the process", signal.strsignal(signum))
                sys.exit(1)
            logger.warning("%s: finishing running tasks, taking no new ones", signal.strsignal(signum))
            for w in workers:
                w.running = False

        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, shutdown)
        threads = [threading.Thread(target=loop, args=(w,), name=w.worker_id, daemon=True) for w in workers]
        for thread in threads:
            thread.start()
        while any(thread.is_alive() for thread in threads):
            for thread in threads:
                thread.join(timeout=0.5)
        if crashed:
            # a supervisor restarts a worker that failed, not one that says it stopped cleanly
            raise CommandError(f"{len(crashed)} von {concurrency} Aufgabenschleifen mit einem Fehler beendet.", returncode=1)
