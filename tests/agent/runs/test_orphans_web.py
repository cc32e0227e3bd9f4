"""A run whose process died is ended by the web process too: with no worker left, daphne's own
orphan sweep marks it FAILED within the 60 s a heartbeat may be old, and its trace is kept."""

from __future__ import annotations

import datetime
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.utils import timezone

from agent.models import AgentRun, AgentStep
from tests.browser.conftest import free_port
from tests.factories import UserFactory
from tests.support.subprocess_env import env_on_test_database

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.django_db(transaction=True)


def test_web_process_fails_a_run_of_a_dead_worker_and_keeps_its_trace():
    user = UserFactory()
    stale = timezone.now() - datetime.timedelta(minutes=3)
    run = AgentRun.objects.create(
        user=user, task="Frage", status=AgentRun.Status.RUNNING, mode=AgentRun.Mode.BACKGROUND, started_at=stale
    )
    AgentRun.objects.filter(pk=run.pk).update(heartbeat_at=stale)
    for seq in (1, 2):
        AgentStep.objects.create(
            run=run, seq=seq, type="step.started", payload={"step": seq, "max_steps": 20, "label": "Akte lesen"}
        )
    env = env_on_test_database("tests.browser.settings") | {"HELENA_ORPHAN_SWEEP_SECONDS": "0.5"}
    daphne = subprocess.Popen(  # noqa: S603 - our own server on the test database, no worker
        [sys.executable, "-m", "daphne", "-v", "0", "-b", "127.0.0.1", "-p", str(free_port()), "helena.asgi:application"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            run.refresh_from_db()
            if run.status != AgentRun.Status.RUNNING:
                break
            time.sleep(0.5)
    finally:
        daphne.terminate()
        daphne.wait(timeout=10)
    assert run.status == AgentRun.Status.FAILED
    assert run.error and run.finished_at is not None
    types = list(AgentStep.objects.filter(run=run).order_by("seq").values_list("type", flat=True))
    assert types == ["step.started", "step.started", "run.failed"]
