"""`manage.py worker_health`: healthy only while a worker process of this host writes its heartbeat
(a live process of another host, or a stale row of this one, does not count)."""

from __future__ import annotations

import datetime
import os

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from agent.models import WorkerHeartbeat

HOST = os.uname().nodename


def beat(worker_id: str, *, seconds_ago: float) -> None:
    seen = timezone.now() - datetime.timedelta(seconds=seconds_ago)
    WorkerHeartbeat.objects.create(worker_id=worker_id, concurrency=2, started_at=seen, seen_at=seen)


@pytest.mark.django_db
def test_a_fresh_heartbeat_of_this_host_is_healthy(capsys):
    beat(f"{HOST}:4711", seconds_ago=2)
    call_command("worker_health")
    assert capsys.readouterr().out.strip() == "1 Worker auf diesem Rechner leben."


@pytest.mark.django_db
def test_a_stale_heartbeat_here_and_a_fresh_one_elsewhere_are_unhealthy():
    beat(f"{HOST}:4711", seconds_ago=60)  # three heartbeats missed: the process hangs or is gone
    beat(f"anderer-{HOST}:4711", seconds_ago=1)  # another host's worker is not this container's
    with pytest.raises(CommandError, match="Kein lebender Worker auf diesem Rechner") as raised:
        call_command("worker_health")
    assert raised.value.returncode == 1


@pytest.mark.django_db
def test_min_asks_for_several_live_workers():
    beat(f"{HOST}:1", seconds_ago=1)
    beat(f"{HOST}:2", seconds_ago=90)
    call_command("worker_health", "--min", "1")
    with pytest.raises(CommandError, match=r"\(1 von mindestens 2\)"):
        call_command("worker_health", "--min", "2")
