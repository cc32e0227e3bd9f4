"""Websocket benchmark: N concurrent authenticated browser-like clients, each running a 5-step
scripted run, against a real daphne process (and a db_worker, as in `make run`).

    .venv/bin/python bench/ws.py [--clients 50 200]
    REDIS_URL=redis://127.0.0.1:6379/14 .venv/bin/python bench/ws.py     # production shape

Every client logs in (a real session cookie), connects to /ws/helena/ with the site's origin, sends
`chat.send` (inline, about its own Akte) and reads events until the run ends. The model is the
scripted LLM server (real HTTP, Ollama protocol, in its own process so that its threads do not
delay the clients) answering at once: four tool steps (read_akte, read_fristen, read_dokumente,
read_zeiterfassung) and a final answer. The clients' own event-loop lag is printed alongside: a
receipt timestamp can be late by that much.

Measured per event: client receipt time minus the event's `at` (stamped by the engine's sink when
the engine emits it, before the AgentStep row is written; same machine clock), and events lost = persisted AgentStep rows of
the run that the client never received. Prints the figures and saves bench/results/ws.json.
Target: 0 lost; p95 ≤ 100 ms at N = 200 in the production shape.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "helena.settings.dev")
os.environ.setdefault("HELENA_EMBEDDED_DB_NAME", "helena_bench_ws")
os.environ.setdefault("DEBUG", "0")

import django  # noqa: E402

django.setup()

import websockets  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.core.management import call_command  # noqa: E402

from agent.models import AgentStep, EngineConfig, RateLimit, TierConfig  # noqa: E402
from akten.models import Akte, Role, User  # noqa: E402
from tests.support.scripted_llm import ScriptedLLMServer  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "ws.json"
TOOLS = ["read_akte", "read_fristen", "read_dokumente", "read_zeiterfassung"]
TERMINAL = {"run.finished", "run.failed", "run.cancelled"}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def scripted_step(body: dict[str, Any]) -> dict[str, Any]:
    """Four tool steps, then the answer, decided from how many tool results the run already has."""
    done = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
    if done < len(TOOLS):
        return {"tool_calls": [{"name": TOOLS[done], "arguments": {}}]}
    return {"text": "Fertig: Akte, Fristen, Dokumente und Zeiten gelesen."}


def setup(clients: int, llm_url: str) -> list[tuple[int, int, str]]:
    """Users with an Akte and a session each; returns (user id, akte id, session key)."""
    call_command("migrate", verbosity=0)
    if not os.environ.get("REDIS_URL"):
        call_command("createcachetable", verbosity=0)
    TierConfig.objects.update_or_create(
        tier=1,
        defaults={"name": "Bench", "provider": "OLLAMA", "model": "scripted", "base_url": llm_url, "enabled": True},
    )
    TierConfig.objects.exclude(tier=1).update(enabled=False)
    config = EngineConfig.load()
    config.inline_max_steps, config.inline_timeout_seconds = 10, 120
    config.save()
    RateLimit.objects.update_or_create(role=Role.ANWALT, defaults={"runs_per_hour": 1_000_000})
    out = []
    for index in range(clients):
        user, _ = User.objects.get_or_create(
            email=f"bench-ws-{index}@kanzlei.example", defaults={"role": Role.ANWALT, "last_name": f"Bench{index}"}
        )
        akte, _ = Akte.objects.get_or_create(
            aktenzeichen=f"WS-{index}/26", defaults={"kurzrubrum": f"Bench {index} ./. Gegner", "anwalt": user}
        )
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.save()
        out.append((user.pk, akte.pk, str(session.session_key)))
    return out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_servers(port: int) -> list[subprocess.Popen]:
    env = {**os.environ}
    log = (ROOT / "bench" / "results" / "daphne.log.tmp").open("wb")
    daphne = subprocess.Popen(  # noqa: S603
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "helena.asgi:application"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=log,
    )
    worker = subprocess.Popen(  # noqa: S603
        [sys.executable, "manage.py", "db_worker", "--no-reload", "--no-startup-delay"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/anmelden/", timeout=2):  # noqa: S310
                break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)
    return [daphne, worker]


async def client(port: int, akte_id: int, session_key: str, start: asyncio.Event, within: float) -> dict[str, Any]:
    headers = {"Cookie": f"sessionid={session_key}", "Origin": f"http://127.0.0.1:{port}"}
    latencies: list[float] = []
    seqs: set[int] = set()
    # seq -> (emit, receipt) in epoch seconds, to split the latency at the row's write time
    times: dict[int, tuple[float, float]] = {}
    run_id = None
    outcome = "timeout"
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws/helena/", additional_headers=headers, max_size=None) as ws:
        hello = json.loads(await ws.recv())
        assert hello["type"] == "hello", hello
        await start.wait()
        await ws.send(json.dumps({"type": "chat.send", "text": "Lies die Akte vollständig.", "akte": akte_id, "mode": "INLINE"}))
        try:
            async with asyncio.timeout(within):
                while True:
                    message = json.loads(await ws.recv())
                    received = time.time()
                    if message.get("type") == "run.accepted":
                        run_id = message["run"]
                        continue
                    if message.get("type") == "error":
                        outcome = "error: " + message.get("message", "")
                        break
                    if "seq" not in message:
                        continue
                    seqs.add(int(message["seq"]))
                    at = datetime.datetime.fromisoformat(message["at"]).timestamp()
                    latencies.append((received - at) * 1000)
                    times[int(message["seq"])] = (at, received)
                    if message["type"] in TERMINAL:
                        outcome = message.get("status", message["type"])
                        break
        except TimeoutError:
            pass
    return {"run": run_id, "latencies": latencies, "seqs": seqs, "times": times, "outcome": outcome}


async def loop_lag(samples: list[float], stop: asyncio.Event) -> None:
    """How late this process's own loop wakes up (10 ms sleeps): a receipt timestamp can be late by
    as much, so the figure is printed next to the latencies."""
    while not stop.is_set():
        before = time.monotonic()
        await asyncio.sleep(0.01)
        samples.append((time.monotonic() - before - 0.01) * 1000)


async def round_of(port: int, accounts: list[tuple[int, int, str]], within: float) -> dict[str, Any]:
    start = asyncio.Event()
    tasks = [asyncio.create_task(client(port, akte, key, start, within)) for _user, akte, key in accounts]
    await asyncio.sleep(1.0 + len(accounts) * 0.01)  # let every socket connect first
    lag: list[float] = []
    stop = asyncio.Event()
    monitor = asyncio.create_task(loop_lag(lag, stop))
    started = time.monotonic()
    start.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    wall = time.monotonic() - started
    stop.set()
    await monitor
    failures = [repr(r) for r in results if isinstance(r, BaseException)]
    good = [r for r in results if isinstance(r, dict)]
    return {"results": good, "failures": failures, "wall_seconds": wall, "client_loop_lag_ms": lag}


def lost_events(results: list[dict[str, Any]]) -> tuple[int, int, int]:
    """(lost, persisted up to the terminal event, persisted after it). Rows the engine writes after
    a run's terminal event are counted apart: no client waits for them."""
    lost = persisted = after_end = 0
    for result in results:
        if result["run"] is None:
            continue
        rows = list(AgentStep.objects.filter(run_id=result["run"]).order_by("seq").values_list("seq", "type"))
        end = next((seq for seq, type_ in rows if type_ in TERMINAL), None)
        expected = {seq for seq, _type in rows if end is None or seq <= end}
        after_end += len(rows) - len(expected)
        persisted += len(expected)
        lost += len(expected - result["seqs"])
    return lost, persisted, after_end


