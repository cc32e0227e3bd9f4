"""Both providers over real HTTP against the scripted server, with the real `ollama` and `openai`
clients: answers, tool calls, streaming, usage, error mapping, cancellation."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from agent.llm.base import (
    LLMClient,
    LLMHTTPError,
    LLMResponse,
    LLMTimeout,
    LLMToolParserError,
    LLMUnavailable,
    ToolCall,
    Usage,
    assistant_message,
)
from agent.llm.ollama import OllamaClient
from agent.llm.openai_compat import OpenAICompatClient
from tests.support.scripted_llm import OLLAMA_TOOL_PARSER_ERROR, ScriptedLLMServer, Step

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search_gesetze",
            "description": "Sucht Normen.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        },
    }
]
QUESTION = [
    {"role": "system", "content": "Du bist Helena."},
    {"role": "user", "content": "Wann endet die Frist nach § 193 BGB?"},
]
PROVIDERS = ["ollama", "openai"]
pytestmark = pytest.mark.asyncio


def make_client(provider: str, url: str, *, timeout: float = 10.0, context_window: int = 4096) -> LLMClient:
    if provider == "ollama":
        return OllamaClient(model="qwen3:8b", host=url, context_window=context_window, timeout=timeout)
    return OpenAICompatClient(model="qwen3-8b", base_url=url + "/v1", context_window=context_window, timeout=timeout)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_plain_answer_with_usage(provider: str, scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.script([{"text": "Die Frist endet am Montag.", "usage": (42, 7)}])
    response = await make_client(provider, scripted_llm.url).chat(QUESTION, tools=TOOLS)
    assert response == LLMResponse(
        text="Die Frist endet am Montag.",
        tool_calls=[],
        usage=Usage(prompt_tokens=42, completion_tokens=7),
        finish_reason="stop",
        model=response.model,
    )
    assert response.model in ("qwen3:8b", "qwen3-8b")
    body = scripted_llm.last_body
    assert body["messages"][1] == {"role": "user", "content": "Wann endet die Frist nach § 193 BGB?"}
    assert body["tools"][0]["function"]["name"] == "search_gesetze"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_tool_calls_are_normalised(provider: str, scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.script(
        [
            {
                "text": "Ich suche.",
                "tool_calls": [
                    {"name": "search_gesetze", "arguments": {"query": "§ 193 BGB"}},
                    {"name": "search_gesetze", "arguments": {"query": "Müller’s Frist"}},
                ],
            }
        ]
    )
    response = await make_client(provider, scripted_llm.url).chat(QUESTION, tools=TOOLS)
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("search_gesetze", {"query": "§ 193 BGB"}),
        ("search_gesetze", {"query": "Müller’s Frist"}),
    ]
    assert len({c.id for c in response.tool_calls}) == 2
    assert response.finish_reason == "tool_calls"
    assert response.text == "Ich suche."


async def test_openai_broken_arguments_are_kept_raw_for_the_guard(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.script([{"tool_calls": [{"id": "c1", "name": "search_gesetze", "arguments": "{'query': 'BGB',}"}]}])
    response = await make_client("openai", scripted_llm.url).chat(QUESTION, tools=TOOLS)
    assert response.tool_calls == [ToolCall(id="c1", name="search_gesetze", arguments=None, raw_arguments="{'query': 'BGB',}")]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_streaming_calls_on_delta_per_fragment(provider: str, scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.script(
        [{"chunks": ["Die ", "Frist ", "endet ", "am Montag."], "text": "Die Frist endet am Montag.", "usage": (30, 5)}]
    )
    fragments: list[str] = []

    async def on_delta(fragment: str) -> None:
        fragments.append(fragment)

    response = await make_client(provider, scripted_llm.url).chat(QUESTION, on_delta=on_delta)
    assert fragments == ["Die ", "Frist ", "endet ", "am Montag."]
    assert response.text == "Die Frist endet am Montag."
    assert response.usage == Usage(30, 5)
    assert response.finish_reason == "stop"
    assert scripted_llm.chat_requests[0].stream is True
    if provider == "openai":
        assert scripted_llm.last_body["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_streaming_assembles_tool_calls(provider: str, scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.script(
        [
            {
                "text": "Moment.",
                "tool_calls": [
                    {"name": "search_gesetze", "arguments": {"query": "§ 222 ZPO"}},
                    {"name": "read_akte", "arguments": {"akte_id": 12}},
                ],
            }
        ]
    )
    fragments: list[str] = []

    async def on_delta(fragment: str) -> None:
        fragments.append(fragment)

    response = await make_client(provider, scripted_llm.url).chat(QUESTION, tools=TOOLS, on_delta=on_delta)
    assert "".join(fragments) == "Moment."
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("search_gesetze", {"query": "§ 222 ZPO"}),
        ("read_akte", {"akte_id": 12}),
    ]
    assert response.finish_reason == "tool_calls"


async def test_ollama_always_sends_num_ctx_and_native_message_shapes(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.script([{"text": "ok"}, {"text": "ok"}])
    transcript = [
        *QUESTION,
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "search_gesetze", "arguments": '{"query": "BGB"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"treffer": 3}'},
    ]
    client = make_client("ollama", scripted_llm.url, context_window=16384)
    await client.chat(transcript, tools=TOOLS)
    await client.chat(transcript, on_delta=_ignore)
    for request in scripted_llm.chat_requests:
        assert request.body["options"]["num_ctx"] == 16384
        assert request.body["truncate"] is False
        assert request.body["messages"][2] == {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "search_gesetze", "arguments": {"query": "BGB"}}}],
        }
        assert request.body["messages"][3] == {"role": "tool", "content": '{"treffer": 3}', "tool_name": "search_gesetze"}
    assert scripted_llm.chat_requests[0].body["stream"] is False


async def test_openai_sends_content_on_assistant_tool_call_messages(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.script([{"text": "ok"}])
    transcript = [
        *QUESTION,
        assistant_message(
            LLMResponse(
                tool_calls=[ToolCall(id="call_7", name="search_gesetze", arguments={"query": "BGB"})], finish_reason="tool_calls"
            )
        ),
        {"role": "tool", "tool_call_id": "call_7", "name": "search_gesetze", "content": "3 Treffer"},
    ]
    # A transcript built elsewhere may lack `content` (None) on the assistant message.
    del transcript[2]["content"]
    await make_client("openai", scripted_llm.url).chat(transcript, tools=TOOLS)
    sent = scripted_llm.last_body["messages"]
    assert sent[2] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "call_7", "type": "function", "function": {"name": "search_gesetze", "arguments": '{"query": "BGB"}'}}
        ],
    }
    assert sent[3] == {"role": "tool", "tool_call_id": "call_7", "content": "3 Treffer"}


async def _ignore(fragment: str) -> None:
    return None


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", [500, 404, 400])
@pytest.mark.parametrize("stream", [False, True])
async def test_http_errors_are_typed(provider: str, status: int, stream: bool, scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.script([{"status": status, "error": {"error": f"model 'qwen3' kaputt ({status})"}}])
    with pytest.raises(LLMHTTPError) as caught:
        await make_client(provider, scripted_llm.url).chat(QUESTION, on_delta=_ignore if stream else None)
    assert caught.value.status == status
    assert "kaputt" in caught.value.message
    assert type(caught.value) is LLMHTTPError


@pytest.mark.parametrize("stream", [False, True])
async def test_ollama_tool_parser_500_is_repairable(stream: bool, scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.script([{"status": 500, "error": OLLAMA_TOOL_PARSER_ERROR}])
    with pytest.raises(LLMToolParserError) as caught:
        await make_client("ollama", scripted_llm.url).chat(QUESTION, tools=TOOLS, on_delta=_ignore if stream else None)
    assert caught.value.status == 500
    assert "error parsing tool call" in caught.value.message


@pytest.mark.parametrize("key", ["error", "error parsing tool call"])
async def test_ollama_tool_parser_error_mid_stream(key: str, scripted_llm: ScriptedLLMServer) -> None:
    message = OLLAMA_TOOL_PARSER_ERROR["error"] if key == "error" else "invalid character 'c' looking for beginning of value"
    scripted_llm.script([{"text": "Ich rufe", "stream_error": message, "stream_error_key": key}])
    with pytest.raises(LLMToolParserError) as caught:
        await make_client("ollama", scripted_llm.url).chat(QUESTION, tools=TOOLS, on_delta=_ignore)
    assert caught.value.status == 500


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_errors_of_the_delta_callback_are_not_reported_as_server_errors(
    provider: str, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script([{"text": "Die Frist endet."}, {"text": "Die Frist endet."}])

    async def broken_sink(fragment: str) -> None:
        raise KeyError("sink")

    async def slow_sink(fragment: str) -> None:
        raise TimeoutError("sink")

    client = make_client(provider, scripted_llm.url)
    with pytest.raises(KeyError):
        await client.chat(QUESTION, on_delta=broken_sink)
    with pytest.raises(TimeoutError) as caught:
        await client.chat(QUESTION, on_delta=slow_sink)
    assert not isinstance(caught.value, LLMTimeout)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("stream", [False, True])
async def test_connection_refused_is_unavailable(provider: str, stream: bool) -> None:
    client = make_client(provider, f"http://127.0.0.1:{free_port()}")
    with pytest.raises(LLMUnavailable):
        await client.chat(QUESTION, on_delta=_ignore if stream else None)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("stream", [False, True])
async def test_timeout_is_typed_and_aborts_the_request(provider: str, stream: bool, scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.script([{"text": "zu spät", "delay": 5.0}])
    client = make_client(provider, scripted_llm.url, timeout=0.5)
    started = time.monotonic()
    with pytest.raises(LLMTimeout):
        await client.chat(QUESTION, on_delta=_ignore if stream else None)
    assert time.monotonic() - started < 1.5
    assert scripted_llm.wait_aborted(scripted_llm.chat_requests[0], timeout=1.0)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("stream", [False, True])
async def test_cancellation_aborts_the_http_request_within_a_second(
    provider: str, stream: bool, scripted_llm: ScriptedLLMServer
) -> None:
    # Mid-request: before the first byte (non-streaming) or between streamed fragments.
    step = (
        Step(chunks=["Erster ", "Teil ", "zu spät"], text="Erster Teil zu spät", chunk_delay=10.0)
        if stream
        else Step(text="zu spät", delay=10.0)
    )
    scripted_llm.script([step])
    client = make_client(provider, scripted_llm.url, timeout=30.0)
    task = asyncio.create_task(client.chat(QUESTION, on_delta=_ignore if stream else None))
    await asyncio.to_thread(scripted_llm.wait_for_requests, 1)
    await asyncio.sleep(0.2)
    cancelled_at = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - cancelled_at < 1.0
    request = scripted_llm.chat_requests[0]
    assert await asyncio.to_thread(scripted_llm.wait_aborted, request, 1.0)
    assert request.closed_at is not None and request.closed_at - cancelled_at < 1.0


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_exhausted_script_is_an_http_error(provider: str, scripted_llm: ScriptedLLMServer) -> None:
    with pytest.raises(LLMHTTPError) as caught:
        await make_client(provider, scripted_llm.url).chat(QUESTION)
    assert "exhausted" in caught.value.message


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_context_overflow_is_typed(provider: str, scripted_llm: ScriptedLLMServer) -> None:
    from agent.llm.base import LLMContextOverflow

    scripted_llm.script(
        [
            {
                "status": 400,
                "error": {
                    "error": {
                        "message": "the request exceeds the available context size (8192 tokens)",
                        "type": "exceed_context_size_error",
                    }
                },
            }
        ]
    )
    with pytest.raises(LLMContextOverflow):
        await make_client(provider, scripted_llm.url).chat(QUESTION)


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_list_models(provider: str, scripted_llm: ScriptedLLMServer) -> None:
    client = make_client(provider, scripted_llm.url)
    assert await client.list_models() == ["scripted-model"]  # type: ignore[attr-defined]


async def test_openai_sends_max_tokens_and_tool_choice_only_with_tools(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.script([{"text": "a"}, {"text": "b"}])
    client = OpenAICompatClient(
        model="m", base_url=scripted_llm.openai_url, max_tokens=256, temperature=0.0, tool_choice="required"
    )
    await client.chat(QUESTION, tools=TOOLS)
    await client.chat(QUESTION)
    with_tools, without_tools = (r.body for r in scripted_llm.chat_requests)
    assert (with_tools["max_tokens"], with_tools["temperature"], with_tools["tool_choice"]) == (256, 0.0, "required")
    assert without_tools["max_tokens"] == 256 and "tool_choice" not in without_tools and "tools" not in without_tools


async def test_ollama_passes_options_and_sends_no_tools_when_disabled(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.script([{"text": "a"}])
    client = OllamaClient(model="m", host=scripted_llm.url, context_window=2048, options={"temperature": 0.1, "num_ctx": 99})
    await client.chat(QUESTION, tools=None)
    assert scripted_llm.last_body["options"] == {"temperature": 0.1, "num_ctx": 2048}
    assert not scripted_llm.last_body.get("tools")


@pytest.mark.parametrize("stream", [False, True])
async def test_ollama_prompt_over_the_window_is_an_overflow_not_a_silent_truncation(
    stream: bool, scripted_llm: ScriptedLLMServer
) -> None:
    from agent.llm.base import LLMContextOverflow

    scripted_llm.script([{"status": 400, "error": {"error": "the input length exceeds the context length (8192 tokens)"}}])
    with pytest.raises(LLMContextOverflow):
        await make_client("ollama", scripted_llm.url).chat(QUESTION, on_delta=_ignore if stream else None)
    assert scripted_llm.last_body["truncate"] is False


async def test_openai_without_streaming_tools_still_delivers_the_text(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.script(
        [
            {"text": "Ich suche.", "tool_calls": [{"name": "search_gesetze", "arguments": {"query": "BGB"}}]},
            {"text": "Die Frist endet am Montag."},
        ]
    )
    client = OpenAICompatClient(model="m", base_url=scripted_llm.openai_url, stream_with_tools=False)
    fragments: list[str] = []

    async def on_delta(fragment: str) -> None:
        fragments.append(fragment)

    with_tools = await client.chat(QUESTION, tools=TOOLS, on_delta=on_delta)
    assert [c.name for c in with_tools.tool_calls] == ["search_gesetze"]
    assert fragments == ["Ich suche."]
    answer = await client.chat(QUESTION, on_delta=on_delta)
    assert fragments[1:] == ["Die ", "Frist ", "endet ", "am ", "Montag."] and answer.text == "Die Frist endet am Montag."
    assert [r.stream for r in scripted_llm.chat_requests] == [False, True]


@pytest.mark.django_db
async def test_ollama_sends_every_real_tool_schema_as_the_library_itself_would(scripted_llm: ScriptedLLMServer) -> None:
    """The tool schemas are validated and dumped once per schema, not at every call: the request
    must still carry exactly what the library's ChatRequest makes of them (`$defs` included)."""
    import json

    from ollama._types import ChatRequest, Tool

    from agent.tools.discovery import all_tools
    from agent.tools.schemas import openai_tool_schema

    tools = [openai_tool_schema(tool) for _, tool in sorted(all_tools().items())]
    tools.append(
        {
            "type": "function",
            "function": {
                "name": "mit_defs",
                "description": "x",
                "parameters": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string"}}},
            },
        }
    )
    expected = ChatRequest(model="m", tools=[Tool.model_validate(tool) for tool in tools]).model_dump(exclude_none=True)["tools"]
    scripted_llm.script([{"text": "ok"}, {"text": "ok"}])
    client = make_client("ollama", scripted_llm.url)
    for _ in range(2):  # the second call is answered from the cache
        await client.chat(QUESTION, tools=tools)
    for request in scripted_llm.chat_requests:
        assert json.loads(json.dumps(request.body["tools"])) == json.loads(json.dumps(expected))
    assert any("$defs" in tool["function"]["parameters"] for tool in scripted_llm.chat_requests[1].body["tools"])


