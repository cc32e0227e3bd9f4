"""Liveness and readiness for the proxy, the orchestrator and the Kanzlei's monitoring.

`/healthz`: the process answers (no dependencies). `/readyz`: the database, Redis (when
configured) and the enabled model servers answer (else 503: the proxy should not send requests
here). The `worker` check (at least one `db_worker` heartbeat within WORKER_ALIVE_SECONDS, when
background tasks go to the database queue) does not make the process unready: chats and pages
work without a worker, only background runs wait in the queue. Without one the answer is 200 with
status "degraded" and the failing check named in `degraded`, for the monitoring to alert on.
Both return JSON with check names and states only: no client data, no connection strings, no
error texts.
"""

from __future__ import annotations

import urllib.error
import urllib.request

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from agent.models import TierConfig
from agent.runs.heartbeat import worker_capacity

MODEL_SERVER_TIMEOUT_SECONDS = 2.0


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def _database() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:
        return False


def _redis() -> bool:
    import redis

    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


def _model_servers() -> dict[str, bool]:
    """Every enabled tier's server answers HTTP at its base URL (any status below 500)."""
    states: dict[str, bool] = {}
    for tier in TierConfig.objects.filter(enabled=True).order_by("tier"):
        if not tier.base_url:
            continue
        try:
            with urllib.request.urlopen(tier.base_url, timeout=MODEL_SERVER_TIMEOUT_SECONDS) as answer:  # noqa: S310
                states[f"tier{tier.tier}"] = answer.status < 500
        except urllib.error.HTTPError as error:
            states[f"tier{tier.tier}"] = error.code < 500
        except (urllib.error.URLError, OSError, ValueError):
            states[f"tier{tier.tier}"] = False
    return states


def _uses_worker_queue() -> bool:
    return any("django_tasks_db" in str(backend.get("BACKEND", "")) for backend in settings.TASKS.values())


def _worker() -> bool:
    try:
        return worker_capacity().alive > 0
    except Exception:
        return False


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    checks: dict[str, bool | dict[str, bool]] = {"database": _database()}
    if settings.REDIS_URL:
        checks["redis"] = _redis()
    if checks["database"]:
        checks["model_servers"] = _model_servers()
    ready = all(v if isinstance(v, bool) else all(v.values()) for v in checks.values())
    degraded = []
    if checks["database"] and _uses_worker_queue():
        checks["worker"] = _worker()
        if not checks["worker"]:
            degraded.append("worker")
    if not ready:
        return JsonResponse({"status": "unavailable", "checks": checks}, status=503)
    if degraded:
        return JsonResponse({"status": "degraded", "checks": checks, "degraded": degraded})
    return JsonResponse({"status": "ok", "checks": checks})
