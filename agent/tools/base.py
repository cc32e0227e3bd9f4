from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from agent.models import AgentRun
    from akten.models import Akte, User
from agent.engine.tools import CancelToken, ToolResult


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
    # The Akten the call resolved (common.akte_resolve), also when it failed afterwards (an error
    # can name the Akte): the registry writes them to the audit row with the result's own.
    akten_resolved: set[int] = field(default_factory=set)

    @property
    def role(self) -> str:
        return str(self.user.role)


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    params: type[BaseModel]
    execute: Callable[[ToolContext, Any], ToolResult]
    writes: bool = False
    # read tools that reach across Akten (search over all of the user's Akten or firm documents)
    cross_akte: bool = False
    # the firm's own work product (its Muster): never for a MANDANT, whatever the matrix says
    # (akten/policy.py: the firm's tools answer her 404)
    firm_only: bool = False
    # offered only when this returns True (e.g. search_web needs a configured backend)
    available: Callable[[], bool] = lambda: True
    # the German progress label of a call ("Durchsuche Gesetze …"); empty: derived from the name
    label: str = ""

    @property
    def progress_label(self) -> str:
        return self.label or default_label(self.name)


VERBS = {
    "search": "Durchsuche",
    "read": "Lese",
    "list": "Liste",
    "get": "Hole",
    "berechne": "Berechne",
    "calc": "Berechne",
    "calculate": "Berechne",
    "create": "Entwerfe",
    "draft": "Entwerfe",
    "propose": "Entwerfe",
    "update": "Entwerfe Änderung:",
    "find": "Suche",
}
# English words of tool names that a German label leaves out
SILENT_WORDS = ("draft", "detail")


def default_label(name: str) -> str:
    """A German progress label from a tool's name: search_gesetze → "Durchsuche Gesetze …"."""
    head, _, rest = name.partition("_")
    verb = VERBS.get(head)
    words = " ".join(w for w in (rest if verb else name).split("_") if w and w not in SILENT_WORDS)
    obj = " ".join(word[:1].upper() + word[1:] for word in words.split())
    return f"{verb} {obj} …" if verb else f"Nutze {obj} …"
