"""RunEventSink: numbering, persistence before publish, draft linking, publish failures, the
bounded backlog, the terminal event written with the backlog, and the time stamp of the emit."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import threading
import time
from collections.abc import Iterator

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import connection, transaction
from django.utils import timezone

from agent.models import AgentRun, AgentStep
from agent.runs.events import RunEventSink
from drafts.models import HelenaDraft
from tests.factories import AkteFactory

pytestmark = pytest.mark.django_db(transaction=True)


@contextlib.contextmanager
def steps_locked() -> Iterator[threading.Event]:
    """A slow writer: another connection locks the AgentStep table so that reads go on and every
    INSERT waits, until the yielded event is set (or the block ends)."""
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("LOCK TABLE agent_agentstep IN EXCLUSIVE MODE")
                locked.set()
                release.wait()
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    assert locked.wait(timeout=60)
    try:
        yield release
    finally:
        release.set()
        holder.join()


def writer_waits() -> None:
    """Return once a write waits for the lock of `steps_locked`."""
    for _ in range(3000):
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_locks WHERE relation = 'agent_agentstep'::regclass AND NOT granted")
            if cursor.fetchone()[0]:
                return
        time.sleep(0.01)
    raise AssertionError("no write reached the lock")


def test_concurrent_emits_get_gap_free_numbers_after_existing_rows():
    akte = AkteFactory()
    run = AgentRun.objects.create(user=akte.anwalt, akte=akte)
    AgentStep.objects.create(run=run, seq=1, type="run.failed", payload={})
    published: list[dict] = []

    async def publish(event):
        published.append(event)

    async def scenario():
        sink = RunEventSink(run, publish)
        await asyncio.gather(*(sink.emit("tool.call", call_id=f"c{i}", n=i) for i in range(8)))
        await sink.flush()  # tool calls are written while the tools run; the end of a run waits for them

    async_to_sync(scenario)()

    rows = list(AgentStep.objects.filter(run=run).order_by("seq").values_list("seq", "type"))
    assert [seq for seq, _ in rows] == list(range(1, 10))
    assert sorted(e["seq"] for e in published) == list(range(2, 10))
    assert all(e["run"] == run.pk and e["at"] for e in published)


def test_a_failing_publish_never_ends_the_run_and_the_row_stays():
    akte = AkteFactory()
    run = AgentRun.objects.create(user=akte.anwalt, akte=akte)

    async def broken(event):
        raise ConnectionError("Kanal weg")

    async def scenario():
        sink = RunEventSink(run, broken)
        await sink.emit("step.started", step=1, label="Schritt 1/5")
        await sink.emit("thought", step=1, text="Ich lese die Akte.")  # awaited: the run goes on
        await sink.flush()

    async_to_sync(scenario)()
    assert list(AgentStep.objects.filter(run=run).order_by("seq").values_list("type", flat=True)) == ["step.started", "thought"]
    assert AgentStep.objects.get(run=run, seq=1).payload["label"] == "Schritt 1/5"


def test_draft_created_links_the_draft_to_its_tool_call_step():
    akte = AkteFactory()
    run = AgentRun.objects.create(user=akte.anwalt, akte=akte)
    draft = HelenaDraft.objects.create(
        typ="NOTIZ", akte=akte, titel="Notiz", payload={"text": "x"}, requested_by=akte.anwalt, origin_run=run,
        origin_tool_call_id="call_1",
    )  # fmt: skip

    async def scenario():
        sink = RunEventSink(run)
        await sink.emit("tool.call", call_id="call_1", tool="create_notiz", args={})
        await sink.emit("draft.created", call_id="call_1", draft=draft.pk, card={"id": draft.pk})

    async_to_sync(scenario)()

    draft.refresh_from_db()
    assert draft.origin_step == AgentStep.objects.get(run=run, type="tool.call")


def test_held_events_are_written_with_the_event_that_follows_and_published_after_their_rows():
    akte = AkteFactory()
    run = AgentRun.objects.create(user=akte.anwalt, akte=akte)
    seen: list[tuple[str, bool]] = []

    async def publish(event):
        exists = await AgentStep.objects.filter(run=run, seq=event["seq"]).aexists()
        seen.append((event["type"], exists))

    async def rows() -> int:
        return await AgentStep.objects.filter(run=run).acount()

    async def rows_settled(expected: int) -> int:
        for _ in range(50):  # unawaited rows (step.started, tool.call) are written in the background
            if await rows() >= expected:
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)
        return await rows()

    async def scenario():
        sink = RunEventSink(run, publish)
        await sink.emit("step.started", step=1)
        await sink.emit("model.response", step=1, usage={"prompt_tokens": 10, "completion_tokens": 2})
        counts = [await rows_settled(1)]
        await sink.emit("tool.call", step=1, call_id="c1", tool="read_akte", args={})
        await sink.emit("tool.result", step=1, call_id="c1", tool="read_akte", ok=True)
        counts.append(await rows_settled(3))
        await sink.emit("step.started", step=2)
        await sink.flush()
        return counts

    # the model response waited for the tool call, the tool result for the next step
    assert async_to_sync(scenario)() == [1, 3]
    assert list(AgentStep.objects.filter(run=run).order_by("seq").values_list("type", flat=True)) == [
        "step.started",
        "model.response",
        "tool.call",
        "tool.result",
        "step.started",
    ]
    assert seen == [(t, True) for t in ("step.started", "model.response", "tool.call", "tool.result", "step.started")]


def test_flush_writes_a_held_model_response_when_nothing_follows():
    akte = AkteFactory()
    run = AgentRun.objects.create(user=akte.anwalt, akte=akte)
    published: list[str] = []

    async def publish(event):
        published.append(event["type"])

    async def scenario():
        sink = RunEventSink(run, publish)
        await sink.emit("model.response", step=1, usage={"prompt_tokens": 10, "completion_tokens": 2})
        await sink.flush()
        await sink.flush()  # nothing left: no second row

    async_to_sync(scenario)()
    assert list(AgentStep.objects.filter(run=run).values_list("type", flat=True)) == ["model.response"]
    assert published == ["model.response"]


def test_emit_waits_while_the_backlog_is_full_and_goes_on_when_the_writer_catches_up():
    akte = AkteFactory()
    run = AgentRun.objects.create(user=akte.anwalt, akte=akte)
    published: list[int] = []

    async def publish(event):
        published.append(event["seq"])

    async def scenario():
        sink = RunEventSink(run, publish, backlog=3)
        emitted: list[int] = []

        async def engine():
            for step in range(1, 11):
                await sink.emit("step.started", step=step)  # not awaited for: only the bound stops it
                emitted.append(step)
            await sink.emit("run.finished", status="DONE", answer="Fertig", error="", usage={})

        with steps_locked() as release:
            task = asyncio.create_task(engine())
            await sync_to_async(writer_waits)()
            while_slow = (list(emitted), sink.pending, task.done())
            release.set()
        await task
        return while_slow, emitted

    while_slow, emitted = async_to_sync(scenario)()

    # three events were taken; the fourth waits for the writer instead of growing the backlog
    assert while_slow == ([1, 2, 3], 4, False)
    assert emitted == list(range(1, 11))
    rows = list(AgentStep.objects.filter(run=run).order_by("seq").values_list("seq", "type", "payload__step"))
    assert rows == [(n, "step.started", n) for n in range(1, 11)] + [(11, "run.finished", None)]
    assert published == list(range(1, 12))


def test_the_terminal_event_is_written_in_one_transaction_with_the_backlog_before_it():
    akte = AkteFactory()
    run = AgentRun.objects.create(user=akte.anwalt, akte=akte)

    async def scenario():
        sink = RunEventSink(run, backlog=50)
        with steps_locked() as release:
            await sink.emit("step.started", step=1)
            await sync_to_async(writer_waits)()  # the first write is in flight and waits
            for step in range(2, 6):
                await sink.emit("step.started", step=step)
            await sink.emit("tool.result", step=5, call_id="c5", tool="read_akte", ok=True)
            terminal = asyncio.create_task(sink.emit("run.cancelled", status="CANCELLED", answer="", error="", usage={}))
            await asyncio.sleep(0)  # the terminal event is queued behind the backlog
            release.set()
        await terminal

    async_to_sync(scenario)()

    with connection.cursor() as cursor:
        cursor.execute("SELECT type, xmin::text FROM agent_agentstep WHERE run_id = %s ORDER BY seq", [run.pk])
        rows = cursor.fetchall()
    types = [type for type, _ in rows]
    transactions = [xid for _, xid in rows]
    assert types == ["step.started"] * 5 + ["tool.result", "run.cancelled"]
    # the write in flight, then everything queued behind it with the terminal event: one transaction
    assert transactions[0] != transactions[1] and len(set(transactions[1:])) == 1


def test_events_are_stamped_when_emitted_not_when_written():
    akte = AkteFactory()
    run = AgentRun.objects.create(user=akte.anwalt, akte=akte)
    published: list[tuple[dict, datetime.datetime]] = []

    async def publish(event):
        published.append((event, timezone.now()))

    async def scenario():
        sink = RunEventSink(run, publish)
        started = timezone.now()
        with steps_locked() as release:
            await sink.emit("step.started", step=1)
            await sync_to_async(writer_waits)()
            await sink.emit("step.started", step=2)  # queued behind the write that waits
            emitted = timezone.now()
            release.set()
        await sink.flush()
        return started, emitted

    started, emitted = async_to_sync(scenario)()

    rows = list(AgentStep.objects.filter(run=run).order_by("seq"))
    stamps = [datetime.datetime.fromisoformat(row.payload["at"]) for row in rows]
    assert all(started <= at <= emitted for at in stamps)
    assert all(row.created_at > emitted for row in rows[1:])  # written after the writer was free again
    assert [event for event, _ in published] == [
        {"type": "step.started", "run": run.pk, "seq": row.seq, "at": row.payload["at"], "step": row.seq} for row in rows
    ]
    assert all(at_publish > emitted for _, at_publish in published)


def test_an_escalation_is_logged_with_its_category_and_never_the_reason_text(caplog):
    """Operators see why a run changed tier; the reason's text (which may quote the model server's
    error, and with it the conversation) stays in the trace."""
    akte = AkteFactory()
    run = AgentRun.objects.create(user=akte.anwalt, akte=akte)

    async def scenario():
        sink = RunEventSink(run)
        await sink.emit(
            "escalation",
            from_tier=1,
            to_tier=2,
            reason="Modellfehler: 500 Mandant Erika Mustermann",
            cause="Modellfehler",
            model="m",
            demo=False,
        )
        await sink.flush()

    with caplog.at_level("INFO", logger="agent.runs.events"):
        async_to_sync(scenario)()
    (record,) = [r for r in caplog.records if r.name == "agent.runs.events"]
    assert record.getMessage() == f"run {run.pk} escalated from tier 1 to tier 2: Modellfehler"
    assert "Mustermann" not in caplog.text
    assert AgentStep.objects.get(run=run).payload["reason"].endswith("Erika Mustermann")
