"""Small database helpers shared by the apps."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def trace_write() -> Iterator[None]:
    """A transaction for trace rows (run events, tool-call audit) that does not wait for its WAL
    flush (several milliseconds on a slow disk, per row).

    After a crash of the database server the last few such rows (at most ~200 ms worth) could be
    missing, never half-written; a crash of Helena itself loses nothing. Records a user relies on
    (drafts, approvals, a run's final state and terminal event) are never written this way.
    """
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
        yield
