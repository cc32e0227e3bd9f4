"""A tool call's statement that waits on a lock ends after settings.HELENA_TOOL_STATEMENT_TIMEOUT_SECONDS
with an error, on the process's real tool threads: the run's own time limit moves the run on but
does not stop a thread, and a statement waiting for good kept one of the few tool threads from every
later call of the process."""

from __future__ import annotations

import threading

import pytest
from asgiref.sync import async_to_sync
from django.db import connection, transaction

from agent.tools import executor
from agent.tools.base import ToolContext
from agent.tools.executor import toolbox_for
from tests.factories import AkteFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _hold_table_lock(locked: threading.Event, release: threading.Event) -> None:
    """Another session holds the Akten table, as a long migration or a stuck transaction would."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("LOCK TABLE akten_akte IN ACCESS EXCLUSIVE MODE")
            locked.set()
            release.wait(timeout=30)
    finally:
        connection.close()


def test_a_tool_waiting_on_a_lock_ends_with_an_error_and_frees_its_thread(settings):
    settings.HELENA_TOOL_STATEMENT_TIMEOUT_SECONDS = 0.5
    executor._tool_threads.cache_clear()  # fresh tool threads: their connections get today's limit
    akte = AkteFactory()
    box = toolbox_for(ToolContext(user=akte.anwalt, akte=None, run=None), thread_sensitive=False)
    locked, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=_hold_table_lock, args=(locked, release))
    holder.start()
    try:
        assert locked.wait(timeout=10)
        waited = async_to_sync(box.execute)("read_akte", {"akte": akte.aktenzeichen}, call_id="c1")
    finally:
        release.set()
        holder.join(timeout=30)
    # without the limit the call waited for the lock and then answered (ok) once it was released
    assert not waited.ok and "interner Fehler" in (waited.error or "")

    again = async_to_sync(box.execute)("read_akte", {"akte": akte.aktenzeichen}, call_id="c2")
    assert again.ok, again.error  # the thread and its connection serve the next call
    executor._tool_threads.cache_clear()
