"""The response guard: makes a local model's reply usable before the loop acts on it.

Pure functions, no I/O. `guard_response(response, known_tools)` returns a `GuardOutcome`:

- Structured tool calls whose arguments are broken are repaired where the repair is unambiguous:
  trailing commas, single-quoted strings, unquoted keys, Python literals (True/None), arguments
  sent as a JSON string (double encoded), `{"parameters": {...}}` / `{"arguments": {...}}`
  wrappers, a `functions.` prefix on the tool name. Apostrophes inside strings („Müller’s“,
  "Müller's") stay as they are. What cannot be repaired becomes a `GuardError` for that call.
- No structured call, but the *whole* reply is call-shaped JSON naming known tools (a bare
  object, a list, several concatenated objects, a ```json fence, `<tool_call>…</tool_call>` tags,
  OpenAI-style nested `{"function": {...}}`, missing arguments, a known tool's name followed by
  `:` or `(` and its arguments as in `functions.read_akte: {"akte": "12/25"}`): the calls are recovered as real
  tool calls and the text is dropped (a leading `<think>…</think>` block is kept as the text).
  Prose that merely contains JSON is left alone.
- A call naming an unknown tool becomes a `GuardError` listing the valid tools.

Every repair and recovery is a `Repair(kind, detail, tool, call_id)`, so the loop can emit
`guard.repair` events and count them per model.

How the loop uses the outcome (agent/engine/loop.py, `response_guard`): it runs the calls of
`outcome.response.tool_calls` whose id is not in `outcome.failed_call_ids`; for each `GuardError`
with a `call_id` it sends the `message` as that call's tool result (so every call stays paired
with a result); a `GuardError` without `call_id` (a call-shaped reply naming unknown tools) goes
back as a user message. Validation rounds are counted by the loop (at most two, then escalate).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from agent.llm.base import LLMResponse, ToolCall

# Repair kinds (stable codes; the loop counts them per model).
TRAILING_COMMA = "trailing_comma"
SINGLE_QUOTES = "single_quotes"
UNQUOTED_KEYS = "unquoted_keys"
PYTHON_LITERALS = "python_literals"
CODE_FENCE = "code_fence"
ARGUMENTS_JSON_STRING = "arguments_json_string"
PARAMETERS_WRAPPER = "parameters_wrapper"
TOOL_NAME_PREFIX = "tool_name_prefix"
RECOVERED_FROM_TEXT = "recovered_from_text"
MISSING_ARGUMENTS = "missing_arguments"

INVALID_ARGUMENTS = (
    "Die Argumente für das Werkzeug „{tool}“ sind kein gültiges JSON-Objekt ({reason}). "
    'Rufe das Werkzeug erneut auf, mit den Argumenten als JSON-Objekt, z. B. {{"feld": "wert"}}.'
)
UNKNOWN_TOOL = "Das Werkzeug „{tool}“ gibt es nicht. Verfügbare Werkzeuge: {valid}."
WITHHELD_TOOL = "Das Werkzeug „{tool}“ ist für deine Rolle nicht erlaubt. Erlaubte Werkzeuge: {valid}."
NO_TOOLS = "keine (beantworte die Frage ohne Werkzeuge)"

_NAME_KEYS = ("name", "tool", "tool_name")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
_CALL_KEYS = {*_NAME_KEYS, *_ARGUMENT_KEYS, "id", "type"}
_FENCE = re.compile(r"^```[A-Za-z]*[ \t]*\n?(.*?)\n?[ \t]*```$", re.DOTALL)
_TAG = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
_LEADING_MARKERS = ("<|python_tag|>",)
# a known tool's name (optionally `functions.`-prefixed) followed by `:` or `(` and one JSON object
_NAMED_CALL = re.compile(r"^((?:functions\.)?[A-Za-z_]\w*)\s*(?::|\()\s*(\{.*\})\s*\)?\s*$", re.DOTALL)
_THINK = re.compile(r"\s*<think>(.*?)</think>", re.DOTALL)


@dataclass(frozen=True)
class Repair:
    kind: str
    detail: str
    tool: str = ""
    call_id: str = ""


@dataclass(frozen=True)
class GuardError:
    """A problem the model must fix. `call_id` is set when it belongs to a call of the response."""

    message: str
    tool: str = ""
    call_id: str = ""


@dataclass
class GuardOutcome:
    response: LLMResponse
    repairs: list[Repair] = field(default_factory=list)
    errors: list[GuardError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def failed_call_ids(self) -> set[str]:
        return {e.call_id for e in self.errors if e.call_id}


ToolSpecs = Collection[str] | Mapping[str, Mapping[str, Any]]


def guard_response(response: LLMResponse, known_tools: ToolSpecs, withheld: frozenset[str] = frozenset()) -> GuardOutcome:
    """Repair the structured tool calls of `response`, or recover calls from its text.

    `known_tools` are the names of the offered tools, or a mapping name → JSON schema of the
    parameters (then a `parameters`/`arguments` wrapper is only unwrapped when the tool has no
    parameter of that name). `withheld` are tools that exist but are not offered to this user's
    role: a call of one is answered with "nicht erlaubt", not "gibt es nicht"."""
    outcome = _guard(response, known_tools)
    if withheld:
        valid = ", ".join(sorted(known_tools)) or NO_TOOLS
        outcome.errors = [
            replace(e, message=WITHHELD_TOOL.format(tool=e.tool, valid=valid)) if e.tool.rsplit(".", 1)[-1] in withheld else e
            for e in outcome.errors
        ]
    return outcome


def _guard(response: LLMResponse, known_tools: ToolSpecs) -> GuardOutcome:
    if response.tool_calls:
        return _guard_structured(response, known_tools)
    thinking, rest = split_thinking(response.text)
    recovered = recover_tool_calls(rest, known_tools)
    if recovered is None:
        return GuardOutcome(response)
    calls, repairs, errors = recovered
    # The reasoning of a thinking model stays as the text beside the calls (the loop's `thought`).
    return GuardOutcome(
        replace(response, text=thinking, tool_calls=calls, finish_reason="tool_calls" if calls else response.finish_reason),
        repairs,
        errors,
    )


def split_thinking(text: str) -> tuple[str, str]:
    """A leading `<think>…</think>` block (Qwen3, DeepSeek-R1 and others write their reasoning
    there) is not part of the reply's shape: returns (reasoning, rest)."""
    match = _THINK.match(text)
    if not match:
        return "", text
    return match.group(1).strip(), text[match.end() :]


