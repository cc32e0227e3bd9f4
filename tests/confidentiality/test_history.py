"""A user's own history follows today's access rule (agent/runs/selectors.py): after a Vertretung
ends, the deputy's conversations, runs, run replays, notifications and `@Helena` tasks on that Akte
are gone for him, like the Akte itself (404, the same as missing); so is everything of a deactivated
account on a socket it opened before. Found by an independent review; each test failed before."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from agent.models import AgentRun, AgentStep, Conversation, Message
from akten.models import Notiz, User
from tests.agent.chat.conftest import ws_connect
from tests.confidentiality.world import build_world


def _run_on_akte(world, user, *, akte):
    """A finished run of `user` that read the Akte's internal note, with its conversation and steps."""
    notiz = world.markers["notiz"]
    conversation = Conversation.objects.create(user=user, akte=akte, title=f"Akte {world.akte.aktenzeichen}")
    run = AgentRun.objects.create(
        user=user,
        akte=akte,
        conversation=conversation,
        task="Was steht in den Notizen?",
        status=AgentRun.Status.DONE,
        answer=f"Die Notiz lautet: {notiz}",
        finished_at=timezone.now(),
    )
    Message.objects.create(conversation=conversation, role=Message.Role.USER, text="Was steht in den Notizen?", run=run)
    Message.objects.create(conversation=conversation, role=Message.Role.ASSISTANT, text=f"Die Notiz lautet: {notiz}", run=run)
    summary = {"step": 1, "call_id": "c1", "tool": "read_akte_detail", "ok": True, "summary": world.markers["sachstand"]}
    AgentStep.objects.create(run=run, seq=1, type="tool.result", payload=summary)
    finished = {"status": "DONE", "answer": f"Die Notiz lautet: {notiz}", "error": "", "usage": {}}
    AgentStep.objects.create(run=run, seq=2, type="run.finished", payload=finished)
    return conversation, run


@pytest.mark.django_db
def test_ex_deputy_loses_his_conversation_search_and_runs_on_the_akte():
    world = build_world()
    conversation, run = _run_on_akte(world, world.deputy, akte=world.akte)
    world.end_vertretung()
    client = Client()
    client.force_login(world.deputy)
    assert client.get(reverse("akte-detail", args=[world.akte.pk])).status_code == 404
    missing = client.get(reverse("helena-conversation", args=[10**9]))
    gone = client.get(reverse("helena-conversation", args=[conversation.pk]))
    assert gone.status_code == missing.status_code == 404
    # a search for a word of the Akte's note no longer confirms it (the page echoes the query itself)
    search = client.get(reverse("helena-chat"), {"q": world.markers["notiz"]}).content.decode()
    assert reverse("helena-conversation", args=[conversation.pk]) not in search and "0 Treffer" in search
    assert f"Akte {world.akte.aktenzeichen}" not in search
    runs = client.get(reverse("helena-runs")).content.decode()
    assert f"Akte {world.akte.aktenzeichen}" not in runs and world.leaked(runs) == []
    assert client.get(reverse("api-run-detail", args=[run.pk])).status_code == 404
    assert run.pk not in [r["id"] for r in client.get(reverse("api-run-list")).json()["results"]]


@pytest.mark.django_db
def test_ex_deputy_no_longer_reads_his_helena_note_in_notifications_or_tasks(scripted_tier, scripted_llm):
    secret = "Verjaehrung Forderung gegen Meier GmbH pruefen"
    world = build_world()
    client = Client()
    client.force_login(world.deputy)
    client.post(reverse("akte-note-create", args=[world.akte.pk]), {"text": f"@Helena {secret}"}, follow=True)
    run = AgentRun.objects.get(user=world.deputy, akte=world.akte)
    AgentRun.objects.filter(pk=run.pk).update(
        status=AgentRun.Status.DONE, finished_at=timezone.now(), mode=AgentRun.Mode.BACKGROUND
    )
    assert "Meier GmbH" in json.dumps(client.get(reverse("helena-notification-count")).json(), ensure_ascii=False)
    world.end_vertretung()
    assert client.get(reverse("api-notiz-detail", args=[Notiz.objects.get(text__contains=secret).pk])).status_code == 404
    seen = [
        json.dumps(client.get(reverse("helena-notification-count")).json(), ensure_ascii=False),
        client.get(reverse("helena-runs")).content.decode(),
        json.dumps(client.get(reverse("api-run-list")).json(), ensure_ascii=False),
    ]
    assert not any("Meier GmbH" in text for text in seen)


