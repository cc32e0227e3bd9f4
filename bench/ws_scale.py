"""Websocket scale-out soak: C authenticated websocket clients through the proxy of the production
shape (ops/prod.sh: nginx-light with TLS → two daphne processes, two workers, Redis channel layer),
connected for the whole soak, while short inline runs start at a steady rate.

    .venv/bin/python bench/ws_scale.py [--clients 1000] [--minutes 10] [--rate 2] [--tabs 2]
    .venv/bin/python bench/ws_scale.py --clients 100 --minutes 1 --out bench/results/ws_scale_smoke.json

The shape runs on its own embedded PostgreSQL (pgvector) and its own redis-server (a free port, no
persistence) under a temporary directory, as in bench/background.py; nothing of the machine's
services is touched. Clients speak wss:// to nginx (the self-signed certificate of the shape is
trusted explicitly), with the site's origin and a real session cookie (a database session of the
user, signed with the shape's SECRET_KEY); nginx spreads the sockets over the two daphne processes
by round robin. The clients connect one at a time, a user's tabs one after the other, so that a
user's tabs land on different processes; the spread is counted from the established connections of
each daphne port, and which users have tabs on both processes from the channel layer's groups in
Redis (a channel name carries its process's prefix).

Clients are C / T users with T tabs (sockets) each. Every `1 / rate` seconds a random tab of a
random idle user sends `chat.send` (inline, about the user's Akte): the run executes on the daphne
process that socket landed on, and the user's other tabs (on the other process) follow it through
the user's group (`run.announce` → the run's group, across processes through Redis). Most tabs are
idle most of the time: they stay connected and get only the pings. The model is the scripted LLM
server (real HTTP, Ollama protocol, its own process), thinking `--think` seconds per call: four
tool steps (read_akte, read_fristen, read_dokumente, read_zeiterfassung), then the answer.

Measured per received event: receipt time minus the event's `at` (stamped by the engine when it
emits the event; same machine clock), for the tab that started the run ("own") and the user's other
tabs ("other"). Lost = persisted AgentStep rows of a run (up to its terminal event) that a tab of its
user never received, over all tabs. Every `--sample` seconds: RSS and CPU of both daphne processes,
the clients' event-loop lag, events received, load average. Memory is called flat when each daphne's
RSS at the end is within 10 % of its RSS after the first fifth of the soak (the warm-up: imports,
pools, caches, the first runs) and its slope over the second half is below 1 MB/min.
Saved to bench/results/ws_scale.json (or --out).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import platform
import random
import resource
import secrets
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.redis_server import start_redis  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "ws_scale.json"
TOOLS = ["read_akte", "read_fristen", "read_dokumente", "read_zeiterfassung"]
TERMINAL = {"run.finished", "run.failed", "run.cancelled"}
PAGE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in sockets]
    finally:
        for s in sockets:
            s.close()


def raise_open_files() -> int:
    """Each socket is a file here, in nginx (two per socket) and in daphne: the children inherit this."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def serve_llm(think: float) -> None:
    """`--serve-llm`: the scripted model in its own process; prints its URL, serves until stdin closes."""
    from tests.support.scripted_llm import ScriptedLLMServer

    def step(body: dict[str, Any]) -> dict[str, Any]:
        done = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
        if done < len(TOOLS):
            return {"tool_calls": [{"name": TOOLS[done], "arguments": {}}], "delay": think}
        return {"text": "Fertig: Akte, Fristen, Dokumente und Zeiten gelesen.", "delay": think}

    llm = ScriptedLLMServer().start()
    llm.script([step] * 1_000_000)
    print(llm.url, flush=True)
    sys.stdin.read()
    llm.stop()


