"""The worker heartbeat: every `db_worker` process writes its WorkerHeartbeat row every
HEARTBEAT_SECONDS (how many task slots it has, how many are busy) and deletes it when it stops
cleanly. /readyz and /metrics count the workers seen within WORKER_ALIVE_SECONDS; a killed worker's
row simply ages (rows older than WORKER_FORGET_SECONDS are deleted by the next heartbeat of any
worker).

Busy slots are counted from the task signals of django-tasks (`task_started`, `task_finished`),
which the worker sends in the thread that executes the task.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, close_old_connections
from django.db.models import Count, Sum
from django.utils import timezone
from django_tasks.signals import task_finished, task_started

from agent.models import WorkerHeartbeat

logger = logging.getLogger("helena.worker")

HEARTBEAT_SECONDS = 5.0
# three missed heartbeats: the process is gone (or cannot reach the database, which is as bad)
WORKER_ALIVE_SECONDS = 20.0
WORKER_FORGET_SECONDS = 3600.0

_busy_threads: set[int] = set()
_busy_lock = threading.Lock()


def _task_started(sender: Any, **kwargs: Any) -> None:
    with _busy_lock:
        _busy_threads.add(threading.get_ident())


def _task_finished(sender: Any, **kwargs: Any) -> None:
    with _busy_lock:
        _busy_threads.discard(threading.get_ident())


def busy_slots() -> int:
    """Tasks this process is executing right now."""
    with _busy_lock:
        return len(_busy_threads)


def worker_process_id() -> str:
    """host:pid, the form of AgentRun.worker_id."""
    return f"{os.uname().nodename}:{os.getpid()}"[:100]


def worker_heartbeat_write(*, name: str, concurrency: int, started_at: datetime) -> None:
    """Write this process's row (insert or refresh) and forget rows of long-dead processes."""
    now = timezone.now()
    WorkerHeartbeat.objects.update_or_create(
        worker_id=worker_process_id(),
        defaults={
            "name": name[:100],
            "concurrency": concurrency,
            "busy": min(busy_slots(), concurrency),
            "started_at": started_at,
            "seen_at": now,
        },
    )
    WorkerHeartbeat.objects.filter(seen_at__lt=now - timedelta(seconds=WORKER_FORGET_SECONDS)).delete()


def worker_heartbeat_remove() -> None:
    WorkerHeartbeat.objects.filter(worker_id=worker_process_id()).delete()


def _beat_forever(stop: threading.Event, *, name: str, concurrency: int, interval: float) -> None:
    started_at = timezone.now()
    while True:
        try:
            worker_heartbeat_write(name=name, concurrency=concurrency, started_at=started_at)
        except DatabaseError:
            logger.warning("worker heartbeat not written (database unavailable)")
        except Exception:
            logger.exception("worker heartbeat failed")
        finally:
            close_old_connections()
        if stop.wait(interval):
            return


def worker_heartbeat_start(*, name: str, concurrency: int, stop: threading.Event) -> threading.Thread:
    """Count this process's busy task slots and write its heartbeat until `stop` is set (a
    daemon thread, which writes the first row at once)."""
    task_started.connect(_task_started, dispatch_uid="helena.worker.busy.started")
    task_finished.connect(_task_finished, dispatch_uid="helena.worker.busy.finished")
    interval = float(getattr(settings, "HELENA_WORKER_HEARTBEAT_SECONDS", HEARTBEAT_SECONDS))
    thread = threading.Thread(
        target=_beat_forever,
        args=(stop,),
        kwargs={"name": name, "concurrency": concurrency, "interval": interval},
        name="helena-worker-heartbeat",
        daemon=True,
    )
    thread.start()
    return thread


@dataclass(frozen=True)
class WorkerCapacity:
    alive: int
    slots: int
    busy: int


def worker_capacity() -> WorkerCapacity:
    """Worker processes seen within WORKER_ALIVE_SECONDS, their task slots and how many are busy."""
    totals = WorkerHeartbeat.objects.alive(within_seconds=WORKER_ALIVE_SECONDS).aggregate(
        alive=Count("id"), slots=Sum("concurrency"), busy=Sum("busy")
    )
    return WorkerCapacity(alive=totals["alive"], slots=totals["slots"] or 0, busy=totals["busy"] or 0)