async def test_ollama_sends_a_changed_tool_spec_as_changed(scripted_llm: ScriptedLLMServer) -> None:
    """Payloads are kept per offered spec object: a new spec (compaction builds new ones) is sent
    as it is now, also when it replaces one whose object was freed, and the same object again
    as before."""

    def spec(description: str) -> dict:
        return {"type": "function", "function": {"name": "suche", "description": description, "parameters": {"type": "object"}}}

    scripted_llm.script([{"text": "ok"}] * 3)
    client = make_client("ollama", scripted_llm.url)
    long = spec("Lange Beschreibung der Suche")
    await client.chat(QUESTION, tools=[long])
    await client.chat(QUESTION, tools=[long])
    await client.chat(QUESTION, tools=[spec("Kurz")])
    descriptions = [r.body["tools"][0]["function"]["description"] for r in scripted_llm.chat_requests]
    assert descriptions == ["Lange Beschreibung der Suche", "Lange Beschreibung der Suche", "Kurz"]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_model_call_writes_no_log_line(provider: str, scripted_llm: ScriptedLLMServer, caplog) -> None:
    """The HTTP clients under both model clients (httpx, httpx2) log every request at INFO: one line
    per model call in every daphne log, with the model server's address. They are quiet below
    WARNING (helena.settings LOGGING)."""
    scripted_llm.script([{"text": "ok"}])
    await make_client(provider, scripted_llm.url).chat(QUESTION, tools=TOOLS)
    # only the HTTP clients' own records count: a test run also carries records of other loggers
    # (e.g. asyncio reporting clients of earlier tests' closed event loops)
    assert [r.name for r in caplog.records if r.name.startswith(("httpx", "httpcore"))] == []
