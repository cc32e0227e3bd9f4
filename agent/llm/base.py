"""One interface for every model server.

Messages use the OpenAI-style shape internally (role system/user/assistant/tool; assistant messages
carry `tool_calls`, tool messages carry `tool_call_id` and `name`); each provider converts to its
own wire format. A provider returns a normalised `LLMResponse` and raises only `LLMError`
subclasses, so the router can decide between retry, escalation and failure.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

Message = dict[str, Any]
# Called with each streamed text fragment of the answer.
DeltaCallback = Callable[[str], Awaitable[None]]


def without_nul(value: Any) -> Any:
    """`value` with every NUL character removed from its strings (nested dicts and lists too).
    PostgreSQL stores no NUL in text or jsonb: one in a model's reply would fail the row of every
    event, the transcript and the answer that carry it."""
    if isinstance(value, str):
        return value.replace("\x00", "") if "\x00" in value else value
    if isinstance(value, dict):
        return {without_nul(key): without_nul(item) for key, item in value.items()}
    if isinstance(value, list):
        return [without_nul(item) for item in value]
    return value


@dataclass
class ToolCall:
    id: str
    name: str
    # Parsed arguments; `raw_arguments` keeps what the model sent when it was not valid JSON,
    # so the response guard can repair it.
    arguments: dict[str, Any] | None
    raw_arguments: str = ""

    def __post_init__(self) -> None:
        self.id, self.name, self.raw_arguments = without_nul(self.id), without_nul(self.name), without_nul(self.raw_arguments)
        if self.arguments is not None:
            self.arguments = without_nul(self.arguments)


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class LLMResponse:
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str = ""
    model: str = ""

    def __post_init__(self) -> None:
        self.text = without_nul(self.text)


class LLMError(Exception):
    """Base of every provider error."""


class LLMTimeout(LLMError):
    pass


class LLMUnavailable(LLMError):
    """Connection refused, DNS, server down: try another tier."""


class LLMStreamCut(LLMUnavailable):
    """The server began its answer and broke it off before its end (an Ollama stream without `done`,
    an OpenAI-compatible stream without `finish_reason`): handled like an outage, named for what it is."""


class LLMHTTPError(LLMError):
    def __init__(self, status: int, message: str = "") -> None:
        super().__init__(f"HTTP {status}: {message[:200]}")
        self.status = status
        self.message = message


class LLMToolParserError(LLMHTTPError):
    """Ollama's HTTP 500 from its tool-call parser: repairable by one retry."""


class LLMContextOverflow(LLMError):
    """The prompt does not fit into the model's context window."""


class LLMClient(Protocol):
    model: str
    context_window: int

    async def chat(
        self,
        messages: list[Message],
        *,
        tools: list[dict[str, Any]] | None = None,
        on_delta: DeltaCallback | None = None,
    ) -> LLMResponse:
        """One model call. `tools` are OpenAI-format function specs (None: tools disabled).
        With `on_delta`, the provider streams and calls it with each text fragment."""
        ...


def parse_arguments(value: Any) -> tuple[dict[str, Any] | None, str]:
    """Normalise tool-call arguments as a server sent them (a JSON string or an object).

    Returns `(arguments, raw)`: `arguments` is the dict when the value is a JSON object, else None,
    and `raw` keeps the original text so the response guard can repair it."""
    if isinstance(value, dict):
        return dict(value), json.dumps(value, ensure_ascii=False)
    if value is None:
        return {}, ""
    raw = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if not raw.strip():
        return {}, raw
    try:
        parsed = json.loads(raw)
    except (json.JSONDecodeError, TypeError):
        return None, raw
    return (parsed, raw) if isinstance(parsed, dict) else (None, raw)


def message_arguments(call: dict[str, Any]) -> dict[str, Any]:
    """The arguments of an OpenAI-shaped tool call in a transcript message, as a dict."""
    arguments, _ = parse_arguments((call.get("function") or {}).get("arguments"))
    return arguments or {}


def assistant_message(response: LLMResponse) -> Message:
    """The transcript message for a model response (OpenAI shape, arguments as a JSON string)."""
    message: Message = {"role": "assistant", "content": response.text or ""}
    if response.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": json.dumps(call.arguments, ensure_ascii=False)
                    if call.arguments is not None
                    else call.raw_arguments,
                },
            }
            for call in response.tool_calls
        ]
    return message


_OVERFLOW_MARKERS = (
    "context length",
    "context window",
    "context size",
    "exceed_context_size",
    "maximum context",
    "too many tokens",
    "prompt is too long",
)


def is_context_overflow(message: str) -> bool:
    """Whether a server's error text says the prompt did not fit (OpenAI, vLLM, llama.cpp, Ollama)."""
    text = message.lower()
    return any(marker in text for marker in _OVERFLOW_MARKERS) and ("exceed" in text or "too" in text or "maximum" in text)


class DeltaCallbackFailed(Exception):  # noqa: N818 - a carrier, never seen outside the providers
    """Carries an exception raised by the caller's `on_delta` through a provider's error mapping,
    so the provider re-raises it unchanged instead of reporting it as a server error."""

    def __init__(self, original: Exception) -> None:
        super().__init__(repr(original))
        self.original = original


async def call_on_delta(on_delta: DeltaCallback, fragment: str) -> None:
    fragment = without_nul(fragment)
    if not fragment:
        return
    try:
        await on_delta(fragment)
    except Exception as exc:
        raise DeltaCallbackFailed(exc) from exc