def setup(users: int, llm_url: str) -> list[tuple[int, int, str]]:
    """Lawyers with an Akte and a database session each: (user id, akte id, session key)."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    from agent.models import EngineConfig, RateLimit, TierConfig
    from akten.models import Akte, Role, User

    TierConfig.objects.update_or_create(
        tier=1,
        defaults={"name": "Bench", "provider": "OLLAMA", "model": "scripted", "base_url": llm_url, "enabled": True},
    )
    TierConfig.objects.exclude(tier=1).update(enabled=False)
    config = EngineConfig.load()
    config.inline_max_steps, config.inline_timeout_seconds = 10, 120
    config.llm_classifier = False
    config.save()
    RateLimit.objects.update_or_create(role=Role.ANWALT, defaults={"runs_per_hour": 1_000_000})
    out = []
    for index in range(users):
        user, _ = User.objects.get_or_create(
            email=f"bench-wss-{index}@kanzlei.example", defaults={"role": Role.ANWALT, "last_name": f"Bench{index}"}
        )
        akte, _ = Akte.objects.get_or_create(
            aktenzeichen=f"WSS-{index}/26", defaults={"kurzrubrum": f"Bench {index} ./. Gegner", "anwalt": user}
        )
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.save()
        out.append((user.pk, akte.pk, str(session.session_key)))
    return out


# -- processes ------------------------------------------------------------------------------------


def rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * PAGE / 2**20
    except OSError:
        return None


def cpu_seconds(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime
    except OSError:
        return None


def established(port: int) -> int:
    """Established TCP connections whose local port is `port` (the daphne side of nginx's upstream)."""
    count = 0
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            parts = line.split()
            if parts[3] == "01" and int(parts[1].rsplit(":", 1)[1], 16) == port:
                count += 1
    return count


# -- clients --------------------------------------------------------------------------------------


@dataclass
class Tab:
    user: int
    index: int
    ws: Any = None
    seqs: dict[int, set[int]] = field(default_factory=dict)
    closed: str = ""


@dataclass
class Soak:
    url: str
    origin: str
    tls: ssl.SSLContext
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"own": [], "other": []})
    window_events: int = 0
    errors: list[str] = field(default_factory=list)
    runs: dict[int, int] = field(default_factory=dict)  # run → user
    run_started: dict[int, float] = field(default_factory=dict)
    run_ended: dict[int, float] = field(default_factory=dict)
    busy: set[int] = field(default_factory=set)  # users with a run in flight (or being accepted)
    pending_send: dict[int, float] = field(default_factory=dict)  # user → time chat.send went out
    sender: dict[int, int] = field(default_factory=dict)  # user → index of the tab that sent its last chat.send
    run_sender: dict[int, int] = field(default_factory=dict)  # run → index of the tab that started it
    lag: list[float] = field(default_factory=list)
    window_lag: list[float] = field(default_factory=list)
    disconnects: int = 0
    last_event_at: float = 0.0  # monotonic


async def connect_tab(soak: Soak, tab: Tab, session_key: str) -> None:
    from websockets.asyncio.client import connect

    headers = {"Cookie": f"sessionid={session_key}"}
    tab.ws = await connect(
        soak.url,
        ssl=soak.tls,
        origin=soak.origin,
        additional_headers=headers,
        max_size=None,
        open_timeout=60,  # type: ignore[arg-type]
    )
    hello = json.loads(await tab.ws.recv())
    assert hello["type"] == "hello", hello


async def read_tab(soak: Soak, tab: Tab) -> None:
    from websockets.exceptions import ConnectionClosed

    try:
        async for raw in tab.ws:
            received = time.time()
            message = json.loads(raw)
            kind = message.get("type")
            sent_here = soak.sender.get(tab.user) == tab.index
            if kind == "run.accepted" and sent_here:
                run = int(message["run"])
                soak.runs[run] = tab.user
                soak.run_sender[run] = tab.index
                soak.run_started[run] = soak.pending_send.pop(tab.user, received)
                continue
            if kind == "error":
                soak.errors.append(str(message.get("code")))
                if sent_here and tab.user in soak.pending_send:  # refused: the user is free again
                    soak.pending_send.pop(tab.user, None)
                    soak.busy.discard(tab.user)
                continue
            if "seq" not in message or "run" not in message:
                continue
            run = int(message["run"])
            tab.seqs.setdefault(run, set()).add(int(message["seq"]))
            at = datetime.datetime.fromisoformat(message["at"]).timestamp()
            own = soak.run_sender.get(run, soak.sender.get(tab.user)) == tab.index
            soak.latencies["own" if own else "other"].append((received - at) * 1000)
            soak.window_events += 1
            soak.last_event_at = time.monotonic()
            if kind in TERMINAL and own:
                soak.run_ended[run] = received
                soak.busy.discard(tab.user)
    except ConnectionClosed as exc:
        tab.closed = f"{exc.rcvd.code if exc.rcvd else None}"
    if not tab.closed:
        tab.closed = "closed"
    soak.disconnects += 1


