"""One interface for every model server.

Messages use the OpenAI-style shape internally (role system/user/assistant/tool; assistant messages
carry `tool_calls`, tool messages carry `tool_call_id` and `name`); each provider converts to its
own wire format. A provider returns a normalised `LLMResponse` and raises only `LLMError`
subclasses, so the router can decide between retry, escalation and failure.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

Message = dict[str, Any]
# Called with each streamed text fragment of the answer.
DeltaCallback = Callable[[str], Awaitable[None]]


@dataclass
class ToolCall:
    id: str
    name: str
    # Parsed arguments; `raw_arguments` keeps what the model sent when it was not valid JSON,
    # so the response guard can repair it.
    arguments: dict[str, Any] | None
    raw_arguments: str = ""


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


class LLMError(Exception):
    """Base of every provider error."""


class LLMTimeout(LLMError):
    pass


class LLMUnavailable(LLMError):
    """Connection refused, DNS, server down: try another tier."""


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
