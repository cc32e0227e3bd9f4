"""The scripted LLM server itself: the script features other tests rely on, over real HTTP."""

from __future__ import annotations

import json
import urllib.request

import pytest

from agent.llm.ollama import OllamaClient
from agent.llm.openai_compat import OpenAICompatClient
from tests.support.scripted_llm import ScriptedLLMServer, Step


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as answer:  # noqa: S310 - the local test server
        return json.load(answer)


def test_model_listings_and_version(scripted_llm: ScriptedLLMServer) -> None:
    assert get(scripted_llm.url + "/api/version")["version"]
    assert [m["name"] for m in get(scripted_llm.url + "/api/tags")["models"]] == ["scripted-model"]
    assert [m["id"] for m in get(scripted_llm.openai_url + "/models")["data"]] == ["scripted-model"]
    assert [r.path for r in scripted_llm.requests] == ["/api/version", "/api/tags", "/v1/models"]
    assert scripted_llm.chat_requests == []


@pytest.mark.asyncio
async def test_steps_are_consumed_in_order_across_both_protocols(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.script([Step(text="eins"), {"text": "zwei"}])
    scripted_llm.push({"text": "drei"})
    assert scripted_llm.remaining == 3
    ollama_client = OllamaClient(model="m", host=scripted_llm.url)
    openai_client = OpenAICompatClient(model="m", base_url=scripted_llm.openai_url)
    question = [{"role": "user", "content": "?"}]
    answers = [
        (await ollama_client.chat(question)).text,
        (await openai_client.chat(question)).text,
        (await ollama_client.chat(question)).text,
    ]
    assert answers == ["eins", "zwei", "drei"]
    assert scripted_llm.remaining == 0
    assert [r.path for r in scripted_llm.chat_requests] == ["/api/chat", "/v1/chat/completions", "/api/chat"]
    assert all(r.finished_at is not None and not r.aborted for r in scripted_llm.chat_requests)


@pytest.mark.asyncio
async def test_a_callable_step_answers_from_the_request(scripted_llm: ScriptedLLMServer) -> None:
    def echo_last_tool_result(body: dict) -> dict:
        last = body["messages"][-1]
        return {"text": f"Gelesen: {last['content']}"}

    scripted_llm.script([echo_last_tool_result])
    client = OpenAICompatClient(model="m", base_url=scripted_llm.openai_url)
    response = await client.chat([{"role": "tool", "tool_call_id": "c1", "content": "3 Fristen"}])
    assert response.text == "Gelesen: 3 Fristen"
    assert scripted_llm.last_body["messages"][-1]["content"] == "3 Fristen"
    assert scripted_llm.chat_requests[0].headers["content-type"] == "application/json"


def test_default_usage_is_estimated_from_the_sizes() -> None:
    step = Step(text="x" * 40, tool_calls=[{"name": "t", "arguments": {"a": 1}}])
    assert step.token_usage({"messages": [{"content": "y" * 400}]}) == (100, 12)
    assert Step(usage=(7, 3)).token_usage({}) == (7, 3)
    assert Step(text="Die Frist endet").fragments() == ["Die ", "Frist ", "endet"]
    assert Step(tool_calls=[{"name": "t"}]).finish() == "tool_calls"
