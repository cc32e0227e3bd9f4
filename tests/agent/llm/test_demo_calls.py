"""The demo model's tool calls: which tool a question picks, the JSON schema that constrains the
call, the parsing of the call, and what the demo client sends of a transcript (pure functions; the
real server is exercised in tests/agent/test_real_model.py)."""

from __future__ import annotations

import json

import pytest

from agent.llm.base import LLMToolParserError
from agent.llm.demo import _answer_prompt, _split_transcript, result_lines
from agent.llm.demo_calls import (
    DEMO_TOOLS,
    TOOL_KEY,
    demo_call_schema,
    demo_tool_choice,
    parse_demo_call,
    search_phrases,
)

ALL = sorted(DEMO_TOOLS)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Welche Fristen laufen?", ["read_fristen"]),
        ("Wann ist der nächste Termin?", ["read_fristen"]),
        ("Was regelt § 573c BGB zur Kündigungsfrist?", ["search_gesetze"]),
        ("Suche die Akte Mustermann.", ["search_alle_akten"]),
        ("Worum geht es in der Akte?", ["read_akte"]),
        ("Hallo!", ["read_akte"]),
    ],
)
def test_the_question_picks_one_tool_when_the_conversation_has_an_akte(question, expected):
    assert demo_tool_choice(question, ALL, aktenzeichen="12/25") == expected


def test_a_word_that_only_contains_a_cue_does_not_pick_its_tool():
    # "Kündigungsfrist" contains "frist" but is no question about the Fristen of the Akte
    assert demo_tool_choice("Wie lang ist die Kündigungsfrist?", ALL, aktenzeichen="12/25") == ["read_akte"]


def test_without_any_akte_read_akte_is_not_offered_and_the_model_chooses_among_the_rest():
    assert demo_tool_choice("Worum geht es?", ALL) == ["read_fristen", "search_alle_akten", "search_gesetze"]
    assert demo_tool_choice("Worum geht es in 7/25?", ALL) == ["read_akte"]


def test_only_offered_tools_are_chosen():
    assert demo_tool_choice("Welche Fristen laufen?", ["search_gesetze"], aktenzeichen="12/25") == ["search_gesetze"]
    assert demo_tool_choice("Welche Fristen laufen?", ["read_dokumente"], aktenzeichen="12/25") == []


def test_search_phrases_come_from_the_question_citation_first():
    assert search_phrases("Was regelt § 573c BGB zur Kündigungsfrist?") == ["§ 573c BGB Kündigungsfrist", "§ 573c BGB"]
    assert search_phrases("Suche die Akte Mustermann.") == ["Mustermann"]
    assert search_phrases("Finde Akten zu Räumung und Mietrückstand") == ["Räumung Mietrückstand", "Räumung", "Mietrückstand"]


def test_schema_of_one_tool_fixes_name_and_akte():
    schema = demo_call_schema("Welche Fristen laufen?", ["read_fristen"], aktenzeichen="12/25")
    assert schema == {
        "type": "object",
        "properties": {TOOL_KEY: {"const": "read_fristen"}, "akte": {"const": "12/25"}},
        "required": [TOOL_KEY, "akte"],
        "additionalProperties": False,
    }


def test_the_aktenzeichen_of_the_question_wins_over_the_conversations():
    schema = demo_call_schema("Fristen in 3/26?", ["read_fristen"], aktenzeichen="12/25")
    assert schema["properties"]["akte"] == {"const": "3/26"}


def test_without_an_akte_read_fristen_is_called_without_argument():
    schema = demo_call_schema("Welche Fristen laufen?", ["read_fristen"])
    assert schema["required"] == [TOOL_KEY]


def test_search_argument_is_one_of_the_question_phrases_and_several_tools_are_alternatives():
    schema = demo_call_schema("Mustermann?", ["search_alle_akten", "search_gesetze"])
    assert [a["properties"][TOOL_KEY]["const"] for a in schema["anyOf"]] == ["search_alle_akten", "search_gesetze"]
    assert schema["anyOf"][0]["properties"]["suche"] == {"enum": ["Mustermann"]}


def test_a_question_without_search_words_gets_a_bounded_free_search_term():
    schema = demo_call_schema("Was ist das?", ["search_gesetze"])
    assert schema["properties"]["suche"] == {"type": "string", "minLength": 2, "maxLength": 80}


def test_no_tool_is_no_schema():
    with pytest.raises(ValueError):
        demo_call_schema("Hallo", [])


def test_the_schemas_compile_to_a_llama_cpp_grammar():
    llama_grammar = pytest.importorskip("llama_cpp.llama_grammar")
    for question, tools in [
        ("Was regelt § 573c BGB?", ["search_gesetze"]),
        ("Worum geht es?", ["read_fristen", "search_alle_akten", "search_gesetze"]),
        ("Was ist das?", ["search_gesetze"]),
    ]:
        grammar = llama_grammar.json_schema_to_gbnf(json.dumps(demo_call_schema(question, tools)))
        assert "root ::=" in grammar
        assert all(name in grammar for name in tools)


def test_a_call_object_becomes_a_tool_call():
    call = parse_demo_call('{"werkzeug": "search_gesetze", "suche": "§ 573c BGB"}')
    assert (call.name, call.arguments, call.id) == ("search_gesetze", {"suche": "§ 573c BGB"}, "call_1")


@pytest.mark.parametrize("text", ['{"werkzeug": "search_gesetze", "suche": "§ 57', "Die Frist läuft.", '{"suche": "x"}', "[]"])
def test_anything_else_is_a_parser_error(text):
    with pytest.raises(LLMToolParserError):
        parse_demo_call(text)


def test_the_client_sends_only_the_current_question_and_its_results():
    transcript = [
        {"role": "system", "content": "SYS"},
        {"role": "user", "content": "alte Frage"},
        {"role": "assistant", "content": "alte Antwort"},
        {"role": "user", "content": "Welche Fristen laufen?"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": {"name": "read_fristen"}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "read_fristen", "content": '{"data": {"items": []}}'},
        {"role": "user", "content": "Das Schrittlimit ist erreicht. Antworte jetzt."},
    ]
    system, question, results = _split_transcript(transcript)
    assert (system, question) == ("SYS", "Welche Fristen laufen?")
    assert [r["name"] for r in results] == ["read_fristen"]
    _system, question, results = _split_transcript(
        [*transcript, {"role": "assistant", "content": "x"}, {"role": "user", "content": "Neu?"}]
    )
    assert (question, results) == ("Neu?", [])


def test_results_reach_the_model_as_lines_without_json_and_meta():
    content = json.dumps(
        {
            "data": {"akte": "12/25", "items": [{"titel": "Klageerwiderung", "datum": "2026-12-01", "notiz": ""}]},
            "source": [{"typ": "frist", "id": 3}],
            "_meta": {"ms": 4},
        }
    )
    assert result_lines(content) == "akte: 12/25\nitems:\n- titel: Klageerwiderung, datum: 2026-12-01"
    assert result_lines(json.dumps({"error": "Akte nicht gefunden."})) == "Fehler: Akte nicht gefunden."
    assert result_lines("kein JSON") == "kein JSON"
    prompt = _answer_prompt("Welche Fristen?", [{"role": "tool", "name": "read_fristen", "content": content}])
    assert prompt.startswith("Ergebnis von read_fristen:\n") and prompt.endswith("Frage: Welche Fristen?")
    assert "{" not in prompt
