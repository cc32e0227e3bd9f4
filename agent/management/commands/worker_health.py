"""`manage.py worker_health`: the health check of a worker host (a container's HEALTHCHECK, a
monitoring probe). Exit status 0 when a `db_worker` process of this host has written its heartbeat
within WORKER_ALIVE_SECONDS, 1 otherwise.

A worker whose process still lives but whose heartbeat stopped (its database connection is gone,
the process hangs) counts as unhealthy, which a check of the process or of the database alone
would not see. The check reads the heartbeat rows (agent/runs/heartbeat.py), whose `worker_id` is
`host:pid`; the host is this machine's (a container's) node name. It prints the number of live
worker processes of this host and never anything else (no connection strings, no error texts)."""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.db import DatabaseError

from agent.models import WorkerHeartbeat
from agent.runs.heartbeat import WORKER_ALIVE_SECONDS
from helena.command_base import GermanBaseCommand


def live_workers_of_host(host: str, *, within_seconds: float = WORKER_ALIVE_SECONDS) -> int:
    """Worker processes of `host` whose heartbeat is at most `within_seconds` old."""
    return WorkerHeartbeat.objects.alive(within_seconds=within_seconds).filter(worker_id__startswith=f"{host}:").count()


class Command(GermanBaseCommand):
    help = "Prüft, ob ein Worker dieses Rechners lebt (Lebenszeichen in den letzten Sekunden); Exit-Code 0 oder 1."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--min",
            type=int,
            default=1,
            dest="minimum",
            metavar="ANZAHL",
            help="so viele lebende Worker-Prozesse mindestens (Standard: 1)",
        )

    def handle(self, *args: Any, minimum: int, **options: Any) -> None:
        host = os.uname().nodename
        try:
            alive = live_workers_of_host(host)
        except DatabaseError:
            raise CommandError("Datenbank nicht erreichbar.", returncode=1) from None
        if alive < minimum:
            raise CommandError(f"Kein lebender Worker auf diesem Rechner ({alive} von mindestens {minimum}).", returncode=1)
        self.stdout.write(f"{alive} Worker auf diesem Rechner leben.")
