"""/healthz and /readyz: states only, no client data, no connection strings."""

import socket
from collections.abc import Iterator

import pytest

from agent.models import TierConfig
from tests.support.scripted_llm import ScriptedLLMServer, scripted_llm_server

pytestmark = pytest.mark.django_db


@pytest.fixture
def scripted_llm() -> Iterator[ScriptedLLMServer]:
    yield from scripted_llm_server()


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def test_healthz_answers_without_login(client):
    answer = client.get("/healthz")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok"}


def test_readyz_is_ready_with_database_and_reachable_model_server(client, scripted_llm):
    TierConfig.objects.all().delete()
    TierConfig.objects.create(
        tier=1, name="Modell", provider=TierConfig.Provider.OLLAMA, model="m", enabled=True, base_url=scripted_llm.url
    )
    answer = client.get("/readyz")
    assert answer.status_code == 200
    body = answer.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"] is True
    assert body["checks"]["model_servers"] == {"tier1": True}


def test_readyz_is_degraded_not_unavailable_when_a_model_server_is_down_and_names_no_url(client):
    """Without the model server pages, Akten and the Fristenkontrolle still work: the process stays in
    rotation (200), the monitoring sees "degraded"."""
    url = closed_port_url()
    TierConfig.objects.all().delete()
    TierConfig.objects.create(tier=1, name="Modell", provider=TierConfig.Provider.OLLAMA, model="m", enabled=True, base_url=url)
    answer = client.get("/readyz")
    assert answer.status_code == 200
    assert answer.json()["status"] == "degraded" and "model_servers" in answer.json()["degraded"]
    assert answer.json()["checks"]["model_servers"] == {"tier1": False}
    assert url not in answer.content.decode()


def test_readyz_asks_ollama_host_for_the_default_tiers_and_never_a_cloud_tier(client, scripted_llm, monkeypatch):
    """Seen by an IT provider: the default tiers (empty base URL, OLLAMA_HOST) were skipped, so /readyz
    said ok with Ollama down; an enabled cloud tier got a request from every anonymous probe."""
    cloud = scripted_llm  # stands in for the provider: every request reaching it is recorded
    monkeypatch.setenv("OLLAMA_HOST", closed_port_url())
    TierConfig.objects.all().delete()
    TierConfig.objects.create(tier=1, name="Klein", provider=TierConfig.Provider.OLLAMA, model="m", enabled=True)
    TierConfig.objects.create(
        tier=3,
        name="Cloud",
        provider=TierConfig.Provider.OPENAI,
        model="c",
        enabled=True,
        is_cloud=True,
        cloud_agreement_on_file=True,
        base_url=cloud.url,
    )
    before = len(cloud.requests)
    for _ in range(3):
        body = client.get("/readyz").json()
    assert body["checks"]["model_servers"] == {"tier1": False} and body["status"] == "degraded"
    assert len(cloud.requests) == before
