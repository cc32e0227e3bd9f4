"""helena.db.trace_write: trace rows skip the WAL flush, with one session setting per trace connection."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agent.models import AgentRun, AgentStep
from helena.db import trace_execute, trace_insert, trace_thread, trace_write
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _setting() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return str(cursor.fetchone()[0])


def _sets(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if q["sql"].startswith(("SET", "RESET"))]


def test_a_trace_thread_sets_synchronous_commit_once_per_connection_and_durable_writes_commit_synchronously():
    connection.close()
    with CaptureQueriesContext(connection) as queries:
        with trace_thread():
            for _ in range(3):
                with trace_write():
                    assert _setting() == "off"
            with trace_write(durable=True):
                assert _setting() == "on"
            assert _setting() == "off"  # the session keeps its setting after a durable write
            connection.close()
            with trace_write():  # a new connection gets the setting again
                assert _setting() == "off"
        assert _setting() == "on"  # the thread's connection serves other writes again
    assert _sets(queries) == [
        "SET synchronous_commit TO OFF",
        "SET LOCAL synchronous_commit TO ON",
        "SET synchronous_commit TO OFF",
        "RESET synchronous_commit",
    ]


def test_outside_a_trace_thread_each_trace_transaction_sets_it_locally():
    with CaptureQueriesContext(connection) as queries:
        for _ in range(2):
            with trace_write():
                assert _setting() == "off"
        with trace_write(durable=True):
            assert _setting() == "on"
        assert _setting() == "on"
    assert _sets(queries) == ["SET LOCAL synchronous_commit TO OFF"] * 2


def test_a_trace_statement_carries_its_setting_in_the_same_round_trip():
    setting = "SELECT current_setting('synchronous_commit')"
    connection.close()
    with CaptureQueriesContext(connection) as queries:
        assert trace_execute(setting, []) == [("off",)]  # SET LOCAL in front, one implicit transaction
        assert trace_execute(setting, [], durable=True) == [("on",)]
        with trace_thread():
            assert trace_execute(setting, []) == [("off",)]
            assert trace_execute(setting, [], durable=True) == [("on",)]
            assert trace_execute(setting, []) == [("off",)]
        assert _setting() == "on"
    sent = [q["sql"] for q in queries.captured_queries if "current_setting" in q["sql"]]
    assert sent == [
        f"SET LOCAL synchronous_commit TO OFF; {setting}",
        setting,
        setting,
        f"SET LOCAL synchronous_commit TO ON; {setting}",
        setting,
    ]


def test_trace_insert_writes_the_rows_in_one_statement_and_sets_their_keys():
    run = AgentRun.objects.create(user=UserFactory(), task="Frage")
    rows = [AgentStep(run=run, seq=seq, type="step.started", payload={"step": seq}) for seq in (1, 2, 3)]
    with CaptureQueriesContext(connection) as queries:
        trace_insert(rows)
    assert len(queries.captured_queries) == 1
    stored = list(AgentStep.objects.filter(run=run).order_by("seq"))
    assert [row.pk for row in rows] == [step.pk for step in stored]
    assert [step.payload for step in stored] == [{"step": 1}, {"step": 2}, {"step": 3}]
    assert all(step.created_at is not None for step in stored)


def test_trace_insert_stores_what_the_orm_stores():
    """The prepared statement (made once per model and row count) against Django's own save."""
    from agent.models import ToolCallAudit

    user = UserFactory()
    run = AgentRun.objects.create(user=user, task="Frage")
    payload = {"text": "Kündigung – „fristlos“ ✓", "nested": [1, None, {"x": 2.5}], "empty": {}}

    def audit(call_id: str) -> ToolCallAudit:
        return ToolCallAudit(
            run=run,
            user=user,
            akte_id=None,
            tool="read_akte",
            call_id=call_id,
            arguments=payload,
            summary="1 Ergebnis",
            ok=True,
            cached=False,
            duration_ms=7,
        )

    fast = [audit("fast-1"), audit("fast-2")]
    trace_insert(fast)
    orm = audit("orm")
    orm.save()
    fields = ["run_id", "user_id", "akte_id", "tool", "arguments", "summary", "ok", "cached", "duration_ms"]
    stored = {row["call_id"]: row for row in ToolCallAudit.objects.values("call_id", "created_at", *fields)}
    for row in fast:
        assert stored[row.call_id]["created_at"] is not None
        assert {k: stored[row.call_id][k] for k in fields} == {k: stored["orm"][k] for k in fields}
    steps = [AgentStep(run=run, seq=seq, type="tool.result", payload=payload) for seq in (1, 2)]
    trace_insert(steps[:1])
    trace_insert(steps[1:])  # another row count, another statement
    assert [s.payload for s in AgentStep.objects.filter(run=run).order_by("seq")] == [payload, payload]


def test_trace_insert_takes_a_query_expression_through_the_compiler():
    from django.db.models import Value
    from django.db.models.functions import Lower

    run = AgentRun.objects.create(user=UserFactory(), task="Frage")
    row = AgentStep(run=run, seq=1, type=Lower(Value("STEP.STARTED")), payload={})
    trace_insert([row])
    assert AgentStep.objects.get(pk=row.pk).type == "step.started"


@pytest.mark.django_db(transaction=True)
def test_connection_tidy_keeps_a_healthy_connection_without_a_health_check_and_closes_a_bad_or_aged_one():
    """Between tool calls on a pool thread: no extra round trip for a healthy connection (Django's
    close_old_connections would make the next query ping first), but a connection with errors or
    past CONN_MAX_AGE is closed like at the end of a request."""
    from helena.db import connection_tidy

    connection.ensure_connection()
    raw = connection.connection
    connection.close_at = None  # as with CONN_MAX_AGE=None (the tests run with 0: closed at once)
    connection.health_check_done = True
    connection_tidy()
    assert connection.connection is raw and connection.health_check_done  # no ping on the next query

    connection.errors_occurred = True  # a query failed; the server is in fact gone
    raw.close()
    connection_tidy()
    assert connection.connection is None

    connection.ensure_connection()
    connection.close_at = 0.0  # past CONN_MAX_AGE
    connection_tidy()
    assert connection.connection is None
    connection.ensure_connection()


def test_a_pollers_database_error_closes_its_connection_and_is_raised():
    from django.db import DatabaseError

    from helena.db import reconnect_after_error

    with reconnect_after_error(), connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    assert connection.connection is not None  # kept after a good statement
    with pytest.raises(DatabaseError), reconnect_after_error(), connection.cursor() as cursor:
        cursor.execute("SELECT * FROM no_such_table")
    assert connection.connection is None
    with reconnect_after_error(), connection.cursor() as cursor:  # the next poll connects afresh
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
