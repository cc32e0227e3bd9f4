"""The response guard: every shape of broken or text-written tool call from the issue, and the
prose that must never be mistaken for a call."""

from __future__ import annotations

import pytest

from agent.engine.guard import (
    ARGUMENTS_JSON_STRING,
    CODE_FENCE,
    MISSING_ARGUMENTS,
    PARAMETERS_WRAPPER,
    PYTHON_LITERALS,
    RECOVERED_FROM_TEXT,
    SINGLE_QUOTES,
    TOOL_NAME_PREFIX,
    TRAILING_COMMA,
    UNQUOTED_KEYS,
    GuardError,
    guard_response,
    normalise_json,
)
from agent.llm.base import LLMResponse, ToolCall, Usage

TOOLS = {"search_gesetze", "read_akte", "list_fristen", "create_notiz"}
VALID = "Verfügbare Werkzeuge: create_notiz, list_fristen, read_akte, search_gesetze."


def runnable(outcome):
    """The calls the loop executes: those without a guard error."""
    return [c for c in outcome.response.tool_calls if c.id not in outcome.failed_call_ids]


def error_for(outcome, call_id):
    """The message the loop sends back as the result of a call the guard refused."""
    return next((e.message for e in outcome.errors if e.call_id == call_id), "")


def structured(raw: str, name: str = "search_gesetze") -> LLMResponse:
    return LLMResponse(tool_calls=[ToolCall(id="c1", name=name, arguments=None, raw_arguments=raw)], finish_reason="tool_calls")


def kinds(outcome) -> set[str]:
    return {r.kind for r in outcome.repairs}


# -- structured calls with broken arguments --------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected", "repair_kinds"),
    [
        ('{"query": "§ 193 BGB",}', {"query": "§ 193 BGB"}, {TRAILING_COMMA}),
        ('{"query": "Frist", "limit": 5,\n}', {"query": "Frist", "limit": 5}, {TRAILING_COMMA}),
        ('{"normen": ["§ 187", "§ 188",],}', {"normen": ["§ 187", "§ 188"]}, {TRAILING_COMMA}),
        ("{'query': 'Kündigungsfrist'}", {"query": "Kündigungsfrist"}, {SINGLE_QUOTES}),
        ("{query: 'Kündigungsfrist', limit: 3}", {"query": "Kündigungsfrist", "limit": 3}, {SINGLE_QUOTES, UNQUOTED_KEYS}),
        ('{query: "Räumung", exakt: True}', {"query": "Räumung", "exakt": True}, {UNQUOTED_KEYS, PYTHON_LITERALS}),
        ('"{\\"query\\": \\"§ 573 BGB\\"}"', {"query": "§ 573 BGB"}, {ARGUMENTS_JSON_STRING}),
        ('{"parameters": {"query": "§ 573 BGB"}}', {"query": "§ 573 BGB"}, {PARAMETERS_WRAPPER}),
        ('{"arguments": "{\\"query\\": \\"ZPO\\"}"}', {"query": "ZPO"}, {PARAMETERS_WRAPPER}),
        ('```json\n{"query": "BGB"}\n```', {"query": "BGB"}, {CODE_FENCE}),
        ("", {}, {MISSING_ARGUMENTS}),
    ],
)
def test_structured_arguments_are_repaired(raw: str, expected: dict, repair_kinds: set[str]) -> None:
    outcome = guard_response(structured(raw), TOOLS)
    assert outcome.ok
    assert outcome.response.tool_calls == [ToolCall(id="c1", name="search_gesetze", arguments=expected, raw_arguments=raw)]
    assert kinds(outcome) == repair_kinds
    assert all(r.tool == "search_gesetze" and r.call_id == "c1" for r in outcome.repairs)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # German apostrophes stay as they are, in double quotes, in single quotes, typographic or not.
        ('{"query": "Müller’s Mietvertrag",}', {"query": "Müller’s Mietvertrag"}),
        ("{'query': 'Müller’s Mietvertrag'}", {"query": "Müller’s Mietvertrag"}),
        ("{'query': 'Müller's Mietvertrag'}", {"query": "Müller's Mietvertrag"}),
        ("{'query': \"„Müller’s“\", 'akte': 'Az. 12/25'}", {"query": "„Müller’s“", "akte": "Az. 12/25"}),
        ('{"query": "Schmidt\'s Antrag", \'seite\': 2}', {"query": "Schmidt's Antrag", "seite": 2}),
    ],
)
def test_apostrophes_are_left_intact(raw: str, expected: dict) -> None:
    outcome = guard_response(structured(raw), TOOLS)
    assert outcome.ok
    assert outcome.response.tool_calls[0].arguments == expected


