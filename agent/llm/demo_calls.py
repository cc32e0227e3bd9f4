"""Tool calls of the embedded demo model, made possible by constrained decoding.

A 135M model cannot choose between four tools: asked freely it names the same tool for every
question or writes a call as text (bench/results/demo.json, before this module: 0 of 4 demo
questions answered with a real tool call). The demo therefore works like `tool_choice` with a
named function, decided by rules a person can read:

1. `demo_tool_choice`: the question's cue words pick the tool (the first row of DEMO_TOOL_SET
   whose cue occurs wins; without a cue the Akte of the conversation is read, and without an
   Akte the model may choose among all offered tools).
2. `demo_call_schema`: a JSON schema that admits only a call of that tool, with arguments taken
   from what is known: the Aktenzeichen of the question or of the conversation as a constant, a
   search term as one of the phrases of the question. The llama.cpp server turns it into a
   grammar (`response_format`), so the model's output is always a well-formed call.
3. `parse_demo_call`: the model's JSON as a real `ToolCall`.

Pure functions; the client in agent/llm/demo.py sends the schema and executes nothing itself.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from agent.llm.base import LLMToolParserError, ToolCall

# the key of the tool name in the demo model's call object (the other keys are the arguments)
TOOL_KEY = "werkzeug"
MAX_PHRASES = 6
MAX_PHRASE_CHARS = 80
AKTENZEICHEN = re.compile(r"\b\d{1,5}/\d{2}\b")
CITATION = re.compile(r"(?:§§?|Art\.)\s*\d+[a-z]?(?:\s+(?:Abs\.|S\.|Nr\.)\s*\d+)*\s+[A-ZÄÖÜ][A-Za-zÄÖÜäöüß]*")
WORD = re.compile(r"[A-Za-zÄÖÜäöüß][\wÄÖÜäöüß.-]*")
# words that carry no search meaning (question words, articles, the cue words of the tools)
STOPWORDS = frozenset(
    """
    a akte akten alle aller am an auf aus bei bis bitte das dem den der des die dir du ein eine einer
    es finde für gibt gilt ich im in ist mir mit nach noch nenne oder regelt sagt sich sind so such
    suche suchen steht über um und uns von was welche welcher welches wer wie wo worum zeig zeige zu
    zum zur
    """.split()
)


@dataclass(frozen=True)
class DemoTool:
    """One tool of the demo: its name in the registry, what the prompt says of it, the cue words
    (lower case, matched at a word start) that pick it, and its one argument."""

    name: str
    text: str
    cues: tuple[str, ...]
    # "akte": the Aktenzeichen (of the question, else of the conversation); "suche": a phrase of the question
    argument: str


# The first row whose cue occurs in the question wins, so the specific tools come first.
DEMO_TOOL_SET: tuple[DemoTool, ...] = (
    DemoTool(
        "read_fristen",
        "Fristen, Termine und Wiedervorlagen einer Akte",
        ("frist", "termin", "wiedervorlage", "vorfrist", "verhandlung", "fällig", "deadline"),
        "akte",
    ),
    DemoTool(
        "search_gesetze",
        "Gesetze und Paragraphen nachlesen",
        ("§", "art.", "gesetz", "paragraph", "norm", "vorschrift", "bgb", "zpo", "regelt"),
        "suche",
    ),
    DemoTool(
        "search_alle_akten",
        "Akten nach Namen oder Stichwort suchen",
        ("such", "finde", "find", "gibt es", "welche akten"),
        "suche",
    ),
    DemoTool(
        "read_akte",
        "Überblick über eine Akte: worum es geht, wer beteiligt ist",
        ("akte", "worum", "beteiligt", "mandant", "gegner", "sachstand", "zusammenfass"),
        "akte",
    ),
)
DEMO_TOOLS = frozenset(tool.name for tool in DEMO_TOOL_SET)
_BY_NAME = {tool.name: tool for tool in DEMO_TOOL_SET}


def _has_cue(text: str, cue: str) -> bool:
    if not cue[0].isalnum():
        return cue in text
    return re.search(r"(?<![\wäöüß])" + re.escape(cue), text) is not None


def question_aktenzeichen(question: str) -> str | None:
    match = AKTENZEICHEN.search(question)
    return match.group(0) if match else None


def demo_tool_choice(question: str, offered: list[str], *, aktenzeichen: str | None = None) -> list[str]:
    """The tools the demo model may call for `question`: the first demo tool among `offered` whose
    cue occurs; without a cue `read_akte` when an Akte is known (from the question or the
    conversation), else every offered demo tool. A tool that needs an Akte is left out while
    none is known."""
    folded = question.casefold()
    known_akte = question_aktenzeichen(question) or aktenzeichen
    usable = [name for name in offered if name in _BY_NAME and (name != "read_akte" or known_akte)]
    for tool in DEMO_TOOL_SET:
        if tool.name in usable and any(_has_cue(folded, cue) for cue in tool.cues):
            return [tool.name]
    if known_akte and "read_akte" in usable:
        return ["read_akte"]
    return usable


def search_phrases(question: str) -> list[str]:
    """Search terms taken from the question, most specific first: with a statute citation the
    citation with the other words and each citation alone; else the words that are not stop or
    cue words together, then each of them alone."""
    citations = [" ".join(c.split()) for c in CITATION.findall(question)]
    rest = CITATION.sub(" ", question)
    words = [w.strip(".-") for w in WORD.findall(rest)]
    words = [w for w in words if w and w.casefold() not in STOPWORDS and not AKTENZEICHEN.fullmatch(w)]
    # a cited norm is what the question is about: then only phrases that contain it
    candidates = [" ".join(citations + words), *citations] if citations else [" ".join(words), *words]
    phrases: list[str] = []
    for phrase in candidates:
        phrase = phrase[:MAX_PHRASE_CHARS].strip()
        if len(phrase) >= 2 and phrase not in phrases:
            phrases.append(phrase)
    return phrases[:MAX_PHRASES]


def _argument_schema(tool: DemoTool, question: str, aktenzeichen: str | None) -> dict[str, Any] | None:
    """The schema of the tool's argument; None when the tool is called without one."""
    if tool.argument == "akte":
        akte = question_aktenzeichen(question) or aktenzeichen
        return {"const": akte} if akte else None
    phrases = search_phrases(question)
    if not phrases:
        return {"type": "string", "minLength": 2, "maxLength": MAX_PHRASE_CHARS}
    return {"enum": phrases}