def _guard_structured(response: LLMResponse, known_tools: ToolSpecs) -> GuardOutcome:
    outcome = GuardOutcome(replace(response, tool_calls=[]))
    for call in response.tool_calls:
        name, name_repairs = _resolve_name(call.name, known_tools)
        repairs = [replace(r, call_id=call.id) for r in name_repairs]
        if name is None:
            outcome.response.tool_calls.append(call)
            outcome.errors.append(GuardError(_unknown_tool_message(call.name, known_tools), call.name, call.id))
            continue
        if call.arguments is not None:
            arguments, more = unwrap_arguments(call.arguments, _schema(known_tools, name))
        else:
            try:
                arguments, more = repair_arguments(call.raw_arguments)
            except ValueError as exc:
                outcome.response.tool_calls.append(replace(call, name=name))
                outcome.errors.append(GuardError(INVALID_ARGUMENTS.format(tool=name, reason=exc), name, call.id))
                outcome.repairs.extend(repairs)
                continue
            arguments, unwrapped = unwrap_arguments(arguments, _schema(known_tools, name))
            more += unwrapped
        repairs += [replace(r, tool=name, call_id=call.id) for r in more]
        outcome.response.tool_calls.append(replace(call, name=name, arguments=arguments))
        outcome.repairs.extend(repairs)
    return outcome


# -- arguments -----------------------------------------------------------------------------------


