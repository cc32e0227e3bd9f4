"""A run without an Akte that read the Akte of a Vertretung is gone from its owner's admin views when
the Vertretung ends, as it is in the chat (`runs_of`): its answer and transcript repeat what it read.
Its tool calls leave the audit list, also the one that touched no Akte; another run's stay."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from agent.models import AgentRun, AgentStep, ToolCallAudit
from akten.models import Role
from tests.confidentiality.world import World, build_world
from tests.factories import UserFactory


def _general_run_that_read_the_akte(world: World) -> AgentRun:
    """The deputy's run in the general chat: it read the Akte by its Aktenzeichen (call c1) and
    searched the law (call c2, no Akte)."""
    deputy, akte, markers = world.deputy, world.akte, world.markers
    run = AgentRun.objects.create(
        user=deputy,
        akte=None,
        task=f"Was ist der Stand in {akte.aktenzeichen}?",
        status=AgentRun.Status.DONE,
        answer="Der Stand ist offen.",
        finished_at=timezone.now(),
        transcript=[
            {"role": "user", "content": f"Was ist der Stand in {akte.aktenzeichen}?"},
            {"role": "tool", "tool_call_id": "c1", "name": "read_akte_detail", "content": markers["sachstand"]},
            {"role": "tool", "tool_call_id": "c2", "name": "search_gesetze", "content": "§ 573 BGB"},
        ],
    )
    call = {"step": 1, "call_id": "c1", "tool": "read_akte_detail", "arguments": {"akte": akte.aktenzeichen}}
    result = {"step": 1, "call_id": "c1", "tool": "read_akte_detail", "ok": True, "summary": markers["akte-notizen"]}
    law = {"step": 1, "call_id": "c2", "tool": "search_gesetze", "ok": True, "summary": "Gesetzesfundstelle 573"}
    for seq, (kind, payload) in enumerate([("tool.call", call), ("tool.result", result), ("tool.result", law)], start=1):
        AgentStep.objects.create(run=run, seq=seq, type=kind, payload=payload)
    ToolCallAudit.objects.create(
        run=run, user=deputy, akte=akte, tool="read_akte_detail", call_id="c1", summary=markers["notiz-titel"]
    )
    ToolCallAudit.objects.create(run=run, user=deputy, tool="search_gesetze", call_id="c2", summary="Gesetzesfundstelle 573")
    return run


@pytest.mark.django_db
def test_the_admin_hides_a_general_run_that_read_an_akte_no_longer_visible():
    world = build_world()
    run = _general_run_that_read_the_akte(world)
    deputy = world.deputy
    deputy.is_staff = True
    deputy.save(update_fields=["is_staff"])
    deputy.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    clean = AgentRun.objects.create(user=deputy, task="Kündigungsfrist?", status=AgentRun.Status.DONE, finished_at=timezone.now())
    ToolCallAudit.objects.create(run=clean, user=deputy, tool="search_gesetze", call_id="c9", summary="Gesetzesfundstelle 626")
    client = Client()
    client.force_login(deputy)
    url = reverse("admin:agent_agentrun_change", args=[run.pk])
    runs = reverse("admin:agent_agentrun_changelist")
    calls = reverse("admin:agent_toolcallaudit_changelist")
    during = client.get(url).content.decode()
    assert {"sachstand", "akte-notizen", "notiz-titel"} <= set(world.leaked(during)), "control: while the Vertretung lasts"
    assert url in client.get(runs).content.decode()
    assert "notiz-titel" in world.leaked(client.get(calls).content.decode())

    world.end_vertretung()
    assert client.get(url).status_code != 200
    assert url not in client.get(runs).content.decode()
    audit_list = client.get(calls).content.decode()
    assert world.leaked(audit_list) == []
    assert "Gesetzesfundstelle 573" not in audit_list, "the run's other calls go with it (they can repeat what it read)"
    assert "Gesetzesfundstelle 626" in audit_list, "control: a call of another run stays"

    client.force_login(UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True))  # ADMIN sees all
    assert {"sachstand", "akte-notizen", "notiz-titel"} <= set(world.leaked(client.get(url).content.decode()))


@pytest.mark.django_db
def test_the_feedback_admin_hides_the_verdict_on_an_answer_of_such_a_run():
    from agent.models import AnswerFeedback, Conversation, Message

    world = build_world()
    run = _general_run_that_read_the_akte(world)
    deputy = world.deputy
    conversation = Conversation.objects.create(user=deputy, title="Allgemein")
    AgentRun.objects.filter(pk=run.pk).update(conversation=conversation)
    answer = Message.objects.create(
        conversation=conversation, role=Message.Role.ASSISTANT, text=f"Laut Akte: {world.markers['sachstand']}", run=run
    )
    AnswerFeedback.objects.create(message=answer, user=deputy, rating="UP", comment="passt")
    deputy.is_staff = True
    deputy.save(update_fields=["is_staff"])
    deputy.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    client = Client()
    client.force_login(deputy)
    listing = reverse("admin:agent_answerfeedback_changelist")
    assert "sachstand" in world.leaked(client.get(listing).content.decode()), "control: while the Vertretung lasts"
    world.end_vertretung()
    page = client.get(listing).content.decode()
    assert world.leaked(page) == [] and "passt" not in page
