"""Stall detection: is the model going round in circles?

The loop asks `check_call` before it executes a tool call and reports each result with
`observe_result`. A stall is:

- the same tool with the same canonical arguments a second time in the run (`REPEAT`);
  when the repeated call is the one from two calls ago with another call in between, the model
  is oscillating (A, B, A, B …) and the reason says so (`OSCILLATION`) — it is recognised at its
  first return to A, before the second B is spent;
- three consecutive identical results, whatever the calls were (`SAME_RESULT`);
- a second call of a tool that is not offered (`UNKNOWN_TOOLS`; the first one gets an error that
  lists the valid tools).

Calls that differ in any argument (another Akte id, another search term) are never a stall.
Canonical arguments: JSON with sorted keys, strings stripped and case-folded, so that
`{"q": "Miete "}` and `{"q": "miete"}` count as the same call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

NUDGE = "Du wiederholst dich. Gib jetzt deine beste Antwort mit dem, was du bisher weißt."

SAME_RESULT_LIMIT = 3
UNKNOWN_TOOL_LIMIT = 2


class StallReason(StrEnum):
    REPEAT = "REPEAT"
    OSCILLATION = "OSCILLATION"
    SAME_RESULT = "SAME_RESULT"
    UNKNOWN_TOOLS = "UNKNOWN_TOOLS"


REASON_TEXT = {
    StallReason.REPEAT: "gleicher Werkzeugaufruf mit gleichen Argumenten wiederholt",
    StallReason.OSCILLATION: "Pendeln zwischen zwei Werkzeugaufrufen",
    StallReason.SAME_RESULT: "dreimal hintereinander dasselbe Ergebnis",
    StallReason.UNKNOWN_TOOLS: "wiederholt unbekannte Werkzeuge aufgerufen",
}


def _normalise(value: Any) -> Any:
    if isinstance(value, str):
        return " ".join(value.split()).casefold()
    if isinstance(value, dict):
        return {str(k): _normalise(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_normalise(v) for v in value]
    return value


def canonical_call(name: str, arguments: dict[str, Any] | None) -> str:
    return name + json.dumps(_normalise(arguments or {}), sort_keys=True, ensure_ascii=False, default=str)


@dataclass
class StallDetector:
    known_tools: set[str]
    calls: list[str] = field(default_factory=list)
    _seen: set[str] = field(default_factory=set)
    _results: list[str] = field(default_factory=list)
    _unknown: int = 0

    def check_call(self, name: str, arguments: dict[str, Any] | None) -> StallReason | None:
        """Record a call the model made; the reason if making it would be a stall."""
        if name not in self.known_tools:
            self._unknown += 1
            return StallReason.UNKNOWN_TOOLS if self._unknown >= UNKNOWN_TOOL_LIMIT else None
        key = canonical_call(name, arguments)
        reason: StallReason | None = None
        if key in self._seen:
            oscillating = len(self.calls) >= 2 and self.calls[-2] == key and self.calls[-1] != key
            reason = StallReason.OSCILLATION if oscillating else StallReason.REPEAT
        self._seen.add(key)
        self.calls.append(key)
        return reason

    def observe_result(self, observation: str) -> StallReason | None:
        """Record the text of a result (without volatile metadata); the reason on the third identical one."""
        self._results.append(observation)
        tail = self._results[-SAME_RESULT_LIMIT:]
        if len(tail) == SAME_RESULT_LIMIT and len(set(tail)) == 1:
            return StallReason.SAME_RESULT
        return None
