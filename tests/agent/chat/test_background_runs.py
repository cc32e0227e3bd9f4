"""Background runs in a separate `manage.py db_worker` process (the embedded default and, with
REDIS_URL, the production shape): events reach the browser across processes, cancel within a
second, a reload continues the run, and a worker start fails runs a crashed process left RUNNING."""

from __future__ import annotations

import asyncio
import datetime
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from agent.models import AgentRun, AgentStep
from tests.factories import AkteFactory, UserFactory
from tests.support.subprocess_env import env_on_test_database

from .conftest import is_terminal, receive_until, ws_connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ROOT = Path(__file__).resolve().parents[3]


def start_worker() -> subprocess.Popen:
    """The worker's output goes to test-artifacts/worker.log (git-ignored) for diagnosis."""
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    log = (ROOT / "test-artifacts" / "worker.log").open("ab")
    env = env_on_test_database("tests.agent.chat.worker_settings")
    return subprocess.Popen(  # noqa: S603
        [sys.executable, "manage.py", "db_worker", "--no-reload", "--interval", "0.1", "--no-startup-delay"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=log,
    )


def stop_worker(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture
def db_worker(settings) -> Iterator[subprocess.Popen]:
    """A real worker process on the test database; this process enqueues into the same queue."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.backend.DatabaseBackend"}}
    process = start_worker()
    try:
        yield process
    finally:
        stop_worker(process)


async def test_background_run_in_worker_reaches_the_tab_and_cancels_within_a_second(db_worker, scripted_tier, scripted_llm):
    akte = await sync_to_async(AkteFactory)()
    scripted_llm.script(
        [
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
            {"text": "Das dauert …", "delay": 30},
        ]
    )
    async with ws_connect(akte.anwalt) as (comm, _c, _code):
        await comm.send_json_to({"type": "chat.send", "text": "Prüfe die Akte.", "akte": akte.pk, "mode": "BACKGROUND"})
        accepted = await comm.receive_json_from(timeout=10)
        assert accepted["mode"] == "BACKGROUND"
        seen = await receive_until(comm, lambda m: m.get("type") == "step.started" and m.get("step") == 2, within=60)
        assert seen[0]["type"] == "run.started" and seen[0]["mode"].upper() == "BACKGROUND"
        await asyncio.to_thread(scripted_llm.wait_for_requests, 2, 20)
        started = time.monotonic()
        await comm.send_json_to({"type": "run.cancel", "run": accepted["run"]})
        rest = await receive_until(comm, is_terminal, within=15)
        elapsed = time.monotonic() - started
    assert rest[-1]["type"] == "run.cancelled"
    assert elapsed < 2.0, f"cancel took {elapsed:.2f} s"
    run = await sync_to_async(AgentRun.objects.get)(pk=accepted["run"])
    assert run.status == AgentRun.Status.CANCELLED
    assert await sync_to_async(AgentStep.objects.filter(run=run, type="tool.call").exists)(), "partial trace kept"


async def test_reload_mid_run_replays_and_continues_live(db_worker, scripted_tier, scripted_llm):
    akte = await sync_to_async(AkteFactory)()
    scripted_llm.script(
        [
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
            {"text": "Fertig nach der Pause.", "delay": 2.0},
        ]
    )
    async with ws_connect(akte.anwalt) as (comm, _c, _code):
        await comm.send_json_to({"type": "chat.send", "text": "Prüfe die Akte.", "akte": akte.pk, "mode": "BACKGROUND"})
        run_id = (await comm.receive_json_from(timeout=10))["run"]
        before = await receive_until(comm, lambda m: m.get("type") == "tool.result", within=60)
    last_seen = before[-1]["seq"]
    async with ws_connect(akte.anwalt) as (comm, _c, _code):
        await comm.send_json_to({"type": "run.resume", "run": run_id, "after_seq": last_seen})
        after = await receive_until(comm, is_terminal, within=60)
    assert [e["seq"] for e in after] == list(range(last_seen + 1, last_seen + 1 + len(after)))
    assert after[-1]["type"] == "run.finished" and "Fertig nach der Pause." in after[-1]["answer"]


async def test_worker_start_fails_runs_left_running_by_a_crashed_process(settings):
    user = await sync_to_async(UserFactory)()
    stale = timezone.now() - datetime.timedelta(minutes=5)
    run = await sync_to_async(AgentRun.objects.create)(
        user=user, task="verwaist", status=AgentRun.Status.RUNNING, started_at=stale, heartbeat_at=stale
    )
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.backend.DatabaseBackend"}}
    process = await asyncio.to_thread(start_worker)
    try:
        async with ws_connect(user) as (comm, _c, _code):
            await comm.send_json_to({"type": "run.resume", "run": run.pk, "after_seq": 0})
            final = (await receive_until(comm, is_terminal, within=60))[-1]
    finally:
        await asyncio.to_thread(stop_worker, process)
    assert final["type"] == "run.failed" and "unterbrochen" in final["error"]
    await sync_to_async(run.refresh_from_db)()
    assert run.status == AgentRun.Status.FAILED
