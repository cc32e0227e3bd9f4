"""The orphan sweep: runs that a dead process left RUNNING become FAILED, their trace kept.

Every long-lived process sweeps: each `db_worker` and each web process (daphne, started from
`helena.asgi`), so a run of a dead worker ends even when no other worker is left. A run's
heartbeat is refreshed every second while its process lives (`agent.runs.execution._CancelWatch`);
a run whose heartbeat is older than HELENA_ORPHAN_STALE_SECONDS (default `ORPHAN_STALE_SECONDS`)
belongs to a dead process.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import close_old_connections

logger = logging.getLogger(__name__)

ORPHAN_STALE_SECONDS = 60
ORPHAN_SWEEP_SECONDS = 5.0

_started: threading.Thread | None = None
_start_lock = threading.Lock()


def fail_orphaned_runs() -> int:
    from agent.runs.services import runs_fail_orphaned

    stale = int(getattr(settings, "HELENA_ORPHAN_STALE_SECONDS", ORPHAN_STALE_SECONDS))
    failed = runs_fail_orphaned(stale_after_seconds=stale)
    if failed:
        logger.warning("%d verwaiste Läufe beendet (fehlgeschlagen oder abgebrochen)", failed)
    return failed


def _sweep_forever(stop: threading.Event, interval: float) -> None:
    while not stop.wait(interval):
        try:
            fail_orphaned_runs()
        except Exception:
            logger.exception("orphan sweep failed")
        finally:
            close_old_connections()


def orphan_sweeper_start(*, stop: threading.Event | None = None) -> threading.Thread | None:
    """Start this process's sweeper thread (once per process; a daemon). Off when the setting
    HELENA_ORPHAN_SWEEP_SECONDS is 0 (the in-process test settings: a thread must not hold
    connections to the test database between tests)."""
    global _started
    interval = float(getattr(settings, "HELENA_ORPHAN_SWEEP_SECONDS", ORPHAN_SWEEP_SECONDS))
    if interval <= 0:
        return None
    with _start_lock:
        if _started is None or not _started.is_alive():
            _started = threading.Thread(
                target=_sweep_forever, args=(stop or threading.Event(), interval), name="helena-orphan-sweep", daemon=True
            )
            _started.start()
        return _started
