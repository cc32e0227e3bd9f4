"""ChatConsumer: authentication, origin, validation, access per message, replay and live order.
These tests need no model: runs and their events are written as the engine writes them
(AgentStep rows through agent.events.RunEventSink, published through agent.delivery)."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from agent.chat.consumers import MAX_TEXT_CHARS, RATE_MAX_MESSAGES
from agent.models import AgentRun, AgentStep, Conversation
from agent.runs.delivery import event_publish
from agent.runs.events import RunEventSink
from akten.models import Role
from tests.factories import AkteFactory, UserFactory

from .conftest import ORIGIN, is_terminal, receive_until, ws_connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def _finished_run(user, events: int = 5) -> AgentRun:
    run = AgentRun.objects.create(user=user, task="Frage", status=AgentRun.Status.DONE, finished_at=timezone.now())
    for seq in range(1, events):
        AgentStep.objects.create(run=run, seq=seq, type="step.started", payload={"step": seq, "max_steps": 5, "label": f"S{seq}"})
    AgentStep.objects.create(run=run, seq=events, type="run.finished", payload={"status": "DONE", "answer": "Fertig."})
    return run


async def test_anonymous_connection_is_refused():
    async with ws_connect(None) as (_comm, connected, code):
        assert not connected
        assert code == 4401


async def test_foreign_origin_is_refused():
    user = await sync_to_async(UserFactory)()
    async with ws_connect(user, origin=b"http://evil.example") as (_comm, connected, _code):
        assert not connected


async def test_missing_origin_is_refused():
    user = await sync_to_async(UserFactory)()
    async with ws_connect(user, origin=None) as (_comm, connected, _code):
        assert not connected


async def test_logged_in_user_connects_with_own_origin():
    user = await sync_to_async(UserFactory)()
    async with ws_connect(user, origin=ORIGIN) as (_comm, connected, _code):
        assert connected


@pytest.mark.parametrize(
    "payload",
    [
        "kein json",
        json.dumps({"type": "unbekannt"}),
        json.dumps({"type": "chat.send"}),
        json.dumps({"type": "chat.send", "text": "   "}),
        json.dumps({"type": "chat.send", "text": "x" * (MAX_TEXT_CHARS + 1)}),
        json.dumps({"type": "chat.send", "text": "Hallo", "akte": "1; DROP TABLE"}),
        json.dumps({"type": "chat.send", "text": "Hallo", "extra": 1}),
        json.dumps({"type": "run.resume", "run": -1, "after_seq": 0}),
        json.dumps({"type": "run.cancel"}),
        json.dumps([1, 2, 3]),
    ],
)
async def test_invalid_messages_get_a_german_error_and_the_socket_stays_open(payload):
    user = await sync_to_async(UserFactory)()
    async with ws_connect(user) as (comm, connected, _code):
        assert connected
        await comm.send_to(text_data=payload)
        error = await comm.receive_json_from(timeout=5)
        assert error["type"] == "error" and error["code"] == "invalid"
        assert error["message"] == "Die Nachricht ist ungültig." or error["message"] == "Die Nachricht ist zu groß."
        assert "Traceback" not in json.dumps(error)
        # still usable afterwards
        await comm.send_json_to({"type": "run.resume", "run": 999999, "after_seq": 0})
        assert (await comm.receive_json_from(timeout=5))["code"] == "not_found"


@pytest.mark.parametrize("text", ["Frist\x00 prüfen", "Akte \x1b[31m12/25", "Hallo\x7f"])
async def test_control_characters_in_a_message_get_a_german_error_naming_the_field(text):
    user = await sync_to_async(UserFactory)()
    async with ws_connect(user) as (comm, _connected, _code):
        await comm.send_to(text_data=json.dumps({"type": "chat.send", "text": text}))
        error = await comm.receive_json_from(timeout=5)
        assert error["type"] == "error" and error["code"] == "invalid"
        assert "„text“" in error["message"] and "Steuerzeichen" in error["message"]
        assert not await sync_to_async(AgentRun.objects.filter(user=user).exists)()


async def test_line_breaks_and_tabs_are_allowed_in_a_message():
    user = await sync_to_async(UserFactory)()
    async with ws_connect(user) as (comm, _connected, _code):
        frame = {"type": "chat.send", "text": "Erste Zeile\n\tzweite Zeile", "mode": "BACKGROUND"}
        await comm.send_to(text_data=json.dumps(frame))
        reply = await comm.receive_json_from(timeout=10)
        assert reply["type"] != "error", reply


async def test_oversized_frame_is_refused():
    user = await sync_to_async(UserFactory)()
    async with ws_connect(user) as (comm, _connected, _code):
        await comm.send_to(text_data=json.dumps({"type": "chat.send", "text": "ä" * 9000}))
        error = await comm.receive_json_from(timeout=5)
        assert error == {"type": "error", "code": "invalid", "message": "Die Nachricht ist zu groß."}


async def test_per_socket_message_rate_is_limited():
    user = await sync_to_async(UserFactory)()
    async with ws_connect(user) as (comm, _connected, _code):
        codes = []
        for _ in range(RATE_MAX_MESSAGES + 3):
            await comm.send_json_to({"type": "run.resume", "run": 424242, "after_seq": 0})
            codes.append((await comm.receive_json_from(timeout=5))["code"])
        assert codes[:RATE_MAX_MESSAGES] == ["not_found"] * RATE_MAX_MESSAGES
        assert codes[RATE_MAX_MESSAGES:] == ["rate"] * 3


async def test_another_users_run_conversation_and_akte_are_not_found():
    owner = await sync_to_async(UserFactory)()
    intruder = await sync_to_async(UserFactory)(role=Role.ANWALT)
    run = await sync_to_async(_finished_run)(owner)
    conversation = await sync_to_async(Conversation.objects.create)(user=owner, title="Privat")
    foreign_akte = await sync_to_async(AkteFactory)()
    async with ws_connect(intruder) as (comm, _connected, _code):
        for message in (
            {"type": "run.resume", "run": run.pk, "after_seq": 0},
            {"type": "run.cancel", "run": run.pk},
            {"type": "run.continue_background", "run": run.pk},
        ):
            await comm.send_json_to(message)
            error = await comm.receive_json_from(timeout=5)
            assert error["code"] == "not_found" and error["message"] == "Auftrag nicht gefunden."
        await comm.send_json_to({"type": "chat.send", "text": "Was steht drin?", "conversation": conversation.pk})
        error = await comm.receive_json_from(timeout=5)
        assert error["code"] == "not_found" and error["message"] == "Gespräch nicht gefunden."
        await comm.send_json_to({"type": "chat.send", "text": "Was steht drin?", "akte": foreign_akte.pk})
        error = await comm.receive_json_from(timeout=5)
        assert error["code"] == "not_found" and error["message"] == "Akte nicht gefunden."
        await comm.send_json_to({"type": "akte.watch", "akte": foreign_akte.pk})
        assert (await comm.receive_json_from(timeout=5))["message"] == "Akte nicht gefunden."
        assert await comm.receive_nothing(timeout=0.3)
    assert await sync_to_async(AgentRun.objects.filter(user=intruder).count)() == 0


async def test_access_is_rechecked_per_message_after_losing_the_akte():
    akte = await sync_to_async(AkteFactory)()
    user = akte.anwalt
    async with ws_connect(user) as (comm, _connected, _code):
        await comm.send_json_to({"type": "akte.watch", "akte": akte.pk})
        assert await comm.receive_nothing(timeout=0.3)
        other = await sync_to_async(UserFactory)()
        akte.anwalt = other
        await sync_to_async(akte.save)()
        await comm.send_json_to({"type": "akte.watch", "akte": akte.pk})
        assert (await comm.receive_json_from(timeout=5))["code"] == "not_found"


async def test_resume_replays_the_missing_events_in_order_and_stops_at_the_end():
    user = await sync_to_async(UserFactory)()
    run = await sync_to_async(_finished_run)(user, events=6)
    async with ws_connect(user) as (comm, _connected, _code):
        await comm.send_json_to({"type": "run.resume", "run": run.pk, "after_seq": 2})
        received = await receive_until(comm, is_terminal)
        assert [e["seq"] for e in received] == [3, 4, 5, 6]
        assert all(e["run"] == run.pk for e in received)
        assert received[-1]["answer_html"] == "<p>Fertig.</p>"
        assert await comm.receive_nothing(timeout=0.5)


async def test_live_events_arrive_in_order_and_a_reconnect_continues_without_gaps():
    """Events persisted and published by the engine's sink while a tab watches; the tab drops
    mid-run, reconnects with the last seq it saw and gets exactly the rest."""
    user = await sync_to_async(UserFactory)()
    run = await sync_to_async(AgentRun.objects.create)(user=user, task="Frage", status=AgentRun.Status.RUNNING)
    sink = RunEventSink(run, publish=event_publish)
    async with ws_connect(user) as (comm, _connected, _code):
        await comm.send_json_to({"type": "run.resume", "run": run.pk, "after_seq": 0})
        await asyncio.sleep(0.2)
        for step in range(1, 6):
            await sink.emit("step.started", step=step, max_steps=10, label=f"Schritt {step}/10")
        first = await receive_until(comm, lambda m: m.get("seq") == 5)
        assert [e["seq"] for e in first] == [1, 2, 3, 4, 5]
        assert first[0]["label"] == "Schritt 1/10" and first[0]["type"] == "step.started"
    # the tab is gone; the run goes on
    for step in range(6, 9):
        await sink.emit("step.started", step=step, max_steps=10, label=f"Schritt {step}/10")
    async with ws_connect(user) as (comm, _connected, _code):
        await comm.send_json_to({"type": "run.resume", "run": run.pk, "after_seq": 5})
        await asyncio.sleep(0.2)
        run.status = AgentRun.Status.DONE
        run.finished_at = timezone.now()
        await sync_to_async(run.save)()
        await sink.emit("run.finished", status="DONE", answer="Siehe **§ 823 BGB**.")
        rest = await receive_until(comm, is_terminal)
        assert [e["seq"] for e in rest] == [6, 7, 8, 9]
        assert "<strong>" in rest[-1]["answer_html"] and "<script" not in rest[-1]["answer_html"]


async def test_every_tab_of_the_user_gets_a_new_run_announced():
    user = await sync_to_async(UserFactory)()
    run = await sync_to_async(AgentRun.objects.create)(user=user, task="Hintergrund", status=AgentRun.Status.RUNNING)
    sink = RunEventSink(run, publish=event_publish)
    from agent.runs.delivery import user_notify_run

    async with ws_connect(user) as (tab_a, _c, _code), ws_connect(user) as (tab_b, _c2, _code2):
        await user_notify_run(user_id=user.pk, run_id=run.pk)
        await sink.emit("run.started", mode="BACKGROUND", tier=1, model="m", max_steps=20, demo=False)
        for tab in (tab_a, tab_b):
            event = await tab.receive_json_from(timeout=5)
            assert event["type"] == "run.started" and event["run"] == run.pk and event["seq"] == 1


async def test_a_run_whose_status_ended_before_its_last_events_were_written_still_delivers_them(monkeypatch):
    """The engine saves a run's final status just before it writes the terminal event (and the
    model response held with it). A tab whose watch sees the ended status first must keep waiting
    for them, not stop at the last event it had."""
    import agent.runs.delivery as delivery

    monkeypatch.setattr(delivery, "POLL_SECONDS_LOCAL", 0.05)
    user = await sync_to_async(UserFactory)()
    run = await sync_to_async(AgentRun.objects.create)(
        user=user, task="Frage", status=AgentRun.Status.DONE, finished_at=timezone.now()
    )
    for seq in (1, 2):
        await sync_to_async(AgentStep.objects.create)(run=run, seq=seq, type="step.started", payload={"step": seq})
    async with ws_connect(user) as (comm, _connected, _code):
        await comm.send_json_to({"type": "run.resume", "run": run.pk, "after_seq": 0})
        assert [(await comm.receive_json_from(timeout=5))["seq"] for _ in range(2)] == [1, 2]
        await asyncio.sleep(0.5)  # the watch has looked several times and seen the run ended
        await sync_to_async(AgentStep.objects.create)(run=run, seq=3, type="model.response", payload={"step": 2})
        await sync_to_async(AgentStep.objects.create)(
            run=run, seq=4, type="run.finished", payload={"status": "DONE", "answer": "Ok."}
        )
        received = await receive_until(comm, is_terminal)
    assert [e["seq"] for e in received] == [3, 4]


async def test_a_run_that_ended_without_its_terminal_event_ends_the_tail(monkeypatch):
    """A run whose worker died after saving the final status and before writing the terminal event:
    the tab stops watching it after the grace time instead of tailing it for ever."""
    import agent.chat.tails as tails
    import agent.runs.delivery as delivery

    monkeypatch.setattr(delivery, "POLL_SECONDS_LOCAL", 0.05)
    monkeypatch.setattr(tails, "ENDED_GRACE_SECONDS", 0.3)
    user = await sync_to_async(UserFactory)()
    run = await sync_to_async(AgentRun.objects.create)(
        user=user, task="Frage", status=AgentRun.Status.FAILED, finished_at=timezone.now()
    )
    await sync_to_async(AgentStep.objects.create)(run=run, seq=1, type="step.started", payload={"step": 1})
    async with ws_connect(user) as (comm, _connected, _code):
        await comm.send_json_to({"type": "run.resume", "run": run.pk, "after_seq": 0})
        assert (await comm.receive_json_from(timeout=5))["seq"] == 1
        for _ in range(100):
            if tails.tail_watch().tails == set():
                break
            await asyncio.sleep(0.05)
        assert tails.tail_watch().tails == set()


async def test_one_query_per_look_serves_every_tail_of_the_process(monkeypatch):
    """The watch reads the state of all watched runs in one statement, however many tabs there are."""
    import agent.chat.tails as tails
    import agent.runs.delivery as delivery

    monkeypatch.setattr(delivery, "POLL_SECONDS_LOCAL", 0.05)
    looks: list[list[int]] = []
    real = tails._runs_state_sync

    def counted(run_ids):
        looks.append(run_ids)
        return real(run_ids)

    monkeypatch.setattr(tails, "_runs_state_sync", counted)
    user = await sync_to_async(UserFactory)()
    runs = [
        await sync_to_async(AgentRun.objects.create)(user=user, task="Frage", status=AgentRun.Status.RUNNING) for _ in range(5)
    ]
    async with ws_connect(user) as (comm, _connected, _code):
        for run in runs:
            await comm.send_json_to({"type": "run.resume", "run": run.pk, "after_seq": 0})
        await asyncio.sleep(0.6)
        await sync_to_async(AgentStep.objects.create)(run=runs[3], seq=1, type="step.started", payload={"step": 1})
        event = await comm.receive_json_from(timeout=5)
    assert event["run"] == runs[3].pk and event["seq"] == 1
    full = [look for look in looks if len(look) == 5]
    assert full and all(look == sorted(r.pk for r in runs) for look in full)
    assert len(looks) <= 0.6 / 0.05 + 10  # one statement per look, not one per tab


async def test_a_new_draft_wakes_the_sockets_following_its_akte(monkeypatch):
    """The draft service announces a new draft on the Akte's group; the following socket reads the
    card at once instead of at its next poll (made an hour long here, so only the wake-up can
    deliver it)."""
    from agent.chat import consumers
    from drafts import services as draft_services

    monkeypatch.setattr(consumers, "AKTE_POLL_SECONDS_LOCAL", 3600.0)
    akte = await sync_to_async(AkteFactory)()
    async with ws_connect(akte.anwalt) as (comm, _connected, _code):
        await comm.send_json_to({"type": "akte.watch", "akte": akte.pk})
        assert await comm.receive_nothing(timeout=0.3)
        draft = await sync_to_async(draft_services.draft_create)(
            typ="NOTIZ", akte=akte, requested_by=akte.anwalt, payload={"titel": "Telefonat", "text": "Rückruf erbeten."}
        )
        message = await comm.receive_json_from(timeout=10)
        assert message["type"] == "draft.created" and message["akte"] == akte.pk
        assert message["card"]["id"] == draft.pk


async def test_a_role_changed_after_the_handshake_counts_for_the_next_message():
    """Review of stop 34: the socket kept the user of its handshake, so an ADMIN demoted to PRAKTIKANT
    could still watch a foreign Akte (and get its draft cards)."""
    foreign = await sync_to_async(AkteFactory)()
    user = await sync_to_async(UserFactory)(role=Role.ADMIN)
    async with ws_connect(user) as (comm, _connected, _code):
        await comm.send_json_to({"type": "akte.watch", "akte": foreign.pk})
        assert await comm.receive_nothing(timeout=0.3)  # control: the ADMIN may
        await sync_to_async(type(user).objects.filter(pk=user.pk).update)(role=Role.PRAKTIKANT)
        await comm.send_json_to({"type": "akte.watch", "akte": foreign.pk})
        assert (await comm.receive_json_from(timeout=5))["code"] == "not_found"
