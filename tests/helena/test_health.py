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


def test_readyz_is_unavailable_when_a_model_server_is_down_and_names_no_url(client):
    url = closed_port_url()
    TierConfig.objects.all().delete()
    TierConfig.objects.create(tier=1, name="Modell", provider=TierConfig.Provider.OLLAMA, model="m", enabled=True, base_url=url)
    answer = client.get("/readyz")
    assert answer.status_code == 503
    assert answer.json()["checks"]["model_servers"] == {"tier1": False}
    assert url not in answer.content.decode()