def split_at_write(results: list[dict[str, Any]]) -> tuple[list[float], list[float]]:
    """Each received event's latency in two parts: emit -> row written (the row's `created_at`, the
    engine's event writer) and row written -> received (relay, tail, websocket), in ms."""
    to_row: list[float] = []
    to_tab: list[float] = []
    for result in results:
        if result["run"] is None:
            continue
        written = dict(AgentStep.objects.filter(run_id=result["run"]).values_list("seq", "created_at"))
        for seq, (at, received) in result["times"].items():
            if seq in written:
                row = written[seq].timestamp()
                to_row.append((row - at) * 1000)
                to_tab.append((received - row) * 1000)
    return to_row, to_tab


def serve_llm(steps: int) -> None:
    """`--serve-llm`: the scripted model in its own process, so that its threads do not delay the
    clients' receipt timestamps; prints its URL and serves until stdin closes."""
    llm = ScriptedLLMServer().start()
    llm.script([scripted_step] * steps)
    print(llm.url, flush=True)
    sys.stdin.read()
    llm.stop()


def start_llm(steps: int) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(  # noqa: S603
        [sys.executable, __file__, "--serve-llm", str(steps)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--timeout", type=float, default=180.0)
    parser.add_argument("--serve-llm", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_llm:
        serve_llm(args.serve_llm)
        return

    llm, llm_url = start_llm(sum(args.clients) * 6 + 10)
    accounts = setup(max(args.clients), llm_url)
    port = free_port()
    processes = start_servers(port)
    shape = "daphne + Redis + db_worker" if os.environ.get("REDIS_URL") else "daphne + in-memory layer + db_worker"
    figures: dict[str, Any] = {
        "shape": shape,
        "runs": "inline (executed on the daphne process's engine loop), 4 tool steps + answer, scripted model "
        "without delay (its own process)",
        "load_average_at_start": os.getloadavg(),
        "channel_layer": settings.CHANNEL_LAYERS["default"]["BACKEND"],
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "rounds": [],
    }
    try:
        for n in args.clients:
            outcome = asyncio.run(round_of(port, accounts[:n], args.timeout))
            latencies = [v for r in outcome["results"] for v in r["latencies"]]
            lost, persisted, after_end = lost_events(outcome["results"])
            to_row, to_tab = split_at_write(outcome["results"])
            statuses: dict[str, int] = {}
            for r in outcome["results"]:
                statuses[r["outcome"]] = statuses.get(r["outcome"], 0) + 1
            row = {
                "clients": n,
                "events_received": len(latencies),
                "events_persisted": persisted,
                "events_lost": lost,
                "events_after_terminal": after_end,
                "p50_ms": round(statistics.median(latencies), 1) if latencies else None,
                "p95_ms": round(percentile(latencies, 0.95), 1) if latencies else None,
                "max_ms": round(max(latencies), 1) if latencies else None,
                "emit_to_row_p50_p95_ms": [round(statistics.median(to_row), 1), round(percentile(to_row, 0.95), 1)]
                if to_row
                else None,
                "row_to_tab_p50_p95_ms": [round(statistics.median(to_tab), 1), round(percentile(to_tab, 0.95), 1)]
                if to_tab
                else None,
                "wall_seconds": round(outcome["wall_seconds"], 2),
                "client_loop_lag_p95_ms": round(percentile(outcome["client_loop_lag_ms"], 0.95), 1),
                "run_outcomes": statuses,
                "client_failures": outcome["failures"][:5],
            }
            figures["rounds"].append(row)
            print(
                f"N={n:4d}: p50 {row['p50_ms']} ms, p95 {row['p95_ms']} ms, max {row['max_ms']} ms, "
                f"emit -> row p50/p95 {row['emit_to_row_p50_p95_ms']}, row -> tab {row['row_to_tab_p50_p95_ms']} ms, "
                f"lost {lost}/{persisted} (+{after_end} after the end), {row['wall_seconds']} s, {statuses}, "
                f"client loop lag p95 {row['client_loop_lag_p95_ms']} ms"
            )
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=15)
        llm.communicate(timeout=15)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n")
    print(f"gespeichert: {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