def test_valid_structured_call_passes_untouched() -> None:
    response = LLMResponse(
        text="Ich suche.",
        tool_calls=[ToolCall(id="c1", name="read_akte", arguments={"akte_id": 3}, raw_arguments='{"akte_id": 3}')],
        usage=Usage(10, 2),
        finish_reason="tool_calls",
        model="qwen3:8b",
    )
    outcome = guard_response(response, TOOLS)
    assert outcome.response == response
    assert outcome.repairs == [] and outcome.errors == []


def test_parameters_wrapper_in_parsed_arguments_is_unwrapped() -> None:
    response = LLMResponse(tool_calls=[ToolCall(id="c1", name="read_akte", arguments={"parameters": {"akte_id": 3}})])
    outcome = guard_response(response, TOOLS)
    assert outcome.response.tool_calls[0].arguments == {"akte_id": 3}
    assert kinds(outcome) == {PARAMETERS_WRAPPER}


def test_parameters_wrapper_kept_when_the_tool_has_such_a_parameter() -> None:
    schemas = {"create_notiz": {"type": "object", "properties": {"parameters": {"type": "object"}}}}
    response = LLMResponse(tool_calls=[ToolCall(id="c1", name="create_notiz", arguments={"parameters": {"a": 1}})])
    outcome = guard_response(response, schemas)
    assert outcome.response.tool_calls[0].arguments == {"parameters": {"a": 1}}
    assert outcome.repairs == []


def test_functions_prefix_on_tool_name_is_removed() -> None:
    response = LLMResponse(tool_calls=[ToolCall(id="c1", name="functions.list_fristen", arguments={})])
    outcome = guard_response(response, TOOLS)
    assert outcome.response.tool_calls[0].name == "list_fristen"
    assert kinds(outcome) == {TOOL_NAME_PREFIX}


@pytest.mark.parametrize(
    "raw",
    [
        '{"query": "§ 193 BGB"',  # truncated
        '{"query": "BGB" "limit": 3}',  # missing comma: which was meant is a guess
        '["BGB", "ZPO"]',  # not an object
        "search for BGB",
        '"nur eine Zeichenkette"',
    ],
)
def test_unrepairable_arguments_become_a_validation_error_for_the_model(raw: str) -> None:
    response = LLMResponse(
        tool_calls=[
            ToolCall(id="c1", name="search_gesetze", arguments=None, raw_arguments=raw),
            ToolCall(id="c2", name="read_akte", arguments={"akte_id": 1}),
        ]
    )
    outcome = guard_response(response, TOOLS)
    assert not outcome.ok
    assert outcome.failed_call_ids == {"c1"}
    assert [c.id for c in runnable(outcome)] == ["c2"]
    # Every call stays in the response, so the loop can pair it with the error as its result.
    assert [c.id for c in outcome.response.tool_calls] == ["c1", "c2"]
    message = error_for(outcome, "c1")
    assert "search_gesetze" in message and "JSON-Objekt" in message


def test_unknown_tool_name_gets_the_list_of_valid_tools() -> None:
    response = LLMResponse(tool_calls=[ToolCall(id="c9", name="delete_akte", arguments={"akte_id": 1})])
    outcome = guard_response(response, TOOLS)
    assert outcome.errors == [
        GuardError(
            f"Das Werkzeug „delete_akte“ gibt es nicht. {VALID}",
            "delete_akte",
            "c9",
        )
    ]
    assert runnable(outcome) == []


# -- tool calls written as text -----------------------------------------------------------------------


def recovered(text: str, known=TOOLS):
    outcome = guard_response(LLMResponse(text=text, finish_reason="stop", model="llama3.2:3b"), known)
    return outcome, [(c.name, c.arguments) for c in outcome.response.tool_calls]


