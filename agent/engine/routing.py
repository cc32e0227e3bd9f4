"""Routing: which mode and tier a task starts on, and where it escalates to.

The classifier is rule-based by default: German keywords (with and without umlauts, "prüfe" and
"pruefe" alike) name the task type; the task type and the length of the request decide mode and
starting tier. With `EngineConfig.llm_classifier` the tier-1 model classifies instead
(`classify_with_llm`), falling back to the rules when its answer is unusable. An explicit mode or
tier chosen by the user always wins.

`TierRouter` walks an ordered list of routes (local tiers from the starting tier upwards, then the
cloud tier where allowed, and the demo model as the last resort for outages only). Escalation
moves to the next route; the loop keeps the same transcript. Pure Python: the Django side builds
the routes (agent/runs/routes.py).
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from agent.llm.base import (
    LLMClient,
    LLMError,
)

INLINE = "INLINE"
BACKGROUND = "BACKGROUND"
# Requests longer than this are treated as complex whatever their words.
LONG_REQUEST_CHARS = 600


class TaskType(StrEnum):
    FRAGE = "FRAGE"
    ENTWURF = "ENTWURF"
    PRUEFUNG = "PRUEFUNG"
    RECHERCHE = "RECHERCHE"
    VERGLEICH = "VERGLEICH"
    SCHRIFTSATZ = "SCHRIFTSATZ"


# (task type, stems); stems are matched on the folded text (lower case, ä→ae, ö→oe, ü→ue, ß→ss)
# at a word start. The first matching row wins, so the heavier types come first.
KEYWORDS: tuple[tuple[TaskType, tuple[str, ...]], ...] = (
    (
        TaskType.SCHRIFTSATZ,
        ("schriftsatz", "schriftsaetze", "klageschrift", "klageerwiderung", "berufungsbegruendung", "replik", "duplik"),
    ),
    (TaskType.RECHERCHE, ("recherchier", "recherche", "rechtsprechung", "urteile zu", "literatur")),
    (TaskType.VERGLEICH, ("vergleich", "gegenueberstell", "unterschied")),
    (TaskType.PRUEFUNG, ("pruef", "ueberpruef", "begutacht", "analysier", "bewerte", "erfolgsaussicht")),
    (TaskType.ENTWURF, ("erstell", "entwirf", "entwerf", "formulier", "schreib", "lege", "leg ", "notier", "trag")),
)

HEAVY_TYPES = frozenset({TaskType.SCHRIFTSATZ, TaskType.RECHERCHE, TaskType.VERGLEICH})


def fold(text: str) -> str:
    """Lower case with umlauts written out, so "Prüfe" and "pruefe" read the same."""
    text = text.casefold().replace("ä", "ae").replace("ö", "oe").replace("ü", "ue").replace("ß", "ss")
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


@dataclass(frozen=True)
class Classification:
    task_type: TaskType
    mode: str
    tier: int
    reasons: tuple[str, ...] = field(default_factory=tuple)


def classify_rules(text: str) -> Classification:
    folded = fold(text)
    task_type = TaskType.FRAGE
    reasons: list[str] = []
    for candidate, stems in KEYWORDS:
        hit = next((stem for stem in stems if re.search(r"\b" + re.escape(stem), folded)), None)
        if hit:
            task_type = candidate
            reasons.append(f"Stichwort „{hit.strip()}“")
            break
    long_request = len(text) > LONG_REQUEST_CHARS
    if long_request:
        reasons.append(f"lange Anfrage ({len(text)} Zeichen)")
    heavy = task_type in HEAVY_TYPES or long_request
    complex_ = heavy or task_type == TaskType.PRUEFUNG
    return Classification(
        task_type=task_type,
        mode=BACKGROUND if heavy else INLINE,
        tier=2 if complex_ else 1,
        reasons=tuple(reasons),
    )


CLASSIFIER_PROMPT = (
    "Ordne den Auftrag einer Kanzlei-Assistentin ein. Antworte nur mit JSON: "
    '{"typ": "FRAGE|ENTWURF|PRUEFUNG|RECHERCHE|VERGLEICH|SCHRIFTSATZ", "komplex": true|false}. '
    "komplex heißt: mehrere Schritte, Recherche oder ein längerer Text."
)


async def classify_with_llm(text: str, client: LLMClient) -> Classification:
    """The tier-1 model classifies; any unusable answer or provider error falls back to the rules."""
    rules = classify_rules(text)
    try:
        response = await client.chat(
            [{"role": "system", "content": CLASSIFIER_PROMPT}, {"role": "user", "content": text[:2000]}], tools=None
        )
        match = re.search(r"\{.*\}", response.text, re.DOTALL)
        data = json.loads(match.group(0)) if match else {}
        task_type = TaskType(str(data.get("typ", "")).upper())
        complex_ = bool(data.get("komplex"))
    except (LLMError, ValueError, TypeError, AttributeError):
        return rules
    heavy = task_type in HEAVY_TYPES or complex_
    return Classification(
        task_type=task_type,
        mode=BACKGROUND if heavy else INLINE,
        tier=2 if heavy or task_type == TaskType.PRUEFUNG else 1,
        reasons=("LLM-Klassifikator",),
    )


def apply_user_choice(classification: Classification, *, mode: str | None, tier: int | None) -> Classification:
    """An explicit mode or tier from the user overrides the classifier."""
    if not mode and not tier:
        return classification
    reasons = classification.reasons + ("Wahl des Benutzers",)
    return Classification(
        task_type=classification.task_type,
        mode=mode.upper() if mode else classification.mode,
        tier=tier or classification.tier,
        reasons=reasons,
    )


@dataclass(frozen=True)
class Route:
    """One model the router can use."""

    client: LLMClient
    tier: int | None = None
    local: bool = True
    demo: bool = False
    # only reached when everything before it is unreachable (the demo model)
    outage_only: bool = False
    # the tools this model is offered (None: all of the run's tools); a very small model gets a few
    offer_tools: frozenset[str] | None = None
    # a system prompt of its own (a very small model gets a compact one); None: the run's prompt
    system_prompt: str | None = None
    # why the run starts on this route, shown to the user once ("Kein Ollama erreichbar – …")
    note: str = ""


class Router(Protocol):
    @property
    def route(self) -> Route: ...

    def escalate(self, *, outage: bool) -> Route | None:
        """Move to the next usable route (None: there is none); `outage` when the current one is unreachable."""
        ...


class SingleRoute:
    """A router over one client (tests, benchmarks, the batch command with an explicit client)."""

    def __init__(self, client: LLMClient, *, tier: int | None = None, local: bool = True, demo: bool = False) -> None:
        self._route = Route(client=client, tier=tier, local=local, demo=demo)

    @property
    def route(self) -> Route:
        return self._route

    def escalate(self, *, outage: bool) -> Route | None:
        return None


class TierRouter:
    """The routes of one run in escalation order; `route` is the current one."""

    def __init__(self, routes: list[Route]) -> None:
        if not routes:
            raise ValueError("TierRouter braucht mindestens eine Route.")
        self.routes = routes
        self.index = 0
        self.history: list[int | None] = [routes[0].tier]

    @property
    def route(self) -> Route:
        return self.routes[self.index]

    def escalate(self, *, outage: bool) -> Route | None:
        for index in range(self.index + 1, len(self.routes)):
            candidate = self.routes[index]
            if candidate.outage_only and not outage:
                continue
            self.index = index
            self.history.append(candidate.tier)
            return candidate
        return None
