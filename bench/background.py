"""Background-run benchmark: N background runs of S steps started at once, executed by the two
`db_worker` processes of the production shape (ops/prod.sh: nginx, two daphne, two workers with
HELENA_WORKER_CONCURRENCY task slots each), until every run has ended.

    .venv/bin/python bench/background.py [--runs 50] [--steps 20] [--concurrency 4]

The shape runs on its own embedded PostgreSQL (pgvector) and its own redis-server (a free port, no
persistence), both under a temporary directory, so nothing of the machine's services is touched.
The model is the scripted LLM server (real HTTP, Ollama protocol, its own process) answering at
once: S - 1 tool steps (read_akte, read_fristen, read_dokumente, read_zeiterfassung, then documents
by title and interest on varying claims in turn), then the answer. Runs are created as the chat
creates them (`run_create`, mode BACKGROUND, one per lawyer and Akte) and enqueued into the
database queue.

Reported: outcomes (target: all DONE), wall time from the first run created to the last one
finished, throughput (runs/s and steps/s), queue wait (created → started) p50/p95/max, run duration
(started → finished) p50/p95, runs per worker process, load average. Saved to
bench/results/background.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.redis_server import start_redis  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "background.json"
TOOLS = ["read_akte", "read_fristen", "read_dokumente", "read_zeiterfassung"]


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


def serve_llm(steps: int) -> None:
    """`--serve-llm`: the scripted model in its own process; prints its URL, serves until stdin closes."""
    from tests.support.scripted_llm import ScriptedLLMServer

    def step(body: dict[str, Any]) -> dict[str, Any]:
        done = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
        if done >= steps - 1:
            return {"text": "Fertig: Akte, Fristen, Dokumente, Zeiten und Zinsen durchgesehen."}
        if done < len(TOOLS):
            return {"tool_calls": [{"name": TOOLS[done], "arguments": {}}]}
        # then, in turn, documents by title and interest on varying claims: distinct calls with
        # distinct results, as a real model's would be (the stall detector stops repetitions)
        if done % 2:
            return {"tool_calls": [{"name": "read_dokumente", "arguments": {"titel_enthaelt": f"Anlage K{done}"}}]}
        claim = {"hauptforderung": str(1000 + 250 * done), "von": "2025-01-01", "bis": "2025-06-30"}
        return {"tool_calls": [{"name": "calc_verzugszinsen", "arguments": claim}]}

    llm = ScriptedLLMServer().start()
    llm.script([step] * 100_000)
    print(llm.url, flush=True)
    sys.stdin.read()
    llm.stop()


def setup(runs: int, steps: int, llm_url: str) -> list[tuple[Any, Any]]:
    """Lawyers with an Akte each, the scripted tier, limits that fit S steps."""
    from agent.models import EngineConfig, RateLimit, TierConfig
    from akten.models import Akte, Role, User

    TierConfig.objects.update_or_create(
        tier=1,
        defaults={"name": "Bench", "provider": "OLLAMA", "model": "scripted", "base_url": llm_url, "enabled": True},
    )
    TierConfig.objects.exclude(tier=1).update(enabled=False)
    config = EngineConfig.load()
    config.background_max_steps, config.background_timeout_seconds = steps + 5, 600
    config.llm_classifier = False
    config.save()
    RateLimit.objects.update_or_create(role=Role.ANWALT, defaults={"runs_per_hour": 1_000_000})
    out = []
    for index in range(runs):
        user, _ = User.objects.get_or_create(
            email=f"bench-bg-{index}@kanzlei.example", defaults={"role": Role.ANWALT, "last_name": f"Bench{index}"}
        )
        akte, _ = Akte.objects.get_or_create(
            aktenzeichen=f"BG-{index}/26", defaults={"kurzrubrum": f"Bench {index} ./. Gegner", "anwalt": user}
        )
        out.append((user, akte))
    return out


def main() -> None:  # noqa: PLR0915
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=4, help="task slots per worker process")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--serve-llm", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_llm:
        serve_llm(args.serve_llm)
        return

    work = Path(tempfile.mkdtemp(prefix="helena-bench-bg-"))
    redis_port, proxy_port, app_1, app_2 = free_ports(4)
    redis = start_redis(work, redis_port)
    serve = [sys.executable, __file__, "--serve-llm", str(args.steps)]
    llm = subprocess.Popen(serve, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # noqa: S603
    assert llm.stdout is not None
    llm_url = llm.stdout.readline().strip()

    from helena.embedded_pg.server import ensure_database, ensure_server, stop_server

    pg = ensure_server(work / "pg", stop_on_exit=False)
    ensure_database(pg, "helena")
    database_url = f"postgresql://{pg.user}@{urllib.parse.quote(pg.socket_dir, safe='')}:{pg.port}/helena"
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    env = {
        **os.environ,
        "HELENA_PROD_DIR": str(work / "prod"),
        "HELENA_PROD_PORT": str(proxy_port),
        "HELENA_PROD_APP_PORTS": f"{app_1} {app_2}",
        "HELENA_PROD_WORKERS": "2",
        "HELENA_WORKER_CONCURRENCY": str(args.concurrency),
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
    }
    env.pop("HELENA_EMBEDDED_DB_NAME", None)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    prod = [str(ROOT / "ops" / "prod.sh")]
    figures: dict[str, Any] = {}
    try:
        subprocess.run([*prod, "up"], cwd=ROOT, env=env, check=True, timeout=300)  # noqa: S603
        os.environ.update({"DATABASE_URL": database_url, "REDIS_URL": redis_url, "DEBUG": "0"})
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "helena.settings.dev")
        import django

        django.setup()
        from agent.models import AgentRun
        from agent.runs import services, tasks

        accounts = setup(args.runs, args.steps, llm_url)
        load_at_start = os.getloadavg()
        started = time.monotonic()
        run_ids = []
        for n, (user, akte) in enumerate(accounts):
            run = services.run_create(user=user, text=f"Prüfe die Akte vollständig ({n}).", akte=akte, mode="BACKGROUND")
            tasks.run_enqueue(run_id=run.pk)
            run_ids.append(run.pk)
        enqueued = time.monotonic() - started
        deadline = started + args.timeout
        while AgentRun.objects.filter(pk__in=run_ids, status__in=AgentRun.ACTIVE_STATUSES).exists():
            if time.monotonic() > deadline:
                break
            time.sleep(0.5)
        runs = list(AgentRun.objects.filter(pk__in=run_ids))
        load_at_end = os.getloadavg()
        outcomes: dict[str, int] = {}
        for run in runs:
            outcomes[run.status] = outcomes.get(run.status, 0) + 1
        ended = [r for r in runs if r.finished_at and r.started_at]
        waits = [(r.started_at - r.created_at).total_seconds() for r in ended]
        durations = [(r.finished_at - r.started_at).total_seconds() for r in ended]
        first = min(r.created_at for r in runs)
        last = max((r.finished_at for r in ended), default=first)
        wall = (last - first).total_seconds()
        steps_done = sum(r.steps_used for r in runs)
        per_worker: dict[str, int] = {}
        for run in runs:
            per_worker[run.worker_id] = per_worker.get(run.worker_id, 0) + 1
        figures = {
            "shape": "ops/prod.sh: nginx, 2 daphne, 2 db_worker, own embedded PostgreSQL and redis-server",
            "runs": args.runs,
            "steps_per_run": args.steps,
            "task_slots": f"2 workers x {args.concurrency}",
            "model": "scripted LLM server (Ollama protocol, own process), answering at once",
            "outcomes": outcomes,
            "all_done": outcomes == {"DONE": args.runs},
            "enqueue_seconds": round(enqueued, 2),
            "wall_seconds": round(wall, 2),
            "throughput_runs_per_s": round(len(ended) / wall, 2) if wall else None,
            "throughput_steps_per_s": round(steps_done / wall, 1) if wall else None,
            "queue_wait_p50_s": round(statistics.median(waits), 2) if waits else None,
            "queue_wait_p95_s": round(percentile(waits, 0.95), 2) if waits else None,
            "queue_wait_max_s": round(max(waits), 2) if waits else None,
            "run_duration_p50_s": round(statistics.median(durations), 2) if durations else None,
            "run_duration_p95_s": round(percentile(durations, 0.95), 2) if durations else None,
            "runs_per_worker_process": sorted(per_worker.values(), reverse=True),
            "load_average_at_start": [round(v, 2) for v in load_at_start],
            "load_average_at_end": [round(v, 2) for v in load_at_end],
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        }
        f = figures
        print(
            f"{args.runs} runs x {args.steps} steps, 2 workers x {args.concurrency}: {outcomes}; wall {f['wall_seconds']} s, "
            f"{f['throughput_runs_per_s']} runs/s, {f['throughput_steps_per_s']} steps/s; queue wait p50 "
            f"{f['queue_wait_p50_s']} s, p95 {f['queue_wait_p95_s']} s; run p50 {f['run_duration_p50_s']} s; "
            f"per worker {f['runs_per_worker_process']}; load {f['load_average_at_start']} → {f['load_average_at_end']}"
        )
    finally:
        subprocess.run([*prod, "down"], cwd=ROOT, env=env, check=False, timeout=120)  # noqa: S603
        llm.communicate(timeout=15)
        stop_server(work / "pg")
        redis.terminate()
        redis.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)
    if figures:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n")
        print(f"gespeichert: {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
