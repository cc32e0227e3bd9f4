"""Background runs through the Django Tasks API (django-tasks backport; the django-tasks-db queue in
both the embedded default and production). A worker executes exactly the engine code an inline run
executes; events reach the browsers through the database (see agent/runs/delivery.py)."""

from __future__ import annotations

import asyncio
import logging

from asgiref.sync import async_to_sync
from django.db import DatabaseError, transaction
from django_tasks import task

from agent.llm.factory import llm_connections_close
from agent.models import AgentRun
from agent.runs.delivery import event_publish

logger = logging.getLogger(__name__)
# A database away for up to about this many attempts × seconds does not strand a queued run.
CLAIM_ATTEMPTS = 15
CLAIM_RETRY_SECONDS = 2.0


@task()
def run_agent(run_id: int) -> str:
    """Execute one background run to its end; returns the final status."""
    # async_to_sync (not asyncio.run) so the engine's thread-sensitive database calls run in this
    # worker thread instead of waiting for the process-wide sync thread.
    run = async_to_sync(_execute)(run_id)
    return str(run.status)


async def _execute(run_id: int) -> AgentRun:
    from agent.runs.execution import run_execute

    attempt = 1
    try:
        while True:
            try:
                return await run_execute(run_id, publish=event_publish)
            except DatabaseError:
                # The database was away when the run was to be claimed (a restart, a failover): the
                # task is taken from the queue either way, so a run not retried here would wait
                # as PENDING forever. Claiming is idempotent: a run already claimed is returned.
                if attempt >= CLAIM_ATTEMPTS:
                    raise
                logger.warning("run %s: database unavailable, attempt %d of %d", run_id, attempt, CLAIM_ATTEMPTS)
                attempt += 1
                await asyncio.sleep(CLAIM_RETRY_SECONDS)
    finally:
        # this loop ends with the run: close the model connections it opened
        await llm_connections_close()


def run_enqueue(*, run_id: int) -> None:
    """Queue a background run once the transaction that created it is committed."""
    transaction.on_commit(lambda: run_agent.enqueue(run_id=run_id))