def repair_arguments(raw: str) -> tuple[dict[str, Any], list[Repair]]:
    """Parse tool-call arguments, repairing what is unambiguous; raises ValueError (with a German
    reason) when it is not an object even after repair."""
    repairs: list[Repair] = []
    text = raw.strip()
    if not text:
        return {}, [Repair(MISSING_ARGUMENTS, "leere Argumente als {} gelesen")]
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
        repairs.append(Repair(CODE_FENCE, "Argumente in einem Code-Block"))
    value, more = _loads_lenient(text)
    repairs += more
    if isinstance(value, str):
        try:
            value, more = _loads_lenient(value.strip())
        except ValueError:
            raise ValueError("eine Zeichenkette statt eines Objekts") from None
        repairs += [*more, Repair(ARGUMENTS_JSON_STRING, "Argumente als JSON-Zeichenkette kodiert")]
    if not isinstance(value, dict):
        raise ValueError(f"{type(value).__name__} statt eines Objekts")
    return value, repairs


def unwrap_arguments(arguments: dict[str, Any], schema: Mapping[str, Any] | None) -> tuple[dict[str, Any], list[Repair]]:
    """`{"parameters": {...}}` (or `arguments`) as the only key wraps the real arguments, unless the
    tool really has a parameter of that name."""
    if len(arguments) != 1:
        return arguments, []
    key, value = next(iter(arguments.items()))
    if key not in ("parameters", "arguments"):
        return arguments, []
    properties = (schema or {}).get("properties") or {}
    if key in properties:
        return arguments, []
    repairs = [Repair(PARAMETERS_WRAPPER, f"Argumente unter „{key}“ verschachtelt")]
    if isinstance(value, str):
        try:
            value, more = repair_arguments(value)
        except ValueError:
            return arguments, []
        repairs += more
    if not isinstance(value, dict):
        return arguments, []
    return value, repairs


def _loads_lenient(text: str) -> tuple[Any, list[Repair]]:
    try:
        return json.loads(text), []
    except json.JSONDecodeError as strict_error:
        fixed, repairs = normalise_json(text)
        if not repairs:
            raise ValueError(_reason(strict_error)) from None
        try:
            return json.loads(fixed), repairs
        except json.JSONDecodeError as exc:
            raise ValueError(_reason(exc)) from None


def _reason(exc: json.JSONDecodeError) -> str:
    return f"{exc.msg} an Position {exc.pos}"


_IDENT = re.compile(r"[A-Za-z_\u00c0-\u024f][\w\u00c0-\u024f-]*")
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}


def normalise_json(text: str) -> tuple[str, list[Repair]]:
    """Rewrite JavaScript/Python-flavoured object literals as JSON: single-quoted strings, unquoted
    keys, trailing commas, True/False/None. Double-quoted strings are copied untouched, so
    apostrophes inside them stay. A single-quoted string ends only at a quote followed by `,`, `:`,
    `}`, `]` or the end, so „Müller's Akte“ inside single quotes keeps its apostrophe."""
    out: list[str] = []
    kinds: dict[str, str] = {}
    i, n = 0, len(text)
    expecting_key = False
    while i < n:
        ch = text[i]
        if ch == '"':
            end = _end_of_double_quoted(text, i)
            out.append(text[i:end])
            i = end
            expecting_key = False
        elif ch == "'":
            end = _end_of_single_quoted(text, i)
            if end < 0:
                out.append(text[i:])
                break
            out.append(json.dumps(text[i + 1 : end].replace("\\'", "'"), ensure_ascii=False))
            kinds[SINGLE_QUOTES] = "einfache Anführungszeichen"
            i = end + 1
            expecting_key = False
        elif ch == ",":
            rest = text[i + 1 :].lstrip()
            if rest[:1] in ("}", "]"):
                kinds[TRAILING_COMMA] = "überzähliges Komma"
            else:
                out.append(ch)
            i += 1
            expecting_key = True
        elif ch in "{":
            out.append(ch)
            i += 1
            expecting_key = True
        elif ch in "[:}]":
            out.append(ch)
            i += 1
            expecting_key = False
        else:
            word = _IDENT.match(text, i)
            if word:
                token = word.group(0)
                after = text[word.end() :].lstrip()
                if expecting_key and after.startswith(":"):
                    out.append(json.dumps(token, ensure_ascii=False))
                    kinds[UNQUOTED_KEYS] = "Schlüssel ohne Anführungszeichen"
                elif token in _PY_LITERALS:
                    out.append(_PY_LITERALS[token])
                    kinds[PYTHON_LITERALS] = "Python-Literale (True/False/None)"
                else:
                    out.append(token)
                i = word.end()
                expecting_key = False
            else:
                out.append(ch)
                i += 1
                if not ch.isspace():
                    expecting_key = False
    return "".join(out), [Repair(kind, detail) for kind, detail in kinds.items()]


