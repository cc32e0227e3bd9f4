"""Client data leaving the firm: pseudonymisation for cloud tiers.

Before a request goes to a tier with `TierConfig.pseudonymize` (default on for cloud), every
message is rewritten: the names of Beteiligte and Kontakte, their addresses, e-mail addresses,
phone numbers, IBANs, dates of birth and the configured external Aktenzeichen become stable
placeholders ("[PERSON_1]", "[EMAIL_2]"; the same value always gets the same placeholder within a
run). The model's answer and the arguments of its tool calls are mapped back before anything else
sees them, so the user reads real names and drafts hold real data. Nothing in here knows Django:
`known_values_for` in agent/runs/routes.py collects the values.

Known values (names, addresses, Aktenzeichen) are replaced by exact match, longest first, also
when a surname appears alone; e-mail addresses, phone numbers, IBANs and dates of birth are found
by pattern wherever they occur, also in tool results about people the run did not know in advance.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from agent.llm.base import DeltaCallback, LLMClient, LLMResponse, Message, ToolCall

PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("EMAIL", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
    ("IBAN", re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,3})?\b")),
    (
        "GEBURTSDATUM",
        re.compile(
            r"(?:geb(?:oren|\.)?\s*(?:am\s*)?|Geburtsdatum:?\s*|\*\s?)(\d{1,2}\.\s?\d{1,2}\.\s?(?:19|20)\d{2})", re.IGNORECASE
        ),
    ),
    ("TELEFON", re.compile(r"(?<![\w/])(?:\+\d{2}|0)[\d ()/-]{6,}\d\b")),
)
PLACEHOLDER_RE = re.compile(r"\[(?:PERSON|ORGANISATION|ADRESSE|EMAIL|TELEFON|IBAN|GEBURTSDATUM|AKTENZEICHEN)_\d+\]")
MIN_VALUE_CHARS = 3


@dataclass
class Pseudonymizer:
    """Stable value ↔ placeholder mapping of one run."""

    _by_value: dict[str, str] = field(default_factory=dict)
    _by_placeholder: dict[str, str] = field(default_factory=dict)
    _counters: dict[str, int] = field(default_factory=dict)
    _known: list[tuple[str, str]] = field(default_factory=list)
    _known_re: re.Pattern[str] | None = None

    def add_known(self, values: Iterable[tuple[str, str]]) -> None:
        """Register (category, value) pairs, e.g. ("PERSON", "Erika Mustermann")."""
        for category, value in values:
            value = " ".join(value.split())
            if len(value) >= MIN_VALUE_CHARS and value not in dict(self._known):
                self._known.append((value, category))
        self._known.sort(key=lambda item: -len(item[0]))
        self._known_re = (
            re.compile("|".join(r"(?<!\w)" + re.escape(value) + r"(?!\w)" for value, _ in self._known)) if self._known else None
        )

    def placeholder(self, category: str, value: str) -> str:
        existing = self._by_value.get(value)
        if existing is not None:
            return existing
        number = self._counters.get(category, 0) + 1
        self._counters[category] = number
        token = f"[{category}_{number}]"
        self._by_value[value] = token
        self._by_placeholder.setdefault(token, value)
        return token

    def pseudonymize(self, text: str) -> str:
        if not text:
            return text
        if self._known_re is not None:
            categories = dict(self._known)
            text = self._known_re.sub(lambda m: self.placeholder(categories[m.group(0)], m.group(0)), text)
        for category, pattern in PATTERNS:
            text = pattern.sub(self._replacer(category, group=1 if pattern.groups else 0), text)
        return text

    def _replacer(self, category: str, *, group: int) -> Callable[[re.Match[str]], str]:
        def replace(match: re.Match[str]) -> str:
            value = match.group(group)
            return match.group(0).replace(value, self.placeholder(category, value))

        return replace

    def restore(self, text: str) -> str:
        if not text or "[" not in text:
            return text
        return PLACEHOLDER_RE.sub(lambda m: self._by_placeholder.get(m.group(0), m.group(0)), text)

    def restore_obj(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.restore(value)
        if isinstance(value, dict):
            return {k: self.restore_obj(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.restore_obj(v) for v in value]
        return value

    def pseudonymize_messages(self, messages: list[Message]) -> list[Message]:
        """A pseudonymised deep copy; the transcript itself keeps the real values."""
        out = copy.deepcopy(messages)
        for message in out:
            if isinstance(message.get("content"), str):
                message["content"] = self.pseudonymize(message["content"])
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    function["arguments"] = self.pseudonymize(arguments)
                elif isinstance(arguments, dict):
                    function["arguments"] = json.loads(self.pseudonymize(json.dumps(arguments, ensure_ascii=False)))
        return out


def person_values(*, vorname: str, nachname: str, firma: str, strasse: str, plz: str, ort: str) -> list[tuple[str, str]]:
    """The values of one Kontakt worth hiding."""
    values: list[tuple[str, str]] = []
    full = " ".join(p for p in (vorname, nachname) if p)
    if full:
        values.append(("PERSON", full))
    if nachname:
        values.append(("PERSON", nachname))
    if firma:
        values.append(("ORGANISATION", firma))
    if strasse:
        values.append(("ADRESSE", strasse))
        if plz or ort:
            values.append(("ADRESSE", f"{plz} {ort}".strip()))
    return values


class _RestoringDelta:
    """Maps placeholders back in streamed fragments; holds back a fragment ending inside "[…"."""

    def __init__(self, pseudonymizer: Pseudonymizer, target: DeltaCallback) -> None:
        self.pseudonymizer, self.target = pseudonymizer, target
        self.pending = ""

    async def __call__(self, fragment: str) -> None:
        text = self.pending + fragment
        cut = text.rfind("[")
        if cut != -1 and "]" not in text[cut:] and len(text) - cut < 24:
            text, self.pending = text[:cut], text[cut:]
        else:
            self.pending = ""
        if text:
            await self.target(self.pseudonymizer.restore(text))

    async def flush(self) -> None:
        if self.pending:
            text, self.pending = self.pending, ""
            await self.target(self.pseudonymizer.restore(text))


class PseudonymizingClient:
    """Wraps the client of a cloud tier: pseudonymises what goes out, restores what comes back."""

    def __init__(self, inner: LLMClient, pseudonymizer: Pseudonymizer) -> None:
        self.inner = inner
        self.pseudonymizer = pseudonymizer
        self.model = inner.model
        self.context_window = inner.context_window

    async def chat(
        self,
        messages: list[Message],
        *,
        tools: list[dict[str, Any]] | None = None,
        on_delta: DeltaCallback | None = None,
    ) -> LLMResponse:
        outgoing = self.pseudonymizer.pseudonymize_messages(messages)
        restoring = _RestoringDelta(self.pseudonymizer, on_delta) if on_delta is not None else None
        response = await self.inner.chat(outgoing, tools=tools, on_delta=restoring)
        if restoring is not None:
            await restoring.flush()
        restore = self.pseudonymizer.restore
        return LLMResponse(
            text=restore(response.text),
            tool_calls=[
                ToolCall(
                    id=call.id,
                    name=call.name,
                    arguments=self.pseudonymizer.restore_obj(call.arguments) if call.arguments is not None else None,
                    raw_arguments=restore(call.raw_arguments),
                )
                for call in response.tool_calls
            ],
            usage=response.usage,
            finish_reason=response.finish_reason,
            model=response.model,
        )