async def _replay(user, run_id: int) -> list[dict]:
    frames = []
    async with ws_connect(user) as (socket, ok, _code):
        assert ok
        await socket.send_json_to({"type": "run.resume", "run": run_id, "after_seq": 0})
        while not await socket.receive_nothing(timeout=1.5):
            frames.append(await socket.receive_json_from(timeout=5))
    return frames


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_ex_deputy_cannot_replay_his_run_on_the_akte():
    def setup():
        world = build_world()
        _conversation, run = _run_on_akte(world, world.deputy, akte=world.akte)
        world.end_vertretung()
        return world, run

    world, run = await sync_to_async(setup)()
    frames = await _replay(world.deputy, run.pk)
    assert world.leaked(json.dumps(frames)) == []
    assert not [f for f in frames if f.get("type") in ("tool.result", "run.finished")]


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_deactivated_account_cannot_replay_its_runs_on_an_open_socket():
    def setup():
        world = build_world()
        return world, _run_on_akte(world, world.lawyer, akte=world.akte)[1]

    world, run = await sync_to_async(setup)()
    frames = []
    async with ws_connect(world.lawyer) as (socket, ok, _code):
        assert ok
        await sync_to_async(User.objects.filter(pk=world.lawyer.pk).update)(is_active=False)
        await socket.send_json_to({"type": "run.resume", "run": run.pk, "after_seq": 0})
        while not await socket.receive_nothing(timeout=1.5):
            frames.append(await socket.receive_json_from(timeout=5))
    assert world.leaked(json.dumps(frames)) == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_replayed_draft_card_is_loaded_for_the_user_now_never_the_stored_one():
    """A run without an Akte stays the deputy's after the Vertretung; the draft it proposed on the
    Akte does not: its draft.created goes out with the id only, never the card stored with the step."""

    def setup():
        world = build_world()
        draft = world.pending_drafts[0]
        run = AgentRun.objects.create(
            user=world.deputy, akte=None, task="Lege eine Notiz an", status=AgentRun.Status.DONE, finished_at=timezone.now()
        )
        card = {"id": draft.pk, "typ": "Notiz", "titel": draft.titel, "preview": {"text": world.markers["entwurf-text-0"]}}
        payload = {"step": 1, "call_id": "c1", "draft": draft.pk, "card": card}
        AgentStep.objects.create(run=run, seq=1, type="draft.created", payload=payload)
        world.end_vertretung()
        return world, run

    world, run = await sync_to_async(setup)()
    frames = await _replay(world.deputy, run.pk)
    created = [f for f in frames if f.get("type") == "draft.created"]
    assert created and "card" not in created[0] and created[0]["draft"] == world.pending_drafts[0].pk
    assert world.leaked(json.dumps(frames)) == []


@pytest.mark.django_db
def test_the_feedback_admin_shows_staff_only_verdicts_in_their_own_visible_conversations(client):
    from django.contrib.auth.models import Permission

    from agent.models import AnswerFeedback
    from akten.models import Role
    from tests.factories import AkteFactory, UserFactory

    staff = UserFactory(role=Role.SACHBEARBEITER, is_staff=True)
    staff.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    foreign = AkteFactory()
    conversation = Conversation.objects.create(user=foreign.anwalt, akte=foreign)
    run = AgentRun.objects.create(user=foreign.anwalt, akte=foreign, conversation=conversation, task="x")
    message = Message.objects.create(
        conversation=conversation, role=Message.Role.ASSISTANT, text="Die Mandantin Fremdmarker schuldet 12.000 EUR", run=run
    )
    feedback = AnswerFeedback.objects.create(message=message, user=foreign.anwalt, rating="DOWN", comment="Fremdkommentar")
    client.force_login(staff)
    listing = client.get(reverse("admin:agent_answerfeedback_changelist")).content.decode()
    assert "Fremdmarker" not in listing and "Fremdkommentar" not in listing
    assert client.get(reverse("admin:agent_answerfeedback_change", args=[feedback.pk])).status_code in (302, 404)
    client.force_login(UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True))  # ADMIN sees all
    assert "Fremdkommentar" in client.get(reverse("admin:agent_answerfeedback_changelist")).content.decode()


@pytest.mark.django_db
def test_deleting_the_akte_does_not_give_back_the_runs_it_hid():
    """Runs, conversations and tool calls pointed at their Akte with SET_NULL: deleting the Akte
    turned them into general ones, and the ex-deputy saw his run on it and a general run that read
    it again. Now the Akte cannot be deleted while they hold its content."""
    from django.db.models import ProtectedError

    from agent.models import ToolCallAudit

    world = build_world()
    conversation, run = _run_on_akte(world, world.deputy, akte=world.akte)
    ToolCallAudit.objects.create(run=run, user=world.deputy, akte=world.akte, tool="read_akte_detail", summary="ok")
    general = Conversation.objects.create(user=world.deputy, title="Was ist los?")
    sachstand = world.markers["sachstand"]
    general_run = AgentRun.objects.create(
        user=world.deputy,
        conversation=general,
        task="Was ist los?",
        status=AgentRun.Status.DONE,
        answer=sachstand,
        finished_at=timezone.now(),
    )
    Message.objects.create(conversation=general, role=Message.Role.ASSISTANT, text=sachstand, run=general_run)
    ToolCallAudit.objects.create(run=general_run, user=world.deputy, akte=world.akte, tool="read_akte", summary="ok")
    world.end_vertretung()
    admin = User.objects.create_superuser(email="admin-loeschen@kanzlei.example", password="x")  # noqa: S106
    staff = Client()
    staff.force_login(admin)

    page = staff.post(reverse("admin:akten_akte_delete", args=[world.akte.pk]), {"post": "yes"})
    with pytest.raises(ProtectedError):
        world.akte.delete()

    assert page.status_code == 200 and "Kann Akte nicht löschen" in page.content.decode()  # protected objects named
    world.akte.refresh_from_db()
    deputy = Client()
    deputy.force_login(world.deputy)
    assert deputy.get(reverse("helena-conversation", args=[conversation.pk])).status_code == 404
    assert deputy.get(reverse("api-run-detail", args=[run.pk])).status_code == 404
    assert world.leaked(deputy.get(reverse("helena-conversation", args=[general.pk])).content.decode()) == []
    # what held the Akte's content goes first; then the Akte can go
    AgentRun.objects.filter(pk__in=[run.pk, general_run.pk]).delete()
    conversation.delete()
    world.akte.delete()
    assert world.leaked(deputy.get(reverse("helena-conversation", args=[general.pk])).content.decode()) == []
