"""Any OpenAI-compatible chat server (OpenAI, vLLM, the llama.cpp server, LM Studio) through the
`openai` AsyncOpenAI client.

Servers differ in what they accept. The llama.cpp server answers HTTP 500 when an assistant
message with tool calls has no `content` key, so `content` is always sent (an empty string);
tool-call arguments are always sent as a JSON string. The client does no retries of its own: the
router decides between retry and escalation.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterable
from typing import Any

import httpx2
import openai

from agent.llm.base import (
    DeltaCallback,
    DeltaCallbackFailed,
    LLMContextOverflow,
    LLMError,
    LLMHTTPError,
    LLMResponse,
    LLMStreamCut,
    LLMTimeout,
    LLMUnavailable,
    Message,
    ToolCall,
    Usage,
    call_on_delta,
    is_context_overflow,
    message_arguments,
    parse_arguments,
)

# Local servers need no key, but the client insists on one.
NO_KEY = "sk-no-key-required"


def to_openai_messages(messages: Iterable[Message]) -> list[dict[str, Any]]:
    converted: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "assistant":
            out: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
            if message.get("tool_calls"):
                out["tool_calls"] = [
                    {
                        "id": call.get("id") or f"call_{index}",
                        "type": "function",
                        "function": {
                            "name": (call.get("function") or {}).get("name", ""),
                            "arguments": json.dumps(message_arguments(call), ensure_ascii=False),
                        },
                    }
                    for index, call in enumerate(message["tool_calls"], start=1)
                ]
        elif role == "tool":
            out = {"role": "tool", "tool_call_id": message.get("tool_call_id", ""), "content": message.get("content") or ""}
        else:
            out = {"role": role, "content": message.get("content") or ""}
        converted.append(out)
    return converted


class OpenAICompatClient:
    provider = "openai"

    def __init__(
        self,
        *,
        model: str,
        base_url: str,
        api_key: str | None = None,
        api_key_env: str = "",
        context_window: int = 8192,
        timeout: float = 60.0,
        extra_body: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        stream_with_tools: bool = True,
        is_demo: bool = False,
        http_client: httpx2.AsyncClient | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.context_window = context_window
        self.timeout = timeout
        self.extra_body = dict(extra_body or {})
        # A cap on the answer's length (a small model can ramble until the window is full) and
        # the tool choice sent with tools ("auto" by default, "required" or a named function).
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.tool_choice = tool_choice
        # Some servers cannot stream while the model may call a tool (llama-cpp-python's
        # chatml-function-calling: "Automatic streaming tool choice is not supported"). Then a call
        # with tools is made without streaming and its text handed to `on_delta` in one piece.
        self.stream_with_tools = stream_with_tools
        self.is_demo = is_demo
        key = api_key or (os.environ.get(api_key_env, "") if api_key_env else "") or NO_KEY
        # `http_client`: one on a shared connection pool (agent/llm/factory.py); without it, openai builds its own
        self._client = openai.AsyncOpenAI(
            base_url=self.base_url, api_key=key, timeout=timeout, max_retries=0, http_client=http_client
        )

    def __repr__(self) -> str:
        return f"OpenAICompatClient(model={self.model!r}, base_url={self.base_url!r}, context_window={self.context_window})"

    async def chat(
        self,
        messages: list[Message],
        *,
        tools: list[dict[str, Any]] | None = None,
        on_delta: DeltaCallback | None = None,
    ) -> LLMResponse:
        request: dict[str, Any] = {"model": self.model, "messages": to_openai_messages(messages)}
        if tools:
            request["tools"] = tools
            if self.tool_choice is not None:
                request["tool_choice"] = self.tool_choice
        if self.max_tokens is not None:
            request["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            request["temperature"] = self.temperature
        if self.extra_body:
            request["extra_body"] = self.extra_body
        try:
            async with asyncio.timeout(self.timeout):
                if on_delta is not None and (self.stream_with_tools or not tools):
                    return await self._stream(request, on_delta)
                response = self._normalise(await self._client.chat.completions.create(**request))
            if on_delta is not None and response.text:
                await call_on_delta(on_delta, response.text)
            return response
        except LLMError:
            raise
        except DeltaCallbackFailed as exc:
            raise exc.original from None
        except TimeoutError as exc:
            raise LLMTimeout(f"{self.base_url} ({self.model}) antwortete nicht innerhalb von {self.timeout:g} s") from exc
        except Exception as exc:
            raise map_openai_error(exc, self.base_url) from exc

    def _normalise(self, completion: Any) -> LLMResponse:
        if not completion.choices:
            raise LLMHTTPError(502, "Antwort ohne choices")
        choice = completion.choices[0]
        tool_calls = []
        for index, call in enumerate(choice.message.tool_calls or [], start=1):
            function = getattr(call, "function", None)
            if function is None:
                continue
            arguments, raw = parse_arguments(function.arguments)
            tool_calls.append(ToolCall(id=call.id or f"call_{index}", name=function.name, arguments=arguments, raw_arguments=raw))
        usage = completion.usage
        return LLMResponse(
            text=choice.message.content or "",
            tool_calls=tool_calls,
            usage=Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0) if usage else Usage(),
            finish_reason=choice.finish_reason or ("tool_calls" if tool_calls else "stop"),
            model=completion.model or self.model,
        )

    async def _stream(self, request: dict[str, Any], on_delta: DeltaCallback) -> LLMResponse:
        text: list[str] = []
        # Tool calls arrive in pieces keyed by index: the id and name first, the arguments in parts.
        calls: dict[int, dict[str, str]] = {}
        usage = Usage()
        finish_reason = ""
        model = self.model
        stream = await self._client.chat.completions.create(**request, stream=True, stream_options={"include_usage": True})
        try:
            async for chunk in stream:
                model = chunk.model or model
                if chunk.usage:
                    usage = Usage(chunk.usage.prompt_tokens or 0, chunk.usage.completion_tokens or 0)
                for choice in chunk.choices:
                    delta = choice.delta
                    if delta.content:
                        text.append(delta.content)
                        await call_on_delta(on_delta, delta.content)
                    for position, piece in enumerate(delta.tool_calls or []):
                        index = piece.index if piece.index is not None else len(calls) + position
                        call = calls.setdefault(index, {"id": "", "name": "", "arguments": ""})
                        call["id"] = piece.id or call["id"]
                        if piece.function is not None:
                            call["name"] = call["name"] or (piece.function.name or "")
                            call["arguments"] += piece.function.arguments or ""
                    finish_reason = choice.finish_reason or finish_reason
        finally:
            await stream.close()
        if not finish_reason:
            # Every compatible server ends an answer with a finish_reason; a stream that closed
            # without one was cut (server restart, proxy timeout): what came is not the answer.
            raise LLMStreamCut(f"{self.base_url} ({self.model}) hat die Antwort vor ihrem Ende abgebrochen")
        tool_calls = []
        for position, index in enumerate(sorted(calls), start=1):
            call = calls[index]
            arguments, raw = parse_arguments(call["arguments"])
            tool_calls.append(
                ToolCall(id=call["id"] or f"call_{position}", name=call["name"], arguments=arguments, raw_arguments=raw)
            )
        return LLMResponse(
            text="".join(text),
            tool_calls=tool_calls,
            usage=usage,
            finish_reason=finish_reason,
            model=model,
        )

    async def list_models(self) -> list[str]:
        """Model ids the server offers (`/v1/models`); raises LLMError like `chat`."""
        try:
            async with asyncio.timeout(self.timeout):
                page = await self._client.models.list()
        except TimeoutError as exc:
            raise LLMTimeout(f"{self.base_url} antwortete nicht") from exc
        except Exception as exc:
            raise map_openai_error(exc, self.base_url) from exc
        return [m.id for m in page.data]

    async def aclose(self) -> None:
        await self._client.close()


def map_openai_error(exc: BaseException, base_url: str) -> LLMError:
    if isinstance(exc, openai.APITimeoutError):
        return LLMTimeout(f"Zeitüberschreitung bei {base_url}")
    if isinstance(exc, openai.APIConnectionError):
        return LLMUnavailable(f"{base_url} ist nicht erreichbar: {exc}")
    if isinstance(exc, openai.APIStatusError):
        message = _error_text(exc)
        if is_context_overflow(message):
            return LLMContextOverflow(message)
        return LLMHTTPError(exc.status_code, message)
    if isinstance(exc, openai.APIError):
        message = str(exc)
        if is_context_overflow(message):
            return LLMContextOverflow(message)
        return LLMHTTPError(502, message)
    return LLMError(f"{base_url}: {exc!r}")


def _error_text(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            return str(error.get("message") or error)
        return str(error)
    return str(body or exc.message)