def _end_of_double_quoted(text: str, start: int) -> int:
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return len(text)


def _end_of_single_quoted(text: str, start: int) -> int:
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "'":
            rest = text[i + 1 :].lstrip()
            if not rest or rest[0] in ",:}]":
                return i
        i += 1
    return -1


# -- recovery from text --------------------------------------------------------------------------


def recover_tool_calls(text: str, known_tools: ToolSpecs) -> tuple[list[ToolCall], list[Repair], list[GuardError]] | None:
    """Tool calls written as text, when the *whole* text is call-shaped; None otherwise."""
    body = text.strip()
    for marker in _LEADING_MARKERS:
        if body.startswith(marker):
            body = body[len(marker) :].strip()
    if not body:
        return None
    named = _NAMED_CALL.match(body)
    if named and _resolve_name(named.group(1), known_tools)[0] is not None:
        # `functions.read_akte: {"akte": "12/25"}` or `read_akte({...})`: a known tool, then its arguments
        body = json.dumps({"name": named.group(1), "arguments": named.group(2)}, ensure_ascii=False)
    shape, segments = _segments(body)
    if not segments:
        return None
    objects: list[Any] = []
    repairs: list[Repair] = []
    for segment in segments:
        parsed = _parse_concatenated(segment)
        if parsed is None:
            return None
        values, more = parsed
        repairs += more
        for value in values:
            if isinstance(value, list):
                objects.extend(value)
            else:
                objects.append(value)
    if not objects:
        return None
    if len(objects) > 1 and shape == "object":
        shape = "concatenated" if not body.startswith("[") else "list"
    if any(not _is_call_shaped(o) for o in objects):
        return None
    # Without arguments only a known tool name makes `{"name": "Müller"}` a call rather than data.
    if any(not _call_parts(o)[2] and _resolve_name(_call_parts(o)[0], known_tools)[0] is None for o in objects):
        return None
    calls: list[ToolCall] = []
    errors: list[GuardError] = []
    for index, obj in enumerate(objects, start=1):
        raw_name, raw_arguments, had_arguments = _call_parts(obj)
        name, name_repairs = _resolve_name(raw_name, known_tools)
        call_id = str(obj.get("id") or f"guard_{index}")
        if name is None:
            errors.append(GuardError(_unknown_tool_message(raw_name, known_tools), raw_name))
            continue
        call_repairs = [replace(r, tool=name, call_id=call_id) for r in name_repairs]
        arguments: dict[str, Any] | None
        if not had_arguments:
            arguments = {}
            call_repairs.append(Repair(MISSING_ARGUMENTS, "Aufruf ohne Argumente", name, call_id))
        elif isinstance(raw_arguments, dict):
            arguments = raw_arguments
        else:
            try:
                arguments, more = repair_arguments(raw_arguments if isinstance(raw_arguments, str) else json.dumps(raw_arguments))
            except ValueError as exc:
                raw = raw_arguments if isinstance(raw_arguments, str) else json.dumps(raw_arguments)
                calls.append(ToolCall(call_id, name, None, raw))
                errors.append(GuardError(INVALID_ARGUMENTS.format(tool=name, reason=exc), name, call_id))
                continue
            call_repairs += [replace(r, tool=name, call_id=call_id) for r in more]
        arguments, unwrapped = unwrap_arguments(arguments, _schema(known_tools, name))
        call_repairs += [replace(r, tool=name, call_id=call_id) for r in unwrapped]
        if "parameters" in obj and "arguments" not in obj:
            call_repairs.append(Repair(PARAMETERS_WRAPPER, "„parameters“ statt „arguments“", name, call_id))
        calls.append(ToolCall(call_id, name, arguments, json.dumps(arguments, ensure_ascii=False)))
        repairs_for_call = [Repair(RECOVERED_FROM_TEXT, f"Aufruf als Text ({shape}) erkannt", name, call_id), *call_repairs]
        repairs.extend(repairs_for_call)
    # Repairs of the whole text (quotes, commas) are attributed to the recovered calls.
    repairs = [r if r.tool else replace(r, tool=calls[0].name if calls else "") for r in repairs]
    return calls, repairs, errors


