"""New runs reach the user's other tabs from the database when the channel layer's `run.announce`
is lost (agent/chat/announcements.py): only the owner's tabs, each event once."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError
from django.utils import timezone

import agent.runs.delivery as delivery
from agent.chat import announcements, consumers
from agent.chat.consumers import ChatConsumer
from agent.models import AgentRun, AgentStep
from agent.runs.delivery import event_publish
from agent.runs.events import RunEventSink
from tests.factories import UserFactory

from .conftest import is_terminal, receive_until, ws_connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

POLL_SECONDS = 0.2


@pytest.fixture(autouse=True)
def _short_poll(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(announcements, "ANNOUNCE_POLL_SECONDS_LOCAL", POLL_SECONDS)
    monkeypatch.setattr(announcements, "ANNOUNCE_POLL_SECONDS_SHARED_LAYER", POLL_SECONDS)


@pytest.fixture
def announcements_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `run.announce` through the channel layer is lost (Redis restarting, a channel over
    capacity, a run started in another process with the in-memory layer)."""

    async def lost(*, user_id: int, run_id: int) -> None:
        return None

    monkeypatch.setattr(delivery, "user_notify_run", lost)
    monkeypatch.setattr(consumers, "user_notify_run", lost)


@pytest.fixture
def announce_calls(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[int, int]]:
    """(user id, run id) → how often a socket was told of the run, by either path."""
    calls: Counter[tuple[int, int]] = Counter()
    original = ChatConsumer.run_announce

    async def counted(self: ChatConsumer, message: dict[str, Any]) -> None:
        calls[(self.user.pk, int(message["run"]))] += 1
        await original(self, message)

    monkeypatch.setattr(ChatConsumer, "run_announce", counted)
    return calls


