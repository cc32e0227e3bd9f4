"""Plain-Python pieces for the engine tests: a ToolBox of in-memory tools and a runner."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agent.engine.events import ListSink
from agent.engine.loop import Limits, RunOutcome, run_agent
from agent.engine.routing import Router
from agent.engine.tools import CancelToken, ToolResult
from agent.llm.base import LLMClient
from agent.llm.ollama import OllamaClient
from agent.llm.openai_compat import OpenAICompatClient

ToolFn = Callable[[dict[str, Any]], Awaitable[ToolResult] | ToolResult]


@dataclass
class MemoryToolBox:
    """Tools as Python functions; records every execution (name, arguments, start, end)."""

    tools: dict[str, ToolFn]
    executed: list[tuple[str, dict[str, Any], float, float]] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)

    def schemas(self) -> list[dict[str, Any]]:
        return [
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": f"Testwerkzeug {name}. Liefert Daten.",
                    "parameters": {"type": "object", "properties": {}},
                },
            }
            for name in self.tools
        ]

    def names(self) -> set[str]:
        return set(self.tools)

    def label(self, name: str) -> str:
        return self.labels.get(name, f"Nutze {name} …")

    async def execute(self, name: str, arguments: dict[str, Any], *, call_id: str = "") -> ToolResult:
        fn = self.tools.get(name)
        if fn is None:
            return ToolResult(error=f"Unbekanntes Werkzeug {name}. Gültig: {', '.join(sorted(self.tools))}")
        started = time.monotonic()
        result = fn(arguments)
        if asyncio.iscoroutine(result):
            result = await result
        self.executed.append((name, arguments, started, time.monotonic()))
        assert isinstance(result, ToolResult)
        return result


def echo(arguments: dict[str, Any]) -> ToolResult:
    return ToolResult(data={"echo": arguments}, source=[{"typ": "test"}])


def ollama(server: Any, *, context_window: int = 8192, timeout: float = 10.0) -> LLMClient:
    return OllamaClient(model="scripted-model", host=server.url, context_window=context_window, timeout=timeout)


def openai(server: Any, *, context_window: int = 8192, timeout: float = 10.0) -> LLMClient:
    return OpenAICompatClient(model="scripted-model", base_url=server.openai_url, context_window=context_window, timeout=timeout)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def start_transcript(task: str = "Welche Fristen laufen in Akte 12/25?") -> list[dict[str, Any]]:
    return [{"role": "system", "content": "Du bist Helena."}, {"role": "user", "content": task}]


async def run(
    model: LLMClient | Router,
    tools: MemoryToolBox,
    *,
    max_steps: int = 5,
    max_tokens: int = 200_000,
    run_seconds: float = 10.0,
    inline: bool = True,
    cancel: CancelToken | None = None,
    transcript: list[dict[str, Any]] | None = None,
    **kwargs: Any,
) -> tuple[RunOutcome, ListSink]:
    sink = ListSink()
    limits = Limits(
        max_steps=max_steps,
        max_tokens=max_tokens,
        timeout_seconds=run_seconds,
        offer_continuation=inline,
        mode="inline" if inline else "background",
    )
    outcome = await run_agent(
        transcript=transcript or start_transcript(),
        model=model,
        tools=tools,
        sink=sink,
        limits=limits,
        cancel=cancel,
        **kwargs,
    )
    return outcome, sink


def pairs_intact(transcript: list[dict[str, Any]]) -> bool:
    """Every tool call of an assistant message is answered by a tool message right after it."""
    for index, message in enumerate(transcript):
        ids = [c["id"] for c in message.get("tool_calls") or ()]
        following = [m.get("tool_call_id") for m in transcript[index + 1 : index + 1 + len(ids)]]
        if ids and following != ids:
            return False
    return True


def tools_sent(body: dict[str, Any]) -> bool:
    return bool(body.get("tools"))


def contents(body: dict[str, Any]) -> str:
    return json.dumps(body.get("messages"), ensure_ascii=False)
