"""A background run waiting for a worker shows the user its place in the queue: on "Meine
Aufträge", in the runs API and in the chat (websocket). Every waiting background run counts, but a
user sees only their own runs, never the others' (not their tasks, not their ids)."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from agent.models import AgentRun
from agent.runs.selectors import run_queue_positions
from tests.factories import AkteFactory, UserFactory

from .conftest import ws_connect

OTHER_TASK = "Kündigungsschutzklage Erika Mustermann prüfen"


def queued(user, task: str = "Prüfe die Akte.", **fields) -> AgentRun:
    return AgentRun.objects.create(user=user, task=task, mode=AgentRun.Mode.BACKGROUND, **fields)


@pytest.fixture
def queue():
    """Two runs of a colleague wait first, then one of `me`; plus runs that are not waiting."""
    me, colleague = UserFactory(), UserFactory()
    queued(colleague, OTHER_TASK)
    queued(colleague, OTHER_TASK)
    queued(me, status=AgentRun.Status.RUNNING)  # started: not in the queue
    AgentRun.objects.create(user=me, task="inline", mode=AgentRun.Mode.INLINE)  # inline: never queued
    mine = queued(me)
    later = queued(colleague, OTHER_TASK)
    return me, colleague, mine, later


@pytest.mark.django_db
def test_positions_count_every_waiting_background_run_but_return_only_the_users_own(queue):
    me, colleague, mine, later = queue
    assert run_queue_positions(user=me) == {mine.pk: 3}
    assert run_queue_positions(user=colleague)[later.pk] == 4
    AgentRun.objects.filter(user=colleague).exclude(pk=later.pk).update(status=AgentRun.Status.RUNNING)
    assert run_queue_positions(user=me) == {mine.pk: 1}


@pytest.mark.django_db
def test_runs_page_shows_the_place_in_the_queue_and_nothing_of_the_others(client, queue):
    me, _colleague, _mine, _later = queue
    client.force_login(me)
    page = client.get("/helena/auftraege/").content.decode()
    assert page.count("Platz 3 in der Warteschlange") == 1
    assert OTHER_TASK not in page


@pytest.mark.django_db
def test_runs_api_gives_the_queue_position_of_own_runs_and_404_for_others(client, queue, django_assert_num_queries):
    me, _colleague, mine, later = queue
    client.force_login(me)
    with django_assert_num_queries(6):  # session, user, access scope (runs on visible Akten only), count, page, positions
        listing = client.get("/api/auftraege/").json()
    assert [(r["id"], r["queue_position"]) for r in listing["results"] if r["queue_position"]] == [(mine.pk, 3)]
    assert all(r["queue_position"] is None for r in listing["results"] if r["id"] != mine.pk)
    assert OTHER_TASK not in str(listing)
    detail = client.get(f"/api/auftraege/{mine.pk}/").json()
    assert (detail["status"], detail["queue_position"]) == ("PENDING", 3)
    assert client.get(f"/api/auftraege/{later.pk}/").status_code == 404
    client.logout()
    assert client.get("/api/auftraege/").status_code == 403


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_chat_tells_the_place_in_the_queue_of_a_background_run(settings, scripted_tier):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.backend.DatabaseBackend"}}  # no worker runs
    colleague = await sync_to_async(UserFactory)()
    await sync_to_async(queued)(colleague, OTHER_TASK)
    akte = await sync_to_async(AkteFactory)()
    async with ws_connect(akte.anwalt) as (comm, _c, _code):
        await comm.send_json_to({"type": "chat.send", "text": "Prüfe die Akte.", "akte": akte.pk, "mode": "BACKGROUND"})
        accepted = await comm.receive_json_from(timeout=10)
    assert (accepted["type"], accepted["mode"], accepted["queue_position"]) == ("run.accepted", "BACKGROUND", 2)