async def _until(condition: Callable[[], bool], *, within: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not condition():
        assert loop.time() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def _run_with_events(user: Any, *, steps: int = 3) -> AgentRun:
    """A run as another process writes it: row, event rows, published to the run's group only."""
    run = await sync_to_async(AgentRun.objects.create)(user=user, task="Frage", status=AgentRun.Status.RUNNING)
    sink = RunEventSink(run, publish=event_publish)
    await sink.emit("run.started", mode="INLINE", tier=1, model="m", max_steps=steps, demo=False)
    for step in range(1, steps + 1):
        await sink.emit("step.started", step=step, max_steps=steps, label=f"Schritt {step}/{steps}")
    run.status = AgentRun.Status.DONE
    run.finished_at = timezone.now()
    await sync_to_async(run.save)()
    await sink.emit("run.finished", status="DONE", answer="Fertig.")
    return run


async def _persisted_seqs(run_id: int) -> list[int]:
    return await sync_to_async(list)(AgentStep.objects.filter(run_id=run_id).order_by("seq").values_list("seq", flat=True))


async def test_a_run_started_in_one_tab_reaches_the_other_tab_when_its_announcement_is_lost(
    scripted_tier, scripted_llm, announcements_lost
):
    user = await sync_to_async(UserFactory)()
    scripted_llm.script([{"text": "Die Antwort steht in **§ 823 BGB**."}])
    async with ws_connect(user) as (tab_a, _c1, _code1), ws_connect(user) as (tab_b, _c2, _code2):
        await tab_a.send_json_to({"type": "chat.send", "text": "Wer haftet?", "mode": "INLINE"})
        accepted = await tab_a.receive_json_from(timeout=10)
        assert accepted["type"] == "run.accepted"
        in_tab_a = await receive_until(tab_a, is_terminal, within=30)
        in_tab_b = await receive_until(tab_b, is_terminal, within=30)
    persisted = await _persisted_seqs(accepted["run"])
    assert {e["run"] for e in in_tab_b} == {accepted["run"]}
    assert [e["seq"] for e in in_tab_b] == [e["seq"] for e in in_tab_a] == persisted
    assert in_tab_b[-1]["type"] == "run.finished" and "<strong>" in in_tab_b[-1]["answer_html"]


async def test_only_the_runs_owner_hears_of_it_not_another_user_nor_a_deactivated_one(announcements_lost):
    owner = await sync_to_async(UserFactory)()
    stranger = await sync_to_async(UserFactory)()
    deactivated = await sync_to_async(UserFactory)()
    async with (
        ws_connect(owner) as (owners_tab, _c1, _code1),
        ws_connect(stranger) as (strangers_tab, _c2, _code2),
        ws_connect(deactivated) as (deactivated_tab, _c3, _code3),
    ):
        deactivated.is_active = False
        await sync_to_async(deactivated.save)()
        await _run_with_events(deactivated)
        run = await _run_with_events(owner)
        received = await receive_until(owners_tab, is_terminal)
        assert [e["seq"] for e in received] == await _persisted_seqs(run.pk)
        assert {e["run"] for e in received} == {run.pk}
        # the look that found the owner's run also read the deactivated user's, created before it
        assert await strangers_tab.receive_nothing(timeout=3 * POLL_SECONDS)
        assert await deactivated_tab.receive_nothing(timeout=3 * POLL_SECONDS)


async def test_a_run_announced_both_ways_is_delivered_once_per_tab(announce_calls):
    user = await sync_to_async(UserFactory)()
    async with ws_connect(user) as (tab_a, _c1, _code1), ws_connect(user) as (tab_b, _c2, _code2):
        run = await sync_to_async(AgentRun.objects.create)(user=user, task="Frage", status=AgentRun.Status.RUNNING)
        sink = RunEventSink(run, publish=event_publish)
        await delivery.user_notify_run(user_id=user.pk, run_id=run.pk)
        await sink.emit("run.started", mode="BACKGROUND", tier=1, model="m", max_steps=3, demo=False)
        for tab in (tab_a, tab_b):
            first = await tab.receive_json_from(timeout=10)
            assert (first["type"], first["seq"]) == ("run.started", 1)
        # both tabs heard of it twice: through the user's group and from the database
        await _until(lambda: announce_calls[(user.pk, run.pk)] == 4)
        for step in (1, 2):
            await sink.emit("step.started", step=step, max_steps=3, label=f"Schritt {step}/3")
        run.status = AgentRun.Status.DONE
        run.finished_at = timezone.now()
        await sync_to_async(run.save)()
        await sink.emit("run.finished", status="DONE", answer="Fertig.")
        for tab in (tab_a, tab_b):
            rest = await receive_until(tab, is_terminal)
            assert [e["seq"] for e in rest] == [2, 3, 4]
        # a late announcement after the run has ended (a slow channel) sends nothing again
        await delivery.user_notify_run(user_id=user.pk, run_id=run.pk)
        await _until(lambda: announce_calls[(user.pk, run.pk)] == 6)
        for tab in (tab_a, tab_b):
            assert await tab.receive_nothing(timeout=3 * POLL_SECONDS)
    assert announce_calls[(user.pk, run.pk)] == 6, "the database path announces a run once"


async def test_a_failed_look_is_logged_without_client_data_and_the_next_one_announces(monkeypatch, caplog, announcements_lost):
    user = await sync_to_async(UserFactory)()
    looks: list[int] = []
    original = announcements.selectors.runs_created_since

    def database_down_once(**kwargs: Any) -> list[tuple[int, int]]:
        looks.append(1)
        if len(looks) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return original(**kwargs)

    monkeypatch.setattr(announcements.selectors, "runs_created_since", database_down_once)
    async with ws_connect(user) as (tab, _c, _code):
        await _until(lambda: len(looks) >= 1)
        run = await _run_with_events(user)
        received = await receive_until(tab, is_terminal)
    assert [e["seq"] for e in received] == await _persisted_seqs(run.pk)
    assert "reading new runs to announce failed" in caplog.text
    assert user.email not in caplog.text and user.last_name not in caplog.text
