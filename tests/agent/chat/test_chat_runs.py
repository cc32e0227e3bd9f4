"""Chat turns through the websocket with the real engine and the scripted LLM server: inline runs,
draft cards with live status, rate limit and German errors, the inline cap and its continuation."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.utils import timezone

from agent.models import AgentRun, AgentStep, EngineConfig, Message, RateLimit
from akten.models import KalenderEintrag, Role
from drafts.models import HelenaDraft
from tests.factories import AkteFactory, UserFactory
from tests.support.dates import next_workday

from .conftest import is_terminal, receive_until, ws_connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def _persisted(run_id: int) -> list[dict]:
    rows = await sync_to_async(list)(AgentStep.objects.filter(run_id=run_id).order_by("seq").values("seq", "type"))
    return rows


async def test_inline_question_streams_steps_and_answer_in_order(scripted_tier, scripted_llm):
    akte = await sync_to_async(AkteFactory)(kurzrubrum="Sommer ./. Winter")
    scripted_llm.script(
        [
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
            {"text": "Die Akte betrifft **Sommer ./. Winter**. Siehe Akte " + akte.aktenzeichen + "."},
        ]
    )
    async with ws_connect(akte.anwalt) as (comm, _c, _code):
        await comm.send_json_to({"type": "chat.send", "text": "Worum geht es in der Akte?", "akte": akte.pk, "mode": "INLINE"})
        accepted = await comm.receive_json_from(timeout=10)
        assert accepted["type"] == "run.accepted" and accepted["mode"] == "INLINE"
        events = await receive_until(comm, is_terminal, within=30)
    run_id = accepted["run"]
    types = [e["type"] for e in events]
    assert types[0] == "run.started"
    assert "step.started" in types and "tool.call" in types and "tool.result" in types
    assert types[-1] == "run.finished"
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(events) + 1)), "gap-free and in order"
    assert [r["seq"] for r in await _persisted(run_id)] == seqs, "nothing lost, nothing extra"
    step = next(e for e in events if e["type"] == "step.started")
    assert step["label"].startswith("Schritt 1/")
    call = next(e for e in events if e["type"] == "tool.call")
    assert call["tool"] == "read_akte" and call["args"] == {"akte": akte.aktenzeichen}
    final = events[-1]
    assert final["status"] == "DONE"
    assert "<strong>Sommer ./. Winter</strong>" in final["answer_html"]
    assert f'href="/akten/{akte.pk}/"' in final["answer_html"], "the Akte citation is linked"
    messages = await sync_to_async(list)(Message.objects.filter(run_id=run_id).values_list("role", flat=True))
    assert sorted(messages) == ["ASSISTANT", "USER"]


async def test_frist_draft_card_arrives_and_its_status_updates_live_for_other_viewers(scripted_tier, scripted_llm):
    akte = await sync_to_async(AkteFactory)()
    colleague = await sync_to_async(UserFactory)(role=Role.ADMIN)
    due = next_workday()
    scripted_llm.script(
        [
            {
                "tool_calls": [
                    {
                        "name": "create_draft_frist",
                        "arguments": {
                            "akte": akte.aktenzeichen,
                            "typ": "FRIST",
                            "titel": "Berufungsbegründungsfrist",
                            "datum": timezone.localdate().isoformat(),
                            "fristablauf": due.isoformat(),
                        },
                    }
                ]
            },
            {"text": "Ich habe die Frist als Entwurf angelegt."},
        ]
    )
    async with ws_connect(akte.anwalt) as (comm, _c, _code), ws_connect(colleague) as (watcher, _c2, _code2):
        await watcher.send_json_to({"type": "akte.watch", "akte": akte.pk})
        await comm.send_json_to({"type": "chat.send", "text": "Lege die Berufungsbegründungsfrist an.", "akte": akte.pk})
        await comm.receive_json_from(timeout=10)
        events = await receive_until(comm, is_terminal, within=30)
        created = next(e for e in events if e["type"] == "draft.created")
        card = created["card"]
        assert card["typ"] == "FRIST" and card["status"] == "PENDING" and card["akte"] == akte.pk
        assert card["payload"]["fristablauf"] == due.isoformat()
        assert card["untrusted"] is False
        # The colleague on the Akte page sees the new card (woken by the draft service) ...
        seen = await watcher.receive_json_from(timeout=10)
        assert seen["type"] == "draft.created" and seen["card"]["id"] == card["id"]

        client = Client()
        await sync_to_async(client.force_login)(akte.anwalt)
        response = await sync_to_async(client.post)(f"/api/drafts/{card['id']}/accept/")
        assert response.status_code == 200, response.content
        # ... and then its new status.
        changed = await watcher.receive_json_from(timeout=10)
        assert changed["type"] == "draft.changed" and changed["id"] == card["id"]
        assert changed["status"] == "ACCEPTED" and changed["result_url"] == f"/akten/{akte.pk}/#kal-h"
    assert await sync_to_async(KalenderEintrag.objects.filter(akte=akte, titel="Berufungsbegründungsfrist").exists)()
    draft = await sync_to_async(HelenaDraft.objects.get)(pk=card["id"])
    assert draft.origin_run_id == created["run"]


async def test_rate_limited_question_gets_the_german_message_and_no_model_call(scripted_tier, scripted_llm):
    user = await sync_to_async(UserFactory)(role=Role.ANWALT)
    await sync_to_async(RateLimit.objects.update_or_create)(role=Role.ANWALT, defaults={"runs_per_hour": 0})
    async with ws_connect(user) as (comm, _c, _code):
        await comm.send_json_to({"type": "chat.send", "text": "Eine Frage"})
        accepted = await comm.receive_json_from(timeout=10)
        assert accepted["status"] == "RATE_LIMITED"
        final = (await receive_until(comm, is_terminal))[-1]
    assert final["type"] == "run.failed"
    assert "Anfrage" in final["error"] or "Limit" in final["error"] or "limit" in final["error"]
    assert "Traceback" not in final["error"]
    # no answer was given: the status line must not say "Helena hat geantwortet" (review 2026-12-03)
    assert not final.get("answer") and not final.get("answer_html")
    assert scripted_llm.chat_requests == []


async def test_model_server_errors_end_in_a_german_message_not_a_stack_trace(scripted_tier, scripted_llm):
    """The model server answers every request with HTTP 500: the run ends with a German message."""
    scripted_llm.script([{"status": 500, "error": {"error": "interner Serverfehler"}}] * 10)
    user = await sync_to_async(UserFactory)()
    async with ws_connect(user) as (comm, _c, _code):
        await comm.send_json_to({"type": "chat.send", "text": "Was ist eine Notfrist?", "mode": "INLINE"})
        await comm.receive_json_from(timeout=10)
        events = await receive_until(comm, is_terminal, within=120)
    final = events[-1]
    text = (final.get("error") or "") + (final.get("answer") or "")
    assert text and "Traceback" not in text and 'File "' not in text
    if final["type"] == "run.finished":
        assert final["demo"] is True, "an answer after a failing model can only come from the marked demo model"
    else:
        assert final["type"] == "run.failed"


async def test_inline_cap_offers_background_continuation_as_a_new_run(scripted_tier, scripted_llm, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    config = await sync_to_async(EngineConfig.load)()
    config.inline_max_steps = 1
    await sync_to_async(config.save)()
    akte = await sync_to_async(AkteFactory)()
    scripted_llm.script(
        [
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
            {"text": "Zwischenstand: Ich habe die Akte gelesen."},
            {"text": "Fertig im Hintergrund."},
            {"text": "Fertig im Hintergrund."},
        ]
    )
    async with ws_connect(akte.anwalt) as (comm, _c, _code):
        await comm.send_json_to({"type": "chat.send", "text": "Prüfe die Akte gründlich.", "akte": akte.pk, "mode": "INLINE"})
        accepted = await comm.receive_json_from(timeout=10)
        events = await receive_until(comm, is_terminal, within=30)
        assert any(e["type"] == "run.cap_reached" for e in events)
        assert events[-1]["continuable"] is True
        await comm.send_json_to({"type": "run.continue_background", "run": accepted["run"]})
        continued = await comm.receive_json_from(timeout=30)
        assert continued["type"] == "run.accepted" and continued["mode"] == "BACKGROUND"
        assert continued["run"] != accepted["run"]
        rest = await receive_until(comm, lambda m: is_terminal(m) and m.get("run") == continued["run"], within=30)
    assert rest[-1]["status"] == "DONE"
    run = await sync_to_async(AgentRun.objects.get)(pk=continued["run"])
    assert run.continued_from_id == accepted["run"] and run.mode == "BACKGROUND"


async def test_an_inline_run_reaches_the_tab_straight_from_its_relay(scripted_tier, scripted_llm, monkeypatch):
    """An inline run executes on the process's engine loop; its events go from the thread that wrote
    them straight to the sockets of this process watching the run, without the channel layer and
    without waiting for the tail's poll (both switched off here)."""
    import agent.chat.inline as inline
    import agent.chat.tails as tails

    async def layer_down(event):
        raise ConnectionError("Kanal-Layer nicht erreichbar")

    monkeypatch.setattr(inline, "event_publish", layer_down)
    monkeypatch.setattr(tails, "POLL_SECONDS_EXECUTING_HERE", 60.0)
    akte = await sync_to_async(AkteFactory)()
    scripted_llm.script([{"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]}, {"text": "Gelesen."}])
    async with ws_connect(akte.anwalt) as (comm, _c, _code):
        await comm.send_json_to({"type": "chat.send", "text": "Lies die Akte.", "akte": akte.pk, "mode": "INLINE"})
        accepted = await comm.receive_json_from(timeout=10)
        events = await receive_until(comm, is_terminal, within=15)
    assert events[-1]["type"] == "run.finished" and events[-1]["status"] == "DONE"
    assert [e["seq"] for e in events] == [r["seq"] for r in await _persisted(accepted["run"])]
    assert accepted["run"] not in inline.executing_here and accepted["run"] not in inline.watchers
