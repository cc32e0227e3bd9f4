"""The place of a waiting background run in the queue counts every waiting run of the firm: staff
see it, a Mandantin does not (akten/policy.py). She learns that her run waits ("in der
Warteschlange"), not how many runs of others wait ahead: not on "Meine Aufträge", not in the runs
API, not in the chat's `run.accepted`."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from agent.models import AgentRun
from tests.agent.chat.conftest import ws_connect
from tests.confidentiality.world import build_world


def _queue_of_others(world) -> None:
    """Three background runs of the lawyer wait before anything the test starts."""
    for _ in range(3):
        AgentRun.objects.create(user=world.lawyer, akte=world.foreign_akte, task="Prüfe die Akte.", mode=AgentRun.Mode.BACKGROUND)


def _seen_on_pages(user, run: AgentRun) -> tuple[str, dict, dict]:
    client = Client()
    client.force_login(user)
    page = client.get(reverse("helena-runs")).content.decode()
    listing = client.get(reverse("api-run-list")).json()
    detail = client.get(reverse("api-run-detail", args=[run.pk])).json()
    return page, listing, detail


@pytest.mark.django_db
def test_a_mandantin_sees_that_her_run_waits_but_not_her_place_in_the_queue():
    world = build_world()
    _queue_of_others(world)
    hers = AgentRun.objects.create(user=world.mandantin, akte=world.akte, task="Stand?", mode=AgentRun.Mode.BACKGROUND)
    page, listing, detail = _seen_on_pages(world.mandantin, hers)
    assert "in der Warteschlange" in page and "Platz" not in page
    assert [r["queue_position"] for r in listing["results"]] == [None]
    assert (detail["status"], detail["queue_position"]) == ("PENDING", None)

    # control: staff in the same place see their place
    theirs = AgentRun.objects.create(user=world.colleague, task="Prüfe die Akte.", mode=AgentRun.Mode.BACKGROUND)
    page, _listing, detail = _seen_on_pages(world.colleague, theirs)
    assert "Platz 5 in der Warteschlange" in page and detail["queue_position"] == 5


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_chat_tells_a_mandantin_no_place_in_the_queue(settings, scripted_tier):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.backend.DatabaseBackend"}}  # no worker runs
    world = await sync_to_async(build_world)()
    await sync_to_async(_queue_of_others)(world)
    accepted = {}
    for user in (world.mandantin, world.lawyer):
        async with ws_connect(user) as (socket, ok, _code):
            assert ok
            await socket.send_json_to({"type": "chat.send", "text": "Stand?", "akte": world.akte.pk, "mode": "BACKGROUND"})
            accepted[user.pk] = await socket.receive_json_from(timeout=10)
    hers, control = accepted[world.mandantin.pk], accepted[world.lawyer.pk]
    assert (hers["type"], hers["status"], hers["queue_position"]) == ("run.accepted", "PENDING", None), json.dumps(hers)
    assert control["queue_position"] == 5  # three of the lawyer's, hers, then this one


@pytest.mark.django_db
def test_how_long_her_finished_run_waited_for_a_worker_does_not_show():
    """created_at → started_at of her run is the time it waited behind the runs of others."""
    import datetime

    from django.utils import timezone

    world = build_world()
    jetzt = timezone.now()
    hers = AgentRun.objects.create(user=world.mandantin, akte=world.akte, task="Stand?", mode=AgentRun.Mode.BACKGROUND)
    AgentRun.objects.filter(pk=hers.pk).update(
        status=AgentRun.Status.DONE,
        created_at=jetzt - datetime.timedelta(minutes=30),  # 25 minutes in the queue, 5 running
        started_at=jetzt - datetime.timedelta(minutes=5),
        finished_at=jetzt,
    )
    page, listing, detail = _seen_on_pages(world.mandantin, hers)
    assert detail["started_at"] is None and listing["results"][0]["started_at"] is None
    assert "30 min 0 s" in page and "5 min 0 s" not in page  # the time she waited for her answer

    theirs = AgentRun.objects.create(user=world.colleague, task="Prüfe die Akte.", mode=AgentRun.Mode.BACKGROUND)
    AgentRun.objects.filter(pk=theirs.pk).update(started_at=jetzt)
    assert _seen_on_pages(world.colleague, theirs)[2]["started_at"]
