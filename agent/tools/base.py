"""The contract between the engine and the tools.

A tool module under `agent/tools/read/` or `agent/tools/write/` defines a module-level `TOOL = Tool(...)`:
a snake_case name, a description written for the model, a pydantic parameter model (from which
the JSON schema for Ollama and OpenAI is generated), and `execute(ctx, params) -> ToolResult`.
Tools are synchronous Django code (selectors and services); the registry runs them in a thread
(`sync_to_async`) so the async engine never blocks on the database.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel

if TYPE_CHECKING:
    from agent.models import AgentRun
    from akten.models import Akte, User


class CancelToken:
    """Set by whoever cancels the run; checked by the loop at every await point and by long tools."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


@dataclass
class ToolContext:
    user: User
    akte: Akte | None = None
    run: AgentRun | None = None
    step: int = 0
    cancel: CancelToken = field(default_factory=CancelToken)
    cache: dict[str, ToolResult] = field(default_factory=dict)
    # Set by the registry when a read tool returned untrusted text (documents, decisions, search
    # snippets); write tools copy it onto their drafts so the card shows the flag.
    untrusted_seen: bool = False
    # The id of the tool call being executed; the registry hands each call its own copy of the
    # context with this set, so write tools can record it on their drafts.
    call_id: str = ""

    @property
    def role(self) -> str:
        return str(self.user.role)


@dataclass
class ToolResult:
    data: Any = None
    error: str = ""
    source: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    # True when `data` carries text written by third parties (documents, decisions, web).
    untrusted: bool = False

    @property
    def ok(self) -> bool:
        return not self.error

    def as_observation(self) -> dict[str, Any]:
        """What the model sees: data or error, source, _meta."""
        body: dict[str, Any] = {"error": self.error} if self.error else {"data": self.data}
        if self.source:
            body["source"] = self.source
        body["_meta"] = self.meta
        return body


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    params: type[BaseModel]
    execute: Callable[[ToolContext, Any], ToolResult]
    writes: bool = False
    # read tools that reach across Akten (search over all of the user's Akten or firm documents)
    cross_akte: bool = False
    # offered only when this returns True (e.g. search_web needs a configured backend)
    available: Callable[[], bool] = lambda: True


class ToolBox(Protocol):
    """The tools one run may use: what the engine offers the model and how it executes a call.

    Built by the registry for a ToolContext (role filter applied). `execute` never raises: every
    problem (unknown or forbidden tool, invalid arguments, access, exceptions) is an error result.
    """

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI-format function specs of the offered tools ({"type": "function", "function": {...}})."""
        ...

    def names(self) -> set[str]: ...

    async def execute(self, name: str, arguments: dict[str, Any], *, call_id: str = "") -> ToolResult: ...
