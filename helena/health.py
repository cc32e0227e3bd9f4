"""Liveness and readiness for the proxy, the orchestrator and the Kanzlei's monitoring.

`/healthz`: the process answers (no dependencies). `/readyz`: the database, Redis (when
configured) and the enabled model servers answer. Both return JSON with check names and states
only: no client data, no connection strings, no error texts.
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


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    checks: dict[str, bool | dict[str, bool]] = {"database": _database()}
    if settings.REDIS_URL:
        checks["redis"] = _redis()
    if checks["database"]:
        checks["model_servers"] = _model_servers()
    ready = all(v if isinstance(v, bool) else all(v.values()) for v in checks.values())
    return JsonResponse({"status": "ok" if ready else "unavailable", "checks": checks}, status=200 if ready else 503)
