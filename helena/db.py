"""Small database helpers shared by the apps."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from django.db import DatabaseError, connection, transaction
from django.db.models import Field, Model
from django.db.models.sql import InsertQuery

_trace_thread = threading.local()


@contextmanager
def trace_thread() -> Iterator[None]:
    """Within: the calling thread is a trace writer, its connection serves trace rows only.

    Its sessions then run with `synchronous_commit = off`, set once per (re)connection by
    `trace_write` instead of a `SET LOCAL` round trip in every transaction. Only for threads that
    write nothing a user relies on (agent/runs/events.py, the event writer); a thread that also
    writes drafts or a run's final state must not use it. With Django's connection pool the
    setting would travel with the pooled connection to other threads, so there every transaction
    sets it locally, as in any other thread.
    """
    _trace_thread.enabled = True
    try:
        yield
    finally:
        _trace_thread.enabled = False
        prepared, _trace_thread.prepared = getattr(_trace_thread, "prepared", None), None
        if prepared is not None and prepared is connection.connection:
            with connection.cursor() as cursor:  # the connection goes on serving other writes
                cursor.execute("RESET synchronous_commit")


def _session_off() -> bool:
    """Whether this connection's session runs with synchronous_commit off: set here, once per
    connection and outside any transaction, on a trace writer's connection."""
    prepared = getattr(_trace_thread, "prepared", None)
    if prepared is not None and prepared is connection.connection:
        return True
    if not getattr(_trace_thread, "enabled", False) or connection.in_atomic_block:
        return False
    if connection.settings_dict.get("OPTIONS", {}).get("pool"):
        return False
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO OFF")
    _trace_thread.prepared = connection.connection
    return True


def _local_setting(*, durable: bool) -> str:
    """The SET LOCAL a trace transaction needs on this connection, "" when its session already
    commits that way. Call outside a transaction: a trace thread's session is prepared here."""
    if connection.vendor != "postgresql" or durable != _session_off():
        return ""
    return "SET LOCAL synchronous_commit TO ON" if durable else "SET LOCAL synchronous_commit TO OFF"


@contextmanager
def trace_write(*, durable: bool = False) -> Iterator[None]:
    """A transaction for trace rows (run events, tool-call audit) that does not wait for its WAL
    flush (several milliseconds on a slow disk, per row).

    After a crash of the database server the last such rows (at most three times
    `wal_writer_delay` worth, ~600 ms) could be missing, never half-written; a crash of Helena
    itself loses nothing. Records a user relies on (drafts, approvals, a run's final state) are
    never written this way. `durable=True` commits this one transaction synchronously, also on a
    trace writer's connection (a run's terminal event, and the rows written with it): PostgreSQL
    flushes the WAL in order, so the trace rows committed before it are then durable too.
    """
    setting = _local_setting(durable=durable)
    with transaction.atomic():
        if setting:
            with connection.cursor() as cursor:
                cursor.execute(setting)
        yield


def trace_execute(sql: str, params: Sequence[Any], *, durable: bool = False) -> list[tuple[Any, ...]]:
    """One statement that writes trace rows, as its own transaction, committed like `trace_write`
    commits (`durable` likewise); returns its rows (RETURNING). One round trip: a SET LOCAL it
    needs is sent in the same query string, where both run in one implicit transaction
    (`trace_write` would add BEGIN and COMMIT). Inside an `atomic` block it is part of that
    transaction, in a savepoint, and commits as that transaction does."""
    if connection.in_atomic_block:
        # called inside a transaction after all: a savepoint, so a failure leaves it usable
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, params)
            return list(cursor.fetchall())
    setting = _local_setting(durable=durable)
    return execute_with_local_settings([setting] if setting else [], sql, params)


