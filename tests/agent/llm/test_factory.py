"""Clients from tier rows, the connection test and the Ollama reachability check, over real HTTP."""

from __future__ import annotations

import socket

import pytest

from agent.llm import factory
from agent.llm.factory import build_client, ollama_host, ollama_reachable, probe, resolve_client
from agent.llm.ollama import OllamaClient
from agent.llm.openai_compat import OpenAICompatClient
from agent.models import TierConfig
from tests.support.scripted_llm import ScriptedLLMServer


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def tier(**fields) -> TierConfig:
    defaults = {
        "tier": 1,
        "name": "Klein",
        "provider": "OLLAMA",
        "model": "scripted-model",
        "base_url": "",
        "context_window": 16384,
    }
    return TierConfig(**{**defaults, **fields})


@pytest.fixture(autouse=True)
def _fresh_reachability():
    factory._reachability.clear()
    yield
    factory._reachability.clear()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", "http://127.0.0.1:11434"),
        ("0.0.0.0", "http://127.0.0.1:11434"),  # noqa: S104
        ("0.0.0.0:1234", "http://127.0.0.1:1234"),  # noqa: S104
        ("localhost:11434", "http://localhost:11434"),
        ("https://ollama.kanzlei.internal", "https://ollama.kanzlei.internal:11434"),
        ("http://10.0.0.5:8080/", "http://10.0.0.5:8080"),
    ],
)
def test_ollama_host_normalises_ollamas_forms(value: str, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    assert ollama_host(value or None) == expected


def test_ollama_host_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9999")
    assert ollama_host() == "http://127.0.0.1:9999"


def test_build_client_for_each_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELENA_TEST_KEY", "sk-geheim")
    ollama_client = build_client(tier(base_url="http://127.0.0.1:5555", timeout_seconds=12))
    assert isinstance(ollama_client, OllamaClient)
    assert (ollama_client.model, ollama_client.host, ollama_client.context_window, ollama_client.timeout) == (
        "scripted-model",
        "http://127.0.0.1:5555",
        16384,
        12.0,
    )
    cloud = build_client(
        tier(tier=3, provider="OPENAI", model="gpt-x", base_url="http://127.0.0.1:6666/v1", api_key_env="HELENA_TEST_KEY")
    )
    assert isinstance(cloud, OpenAICompatClient)
    assert (cloud.model, cloud.base_url, cloud.context_window) == ("gpt-x", "http://127.0.0.1:6666/v1", 16384)
    assert cloud._client.api_key == "sk-geheim"
    assert not cloud.is_demo and not ollama_client.is_demo


@pytest.mark.asyncio
@pytest.mark.parametrize("provider", ["OLLAMA", "OPENAI"])
async def test_probe_ok_and_model_missing(provider: str, scripted_llm: ScriptedLLMServer) -> None:
    url = scripted_llm.url if provider == "OLLAMA" else scripted_llm.openai_url
    result = await probe(build_client(tier(provider=provider, base_url=url)))
    assert result.ok and result.models == ["scripted-model"] and "Verbindung in Ordnung" in result.detail
    missing = await probe(build_client(tier(provider=provider, base_url=url, model="qwen3:32b")))
    assert not missing.ok and missing.error == "model_missing"
    assert "qwen3:32b" in missing.detail and "scripted-model" in missing.detail
    expected_path = "/api/tags" if provider == "OLLAMA" else "/v1/models"
    assert [r.path for r in scripted_llm.requests] == [expected_path, expected_path]


@pytest.mark.asyncio
async def test_probe_accepts_ollamas_latest_tag() -> None:
    server = ScriptedLLMServer(models=["qwen3:latest"]).start()
    try:
        assert (await probe(build_client(tier(base_url=server.url, model="qwen3")))).ok
    finally:
        server.stop()


@pytest.mark.asyncio
@pytest.mark.parametrize("provider", ["OLLAMA", "OPENAI"])
async def test_probe_reports_an_outage_without_raising(provider: str) -> None:
    result = await probe(build_client(tier(provider=provider, base_url=f"http://127.0.0.1:{free_port()}")))
    assert not result.ok
    assert result.error == "LLMUnavailable"
    assert result.detail.startswith("Keine Verbindung")


@pytest.mark.asyncio
async def test_ollama_reachable(scripted_llm: ScriptedLLMServer) -> None:
    assert await ollama_reachable(scripted_llm.url)
    assert scripted_llm.requests[-1].path == "/api/version"
    assert not await ollama_reachable(f"http://127.0.0.1:{free_port()}")


@pytest.mark.asyncio
async def test_resolve_client_keeps_a_reachable_ollama_tier(scripted_llm: ScriptedLLMServer) -> None:
    client = await resolve_client(tier(base_url=scripted_llm.url))
    assert isinstance(client, OllamaClient) and not client.is_demo


@pytest.mark.asyncio
async def test_resolve_client_never_replaces_openai_or_cloud_tiers() -> None:
    down = f"http://127.0.0.1:{free_port()}"
    assert isinstance(await resolve_client(tier(provider="OPENAI", base_url=down + "/v1")), OpenAICompatClient)
    cloud = await resolve_client(tier(tier=3, base_url=down, is_cloud=True))
    assert isinstance(cloud, OllamaClient) and not cloud.is_demo


@pytest.mark.asyncio
async def test_resolve_client_without_demo_keeps_the_unreachable_tier() -> None:
    client = await resolve_client(tier(base_url=f"http://127.0.0.1:{free_port()}"), allow_demo=False)
    assert isinstance(client, OllamaClient) and not client.is_demo
