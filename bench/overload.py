"""Overload benchmark: hundreds of runs in flight in one process, cancels and live events under load.

    .venv/bin/python bench/overload.py [--runs 200] [--think 3.0] [--warmup 20] [--seconds 60]

One process plays a daphne process with inline runs: the runs execute on the engine loop
(agent/chat/inline.py) with `run_execute`, their events reach this process's "tabs" through the
real `Relay` on the web loop (the path a local websocket tab takes; the tab records each event
instead of sending the frame), against the embedded PostgreSQL (own database
helena_bench_overload). Each run's model is in process: it thinks `--think` seconds (±30 %) per
call, then calls `read_akte` on the next of 20 Akten (the real registry: matrix, validation,
cache, audit row, the tool's queries), 19 tool steps and an answer. `--runs` runs are kept in
flight: a run that ends is replaced at once. With 200 runs and about 3 s per step that offers
about 65 tool steps/s.

While the load runs, another thread (its own connection, as another process would) asks a random
run in mid-flight to stop every `--cancel-every` seconds through `AgentRun.cancel_requested`.

Measured in the window after the warm-up:
- tool steps/s and events/s achieved (tool.result events emitted in the window);
- emit → row: time of the commit (the writer's relay call) minus the event's `at` (its emit);
- emit → tab: time the tab on the web loop got the event minus its `at`;
- cancel: from the committed request to the tab's `run.cancelled`, and to `run_execute` returning;
- engine overhead per step under this load: the time between two `step.started` emits minus the
  model's thinking and the tool body (the registry's `tool_ms`), as in bench/engine.py;
- lost events: rows of a run the tab never got (must be 0), and seq gaps (must be none).
The machine's load average and this process's CPU use are saved with the figures
(bench/results/overload.json). Targets: cancel p95 ≤ 500 ms, emit → tab p95 ≤ 100 ms at ≥ 60 tool
steps/s with 200 runs in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import datetime
import json
import os
import platform
import random
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "helena.settings.dev")
os.environ.setdefault("HELENA_EMBEDDED_DB_NAME", "helena_bench_overload")

import django  # noqa: E402

django.setup()

from asgiref.sync import sync_to_async  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402

from agent.chat import inline  # noqa: E402
from agent.engine.events import TERMINAL_EVENT_TYPES  # noqa: E402
from agent.llm.base import LLMResponse, ToolCall, Usage  # noqa: E402
from agent.models import AgentRun, AgentStep, EngineConfig, RateLimit, TierConfig  # noqa: E402
from agent.runs import execution, services  # noqa: E402
from akten.models import Akte, Role, User  # noqa: E402
from bench.engine import ProbeTarget, TimedToolBox, percentile  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "overload.json"
AKTEN = 20
TOOL_STEPS = 19


def figures(values_ms: list[float]) -> dict[str, float]:
    if not values_ms:
        return {"samples": 0}
    return {
        "median_ms": round(percentile(values_ms, 0.5), 1),
        "p95_ms": round(percentile(values_ms, 0.95), 1),
        "p99_ms": round(percentile(values_ms, 0.99), 1),
        "max_ms": round(max(values_ms), 1),
        "samples": len(values_ms),
    }


def setup_database() -> tuple[User, list[str]]:
    call_command("migrate", verbosity=0)
    call_command("createcachetable", verbosity=0)
    user, _ = User.objects.get_or_create(email="bench-overload@kanzlei.example", defaults={"role": Role.ANWALT})
    numbers = []
    for index in range(AKTEN):
        akte, _ = Akte.objects.get_or_create(
            aktenzeichen=f"LAST-{index}/26",
            defaults={"kurzrubrum": f"Last {index} ./. Gegner", "sachgebiet": "MIETRECHT", "anwalt": user},
        )
        numbers.append(akte.aktenzeichen)
    TierConfig.objects.update_or_create(
        tier=1, defaults={"name": "Bench", "model": "paced", "base_url": ProbeTarget.url(), "enabled": True}
    )
    TierConfig.objects.exclude(tier=1).update(enabled=False)
    RateLimit.objects.update_or_create(role=Role.ANWALT, defaults={"runs_per_hour": 1_000_000})
    config = EngineConfig.load()
    config.background_max_steps, config.background_timeout_seconds = TOOL_STEPS + 1, 600
    config.save()
    return user, numbers


class PacedModel:
    """Thinks about `think` seconds per call, then reads the next Akte; answers after TOOL_STEPS."""

    def __init__(self, akten: list[str], think: float, rng: random.Random) -> None:
        self.model = "paced"
        self.context_window = 32768
        self.akten, self.think, self.rng = akten, think, rng
        self.offset = rng.randrange(len(akten))
        self.seconds_inside: list[float] = []

    async def chat(self, messages: list[dict[str, Any]], *, tools: Any = None, on_delta: Any = None) -> LLMResponse:
        started = time.perf_counter()
        await asyncio.sleep(self.think * self.rng.uniform(0.7, 1.3))
        call = len(self.seconds_inside)
        if call < TOOL_STEPS:
            akte = self.akten[(self.offset + call) % len(self.akten)]
            response = LLMResponse(
                tool_calls=[ToolCall(id=f"call_{call}", name="read_akte", arguments={"akte": akte})],
                usage=Usage(300, 20),
                finish_reason="tool_calls",
            )
        else:
            response = LLMResponse(text="Alle Akten gelesen.", usage=Usage(900, 30))
        self.seconds_inside.append(time.perf_counter() - started)
        return response


class Tab:
    """A websocket tab of this process watching one run (agent.chat.inline.Watcher)."""

    def __init__(self) -> None:
        self.received: list[tuple[int, str, str, float]] = []
        self.ended = asyncio.Event()

    async def on_event(self, event: dict[str, Any]) -> None:
        self.received.append((event["seq"], event["type"], event["at"], time.time()))
        if event["type"] in TERMINAL_EVENT_TYPES:
            self.ended.set()

    async def on_crash(self) -> None:
        self.ended.set()


class Flight:
    def __init__(self, run_id: int, tab: Tab, model: PacedModel) -> None:
        self.run_id, self.tab, self.model = run_id, tab, model
        self.returned_at: float | None = None
        self.cancel_asked_at: float | None = None


def stamp(at: str) -> float:
    return datetime.datetime.fromisoformat(at).timestamp()


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    user, akten = await sync_to_async(setup_database)()
    rng = random.Random(16)  # noqa: S311 - load pattern, not security
    web_loop = asyncio.get_running_loop()
    relay = inline.Relay(web_loop)
    committed: list[tuple[int, int, str, float]] = []

    def recording_relay(event: dict[str, Any]) -> None:
        committed.append((event["run"], event["seq"], event["at"], time.time()))
        relay(event)

    tool_seconds: dict[int, list[float]] = defaultdict(list)
    body_seconds: dict[int, list[float]] = defaultdict(list)
    registry_toolbox = execution.toolbox_for
    execution.toolbox_for = lambda ctx: TimedToolBox(  # type: ignore[assignment]
        registry_toolbox(ctx), tool_seconds[ctx.run.pk], body_seconds[ctx.run.pk]
    )

    flights: dict[int, Flight] = {}
    all_landed = asyncio.Event()
    finished: list[Flight] = []
    running = True

    async def launch() -> None:
        run = await sync_to_async(services.run_create)(user=user, text="Lies die Last-Akten", mode="BACKGROUND")
        tab, model = Tab(), PacedModel(akten, args.think, rng)
        inline.watchers[run.pk] = {tab}
        flight = flights[run.pk] = Flight(run.pk, tab, model)
        done = inline.run_on_engine_loop(execution.run_execute(run.pk, relay=recording_relay, client_factory=lambda tier: model))

        def returned(_: concurrent.futures.Future[None]) -> None:
            flight.returned_at = time.time()

        done.add_done_callback(returned)
        web_loop.create_task(land(flight, asyncio.wrap_future(done)))

    async def land(flight: Flight, done: asyncio.Future[None]) -> None:
        try:
            await done
        finally:
            # the terminal event reaches the tab after the run has returned
            await asyncio.wait_for(flight.tab.ended.wait(), timeout=60)
            inline.watchers.pop(flight.run_id, None)
            flights.pop(flight.run_id, None)
            finished.append(flight)
            if running:
                await launch()
            elif not flights:
                all_landed.set()

    # "another process": its own thread and connection
    asker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="bench-cancel")

    def ask_cancel(run_id: int) -> float:
        AgentRun.objects.filter(pk=run_id).update(cancel_requested=True)
        return time.time()

    async def cancels(until: float) -> None:
        while time.time() < until:
            await asyncio.sleep(args.cancel_every)
            candidates = [f for f in flights.values() if f.cancel_asked_at is None and 2 <= len(f.model.seconds_inside) < 16]
            if candidates:
                flight = rng.choice(candidates)
                flight.cancel_asked_at = await web_loop.run_in_executor(asker, ask_cancel, flight.run_id)

    loop_lag: list[float] = []

    async def probe_engine_loop() -> None:
        """How late the engine loop runs a timer: its lag delays every run on it."""
        while running:
            asked = time.perf_counter()
            await asyncio.sleep(0.05)
            if window_start and time.time() < window_start + args.seconds:
                loop_lag.append((time.perf_counter() - asked - 0.05) * 1000)

    window_start = 0.0
    inline.run_on_engine_loop(probe_engine_loop())
    load_start = os.getloadavg()
    for _ in range(args.runs):  # spread the starts over one thinking time, so the steps are spread too
        await launch()
        await asyncio.sleep(args.think / args.runs)
    await asyncio.sleep(args.warmup)
    window_start = time.time()
    usage_start = resource.getrusage(resource.RUSAGE_SELF)
    in_flight: list[int] = []

    async def sample_in_flight(until: float) -> None:
        while time.time() < until:
            in_flight.append(len(flights))
            await asyncio.sleep(1)

    window_end = window_start + args.seconds
    await asyncio.gather(cancels(window_end), sample_in_flight(window_end))
    usage_end = resource.getrusage(resource.RUSAGE_SELF)
    load_end = os.getloadavg()
    running = False
    # wind down: every run still in flight is asked to stop
    for flight in list(flights.values()):
        if flight.cancel_asked_at is None:
            await web_loop.run_in_executor(asker, ask_cancel, flight.run_id)
    if flights:
        await all_landed.wait()
    execution.toolbox_for = registry_toolbox  # type: ignore[assignment]

    def in_window(at: str) -> bool:
        return window_start <= stamp(at) < window_end

    to_row = [(t - stamp(at)) * 1000 for _, _, at, t in committed if in_window(at)]
    to_tab: list[float] = []
    tool_steps = events = 0
    cancel_to_tab: list[float] = []
    cancel_to_return: list[float] = []
    step_overhead: list[float] = []
    step_outside_tool_call: list[float] = []
    cancel_to_emit: list[float] = []
    lost = gaps = 0
    rows_by_run = await sync_to_async(_rows_by_run)([f.run_id for f in finished])
    for flight in finished:
        received = flight.tab.received
        for _, type, at, t in received:
            if in_window(at):
                to_tab.append((t - stamp(at)) * 1000)
                events += 1
                tool_steps += type == "tool.result"
        seqs = rows_by_run.get(flight.run_id, [])
        lost += len(set(seqs) - {seq for seq, *_ in received})
        gaps += seqs != list(range(1, len(seqs) + 1))
        asked = flight.cancel_asked_at
        if asked is not None and window_start <= asked < window_end:
            ends = [t for _, type, _, t in received if type == "run.cancelled"]
            if ends and flight.returned_at is not None:
                cancel_to_tab.append((ends[0] - asked) * 1000)
                cancel_to_return.append((flight.returned_at - asked) * 1000)
        if asked is not None and window_start <= asked < window_end:
            ends = [stamp(at) for _, type, at, _ in received if type == "run.cancelled"]
            if ends:
                cancel_to_emit.append((ends[0] - asked) * 1000)
        starts = [stamp(at) for _, type, at, _ in received if type == "step.started"]
        bodies, calls = body_seconds.get(flight.run_id, []), tool_seconds.get(flight.run_id, [])
        for index in range(len(starts) - 1):
            if window_start <= starts[index] < window_end and index < len(bodies):
                gap = starts[index + 1] - starts[index] - flight.model.seconds_inside[index]
                step_overhead.append((gap - bodies[index]) * 1000)
                step_outside_tool_call.append((gap - calls[index]) * 1000)
    cpu = (usage_end.ru_utime + usage_end.ru_stime) - (usage_start.ru_utime + usage_start.ru_stime)
    asked_total = sum(1 for f in finished if f.cancel_asked_at and window_start <= f.cancel_asked_at < window_end)
    return {
        "load": {
            "runs_in_flight": {"target": args.runs, "min": min(in_flight), "mean": round(sum(in_flight) / len(in_flight), 1)},
            "tool_steps_per_s": round(tool_steps / args.seconds, 1),
            "events_per_s": round(events / args.seconds, 1),
            "think_seconds": args.think,
            "window_seconds": args.seconds,
            "tool": "read_akte (registry: matrix, validation, cache, audit row)",
            "cancels_asked": asked_total,
            "event_backlog_limit": getattr(settings, "HELENA_EVENT_BACKLOG", None),  # None: code without the bound
        },
        "emit_to_row": figures(to_row),
        "emit_to_tab": figures(to_tab),
        "cancel_to_tab": figures(cancel_to_tab),
        "cancel_to_return": figures(cancel_to_return),
        "cancel_to_terminal_emit": figures(cancel_to_emit),
        "step_overhead_under_load": figures(step_overhead),
        "step_outside_tool_call_under_load": figures(step_outside_tool_call),
        "engine_loop_lag": figures(loop_lag),
        "lost_events": lost,
        "runs_with_seq_gaps": gaps,
        "runs_measured": len(finished),
        "machine": {
            "python": platform.python_version(),
            "cpu_count": os.cpu_count(),
            "load_average_start": [round(x, 2) for x in load_start],
            "load_average_end": [round(x, 2) for x in load_end],
            "process_cpu_cores_in_window": round(cpu / args.seconds, 2),
        },
        "targets": {"cancel_p95_ms": 500, "emit_to_tab_p95_ms": 100, "tool_steps_per_s": 60},
    }


def _rows_by_run(run_ids: list[int]) -> dict[int, list[int]]:
    rows: dict[int, list[int]] = defaultdict(list)
    for run_id, seq in AgentStep.objects.filter(run_id__in=run_ids).order_by("run_id", "seq").values_list("run_id", "seq"):
        rows[run_id].append(seq)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200, help="runs kept in flight")
    parser.add_argument("--think", type=float, default=3.0, help="seconds the model thinks per call (±30 %%)")
    parser.add_argument("--warmup", type=float, default=20)
    parser.add_argument("--seconds", type=float, default=60, help="measurement window")
    parser.add_argument("--cancel-every", type=float, default=0.5)
    args = parser.parse_args()
    results = asyncio.run(bench(args))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