async def loop_lag(soak: Soak, stop: asyncio.Event) -> None:
    """How late this process's own loop wakes up (10 ms sleeps): a receipt timestamp can be late by
    as much, so the figure is reported next to the latencies."""
    while not stop.is_set():
        before = time.monotonic()
        await asyncio.sleep(0.01)
        value = (time.monotonic() - before - 0.01) * 1000
        soak.lag.append(value)
        soak.window_lag.append(value)


async def starter(soak: Soak, tabs: dict[int, list[Tab]], akten: dict[int, int], rate: float, until: float) -> int:
    """One run every 1 / rate seconds, from a random tab of a random idle user; returns runs skipped
    because every user was busy."""
    skipped = 0
    interval = 1.0 / rate
    next_at = time.monotonic()
    users = list(tabs)
    while time.monotonic() < until:
        next_at += interval
        idle = [u for u in users if u not in soak.busy and not any(tab.closed for tab in tabs[u])]
        if idle:
            user = random.choice(idle)  # noqa: S311
            soak.busy.add(user)
            index = random.randrange(len(tabs[user]))  # noqa: S311 (a user's tabs sit on different processes)
            soak.sender[user] = index
            soak.pending_send[user] = time.time()
            text = json.dumps({"type": "chat.send", "text": "Lies die Akte vollständig.", "akte": akten[user], "mode": "INLINE"})
            with contextlib.suppress(Exception):
                await tabs[user][index].ws.send(text)
        else:
            skipped += 1
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
    return skipped


async def sampler(
    soak: Soak, pids: dict[str, int], ports: dict[str, int], every: float, samples: list[dict[str, Any]], stop: asyncio.Event
) -> None:
    started = time.monotonic()
    cpu_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    last = started
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=every)
        now = time.monotonic()
        cpu_now = {name: cpu_seconds(pid) for name, pid in pids.items()}
        sample: dict[str, Any] = {"t": round(now - started, 1), "load": [round(v, 2) for v in os.getloadavg()]}
        for name, pid in pids.items():
            before, after = cpu_before[name], cpu_now[name]
            sample[name] = {
                "rss_mb": round(rss_mb(pid) or 0.0, 1),
                "cpu_pct": round(100 * (after - before) / (now - last), 1) if before is not None and after is not None else None,
                "sockets": established(ports[name]),
            }
        sample["events"] = soak.window_events
        sample["runs_in_flight"] = len(soak.busy)
        sample["client_lag_p95_ms"] = round(percentile(soak.window_lag, 0.95), 1) if soak.window_lag else None
        sample["client_lag_max_ms"] = round(max(soak.window_lag), 1) if soak.window_lag else None
        soak.window_events, soak.window_lag = 0, []
        cpu_before, last = cpu_now, now
        samples.append(sample)
        d = [sample[n] for n in pids]
        rss = " / ".join(f"{x['rss_mb']:.0f}" for x in d)
        cpu = " / ".join(str(x["cpu_pct"]) for x in d)
        print(
            f"  t={sample['t']:6.0f} s  RSS {rss} MB  CPU {cpu} %  sockets {' / '.join(str(x['sockets']) for x in d)}  "
            f"events {sample['events']}  in flight {sample['runs_in_flight']}  lag p95 {sample['client_lag_p95_ms']} ms  "
            f"load {sample['load']}",
            flush=True,
        )
        if stop.is_set():
            return


