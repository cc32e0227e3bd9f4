"""Faults of a worker process: a SIGTERM (deployment, `make prod-down`) mid-run lets the running
background run finish and the process exit cleanly; the run is not left RUNNING."""

from __future__ import annotations

import asyncio
import signal

import pytest
from asgiref.sync import sync_to_async

from agent.models import AgentRun
from tests.factories import AkteFactory

from .conftest import is_terminal, receive_until, ws_connect
from .test_background_runs import start_worker, stop_worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_sigterm_mid_run_lets_the_run_finish_and_the_worker_exit(settings, scripted_tier, scripted_llm):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.backend.DatabaseBackend"}}
    akte = await sync_to_async(AkteFactory)()
    scripted_llm.script([{"text": "Trotz Neustart fertig.", "delay": 2}])
    process = await asyncio.to_thread(start_worker)
    try:
        async with ws_connect(akte.anwalt) as (comm, _c, _code):
            await comm.send_json_to({"type": "chat.send", "text": "Prüfe die Akte.", "akte": akte.pk, "mode": "BACKGROUND"})
            run_id = (await comm.receive_json_from(timeout=10))["run"]
            await asyncio.to_thread(scripted_llm.wait_for_requests, 1, 30)
            process.send_signal(signal.SIGTERM)
            final = (await receive_until(comm, is_terminal, within=30))[-1]
        exit_code = await asyncio.to_thread(process.wait, 30)
    finally:
        await asyncio.to_thread(stop_worker, process)
    assert final["type"] == "run.finished" and "Trotz Neustart fertig." in final["answer"]
    assert exit_code == 0
    run = await sync_to_async(AgentRun.objects.get)(pk=run_id)
    assert run.status == AgentRun.Status.DONE
