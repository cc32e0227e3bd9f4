"""Token budget: counting, truncation of the oldest results with pairs intact, the loop sending it."""

from __future__ import annotations

import json

import pytest

from agent.engine.budget import KEEP_RECENT_RESULTS, Budget, cap_observation, estimate_tokens, placeholder
from agent.engine.loop import RunStatus
from agent.engine.tools import ToolResult

from .support import MemoryToolBox, call, ollama, openai, pairs_intact, run


def transcript_with_results(sizes: list[int]) -> list[dict]:
    messages: list[dict] = [{"role": "system", "content": "System " * 20}, {"role": "user", "content": "Erste Frage " * 10}]
    for index, size in enumerate(sizes):
        call_id = f"c{index}"
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "search_gesetze", "arguments": "{}"}}],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call_id, "name": "search_gesetze", "content": "x" * size})
    return messages


def test_estimate_is_three_and_a_half_characters_per_token():
    assert estimate_tokens("a" * 35) == 10
    assert estimate_tokens("") == 0


def test_tokenizer_is_used_when_given():
    budget = Budget(context_window=1000, tokenizer=lambda text: len(text.split()))
    assert budget.count_text("drei Wörter hier") == 3


def test_placeholder_names_tool_and_size_with_german_grouping():
    assert placeholder("search_gesetze", 4120) == "[gekürzt: Ergebnis von search_gesetze, 4.120 Zeichen]"


def test_under_the_threshold_nothing_changes():
    messages = transcript_with_results([100, 100])
    before = json.dumps(messages)
    assert Budget(context_window=8192).fit(messages, None) == []
    assert json.dumps(messages) == before


def test_oldest_results_are_shortened_first_and_the_protected_parts_stay():
    messages = transcript_with_results([4120, 4000, 4000, 4000, 4000, 4000])
    system, first_user = dict(messages[0]), dict(messages[1])
    budget = Budget(context_window=6000)

    shortened = budget.fit(messages, None)

    assert shortened and all(name == "search_gesetze" for name in shortened)
    results = [m for m in messages if m["role"] == "tool"]
    assert results[0]["content"] == "[gekürzt: Ergebnis von search_gesetze, 4.120 Zeichen]"
    assert all(m["content"] == "x" * 4000 for m in results[-KEEP_RECENT_RESULTS:])
    assert messages[0] == system and messages[1] == first_user
    assert pairs_intact(messages)
    assert budget.total(messages, None) <= budget.limit


def test_tool_schemas_count_against_the_window():
    messages = transcript_with_results([3000, 3000, 3000, 3000])
    tools = [{"type": "function", "function": {"name": "t", "description": "d" * 9000}}]
    budget = Budget(context_window=6000)
    assert budget.fit(transcript_with_results([3000, 3000, 3000, 3000]), None) == []
    assert budget.fit(messages, tools) != []


def test_single_results_are_capped_at_source():
    capped = cap_observation("y" * 50_000, context_window=8192)
    assert len(capped) < 8_000 and "gekürzt" in capped
    assert cap_observation("kurz", context_window=8192) == "kurz"


@pytest.mark.asyncio
async def test_the_loop_sends_truncated_results_with_every_pair_intact(scripted_llm):
    def big(arguments):
        return ToolResult(data=arguments["q"] + "§" * 2000)

    scripted_llm.script([*({"tool_calls": [call("search_gesetze", q=str(i))]} for i in range(6)), {"text": "Fertig."}])
    outcome, sink = await run(ollama(scripted_llm, context_window=2400), MemoryToolBox({"search_gesetze": big}), max_steps=10)

    assert outcome.status == RunStatus.DONE
    last = scripted_llm.chat_requests[-1].body["messages"]
    tool_contents = [m["content"] for m in last if m["role"] == "tool"]
    assert tool_contents[0].startswith("[gekürzt: Ergebnis von search_gesetze")
    assert all("§§§" in content for content in tool_contents[-KEEP_RECENT_RESULTS:])
    assert pairs_intact(outcome.transcript)
    assert sink.of_type("budget.truncated")
    assert scripted_llm.chat_requests[-1].body["options"]["num_ctx"] == 2400


def test_compact_schema_keeps_parameter_names_and_drops_prose():
    from agent.engine.loop import compact_schema

    spec = {
        "type": "function",
        "function": {
            "name": "create_notiz",
            "description": "Legt eine Notiz als Entwurf an. Nutze es, wenn der Benutzer etwas festhalten will. Beispiel: ...",
            "parameters": {
                "type": "object",
                "title": "CreateNotizParams",
                "properties": {
                    "title": {"type": "string", "description": "Kurzer Titel."},
                    "text": {"type": "string", "description": "Die Notiz.", "examples": ["Rückruf"]},
                },
                "required": ["text"],
            },
        },
    }
    compact = compact_schema(spec)["function"]
    assert compact["description"] == "Legt eine Notiz als Entwurf an"
    assert compact["parameters"] == {
        "type": "object",
        "properties": {"title": {"type": "string"}, "text": {"type": "string"}},
        "required": ["text"],
    }


@pytest.mark.asyncio
async def test_a_context_overflow_is_retried_once_with_compact_tool_schemas(scripted_llm):
    overflow = {
        "status": 400,
        "error": {"error": {"message": "This model's maximum context length is 8192 tokens. However, you requested 9882 tokens"}},
    }
    scripted_llm.script([overflow, {"text": "Passt jetzt."}])

    outcome, sink = await run(openai(scripted_llm), MemoryToolBox({"search": lambda a: ToolResult(data=[])}))

    assert outcome.status == RunStatus.DONE and outcome.answer == "Passt jetzt."
    assert sink.of_type("budget.tools_compacted")
    retried = scripted_llm.chat_requests[1].body["tools"][0]["function"]
    assert retried["description"] == "Testwerkzeug search"


def test_tool_tokens_are_those_of_the_tools_offered_now():
    """A route's tool list is built afresh at every model call (agent.engine.loop._offered_schemas)
    and freed after it; the next list can get the freed one's id. The count must be of the tools
    offered now (it was the 21 tokens of the earlier, short list)."""
    budget = Budget(context_window=100_000)

    def offered(description: str) -> list[dict]:
        return [{"type": "function", "function": {"name": "werkzeug", "description": description}}]

    short_tokens = budget.count_tools(offered("kurz"))
    assert budget.count_tools(offered("sehr lange Beschreibung " * 200)) > short_tokens * 20


@pytest.mark.asyncio
async def test_the_tool_schemas_are_counted_once_while_the_offer_stays_the_same(scripted_llm):
    """Every step fits the transcript around the tools; their schemas were serialised and counted
    again at each step although nothing changed (a list built afresh per step)."""
    schema_counts = []

    def tokenizer(text: str) -> int:
        if '"parameters"' in text:  # the schemas, not the assistant's tool calls
            schema_counts.append(text)
        return len(text) // 4

    scripted_llm.script([{"tool_calls": [call("search", q=str(i))]} for i in range(3)] + [{"text": "Fertig."}])

    outcome, _ = await run(
        openai(scripted_llm), MemoryToolBox({"search": lambda a: ToolResult(data=[f"Treffer {a['q']}"])}), tokenizer=tokenizer
    )

    assert outcome.status == RunStatus.DONE and outcome.answer == "Fertig."
    assert len(scripted_llm.chat_requests) == 4 and all(r.body["tools"] for r in scripted_llm.chat_requests)
    assert len(schema_counts) == 1