def demo_call_schema(question: str, tools: list[str], *, aktenzeichen: str | None = None) -> dict[str, Any]:
    """The JSON schema of one call of one of `tools` (names from `demo_tool_choice`):
    `{"werkzeug": "<name>", "<argument>": <value>}`; one alternative per tool."""
    alternatives = []
    for name in tools:
        tool = _BY_NAME[name]
        properties: dict[str, Any] = {TOOL_KEY: {"const": name}}
        argument = _argument_schema(tool, question, aktenzeichen)
        if argument is not None:
            properties[tool.argument] = argument
        alternatives.append(
            {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}
        )
    if not alternatives:
        raise ValueError("keine Demo-Werkzeuge angeboten")
    return alternatives[0] if len(alternatives) == 1 else {"anyOf": alternatives}


def parse_demo_call(text: str, *, call_id: str = "call_1") -> ToolCall:
    """The demo model's call object as a ToolCall; LLMToolParserError when it is none (the grammar
    makes that rare: only a cut-off answer)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict) or not isinstance(value.get(TOOL_KEY), str):
        raise LLMToolParserError(502, "Das Demo-Modell hat keinen vollständigen Werkzeugaufruf geschrieben.")
    name = value.pop(TOOL_KEY)
    return ToolCall(id=call_id, name=name, arguments=value, raw_arguments=json.dumps(value, ensure_ascii=False))


def demo_tool_lines(names: list[str]) -> str:
    """One German line per offered demo tool, for the demo prompt."""
    return "\n".join(f"- {name}: {_BY_NAME[name].text}" for name in names if name in _BY_NAME)
