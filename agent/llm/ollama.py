"""Ollama through its native `/api/chat` (the `ollama` AsyncClient), with tools and streaming.

`options.num_ctx` is always sent: Ollama's default window is small, so the window configured for
the tier is the one the budget counts against. `truncate: false` is sent too: by default Ollama
shortens an over-long prompt silently (dropping the oldest messages); with it, the server answers
with an error, which becomes `LLMContextOverflow` — a prompt over the window is ours to handle.
The `ollama` client's `chat()` has no parameter for it, so the request is built with its own
`ChatRequest` model and sent through the client's request path (same parsing and errors).
Ollama's HTTP 500 "error parsing tool call" (its parser choked on the model's output) becomes
`LLMToolParserError`, which the router retries once.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Iterable
from typing import Any

import httpx
import ollama
from ollama._types import ChatRequest, ChatResponse, Tool

from agent.llm.base import (
    DeltaCallback,
    DeltaCallbackFailed,
    LLMContextOverflow,
    LLMError,
    LLMHTTPError,
    LLMResponse,
    LLMStreamCut,
    LLMTimeout,
    LLMToolParserError,
    LLMUnavailable,
    Message,
    ToolCall,
    Usage,
    call_on_delta,
    is_context_overflow,
    message_arguments,
    parse_arguments,
)

DEFAULT_HOST = "http://127.0.0.1:11434"
TOOL_PARSER_MARKER = "error parsing tool call"


@functools.lru_cache(maxsize=256)
def tool_payload(schema: str) -> dict[str, Any]:
    """One tool schema (its JSON text) as the ollama library sends it: validated and dumped by the
    library's own models, once. A run offers the same tools at every call; validating them anew
    took about a fifth of a daphne process's CPU with 200 runs (bench/ws.py). The result is shared:
    it is only serialised, never changed."""
    return ChatRequest(model="-", tools=[Tool.model_validate(json.loads(schema))]).model_dump(exclude_none=True)["tools"][0]  # type: ignore[no-any-return]


# Offered tool specs by identity → (the spec, its payload). The engine builds a run's specs once and
# offers the same dict objects at every call (compaction builds new ones; none is changed in
# place), so the JSON key of `tool_payload` is computed once per spec, not at every call. The
# entry holds its spec, so a freed spec's id can never find another spec's payload.
_PAYLOAD_BY_SPEC: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
PAYLOAD_BY_SPEC_MAX = 4096  # about 170 runs of 24 tools; specs of ended runs are kept until the next clear


def offered_tool_payload(spec: dict[str, Any]) -> dict[str, Any]:
    known = _PAYLOAD_BY_SPEC.get(id(spec))
    if known is not None and known[0] is spec:
        return known[1]
    payload = tool_payload(json.dumps(spec, sort_keys=True))
    if len(_PAYLOAD_BY_SPEC) >= PAYLOAD_BY_SPEC_MAX:
        _PAYLOAD_BY_SPEC.clear()
    _PAYLOAD_BY_SPEC[id(spec)] = (spec, payload)
    return payload


def to_ollama_messages(messages: Iterable[Message]) -> list[dict[str, Any]]:
    """OpenAI-shaped transcript → Ollama messages: tool calls carry dict arguments and no ids,
    tool results are role "tool" with the tool's name."""
    names_by_id: dict[str, str] = {}
    converted: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        out: dict[str, Any] = {"role": role, "content": message.get("content") or ""}
        if role == "assistant" and message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                function = call.get("function") or {}
                names_by_id[call.get("id", "")] = function.get("name", "")
                calls.append({"function": {"name": function.get("name", ""), "arguments": message_arguments(call)}})
            out["tool_calls"] = calls
        elif role == "tool":
            name = message.get("name") or names_by_id.get(message.get("tool_call_id", ""), "")
            if name:
                out["tool_name"] = name
        if message.get("images"):
            out["images"] = message["images"]
        converted.append(out)
    return converted


