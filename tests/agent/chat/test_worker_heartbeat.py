"""The worker heartbeat: a live `db_worker` process (two task slots) is seen by /readyz and
/metrics, its busy slots counted while it runs a background run; after a clean stop its row is
gone and /readyz says "degraded" (200: pages and chats still work, background runs wait)."""

from __future__ import annotations

import datetime
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from agent.models import AgentRun, TierConfig, WorkerHeartbeat
from agent.runs import services, tasks
from akten.models import Role
from tests.factories import AkteFactory, UserFactory
from tests.support.subprocess_env import env_on_test_database

ROOT = Path(__file__).resolve().parents[3]
DB_QUEUE = {"default": {"BACKEND": "django_tasks_db.backend.DatabaseBackend"}}


def metric(client, name: str) -> float:
    text = client.get("/metrics").content.decode()
    return next(s.value for f in text_string_to_metric_families(text) for s in f.samples if s.name == name)


def wait_for(condition: Callable[[], bool], within: float, what: str) -> None:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {within} s: {what}")
        time.sleep(0.2)


def health_check(env: dict[str, str]) -> int:
    """Exit status of `manage.py worker_health`, as a container's HEALTHCHECK runs it."""
    done = subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", "worker_health"], cwd=ROOT, env=env, capture_output=True, timeout=120, check=False
    )
    return done.returncode


@pytest.mark.django_db
def test_a_stale_heartbeat_is_no_live_worker_and_readyz_says_degraded(client, settings):
    settings.TASKS = DB_QUEUE
    settings.REDIS_URL = ""  # the CI's second path has Redis: its check is not this test's concern
    TierConfig.objects.all().delete()
    long_ago = timezone.now() - datetime.timedelta(minutes=5)
    WorkerHeartbeat.objects.create(worker_id="host:1", concurrency=4, busy=2, started_at=long_ago, seen_at=long_ago)
    answer = client.get("/readyz")
    assert answer.status_code == 200
    checks = {"database": True, "model_servers": {}, "worker": False}
    assert answer.json() == {"status": "degraded", "checks": checks, "degraded": ["worker"]}
    client.force_login(UserFactory(role=Role.ADMIN))
    assert metric(client, "helena_workers_alive") == 0
    assert metric(client, "helena_worker_slots_busy") == 0


@pytest.mark.django_db
def test_readyz_has_no_worker_check_when_tasks_run_in_the_process(client, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    settings.REDIS_URL = ""
    TierConfig.objects.all().delete()
    assert client.get("/readyz").json() == {"status": "ok", "checks": {"database": True, "model_servers": {}}}


@pytest.mark.django_db(transaction=True)
def test_worker_heartbeat_slots_busy_and_clean_stop(client, settings, scripted_tier, scripted_llm):
    settings.TASKS = DB_QUEUE
    TierConfig.objects.exclude(pk=scripted_tier.pk).delete()
    akte = AkteFactory()
    scripted_llm.script([{"text": "Nach einer Weile fertig.", "delay": 4}])
    client.force_login(UserFactory(role=Role.ADMIN))
    env = {**env_on_test_database("tests.agent.chat.worker_settings"), "HELENA_WORKER_HEARTBEAT_SECONDS": "0.3"}
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    with (ROOT / "test-artifacts" / "worker.log").open("ab") as log:
        command = ["manage.py", "db_worker", "--no-reload", "--interval", "0.1", "--no-startup-delay", "--concurrency", "2"]
        process = subprocess.Popen(  # noqa: S603
            [sys.executable, *command],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
        )
    try:
        wait_for(lambda: client.get("/readyz").json()["checks"].get("worker") is True, 60, "worker seen by /readyz")
        assert client.get("/readyz").json()["status"] == "ok"
        assert metric(client, "helena_workers_alive") == 1
        assert metric(client, "helena_worker_slots") == 2
        beat = WorkerHeartbeat.objects.get()
        assert beat.worker_id.rsplit(":", 1)[1] == str(process.pid)
        assert health_check(env) == 0, "the container health check sees the live worker"

        run = services.run_create(user=akte.anwalt, text="Prüfe die Akte.", akte=akte, mode="BACKGROUND")
        tasks.run_enqueue(run_id=run.pk)
        wait_for(lambda: metric(client, "helena_worker_slots_busy") == 1, 30, "one busy slot while the run works")
        wait_for(lambda: AgentRun.objects.get(pk=run.pk).status == AgentRun.Status.DONE, 60, "the run finished")
        wait_for(lambda: metric(client, "helena_worker_slots_busy") == 0, 30, "no busy slot after the run")

        process.terminate()
        assert process.wait(timeout=30) == 0
        assert not WorkerHeartbeat.objects.exists(), "a clean stop removes the heartbeat"
        answer = client.get("/readyz")
        assert answer.status_code == 200 and answer.json()["status"] == "degraded"
        assert health_check(env) == 1, "no worker left on this host"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
