"""Engine benchmark: what the loop itself costs per step, and how fast a cancel lands.

    .venv/bin/python bench/engine.py [--runs 20] [--loop-runs 300]

1. Database path: `execution.run_execute` on the embedded PostgreSQL (own database
   helena_bench_engine) with a zero-latency in-process model that calls `read_akte` on another Akte
   at every step (10 tool steps, then the answer): the real registry (role matrix, validation,
   audit row per call), the real `RunEventSink` (an AgentStep row per event) and the persona and
   history building. Per step: the time between two `step.started` events minus the model's time
   (`per_step`); the engine's overhead (`per_step_overhead`, the target's figure) is that minus the
   tool body's own work (read_akte's queries, timed by the registry as `tool_ms`), so it keeps
   everything the engine and registry add: events, thread hand-off, matrix check, validation, audit
   row. `per_step_without_tool_call` leaves out the whole tool call; as the rows of step.started
   and tool.call are written while the tool works, it understates what the events cost (read
   `per_step_overhead`).
2. The bare loop: `run_agent` with the same kind of script, an in-memory trivial tool and a null
   sink, for 10- and 20-step scripts: wall time per step (the model returns at once), to compare
   with other agent frameworks on an identical script, and to check that it stays flat as the
   transcript grows.
3. Cancel latency: a run waits in a model request that never answers; the cancel is requested
   through the database flag (as from another process) at a random moment; measured until
   `run_execute` has returned with status CANCELLED.

Prints the figures and saves them to bench/results/engine.json. Targets: ≤ 2 ms median engine
overhead per step (database), ≤ 1 ms per step and flat (bare loop), cancel p95 ≤ 500 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "helena.settings.dev")
os.environ.setdefault("HELENA_EMBEDDED_DB_NAME", "helena_bench_engine")

import django  # noqa: E402

django.setup()

from asgiref.sync import async_to_sync, sync_to_async  # noqa: E402
from django.core.management import call_command  # noqa: E402

from agent.engine.events import NullSink  # noqa: E402
from agent.engine.loop import Limits, run_agent  # noqa: E402
from agent.engine.tools import CancelToken, ToolResult  # noqa: E402
from agent.llm.base import LLMResponse, ToolCall, Usage  # noqa: E402
from agent.models import AgentRun, EngineConfig, RateLimit, TierConfig  # noqa: E402
from agent.runs import execution, services  # noqa: E402
from akten.models import Akte, Role, User  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "engine.json"
TOOL_STEPS = 10


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def summary(values_ms: list[float]) -> dict[str, float]:
    return {
        "median_ms": round(statistics.median(values_ms), 3),
        "p95_ms": round(percentile(values_ms, 0.95), 3),
        "samples": len(values_ms),
    }


class ZeroLatencyModel:
    """Answers at once from a script; records how long each call took inside it."""

    def __init__(self, script: list[LLMResponse], *, context_window: int = 32768) -> None:
        self.model = "zero-latency"
        self.context_window = context_window
        self.script = list(script)
        self.seconds_inside: list[float] = []

    async def chat(self, messages: list[dict[str, Any]], *, tools: Any = None, on_delta: Any = None) -> LLMResponse:
        started = time.perf_counter()
        response = self.script.pop(0)
        if on_delta is not None and response.text:
            await on_delta(response.text)
        self.seconds_inside.append(time.perf_counter() - started)
        return response


class HangingModel:
    model = "hangs"
    context_window = 8192

    async def chat(self, messages: list[dict[str, Any]], *, tools: Any = None, on_delta: Any = None) -> LLMResponse:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")


def tool_script(steps: int, name: str, arguments: list[dict[str, Any]]) -> list[LLMResponse]:
    script = [
        LLMResponse(
            tool_calls=[ToolCall(id=f"call_{i}", name=name, arguments=arguments[i % len(arguments)] | {"n": i})],
            usage=Usage(200 + 50 * i, 20),
            finish_reason="tool_calls",
        )
        for i in range(steps - 1)
    ]
    script.append(LLMResponse(text="Fertig: alles gelesen.", usage=Usage(900, 30), finish_reason="stop"))
    return script


class ProbeTarget:
    """A port that accepts connections: the tier's server address. Runs check that a local tier's
    server answers before they start (else the demo model stands in); the bench's model is in
    process and answers through `client_factory`."""

    _server: socket.socket | None = None

    @classmethod
    def url(cls) -> str:
        if cls._server is None:
            cls._server = socket.create_server(("127.0.0.1", 0), backlog=512)
            threading.Thread(target=cls._accept, args=(cls._server,), daemon=True).start()
        return f"http://127.0.0.1:{cls._server.getsockname()[1]}"

    @staticmethod
    def _accept(server: socket.socket) -> None:
        while True:
            connection, _ = server.accept()
            connection.close()


# -- 1. database path ----------------------------------------------------------------------------


def setup_database() -> tuple[User, list[Akte]]:
    call_command("migrate", verbosity=0)
    call_command("createcachetable", verbosity=0)
    user, _ = User.objects.get_or_create(email="bench-engine@kanzlei.example", defaults={"role": Role.ANWALT})
    akten = []
    for index in range(TOOL_STEPS):
        akte, _ = Akte.objects.get_or_create(
            aktenzeichen=f"BENCH-{index}/26",
            defaults={"kurzrubrum": f"Bench {index} ./. Gegner", "sachgebiet": "MIETRECHT", "anwalt": user},
        )
        akten.append(akte)
    TierConfig.objects.update_or_create(
        tier=1, defaults={"name": "Bench", "model": "zero-latency", "base_url": ProbeTarget.url(), "enabled": True}
    )
    TierConfig.objects.exclude(tier=1).update(enabled=False)
    # the bench starts hundreds of runs an hour; its own database lifts the per-hour limit
    RateLimit.objects.update_or_create(role=Role.ANWALT, defaults={"runs_per_hour": 1_000_000})
    config = EngineConfig.load()
    config.background_max_steps, config.background_timeout_seconds = 20, 180
    config.save()
    return user, akten


class TimedToolBox:
    """Delegates to the registry's ToolBox and records, per tool call, the whole call (thread hand-off,
    matrix check, validation, tool, audit row) and the tool body alone (the registry's `tool_ms`)."""

    def __init__(self, inner: Any, seconds: list[float], body_seconds: list[float]) -> None:
        self.inner, self.seconds, self.body_seconds = inner, seconds, body_seconds

    def schemas(self) -> list[dict[str, Any]]:
        return self.inner.schemas()

    def label(self, name: str) -> str:
        label: str = self.inner.label(name)
        return label

    def names(self) -> set[str]:
        return self.inner.names()

    async def execute(self, name: str, arguments: dict[str, Any], *, call_id: str = "") -> ToolResult:
        started = time.perf_counter()
        result: ToolResult = await self.inner.execute(name, arguments, call_id=call_id)
        self.seconds.append(time.perf_counter() - started)
        self.body_seconds.append(result.meta["tool_ms"] / 1000)
        return result


def bench_database(runs: int) -> dict[str, Any]:
    user, akten = setup_database()
    tool_seconds: list[float] = []
    body_seconds: list[float] = []
    registry_toolbox = execution.toolbox_for
    execution.toolbox_for = lambda ctx: TimedToolBox(registry_toolbox(ctx), tool_seconds, body_seconds)  # type: ignore[assignment]
    per_step: list[float] = []
    per_step_overhead: list[float] = []
    per_step_without_tools: list[float] = []
    per_run: list[float] = []
    for _ in range(runs):
        script = [
            LLMResponse(
                tool_calls=[ToolCall(id=f"call_{i}", name="read_akte", arguments={"akte": akten[i].aktenzeichen})],
                usage=Usage(300, 20),
                finish_reason="tool_calls",
            )
            for i in range(TOOL_STEPS)
        ]
        script.append(LLMResponse(text="Alle zehn Akten gelesen.", usage=Usage(900, 30)))
        model = ZeroLatencyModel(script)
        run = services.run_create(user=user, text="Lies alle Bench-Akten", mode="BACKGROUND")
        step_times: list[float] = []

        async def publish(event: dict[str, Any], marks: list[float] = step_times) -> None:
            if event["type"] in ("step.started", "run.finished"):
                marks.append(time.perf_counter())

        started = time.perf_counter()
        done = async_to_sync(execution.run_execute)(run.pk, publish=publish, client_factory=lambda tier, m=model: m)
        per_run.append((time.perf_counter() - started) * 1000)
        if done.status != AgentRun.Status.DONE or done.tool_calls != TOOL_STEPS:
            raise SystemExit(f"Bench-Lauf nicht wie erwartet: {done.status} {done.finish_reason} {done.error}")
        tools_of_run, bodies_of_run = tool_seconds[-TOOL_STEPS:], body_seconds[-TOOL_STEPS:]
        for index in range(len(step_times) - 1):
            step_ms = (step_times[index + 1] - step_times[index] - model.seconds_inside[index]) * 1000
            has_tool = index < TOOL_STEPS
            per_step.append(step_ms)
            per_step_overhead.append(step_ms - (bodies_of_run[index] * 1000 if has_tool else 0))
            per_step_without_tools.append(step_ms - (tools_of_run[index] * 1000 if has_tool else 0))
    execution.toolbox_for = registry_toolbox  # type: ignore[assignment]
    return {
        "per_step": summary(per_step),
        "per_step_overhead": summary(per_step_overhead),
        "per_step_without_tool_call": summary(per_step_without_tools),
        "tool_call": summary([s * 1000 for s in tool_seconds]),
        "tool_body": summary([s * 1000 for s in body_seconds]),
        "per_run_ms": summary(per_run),
        "steps_per_run": TOOL_STEPS + 1,
        "tool": "read_akte (registry: matrix, validation, audit row)",
    }


# -- 2. the bare loop ----------------------------------------------------------------------------


class TrivialToolBox:
    def schemas(self) -> list[dict[str, Any]]:
        return [
            {
                "type": "function",
                "function": {"name": "lookup", "description": "Gibt den Schlüssel zurück.", "parameters": {"type": "object"}},
            }
        ]

    def label(self, name: str) -> str:
        return name

    def names(self) -> set[str]:
        return {"lookup"}

    async def execute(self, name: str, arguments: dict[str, Any], *, call_id: str = "") -> ToolResult:
        return ToolResult(data={"key": arguments.get("n"), "value": "ok"})


async def one_loop_run(steps: int) -> float:
    model = ZeroLatencyModel(tool_script(steps, "lookup", [{"key": "k"}]))
    transcript = [{"role": "system", "content": "Du bist Helena."}, {"role": "user", "content": "Schlag alles nach."}]
    started = time.perf_counter()
    outcome = await run_agent(
        transcript=transcript,
        model=model,
        tools=TrivialToolBox(),
        sink=NullSink(),
        limits=Limits(max_steps=steps + 5, timeout_seconds=60),
    )
    elapsed = time.perf_counter() - started
    if outcome.steps != steps or outcome.status != "DONE":
        raise SystemExit(f"Schleife nicht wie erwartet: {outcome.status} nach {outcome.steps} Schritten")
    return (elapsed - sum(model.seconds_inside)) * 1000 / steps


def bench_loop(loop_runs: int) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        for _ in range(20):  # warm-up
            await one_loop_run(10)
        figures = {}
        for steps in (10, 20):
            figures[f"{steps}_steps"] = summary([await one_loop_run(steps) for _ in range(loop_runs)])
        return figures

    figures = asyncio.run(main())
    figures["flatness_20_vs_10"] = round(figures["20_steps"]["median_ms"] / figures["10_steps"]["median_ms"], 2)
    return figures


# -- 3. cancel latency ---------------------------------------------------------------------------


def bench_cancel(samples: int) -> dict[str, Any]:
    user = User.objects.get(email="bench-engine@kanzlei.example")
    latencies: list[float] = []
    for _ in range(samples):
        run = services.run_create(user=user, text="Warte auf das Modell", mode="INLINE")

        async def scenario(run_id: int = run.pk) -> tuple[float, str]:
            task = asyncio.create_task(execution.run_execute(run_id, client_factory=lambda tier: HangingModel()))
            await asyncio.sleep(0.3 + random.random() * 0.4)
            await sync_to_async(AgentRun.objects.filter(pk=run_id).update)(cancel_requested=True)
            asked = time.perf_counter()
            finished = await task
            return (time.perf_counter() - asked) * 1000, finished.status

        latency, status = async_to_sync(scenario)()
        if status != AgentRun.Status.CANCELLED:
            raise SystemExit(f"Abbruch nicht wie erwartet: {status}")
        latencies.append(latency)
    return {"via": "AgentRun.cancel_requested (another process)", **summary(latencies)}


def bench_cancel_in_process(samples: int) -> dict[str, Any]:
    async def one() -> float:
        cancel = CancelToken()
        task = asyncio.create_task(
            run_agent(
                transcript=[{"role": "user", "content": "x"}],
                model=HangingModel(),
                tools=TrivialToolBox(),
                sink=NullSink(),
                limits=Limits(max_steps=5, timeout_seconds=60),
                cancel=cancel,
            )
        )
        await asyncio.sleep(0.05 + random.random() * 0.1)
        cancel.cancel()
        asked = time.perf_counter()
        await task
        return (time.perf_counter() - asked) * 1000

    async def main() -> list[float]:
        return [await one() for _ in range(samples)]

    return {"via": "CancelToken (same process)", **summary(asyncio.run(main()))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20, help="database runs of 10 tool steps")
    parser.add_argument("--loop-runs", type=int, default=300, help="bare-loop runs per script length")
    parser.add_argument("--cancel-samples", type=int, default=20)
    args = parser.parse_args()

    results = {
        "machine": {
            "python": platform.python_version(),
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        },
        "database_10_steps": bench_database(args.runs),
        "bare_loop": bench_loop(args.loop_runs),
        "cancel_latency": bench_cancel(args.cancel_samples),
        "cancel_latency_in_process": bench_cancel_in_process(args.cancel_samples),
        "targets": {"database_median_ms": 2, "bare_loop_ms": 1, "cancel_p95_ms": 500},
    }
    results["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