class OllamaClient:
    provider = "ollama"

    def __init__(
        self,
        *,
        model: str,
        host: str | None = None,
        context_window: int = 8192,
        timeout: float = 60.0,
        options: dict[str, Any] | None = None,
        keep_alive: str | float | None = None,
        is_demo: bool = False,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.model = model
        self.host = (host or DEFAULT_HOST).rstrip("/")
        self.context_window = context_window
        self.timeout = timeout
        self.options = dict(options or {})
        self.keep_alive = keep_alive
        self.is_demo = is_demo
        # `transport`: a shared connection pool (agent/llm/factory.py); without it, httpx builds its own
        self._client = ollama.AsyncClient(
            host=self.host, timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)), transport=transport
        )

    def __repr__(self) -> str:
        return f"OllamaClient(model={self.model!r}, host={self.host!r}, context_window={self.context_window})"

    async def chat(
        self,
        messages: list[Message],
        *,
        tools: list[dict[str, Any]] | None = None,
        on_delta: DeltaCallback | None = None,
    ) -> LLMResponse:
        payload = ChatRequest(
            model=self.model,
            messages=to_ollama_messages(messages),
            stream=on_delta is not None,
            options={**self.options, "num_ctx": self.context_window},
            keep_alive=self.keep_alive,
        ).model_dump(exclude_none=True)
        if tools:
            payload["tools"] = [offered_tool_payload(tool) for tool in tools]
        payload["truncate"] = False
        try:
            async with asyncio.timeout(self.timeout):
                if on_delta is None:
                    reply = await self._client._request(ChatResponse, "POST", "/api/chat", json=payload, stream=False)
                    return self._normalise(reply.message.content or "", list(reply.message.tool_calls or []), reply)
                return await self._stream(payload, on_delta)
        except LLMError:
            raise
        except DeltaCallbackFailed as exc:
            raise exc.original from None
        except TimeoutError as exc:
            raise LLMTimeout(f"Ollama ({self.model}) antwortete nicht innerhalb von {self.timeout:g} s") from exc
        except Exception as exc:
            raise map_ollama_error(exc, self.host) from exc

    async def _stream(self, payload: dict[str, Any], on_delta: DeltaCallback) -> LLMResponse:
        text: list[str] = []
        calls: list[Any] = []
        last: Any = None
        async for part in await self._client._request(ChatResponse, "POST", "/api/chat", json=payload, stream=True):
            content = part.message.content or ""
            if content:
                text.append(content)
                await call_on_delta(on_delta, content)
            calls.extend(part.message.tool_calls or [])
            last = part
        if last is None or not last.done:
            # the server went away mid-answer (restart, out of memory): what came is not the answer
            raise LLMStreamCut(f"Ollama ({self.model}) hat die Antwort vor ihrem Ende abgebrochen")
        return self._normalise("".join(text), calls, last)

    def _normalise(self, text: str, calls: list[Any], reply: Any) -> LLMResponse:
        tool_calls = []
        for index, call in enumerate(calls, start=1):
            arguments, raw = parse_arguments(call.function.arguments)
            tool_calls.append(ToolCall(id=f"call_{index}", name=call.function.name, arguments=arguments, raw_arguments=raw))
        done_reason = getattr(reply, "done_reason", None) or "stop"
        return LLMResponse(
            text=text,
            tool_calls=tool_calls,
            usage=Usage(
                prompt_tokens=getattr(reply, "prompt_eval_count", None) or 0,
                completion_tokens=getattr(reply, "eval_count", None) or 0,
            ),
            finish_reason="tool_calls" if tool_calls else done_reason,
            model=getattr(reply, "model", None) or self.model,
        )

    async def list_models(self) -> list[str]:
        """Model names the server has (`/api/tags`); raises LLMError like `chat`."""
        try:
            async with asyncio.timeout(self.timeout):
                listing = await self._client.list()
        except TimeoutError as exc:
            raise LLMTimeout(f"Ollama unter {self.host} antwortete nicht") from exc
        except Exception as exc:
            raise map_ollama_error(exc, self.host) from exc
        return [m.model or "" for m in listing.models]

    async def aclose(self) -> None:
        await self._client._client.aclose()


def map_ollama_error(exc: BaseException, host: str) -> LLMError:
    if TOOL_PARSER_MARKER in str(exc).lower():
        # Also when a streamed error line arrives under the wrong key and fails validation.
        status = exc.status_code if isinstance(exc, ollama.ResponseError) and exc.status_code > 0 else 500
        return LLMToolParserError(status, str(getattr(exc, "error", exc)))
    if isinstance(exc, ollama.ResponseError):
        status = exc.status_code if exc.status_code > 0 else 500
        message = str(exc.error)
        if is_context_overflow(message):
            return LLMContextOverflow(message)
        return LLMHTTPError(status, message)
    if isinstance(exc, httpx.ConnectTimeout | httpx.ConnectError | ConnectionError | httpx.RemoteProtocolError | httpx.ReadError):
        return LLMUnavailable(f"Ollama unter {host} ist nicht erreichbar: {exc}")
    if isinstance(exc, httpx.TimeoutException):
        return LLMTimeout(f"Zeitüberschreitung bei Ollama unter {host}")
    if isinstance(exc, httpx.HTTPError):
        return LLMUnavailable(f"Ollama unter {host}: {exc}")
    if isinstance(exc, json.JSONDecodeError | ValueError):
        return LLMHTTPError(502, f"Ungültige Antwort von Ollama: {exc}")
    return LLMError(f"Ollama: {exc!r}")