@pytest.mark.parametrize(
    ("text", "expected", "shape"),
    [
        (
            '{"name": "search_gesetze", "arguments": {"query": "§ 193 BGB"}}',
            [("search_gesetze", {"query": "§ 193 BGB"})],
            "object",
        ),
        ('  {"name": "read_akte", "parameters": {"akte_id": 7}}\n', [("read_akte", {"akte_id": 7})], "object"),
        (
            '[{"name": "read_akte", "arguments": {"akte_id": 7}}, {"name": "list_fristen", "arguments": {"akte_id": 7}}]',
            [("read_akte", {"akte_id": 7}), ("list_fristen", {"akte_id": 7})],
            "list",
        ),
        (
            '{"name": "read_akte", "arguments": {"akte_id": 7}}\n{"name": "list_fristen", "arguments": {"akte_id": 7}}',
            [("read_akte", {"akte_id": 7}), ("list_fristen", {"akte_id": 7})],
            "concatenated",
        ),
        (
            '{"name": "read_akte", "arguments": {"akte_id": 7}}; {"name": "list_fristen", "arguments": {}}',
            [("read_akte", {"akte_id": 7}), ("list_fristen", {})],
            "concatenated",
        ),
        (
            '```json\n{"name": "search_gesetze", "arguments": {"query": "ZPO"}}\n```',
            [("search_gesetze", {"query": "ZPO"})],
            "fence",
        ),
        ('```\n[{"name": "list_fristen"}]\n```', [("list_fristen", {})], "fence"),
        (
            '<tool_call>\n{"name": "search_gesetze", "arguments": {"query": "§ 222 ZPO"}}\n</tool_call>',
            [("search_gesetze", {"query": "§ 222 ZPO"})],
            "tags",
        ),
        (
            '<tool_call>{"name": "read_akte", "arguments": {"akte_id": 1}}</tool_call>\n'
            '<tool_call>{"name": "list_fristen", "arguments": {"akte_id": 1}}</tool_call>',
            [("read_akte", {"akte_id": 1}), ("list_fristen", {"akte_id": 1})],
            "tags",
        ),
        (
            '{"type": "function", "function": {"name": "search_gesetze", "arguments": "{\\"query\\": \\"BGB\\"}"}}',
            [("search_gesetze", {"query": "BGB"})],
            "object",
        ),
        (
            '{"name": "create_notiz", "arguments": {"akte_id": 3, "notiz": {"titel": "Anruf", "text": "Müller’s Rückruf"}}}',
            [("create_notiz", {"akte_id": 3, "notiz": {"titel": "Anruf", "text": "Müller’s Rückruf"}})],
            "object",
        ),
        ('{"name": "list_fristen"}', [("list_fristen", {})], "object"),
        (
            "{'name': 'search_gesetze', 'arguments': {'query': 'Müller's Antrag',}}",
            [("search_gesetze", {"query": "Müller's Antrag"})],
            "object",
        ),
        ('<|python_tag|>{"name": "list_fristen", "parameters": {}}', [("list_fristen", {})], "object"),
        ('{"name": "functions.read_akte", "arguments": {"akte_id": 2}}', [("read_akte", {"akte_id": 2})], "object"),
        # SmolLM2 with chatml-function-calling writes the call as `functions.NAME: {...}` (issue 15)
        ('functions.read_akte: {"akte": "Mietzahlung"}', [("read_akte", {"akte": "Mietzahlung"})], "object"),
        ('read_akte({"akte_id": 5})', [("read_akte", {"akte_id": 5})], "object"),
        ("search_gesetze: {'query': 'Kündigungsfrist'}", [("search_gesetze", {"query": "Kündigungsfrist"})], "object"),
    ],
)
def test_tool_calls_written_as_text_are_recovered(text: str, expected: list, shape: str) -> None:
    outcome, calls = recovered(text)
    assert outcome.ok
    assert calls == expected
    assert outcome.response.text == ""
    assert outcome.response.finish_reason == "tool_calls"
    assert outcome.response.model == "llama3.2:3b"
    recoveries = [r for r in outcome.repairs if r.kind == RECOVERED_FROM_TEXT]
    assert [r.tool for r in recoveries] == [name for name, _ in expected]
    assert all(shape in r.detail for r in recoveries)
    assert len({c.id for c in outcome.response.tool_calls}) == len(expected)


def test_reasoning_before_a_text_call_is_kept_as_the_thought() -> None:
    text = '<think>\nIch brauche die Fristen der Akte 4.\n</think>\n\n{"name": "list_fristen", "arguments": {"akte_id": 4}}'
    outcome, calls = recovered(text)
    assert calls == [("list_fristen", {"akte_id": 4})]
    assert outcome.response.text == "Ich brauche die Fristen der Akte 4."