def execute_with_local_settings(settings: Sequence[str], sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """`sql` with the `SET LOCAL` statements `settings` (constant SQL, no parameters) before it:
    sent in one query string, they run in one implicit transaction that ends with the query, so
    the settings apply to it also outside a transaction, in one round trip (`BEGIN`, the settings,
    the query and `COMMIT` would take four). Inside an `atomic` block it runs in a savepoint, so a
    failure leaves that transaction usable, and the settings last until that transaction ends.
    With server-side binding (one command per prepared statement) the statements go one by one in
    a transaction of their own. Returns the query's rows."""
    if connection.in_atomic_block or (settings and connection.settings_dict.get("OPTIONS", {}).get("server_side_binding")):
        with transaction.atomic(), connection.cursor() as cursor:
            for setting in settings:
                cursor.execute(setting)
            cursor.execute(sql, params)
            return list(cursor.fetchall())
    with connection.cursor() as cursor:
        cursor.execute("; ".join([*settings, sql]), params)
        for _setting in settings:
            cursor.nextset()
        return list(cursor.fetchall())


def trace_insert(rows: Sequence[Model], *, durable: bool = False) -> None:
    """INSERT trace `rows` (instances of one model) with `trace_execute`: one statement, one round
    trip, its own transaction; sets their primary keys (auto_now_add fields are filled).

    The statement's text is made once per model and row count (`_insert_statement`); the values
    are prepared per row as Django's insert compiler prepares them (`pre_save`, then
    `get_db_prep_save`). Compiling the INSERT anew cost more CPU than the database's own work for
    the few rows of a run event, on every event. A row holding a query expression goes through
    the compiler."""
    if not rows:
        return
    sql, params = _insert(rows)
    for row, (pk,) in zip(rows, trace_execute(sql, params, durable=durable), strict=True):
        row.pk = pk


def _insert(rows: Sequence[Model]) -> tuple[str, Sequence[Any]]:
    """The INSERT … RETURNING pk of `rows` (one model) and its parameters."""
    sql, fields = _insert_statement(type(rows[0]), len(rows))
    values = [field.pre_save(row, True) for row in rows for field in fields]
    if any(hasattr(value, "resolve_expression") for value in values):
        return _compiled_insert(rows)
    prepared = zip(fields * len(rows), values, strict=True)
    return sql, [field.get_db_prep_save(value, connection=connection) for field, value in prepared]


@functools.lru_cache(maxsize=256)
def _insert_statement(model: type[Model], count: int) -> tuple[str, list[Field[Any, Any]]]:
    """INSERT … VALUES (…), … RETURNING pk for `count` rows of `model`, and its fields in order."""
    meta = model._meta
    fields = [field for field in meta.concrete_fields if field is not meta.auto_field]
    quote = connection.ops.quote_name
    placeholders = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(str(field.column)) for field in fields)}) "  # noqa: S608 - names from _meta
        f"VALUES {', '.join([placeholders] * count)} RETURNING {quote(str(meta.pk.column))}"
    )
    return sql, fields


def _compiled_insert(rows: Sequence[Model]) -> tuple[str, Sequence[Any]]:
    meta = rows[0]._meta
    query = InsertQuery(type(rows[0]))
    query.insert_values([f for f in meta.concrete_fields if f is not meta.auto_field], list(rows))
    compiler = query.get_compiler(connection=connection)
    compiler.returning_fields = [meta.pk]
    ((sql, params),) = compiler.as_sql()
    return sql, params


def connection_tidy() -> None:
    """Between two units of work on a pool thread that keeps its connection (tool calls): close the
    thread's connection when it had errors, outlived CONN_MAX_AGE or was left outside autocommit,
    like `close_old_connections` does at the end of a request, but keep a healthy connection
    without the health check's extra round trip that `close_old_connections` causes on its next
    use. A connection that broke in between fails its next query, which marks it as having had
    errors, so the call after that reconnects (the run sees one tool error, never a wrong result)."""
    if connection.connection is None:
        return
    obsolete = connection.close_at is not None and time.monotonic() >= connection.close_at
    if connection.errors_occurred or obsolete or connection.get_autocommit() != connection.settings_dict["AUTOCOMMIT"]:
        connection.close_if_unusable_or_obsolete()


@contextmanager
def reconnect_after_error() -> Iterator[None]:
    """For a poller's statements on its own long-lived connection: a database error closes the
    thread's connection (the next poll connects afresh) and goes on to the caller."""
    try:
        yield
    except DatabaseError:
        connection.close()
        raise