def _segments(body: str) -> tuple[str, list[str]]:
    """Split the whole reply into JSON segments: tags, fences or the bare text."""
    if body.startswith("<tool_call>"):
        parts = _TAG.findall(body)
        if _TAG.sub("", body).strip():
            return "tags", []
        return "tags", [p.strip() for p in parts]
    if body.startswith("```"):
        fences = re.findall(r"```[A-Za-z]*[ \t]*\n?(.*?)```", body, re.DOTALL)
        if re.sub(r"```[A-Za-z]*[ \t]*\n?(.*?)```", "", body, flags=re.DOTALL).strip():
            return "fence", []
        return "fence", [f.strip() for f in fences]
    if body[0] in "{[":
        return "object" if body[0] == "{" else "list", [body]
    return "", []


def _parse_concatenated(segment: str) -> tuple[list[Any], list[Repair]] | None:
    """One or more JSON values separated by whitespace, commas or semicolons; lenient when strict fails."""
    values = _raw_decode_all(segment)
    if values is not None:
        return values, []
    fixed, repairs = normalise_json(segment)
    if not repairs:
        return None
    values = _raw_decode_all(fixed)
    return (values, repairs) if values is not None else None


def _raw_decode_all(segment: str) -> list[Any] | None:
    decoder = json.JSONDecoder()
    values: list[Any] = []
    i, n = 0, len(segment)
    while i < n:
        while i < n and (segment[i].isspace() or segment[i] in ",;"):
            i += 1
        if i >= n:
            break
        if segment[i] not in "{[":
            return None
        try:
            value, i = decoder.raw_decode(segment, i)
        except json.JSONDecodeError:
            return None
        values.append(value)
    return values or None


def _is_call_shaped(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    if isinstance(obj.get("function"), dict) and set(obj) <= {"function", "id", "type", "index"}:
        return _is_call_shaped(obj["function"])
    name = next((obj[k] for k in _NAME_KEYS if k in obj), None)
    return isinstance(name, str) and bool(name) and set(obj) <= _CALL_KEYS and sum(k in obj for k in _NAME_KEYS) == 1


def _call_parts(obj: dict[str, Any]) -> tuple[str, Any, bool]:
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = next(obj[k] for k in _NAME_KEYS if k in obj)
    for key in _ARGUMENT_KEYS:
        if key in obj:
            return name, obj[key], True
    return name, None, False


def _resolve_name(name: str, known_tools: ToolSpecs) -> tuple[str | None, list[Repair]]:
    if name in known_tools:
        return name, []
    for prefix in ("functions.", "function.", "tools."):
        if name.startswith(prefix) and name[len(prefix) :] in known_tools:
            return name[len(prefix) :], [Repair(TOOL_NAME_PREFIX, f"Präfix „{prefix}“ entfernt")]
    return None, []


def _schema(known_tools: ToolSpecs, name: str) -> Mapping[str, Any] | None:
    if isinstance(known_tools, Mapping):
        schema = known_tools.get(name)
        return schema if isinstance(schema, Mapping) else None
    return None


def _unknown_tool_message(name: str, known_tools: ToolSpecs) -> str:
    valid = ", ".join(sorted(known_tools)) or NO_TOOLS
    return UNKNOWN_TOOL.format(tool=name, valid=valid)