def test_reasoning_before_prose_is_left_alone() -> None:
    response = LLMResponse(text='<think>Kurz.</think>Die Frist endet am Montag: {"a": 1}', finish_reason="stop")
    assert guard_response(response, TOOLS).response == response


def test_missing_arguments_are_recorded() -> None:
    outcome, calls = recovered('{"name": "list_fristen"}')
    assert calls == [("list_fristen", {})]
    assert kinds(outcome) == {RECOVERED_FROM_TEXT, MISSING_ARGUMENTS}


def test_text_repairs_are_recorded_per_call() -> None:
    outcome, _ = recovered("{'name': 'search_gesetze', 'arguments': {'query': 'BGB',}}")
    assert kinds(outcome) == {RECOVERED_FROM_TEXT, SINGLE_QUOTES, TRAILING_COMMA}
    assert {r.tool for r in outcome.repairs} == {"search_gesetze"}


@pytest.mark.parametrize(
    "text",
    [
        'Die Suche ergab: {"name": "search_gesetze", "arguments": {"query": "BGB"}}',
        '{"name": "search_gesetze", "arguments": {"query": "BGB"}} Damit finde ich die Norm.',
        'Ich würde so suchen:\n```json\n{"name": "search_gesetze", "arguments": {"query": "BGB"}}\n```',
        '```json\n{"name": "read_akte", "arguments": {}}\n```\nDas ist der Aufruf.',
        '{"frist": "2025-03-31", "norm": "§ 193 BGB"}',
        '{"name": "Müller", "geburtsdatum": "1970-01-01"}',
        '{"name": "Müller"}',
        '[{"aktenzeichen": "12/25"}, {"aktenzeichen": "13/25"}]',
        "Die Frist endet am 31.03.2025 (§ 193 BGB).",
        "[1] BGB § 193",
        "{Platzhalter}",
        'Hinweis: {"frist": "2025-03-31"}',
        'gesetz: {"norm": "§ 193 BGB"}',
        "",
    ],
)
def test_prose_and_data_are_never_mistaken_for_calls(text: str) -> None:
    response = LLMResponse(text=text, finish_reason="stop")
    outcome = guard_response(response, TOOLS)
    assert outcome.response == response
    assert outcome.repairs == [] and outcome.errors == []


def test_call_shaped_text_with_an_unknown_tool_gets_the_valid_tools() -> None:
    outcome, calls = recovered('{"name": "send_email", "arguments": {"an": "mandant@example.de"}}')
    assert calls == []
    assert outcome.errors == [
        GuardError(
            f"Das Werkzeug „send_email“ gibt es nicht. {VALID}",
            "send_email",
        )
    ]
    assert outcome.failed_call_ids == set()


def test_mixed_known_and_unknown_in_text() -> None:
    outcome, calls = recovered(
        '[{"name": "read_akte", "arguments": {"akte_id": 1}}, {"name": "delete_akte", "arguments": {"akte_id": 1}}]'
    )
    assert calls == [("read_akte", {"akte_id": 1})]
    assert [e.tool for e in outcome.errors] == ["delete_akte"]


def test_text_call_with_unrepairable_string_arguments_is_a_validation_error() -> None:
    outcome, calls = recovered('{"name": "search_gesetze", "arguments": "query=BGB"}')
    assert calls == [("search_gesetze", None)]
    assert "search_gesetze" in error_for(outcome, outcome.response.tool_calls[0].id)


def test_no_tools_offered() -> None:
    outcome, calls = recovered('{"name": "read_akte", "arguments": {"akte_id": 1}}', known=set())
    assert calls == []
    assert outcome.errors[0].message.endswith("keine (beantworte die Frage ohne Werkzeuge).")


def test_normalise_json_copies_double_quoted_strings_verbatim() -> None:
    text, repairs = normalise_json('{"a": "x, }", "b": \'it\\\'s\', c: None,}')
    assert text == '{"a": "x, }", "b": "it\'s", "c": null}'
    assert {r.kind for r in repairs} == {SINGLE_QUOTES, UNQUOTED_KEYS, PYTHON_LITERALS, TRAILING_COMMA}


def _bench_module():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "bench" / "guard.py"
    spec = importlib.util.spec_from_file_location("bench_guard", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _bench_module()


@pytest.mark.parametrize("case", BENCH.load_cases(), ids=lambda case: case["id"])
def test_recorded_failure_shapes_of_the_benchmark(case: dict) -> None:
    assert BENCH.handled(case), case
