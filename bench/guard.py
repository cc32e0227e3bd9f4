"""Response-guard benchmark: recovery rate over the recorded failure shapes of local models in
bench/data/guard_cases.jsonl (broken structured arguments, calls written as text, unknown tools),
the share of prose replies left untouched, and the guard's own time per reply.

    .venv/bin/python bench/guard.py [--repeat 200]

A case counts as handled when the guard's calls (name and arguments) and the number of errors it
reports are exactly the expected ones; prose cases must come back unchanged. Prints the figures
and saves them to bench/results/guard.json. Target: 100 %.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent.engine.guard import guard_response  # noqa: E402
from agent.llm.base import LLMResponse, ToolCall  # noqa: E402

CASES = ROOT / "bench" / "data" / "guard_cases.jsonl"
RESULTS = ROOT / "bench" / "results" / "guard.json"
KNOWN_TOOLS = {"search_gesetze", "read_akte", "list_fristen", "create_notiz"}


def load_cases(path: Path = CASES) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def response_of(case: dict[str, Any]) -> LLMResponse:
    calls = [
        ToolCall(id=f"c{i}", name=c["name"], arguments=c.get("arguments"), raw_arguments=c.get("raw_arguments", ""))
        for i, c in enumerate(case.get("tool_calls", []), start=1)
    ]
    return LLMResponse(text=case.get("text", ""), tool_calls=calls, finish_reason="tool_calls" if calls else "stop")


def handled(case: dict[str, Any]) -> bool:
    response = response_of(case)
    outcome = guard_response(response, KNOWN_TOOLS)
    if case["shape"] == "prose":
        return outcome.response == response and not outcome.repairs and not outcome.errors
    calls = [[c.name, c.arguments] for c in outcome.response.tool_calls]
    return calls == case["expect"]["calls"] and len(outcome.errors) == case["expect"]["errors"]


def run(repeat: int) -> dict[str, Any]:
    cases = load_cases()
    per_shape: dict[str, list[bool]] = defaultdict(list)
    failures = []
    for case in cases:
        ok = handled(case)
        per_shape[case["shape"]].append(ok)
        if not ok:
            failures.append(case["id"])
    failure_cases = [c for c in cases if c["shape"] != "prose"]
    prose_cases = [c for c in cases if c["shape"] == "prose"]
    timings = []
    responses = [response_of(c) for c in cases]
    for _ in range(repeat):
        for response in responses:
            started = time.perf_counter()
            guard_response(response, KNOWN_TOOLS)
            timings.append((time.perf_counter() - started) * 1e6)
    timings.sort()
    recovered = sum(c["id"] not in failures for c in failure_cases)
    return {
        "failure_cases": len(failure_cases),
        "recovered": recovered,
        "recovery_rate": round(100 * recovered / len(failure_cases), 1),
        "prose_cases": len(prose_cases),
        "prose_untouched": sum(c["id"] not in failures for c in prose_cases),
        "per_shape": {shape: f"{sum(r)}/{len(r)}" for shape, r in sorted(per_shape.items())},
        "failed_cases": failures,
        "guard_us_median": round(statistics.median(timings), 1),
        "guard_us_p95": round(timings[int(0.95 * (len(timings) - 1))], 1),
        "target_recovery_rate": 100.0,
        "machine": f"{platform.machine()} {platform.python_implementation()} {platform.python_version()}",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    figures = run(parser.parse_args().repeat)
    print(
        f"Guard: {figures['recovered']}/{figures['failure_cases']} Fehlerformen behandelt "
        f"({figures['recovery_rate']} %, Ziel 100 %), Prosa unverändert {figures['prose_untouched']}/{figures['prose_cases']}"
    )
    for shape, share in figures["per_shape"].items():
        print(f"  {shape:<18} {share}")
    print(f"Zeit je Antwort: Median {figures['guard_us_median']} µs, p95 {figures['guard_us_p95']} µs")
    if figures["failed_cases"]:
        print("Nicht behandelt:", ", ".join(figures["failed_cases"]))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"Gespeichert: {RESULTS.relative_to(ROOT)}")
    return 0 if not figures["failed_cases"] else 1


if __name__ == "__main__":
    sys.exit(main())
