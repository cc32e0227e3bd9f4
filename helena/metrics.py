"""Prometheus metrics at /metrics for the Kanzlei's monitoring (prometheus_client).

The figures are read from the database at scrape time, so every daphne and worker process
answers with the same, complete picture (no per-process counters to add up). Labels carry
states and tool names only, never client data. Access: an ADMIN session, or
`Authorization: Bearer <HELENA_METRICS_TOKEN>` for the scraper.
"""

from __future__ import annotations

import datetime
import hmac
from collections.abc import Iterator

from django.conf import settings
from django.db import connection
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django_tasks_db.models import DBTaskResult
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from agent.models import AgentRun
from agent.runs.heartbeat import WORKER_ALIVE_SECONDS, worker_capacity
from akten.models import Role

# Tool-call latency is reported over this window (the scrape interval is usually far shorter).
LATENCY_WINDOW = datetime.timedelta(minutes=5)


class HelenaCollector(Collector):
    def collect(self) -> Iterator[GaugeMetricFamily]:
        runs = GaugeMetricFamily("helena_runs", "Helena runs by status", labels=["status"])
        counts = dict(AgentRun.objects.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
        for status in AgentRun.Status.values:
            runs.add_metric([status], counts.get(status, 0))
        yield runs

        waiting = DBTaskResult.objects.filter(status="READY")
        yield GaugeMetricFamily("helena_queue_depth", "Background tasks waiting for a worker", value=waiting.count())
        oldest = waiting.order_by("enqueued_at").values_list("enqueued_at", flat=True).first()
        age = (timezone.now() - oldest).total_seconds() if oldest else 0.0
        yield GaugeMetricFamily("helena_queue_oldest_wait_seconds", "Wait of the oldest queued task", value=age)

        stale = (
            AgentRun.objects.filter(status=AgentRun.Status.RUNNING)
            .order_by("heartbeat_at")
            .values_list("heartbeat_at", flat=True)
            .first()
        )
        lag = (timezone.now() - stale).total_seconds() if stale else 0.0
        yield GaugeMetricFamily("helena_running_heartbeat_age_seconds", "Age of the oldest heartbeat of a running run", value=lag)

        capacity = worker_capacity()
        alive_help = f"Worker processes with a heartbeat in the last {WORKER_ALIVE_SECONDS:g} s"
        yield GaugeMetricFamily("helena_workers_alive", alive_help, value=capacity.alive)
        yield GaugeMetricFamily("helena_worker_slots", "Task slots of the live workers (their concurrency)", value=capacity.slots)
        yield GaugeMetricFamily("helena_worker_slots_busy", "Tasks the live workers are executing", value=capacity.busy)

        latency = GaugeMetricFamily(
            "helena_tool_call_seconds",
            f"Tool-call duration quantiles over the last {int(LATENCY_WINDOW.total_seconds())} s",
            labels=["quantile"],
        )
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms),"
                " percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms), count(*)"
                " FROM agent_toolcallaudit WHERE created_at >= %s",
                [timezone.now() - LATENCY_WINDOW],
            )
            p50, p95, calls = cursor.fetchone()
        latency.add_metric(["0.5"], (p50 or 0) / 1000)
        latency.add_metric(["0.95"], (p95 or 0) / 1000)
        yield latency
        yield GaugeMetricFamily(
            "helena_tool_calls_recent", f"Tool calls in the last {int(LATENCY_WINDOW.total_seconds())} s", value=calls
        )


def _allowed(request: HttpRequest) -> bool:
    token = getattr(settings, "HELENA_METRICS_TOKEN", "")
    header = request.headers.get("Authorization", "")
    if token and header.startswith("Bearer ") and hmac.compare_digest(header[7:].encode(), token.encode()):
        return True
    user = request.user
    return bool(user.is_authenticated and user.is_active and (user.is_superuser or getattr(user, "role", "") == Role.ADMIN))


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not _allowed(request):
        # Like every other forbidden thing: it does not exist, with the same page as a missing one.
        raise Http404
    registry = CollectorRegistry(auto_describe=False)
    registry.register(HelenaCollector())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
