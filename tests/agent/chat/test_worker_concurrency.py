"""A `db_worker` process with `--concurrency 2` runs two background runs at once: the second
run's model request starts while the first one's is still being answered."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async

from agent.models import AgentRun
from tests.factories import AkteFactory

from .conftest import is_terminal, receive_until, ws_connect
from .test_background_runs import ROOT, stop_worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def two_slot_worker(settings) -> Iterator[subprocess.Popen]:
    from tests.support.subprocess_env import env_on_test_database

    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.backend.DatabaseBackend"}}
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    log = (ROOT / "test-artifacts" / "worker.log").open("ab")
    process = subprocess.Popen(  # noqa: S603
        [
            sys.executable,
            "manage.py",
            "db_worker",
            "--no-reload",
            "--interval",
            "0.1",
            "--no-startup-delay",
            "--concurrency",
            "2",
        ],
        cwd=ROOT,
        env=env_on_test_database("tests.agent.chat.worker_settings"),
        stdout=log,
        stderr=log,
    )
    try:
        yield process
    finally:
        stop_worker(process)


async def test_two_background_runs_execute_at_once(two_slot_worker, scripted_tier, scripted_llm):
    akte = await sync_to_async(AkteFactory)()
    scripted_llm.script([{"text": "Erster fertig.", "delay": 3}, {"text": "Zweiter fertig.", "delay": 3}])
    async with ws_connect(akte.anwalt) as (comm, _c, _code):
        runs = []
        for text in ("Erster Auftrag.", "Zweiter Auftrag."):
            await comm.send_json_to({"type": "chat.send", "text": text, "akte": akte.pk, "mode": "BACKGROUND"})
            runs.append((await comm.receive_json_from(timeout=10))["run"])
        for run in runs:
            async with ws_connect(akte.anwalt) as (tab, _c2, _code2):
                await tab.send_json_to({"type": "run.resume", "run": run, "after_seq": 0})
                final = (await receive_until(tab, is_terminal, within=60))[-1]
            assert final["type"] == "run.finished"
    statuses = await sync_to_async(list)(AgentRun.objects.filter(pk__in=runs).values_list("status", flat=True))
    assert statuses == [AgentRun.Status.DONE, AgentRun.Status.DONE]
    first, second = sorted(scripted_llm.chat_requests, key=lambda r: r.started_at)[:2]
    assert first.finished_at is not None
    assert second.started_at < first.finished_at, "the second run waited for the first"