def placement(redis_url: str, users: list[int]) -> dict[str, int]:
    """Where the tabs landed, from the channel layer itself: each user's group in Redis holds the
    channel names of its tabs, `specific.<process prefix>!<socket>` (channels_redis)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    processes: set[bytes] = set()
    both = 0
    for user in users:
        members = client.zrange(f"asgi:group:helena.user.{user}", 0, -1)
        prefixes = {member.split(b"!", 1)[0] for member in members}
        processes |= prefixes
        both += len(prefixes) > 1
    client.close()
    return {"daphne_processes_seen": len(processes), "users_with_tabs_on_both_processes": both, "users": len(users)}


async def soak_clients(
    redis_url: str,
    proxy_url: str,
    cert: str,
    accounts: list[tuple[int, int, str]],
    args: argparse.Namespace,
    pids: dict[str, int],
    ports: dict[str, int],
) -> dict[str, Any]:
    tls = ssl.create_default_context(cafile=cert)
    soak = Soak(url=proxy_url.replace("https://", "wss://") + "/ws/helena/", origin=proxy_url, tls=tls)
    tabs: dict[int, list[Tab]] = {user: [Tab(user, i) for i in range(args.tabs)] for user, _akte, _key in accounts}
    keys = {user: key for user, _akte, key in accounts}
    akten = {user: akte for user, akte, _key in accounts}
    every_tab = [tab for user_tabs in tabs.values() for tab in user_tabs]
    gate = asyncio.Semaphore(1)  # one at a time: nginx's round robin then alternates strictly
    connect_failures: list[str] = []

    async def open_tab(tab: Tab) -> None:
        async with gate:
            try:
                await connect_tab(soak, tab, keys[tab.user])
            except Exception as exc:
                tab.closed = "connect"
                connect_failures.append(repr(exc)[:200])

    rss_before = {name: rss_mb(pid) for name, pid in pids.items()}
    stop = asyncio.Event()
    lag_task = asyncio.create_task(loop_lag(soak, stop))
    began = time.monotonic()
    # a user's tabs one after the other: with round robin they land on different daphne processes
    await asyncio.gather(*(open_tab(tab) for tab in every_tab))
    connect_seconds = time.monotonic() - began
    spread = placement(redis_url, list(tabs))
    readers = [asyncio.create_task(read_tab(soak, tab)) for tab in every_tab if tab.ws is not None]
    print(f"{len(readers)} of {len(every_tab)} clients connected in {connect_seconds:.1f} s; {spread}", flush=True)

    samples: list[dict[str, Any]] = []
    sample_stop = asyncio.Event()
    sample_task = asyncio.create_task(sampler(soak, pids, ports, args.sample, samples, sample_stop))
    soak_started = time.monotonic()
    skipped = await starter(soak, tabs, akten, args.rate, soak_started + args.minutes * 60)
    soak_seconds = time.monotonic() - soak_started
    # drain: the runs in flight end, the other tabs get their last events
    drain_deadline = time.monotonic() + 120
    while (soak.busy or soak.pending_send) and time.monotonic() < drain_deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.2)
    # then until no tab has received anything for 5 s (a tab behind on another process catches up)
    while time.monotonic() - soak.last_event_at < 5.0 and time.monotonic() < drain_deadline + 60:  # noqa: ASYNC110
        await asyncio.sleep(0.2)
    sample_stop.set()
    await sample_task
    stop.set()
    await lag_task
    still_connected = sum(1 for tab in every_tab if tab.ws is not None and not tab.closed)
    disconnects = soak.disconnects  # before this process closes the sockets itself
    for tab in every_tab:
        if tab.ws is not None:
            with contextlib.suppress(Exception):
                await tab.ws.close()
    for reader in readers:
        reader.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    return {
        "soak": soak,
        "tabs": tabs,
        "samples": samples,
        "connect_seconds": connect_seconds,
        "connected": len(readers),
        "connect_failures": connect_failures,
        "still_connected_at_end": still_connected,
        "soak_seconds": soak_seconds,
        "skipped": skipped,
        "stuck_after_drain": sorted(soak.busy),
        "disconnects": disconnects,
        "placement": spread,
        "rss_before_clients_mb": {name: round(v or 0.0, 1) for name, v in rss_before.items()},
    }


# -- figures --------------------------------------------------------------------------------------


def lost_events(runs: dict[int, int], senders: dict[int, int], tabs: dict[int, list[Tab]]) -> dict[str, int]:
    """Persisted rows (up to the terminal event) of every started run against what each tab of its
    user received."""
    from agent.models import AgentStep

    rows: dict[int, list[tuple[int, str]]] = {}
    for run, seq, kind in AgentStep.objects.filter(run_id__in=list(runs)).values_list("run_id", "seq", "type").iterator():
        rows.setdefault(run, []).append((seq, kind))
    lost = {"own": 0, "other": 0}
    missed_whole = missed_partly = 0
    missing_types: dict[str, int] = {}
    persisted = after_end = 0
    for run, user in runs.items():
        ordered = sorted(rows.get(run, []))
        end = next((seq for seq, kind in ordered if kind in TERMINAL), None)
        expected = {seq for seq, _kind in ordered if end is None or seq <= end}
        after_end += len(ordered) - len(expected)
        for tab in tabs[user]:
            persisted += len(expected)
            missing = expected - tab.seqs.get(run, set())
            lost["own" if tab.index == senders.get(run) else "other"] += len(missing)
            if missing:
                missed_whole += not tab.seqs.get(run)
                missed_partly += bool(tab.seqs.get(run))
                for seq, kind in ordered:
                    if seq in missing:
                        missing_types[kind] = missing_types.get(kind, 0) + 1
    return {
        "lost_own": lost["own"],
        "lost_other": lost["other"],
        "lost": lost["own"] + lost["other"],
        "expected_deliveries": persisted,
        "rows_after_terminal": after_end,
        "tab_runs_missed_entirely": missed_whole,
        "tab_runs_missed_partly": missed_partly,
        "missing_event_types": missing_types,
    }


def memory_figures(samples: list[dict[str, Any]], name: str) -> dict[str, Any]:
    series = [(s["t"], s[name]["rss_mb"]) for s in samples if s[name]["rss_mb"]]
    if len(series) < 3:
        return {}
    warm = series[max(0, len(series) // 5 - 1)]
    half = series[len(series) // 2 :]
    ts, ms = [t / 60 for t, _ in half], [m for _, m in half]
    mean_t, mean_m = statistics.fmean(ts), statistics.fmean(ms)
    denominator = sum((t - mean_t) ** 2 for t in ts)
    slope = sum((t - mean_t) * (m - mean_m) for t, m in zip(ts, ms, strict=True)) / denominator if denominator else 0.0
    last = series[-1][1]
    growth = (last - warm[1]) / warm[1] * 100
    return {
        "rss_first_mb": series[0][1],
        "rss_after_warmup_mb": warm[1],
        "rss_last_mb": last,
        "rss_max_mb": max(m for _, m in series),
        "growth_after_warmup_pct": round(growth, 1),
        "slope_second_half_mb_per_min": round(slope, 2),
        "flat": growth <= 10.0 and slope < 1.0,
    }


def main() -> None:  # noqa: PLR0915
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=2.0, help="runs started per second")
    parser.add_argument("--tabs", type=int, default=2, help="sockets per user")
    parser.add_argument("--think", type=float, default=0.3, help="the scripted model's seconds per call")
    parser.add_argument("--sample", type=float, default=10.0, help="seconds between samples")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--keep-logs", type=Path, default=None, help="copy the shape's logs (daphne, workers, nginx) here")
    parser.add_argument("--serve-llm", type=float, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_llm is not None:
        serve_llm(args.serve_llm)
        return

    open_files = raise_open_files()
    work = Path(tempfile.mkdtemp(prefix="helena-bench-wss-"))
    redis_port, proxy_port, app_1, app_2 = free_ports(4)
    redis = start_redis(work, redis_port)
    serve = [sys.executable, __file__, "--serve-llm", str(args.think)]
    llm = subprocess.Popen(serve, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # noqa: S603
    assert llm.stdout is not None
    llm_url = llm.stdout.readline().strip()

    from helena.embedded_pg.server import ensure_database, ensure_server, stop_server

    pg = ensure_server(work / "pg", stop_on_exit=False)
    ensure_database(pg, "helena")
    database_url = f"postgresql://{pg.user}@{urllib.parse.quote(pg.socket_dir, safe='')}:{pg.port}/helena"
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    secret_key = secrets.token_urlsafe(50)
    env = {
        **os.environ,
        "HELENA_PROD_DIR": str(work / "prod"),
        "HELENA_PROD_PORT": str(proxy_port),
        "HELENA_PROD_APP_PORTS": f"{app_1} {app_2}",
        "HELENA_PROD_WORKERS": "2",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "SECRET_KEY": secret_key,
    }
    env.pop("HELENA_EMBEDDED_DB_NAME", None)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    prod = [str(ROOT / "ops" / "prod.sh")]
    figures: dict[str, Any] = {}
    try:
        subprocess.run([*prod, "up"], cwd=ROOT, env=env, check=True, timeout=300)  # noqa: S603
        # the same database, Redis and SECRET_KEY as the shape: the sessions made here are valid there
        os.environ.update({"DATABASE_URL": database_url, "REDIS_URL": redis_url, "SECRET_KEY": secret_key, "DEBUG": "0"})
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "helena.settings.dev")
        import django

        django.setup()
        from agent.models import AgentRun

        users = max(1, args.clients // args.tabs)
        accounts = setup(users, llm_url)
        pid_dir = work / "prod" / "pids"
        pids = {f"daphne_{n}": int((pid_dir / f"daphne-{n}.pid").read_text()) for n in (1, 2)}
        ports = {"daphne_1": app_1, "daphne_2": app_2}
        load_at_start = os.getloadavg()
        outcome = asyncio.run(
            soak_clients(
                redis_url, f"https://127.0.0.1:{proxy_port}", str(work / "prod" / "tls" / "cert.pem"), accounts, args, pids, ports
            )
        )
        load_at_end = os.getloadavg()
        soak: Soak = outcome["soak"]
        lost = lost_events(soak.runs, soak.run_sender, outcome["tabs"])
        statuses: dict[str, int] = {}
        for status in AgentRun.objects.filter(pk__in=list(soak.runs)).values_list("status", flat=True):
            statuses[status] = statuses.get(status, 0) + 1
        everything = soak.latencies["own"] + soak.latencies["other"]
        durations = [soak.run_ended[r] - soak.run_started[r] for r in soak.run_ended if r in soak.run_started]
        samples = outcome["samples"]

        def stats(values: list[float]) -> dict[str, float | None]:
            if not values:
                return {"p50_ms": None, "p95_ms": None, "max_ms": None}
            return {
                "p50_ms": round(statistics.median(values), 1),
                "p95_ms": round(percentile(values, 0.95), 1),
                "max_ms": round(max(values), 1),
            }

        memory = {
            name: {"rss_before_clients_mb": outcome["rss_before_clients_mb"][name], **memory_figures(samples, name)}
            for name in pids
        }
        figures = {
            "shape": "ops/prod.sh: nginx-light (TLS) → 2 daphne, 2 db_worker, own embedded PostgreSQL and redis-server "
            "(Redis channel layer); clients wss:// through nginx",
            "clients": args.clients,
            "users": users,
            "tabs_per_user": args.tabs,
            "soak_minutes": round(outcome["soak_seconds"] / 60, 2),
            "run_rate_per_s": args.rate,
            "model": f"scripted LLM server (Ollama protocol, own process), {args.think} s per call; 4 tool steps + answer",
            "connected": outcome["connected"],
            "connect_seconds": round(outcome["connect_seconds"], 1),
            "connect_failures": outcome["connect_failures"][:5],
            "users_with_tabs_on_both_daphne": outcome["placement"]["users_with_tabs_on_both_processes"],
            "daphne_processes_seen_in_redis": outcome["placement"]["daphne_processes_seen"],
            "sockets_per_daphne_at_start": [samples[0][n]["sockets"] for n in pids] if samples else None,
            "still_connected_at_end": outcome["still_connected_at_end"],
            "disconnects_during_soak": outcome["disconnects"],
            "runs_started": len(soak.runs),
            "runs_skipped_all_busy": outcome["skipped"],
            "run_outcomes": statuses,
            "runs_not_ended_after_drain": len(outcome["stuck_after_drain"]),
            "run_duration_p50_s": round(statistics.median(durations), 2) if durations else None,
            "run_duration_p95_s": round(percentile(durations, 0.95), 2) if durations else None,
            "events_received": len(everything),
            **lost,
            "latency_all": stats(everything),
            "latency_own_tab": stats(soak.latencies["own"]),
            "latency_other_tabs": stats(soak.latencies["other"]),
            "errors": {code: soak.errors.count(code) for code in set(soak.errors)},
            "client_loop_lag_p95_ms": round(percentile(soak.lag, 0.95), 1) if soak.lag else None,
            "client_loop_lag_max_ms": round(max(soak.lag), 1) if soak.lag else None,
            "memory": memory,
            "memory_flat": all(m.get("flat") for m in memory.values()),
            "targets_met": {
                "p95_le_100_ms": bool(everything) and percentile(everything, 0.95) <= 100,
                "zero_lost": lost["lost"] == 0 and outcome["disconnects"] == 0 and not outcome["connect_failures"],
                "memory_flat": all(m.get("flat") for m in memory.values()),
            },
            "load_average_at_start": [round(v, 2) for v in load_at_start],
            "load_average_at_end": [round(v, 2) for v in load_at_end],
            "load_average_1min_max": max((s["load"][0] for s in samples), default=None),
            "open_files_limit": open_files,
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
            "samples": samples,
        }
        f = figures
        print(
            f"{f['connected']}/{args.clients} clients ({f['sockets_per_daphne_at_start']} per daphne), {f['soak_minutes']} min, "
            f"{f['runs_started']} runs {statuses}; latency p50 {f['latency_all']['p50_ms']} ms, "
            f"p95 {f['latency_all']['p95_ms']} ms, "
            f"max {f['latency_all']['max_ms']} ms (own tab p95 {f['latency_own_tab']['p95_ms']}, other tabs p95 "
            f"{f['latency_other_tabs']['p95_ms']}); lost {lost['lost']}/{lost['expected_deliveries']} (tab × run missed entirely "
            f"{lost['tab_runs_missed_entirely']}, partly {lost['tab_runs_missed_partly']}, "
            f"{lost['missing_event_types']}), disconnects "
            f"{outcome['disconnects']}; client lag p95 {f['client_loop_lag_p95_ms']} ms; load {f['load_average_at_start']} → "
            f"{f['load_average_at_end']} (1-min max {f['load_average_1min_max']})"
        )
        for name, m in memory.items():
            print(
                f"{name}: RSS before the clients {m.get('rss_before_clients_mb')} MB, "
                f"first {m.get('rss_first_mb')} MB, after warm-up {m.get('rss_after_warmup_mb')}, last "
                f"{m.get('rss_last_mb')}, max {m.get('rss_max_mb')}; growth {m.get('growth_after_warmup_pct')} %, slope "
                f"{m.get('slope_second_half_mb_per_min')} MB/min → {'flat' if m.get('flat') else 'NOT flat'}"
            )
        # Saved before the teardown: a teardown that fails must not lose hours of measurement.
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n")
        print(f"gespeichert: {args.out}")
    finally:
        subprocess.run([*prod, "down"], cwd=ROOT, env=env, check=False, timeout=120)  # noqa: S603
        if args.keep_logs is not None:
            shutil.copytree(work / "prod" / "log", args.keep_logs, dirs_exist_ok=True)
        try:
            llm.communicate(timeout=15)
        except subprocess.TimeoutExpired:  # after hours it holds many connections; it keeps no data
            llm.kill()
            llm.wait(timeout=10)
        stop_server(work / "pg")
        redis.terminate()
        redis.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
