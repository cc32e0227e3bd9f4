"""RunEventSink: numbering, persistence before publish, draft linking, publish failures."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync

from agent.models import AgentRun, AgentStep
from agent.runs.events import RunEventSink
from drafts.models import HelenaDraft
from tests.factories import AkteFactory

pytestmark = pytest.mark.django_db(transaction=True)


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
