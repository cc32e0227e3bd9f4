"""Liveness and readiness for the proxy, the orchestrator and the Kanzlei's monitoring.

`/healthz`: the process answers (no dependencies). `/readyz`: the database and Redis (when
configured) answer (else 503: this process cannot serve). Two checks make the answer "degraded"
(200, the failing checks named in `degraded`) instead, for the monitoring to alert on: `worker`
(at least one `db_worker` heartbeat within WORKER_ALIVE_SECONDS, when background tasks go to the
database queue) and `model_servers` (the server of every enabled local tier answers). Without them
pages, Akten and the Fristenkontrolle still work; only Helena's runs wait or fail, on every process
alike, so taking processes out of rotation would not help. Cloud tiers are not asked (an anonymous
probe must not send requests to a provider), and the model servers' states are kept for
MODEL_STATES_SECONDS, so probes cannot multiply requests to them.
Both return JSON with check names and states only: no client data, no connection strings, no
error texts.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from agent.llm.factory import ollama_host
from agent.models import TierConfig
from agent.runs.heartbeat import worker_capacity

MODEL_SERVER_TIMEOUT_SECONDS = 2.0
MODEL_STATES_SECONDS = 10.0
# [checked at (monotonic), (tier, url) pairs, states]: the last answer of the model servers here
_model_states: list[Any] = [0.0, None, {}]


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
    """The server of every enabled local tier answers HTTP (any status below 500): at its base URL,
    or at OLLAMA_HOST for an Ollama tier without one (the default tiers). Kept for
    MODEL_STATES_SECONDS per process while the tiers stay the same."""
    targets = tuple(
        (f"tier{tier.tier}", tier.base_url or (ollama_host() if tier.provider == TierConfig.Provider.OLLAMA else ""))
        for tier in TierConfig.objects.filter(enabled=True, is_cloud=False).order_by("tier")
    )
    checked_at, checked, states = _model_states
    if checked == targets and time.monotonic() - checked_at < MODEL_STATES_SECONDS:
        return dict(states)
    states = {name: _answers(url) for name, url in targets}
    _model_states[:] = [time.monotonic(), targets, states]
    return dict(states)


def _answers(url: str) -> bool:
    if not url:
        return False
    try:
        with urllib.request.urlopen(url, timeout=MODEL_SERVER_TIMEOUT_SECONDS) as answer:  # noqa: S310
            return bool(answer.status < 500)
    except urllib.error.HTTPError as error:
        return error.code < 500
    except (urllib.error.URLError, OSError, ValueError):
        return False


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
    ready = all(checks.values())
    degraded = []
    if checks["database"]:
        servers = checks["model_servers"] = _model_servers()
        if not all(servers.values()):
            degraded.append("model_servers")
        if _uses_worker_queue():
            checks["worker"] = _worker()
            if not checks["worker"]:
                degraded.append("worker")
    if not ready:
        return JsonResponse({"status": "unavailable", "checks": checks}, status=503)
    if degraded:
        return JsonResponse({"status": "degraded", "checks": checks, "degraded": degraded})
    return JsonResponse({"status": "ok", "checks": checks})
