"""Clients from tier rows and the Ollama address."""

from __future__ import annotations

import socket

import pytest

from agent.llm.factory import build_client, ollama_host
from agent.llm.ollama import OllamaClient
from agent.llm.openai_compat import OpenAICompatClient
from agent.models import TierConfig


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
