"""/metrics: Prometheus text for an ADMIN session or the scraper's token; runs by status, queue
depth and tool-call latency; no client data in it."""

import re

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from agent.models import AgentRun, ToolCallAudit
from akten.models import Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SECRET_TASK = "Kündigungsschutzklage Erika Mustermann"


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


@pytest.fixture
def world():
    user = UserFactory(role=Role.ANWALT)
    AgentRun.objects.create(user=user, task=SECRET_TASK, status=AgentRun.Status.DONE, finished_at=timezone.now())
    AgentRun.objects.create(user=user, task=SECRET_TASK, status=AgentRun.Status.DONE, finished_at=timezone.now())
    running = AgentRun.objects.create(
        user=user, task=SECRET_TASK, status=AgentRun.Status.RUNNING, started_at=timezone.now(), heartbeat_at=timezone.now()
    )
    ToolCallAudit.objects.create(run=running, user=user, tool="read_akte", duration_ms=40)
    ToolCallAudit.objects.create(run=running, user=user, tool="read_akte", duration_ms=60)
    return user


def test_admin_session_reads_runs_by_status_and_tool_latency_without_client_data(client, world):
    client.force_login(UserFactory(role=Role.ADMIN))
    answer = client.get("/metrics")
    assert answer.status_code == 200
    text = answer.content.decode()
    values = samples(text)
    assert values[("helena_runs", (("status", "DONE"),))] == 2
    assert values[("helena_runs", (("status", "RUNNING"),))] == 1
    assert values[("helena_runs", (("status", "FAILED"),))] == 0
    assert values[("helena_queue_depth", ())] == 0
    assert values[("helena_tool_calls_recent", ())] == 2
    assert values[("helena_tool_call_seconds", (("quantile", "0.5"),))] == pytest.approx(0.05)
    assert "Mustermann" not in text and world.email not in text


def test_scraper_token_works_and_everyone_else_gets_404(client, settings, world):
    settings.HELENA_METRICS_TOKEN = "scrape-token-0123456789"
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer falsch").status_code == 404
    client.force_login(world)  # an ANWALT is no administrator
    assert client.get("/metrics").status_code == 404
    client.logout()
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-token-0123456789").status_code == 200


def test_without_a_token_setting_no_bearer_header_opens_it(client, settings):
    settings.HELENA_METRICS_TOKEN = ""
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404


def test_forbidden_metrics_look_like_a_missing_page(client, world):
    """Before, a non-admin got an empty 404 body: unlike every missing page, so /metrics showed it exists."""
    client.force_login(world)
    forbidden, missing = client.get("/metrics"), client.get("/gibt-es-nicht")
    assert forbidden.status_code == missing.status_code == 404
    masked = [re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", r.content.decode()) for r in (forbidden, missing)]
    assert masked[0] == masked[1] and "<html" in masked[0]
