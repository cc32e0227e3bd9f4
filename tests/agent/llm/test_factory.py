"""Clients from tier rows and the Ollama address."""

from __future__ import annotations

import socket

import pytest

from agent.llm.factory import build_client, ollama_host
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


@pytest.mark.django_db
def test_a_tier_row_keeps_its_client_until_the_row_or_its_key_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELENA_TEST_KEY", "sk-eins")
    TierConfig.objects.all().delete()
    local = TierConfig.objects.create(tier=1, name="Klein", model="m", base_url="http://127.0.0.1:5555", enabled=True)
    cloud = TierConfig.objects.create(
        tier=3, name="Cloud", provider="OPENAI", model="gpt-x", base_url="http://127.0.0.1:6666/v1", api_key_env="HELENA_TEST_KEY"
    )
    first = build_client(local)
    assert build_client(TierConfig.objects.get(pk=local.pk)) is first, "the next run gets the same client"
    assert build_client(cloud) is build_client(TierConfig.objects.get(pk=cloud.pk))

    local.model = "m2"
    local.save()
    changed = build_client(TierConfig.objects.get(pk=local.pk))
    assert changed is not first and changed.model == "m2"
    local.save()  # saved in the admin without a visible change: a new client all the same
    assert build_client(TierConfig.objects.get(pk=local.pk)) is not changed

    before = build_client(cloud)
    monkeypatch.setenv("HELENA_TEST_KEY", "sk-zwei")
    rotated = build_client(cloud)
    assert rotated is not before and rotated._client.api_key == "sk-zwei"


@pytest.mark.django_db(transaction=True)
def test_two_background_runs_on_their_own_loops_share_one_client(scripted_llm: ScriptedLLMServer, settings) -> None:
    """A worker runs each background run on a loop of its own (async_to_sync): the kept client
    answers on each of them, and each loop's connections are closed at its end."""
    from agent.llm import factory
    from agent.models import AgentRun
    from agent.runs import services, tasks
    from tests.factories import UserFactory

    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    TierConfig.objects.all().delete()
    tier1 = TierConfig.objects.create(
        tier=1, name="Testmodell", model="scripted-model", base_url=scripted_llm.url, enabled=True, timeout_seconds=20
    )
    scripted_llm.script([{"text": "Erste Antwort."}, {"text": "Zweite Antwort."}])
    user = UserFactory()

    def clients_of_tier1() -> list[object]:
        return [client for key, client in factory._clients.items() if key[0] == tier1.pk]

    # Pools of the process's long-lived engine loop (inline runs of earlier tests) stay open by
    # design; those of loops that earlier tests closed are dropped on the next request.
    pools_before = factory._transport.pools()
    kept = []
    for n in (1, 2):
        run = services.run_create(user=user, text=f"Frage {n}", mode="BACKGROUND")
        tasks.run_enqueue(run_id=run.pk)  # executes now (immediate backend), on a new loop
        run.refresh_from_db()
        assert run.status == AgentRun.Status.DONE
        kept.append(clients_of_tier1())
    first, second = AgentRun.objects.order_by("pk")
    assert first.answer.endswith("Erste Antwort.") and second.answer == "Zweite Antwort."
    assert len(kept[0]) == 1 and kept[0] == kept[1] and kept[0][0] is kept[1][0]
    assert factory._transport.pools() <= pools_before, "each run's loop closed its connections"


def test_a_kept_client_answers_on_one_loop_after_another(scripted_llm: ScriptedLLMServer) -> None:
    import asyncio

    from agent.llm.factory import PerLoopTransport

    transport = PerLoopTransport()
    client = OllamaClient(model="m", host=scripted_llm.url, transport=transport)
    scripted_llm.script([{"text": "a"}, {"text": "b"}, {"text": "c"}])

    async def two_questions() -> list[str]:
        answers = [(await client.chat([{"role": "user", "content": "?"}])).text for _ in range(2)]
        assert transport.pools() == 1
        return answers

    assert asyncio.run(two_questions()) == ["a", "b"]
    assert asyncio.run(client.chat([{"role": "user", "content": "?"}])).text == "c"
    assert transport.pools() == 1, "the closed loop's pool was dropped"


def test_a_kept_openai_client_answers_on_one_loop_after_another(scripted_llm: ScriptedLLMServer) -> None:
    import asyncio

    from agent.llm import factory

    cloud = tier(tier=3, pk=9999, provider="OPENAI", model="gpt-x", base_url=scripted_llm.openai_url)
    client = build_client(cloud)
    assert build_client(cloud) is client
    scripted_llm.script([{"text": "eins"}, {"text": "zwei"}])
    assert asyncio.run(client.chat([{"role": "user", "content": "?"}])).text == "eins"
    assert asyncio.run(client.chat([{"role": "user", "content": "?"}])).text == "zwei"
    assert factory._transport_openai.pools() == 1, "one pool: the first loop's was dropped with it"
