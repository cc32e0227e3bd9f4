"""The token budget: keep what goes to the model inside its context window.

Counting: with a tokenizer (a callable text → token count, e.g. the llama.cpp model's own) where
the client offers one, otherwise an estimate of ≈ 3.5 characters per token. German legal text
with its long compounds tokenises worse than English (≈ 4 chars/token); 3.5 errs on the safe side
for the BPE vocabularies of Llama/Qwen/Mistral models, and the 75 % threshold leaves the rest of
the margin. Tool schemas are counted as their JSON; every message adds a few tokens of chat-template
overhead (`MESSAGE_OVERHEAD`).

Before each model call `Budget.fit` checks system prompt + tool schemas + transcript against 75 %
of the window. Over it, the oldest tool results are replaced by a short placeholder
("[gekürzt: Ergebnis von search_gesetze, 4.120 Zeichen]") until it fits. Never touched: the system
prompt, the first user message, the assistant messages (so every tool call keeps its paired result
message, only shorter) and the last `KEEP_RECENT_RESULTS` tool results. Truncation edits the
transcript in place, so later steps and a continuation see exactly what the model saw.
Single tool results are capped where they enter the transcript (`cap_observation`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

CHARS_PER_TOKEN = 3.5
MESSAGE_OVERHEAD = 4
THRESHOLD = 0.75
KEEP_RECENT_RESULTS = 3
# A single tool result may fill at most this share of the window.
MAX_RESULT_SHARE = 0.25
MAX_RESULT_CHARS = 16_000
TRUNCATED_PREFIX = "[gekürzt: "

Tokenizer = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _group(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def placeholder(tool: str, chars: int) -> str:
    return f"{TRUNCATED_PREFIX}Ergebnis von {tool}, {_group(chars)} Zeichen]"


def cap_observation(text: str, *, context_window: int) -> str:
    """Cap one tool result so that it can never crowd out the rest of the conversation."""
    limit = min(MAX_RESULT_CHARS, int(context_window * MAX_RESULT_SHARE * CHARS_PER_TOKEN))
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[… gekürzt, {_group(len(text) - limit)} weitere Zeichen]"


def _message_text(message: dict[str, Any]) -> str:
    text = str(message.get("content") or "")
    if message.get("tool_calls"):
        text += json.dumps(message["tool_calls"], ensure_ascii=False, default=str)
    return text


@dataclass
class Budget:
    context_window: int
    tokenizer: Tokenizer | None = None
    threshold: float = THRESHOLD
    # token counts per message, keyed by the identity of the message and its content, so a long
    # transcript is counted once and not again at every step
    _memo: dict[int, tuple[int, int]] = field(default_factory=dict)
    # the offered tool list last counted, held (not only its id: a list of another route's tools,
    # built afresh, could get the id of a freed one) with its token count
    _schema_memo: tuple[list[dict[str, Any]], int] | None = None

    @property
    def limit(self) -> int:
        return int(self.context_window * self.threshold)

    def count_text(self, text: str) -> int:
        return self.tokenizer(text) if self.tokenizer is not None else estimate_tokens(text)

    def count_message(self, message: dict[str, Any]) -> int:
        content = message.get("content")
        marker = hash((len(str(content or "")), len(message.get("tool_calls") or ())))
        cached = self._memo.get(id(message))
        if cached is not None and cached[0] == marker:
            return cached[1]
        tokens = self.count_text(_message_text(message)) + MESSAGE_OVERHEAD
        self._memo[id(message)] = (marker, tokens)
        return tokens

    def count_tools(self, tools: list[dict[str, Any]] | None) -> int:
        if not tools:
            return 0
        if self._schema_memo is not None and self._schema_memo[0] is tools:
            return self._schema_memo[1]
        tokens = self.count_text(json.dumps(tools, ensure_ascii=False))
        self._schema_memo = (tools, tokens)
        return tokens

    def total(self, transcript: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> int:
        return self.count_tools(tools) + sum(self.count_message(m) for m in transcript)

    def fit(self, transcript: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> list[str]:
        """Shorten the oldest tool results in place until the prompt fits under the threshold.

        Returns the names of the tools whose results were shortened (empty when nothing changed).
        The result may still be over the limit when nothing more may be shortened; the provider
        then reports a context overflow, which the loop handles.
        """
        total = self.total(transcript, tools)
        if total <= self.limit:
            return []
        candidates = [i for i, m in enumerate(transcript) if m.get("role") == "tool"]
        candidates = candidates[:-KEEP_RECENT_RESULTS] if len(candidates) > KEEP_RECENT_RESULTS else []
        shortened: list[str] = []
        for index in candidates:
            message = transcript[index]
            content = str(message.get("content") or "")
            if content.startswith(TRUNCATED_PREFIX):
                continue
            before = self.count_message(message)
            tool = str(message.get("name") or "Werkzeug")
            message["content"] = placeholder(tool, len(content))
            total -= before - self.count_message(message)
            shortened.append(tool)
            if total <= self.limit:
                break
        return shortened
