"""Notifications as a user meets them: the counter in the navigation, the list, the JSON the
counter script polls; only the user's own background runs and drafts they may see."""

from __future__ import annotations

import pytest
from django.utils import timezone

from agent.models import AgentRun, Conversation
from akten.models import Role
from tests.factories import AkteFactory, HelenaDraftFactory, UserFactory

pytestmark = pytest.mark.django_db


def background_run(user, akte=None, *, task="Prüfe die Verjährung", status="DONE"):
    conversation = Conversation.objects.create(user=user, akte=akte, title=task)
    return AgentRun.objects.create(
        user=user, akte=akte, conversation=conversation, task=task, mode="BACKGROUND", status=status,
        finished_at=timezone.now() if status != "RUNNING" else None,
    )  # fmt: skip


def count(client):
    return client.get("/helena/benachrichtigungen/anzahl/").json()


def test_finished_background_run_and_its_draft_count_until_the_list_is_opened(client):
    akte = AkteFactory()
    user = akte.anwalt
    run = background_run(user, akte)
    HelenaDraftFactory(akte=akte, origin_run=run, titel="Mahnung an Schuldner")
    background_run(user, akte, task="Läuft noch", status="RUNNING")
    client.force_login(user)

    start = client.get("/").content.decode()
    polled = count(client)

    assert polled["count"] == 2
    assert {i["text"] for i in polled["latest"]} == {
        "Auftrag „Prüfe die Verjährung“: fertig",
        "Neuer Entwurf (Notiz): „Mahnung an Schuldner“",
    }
    assert '<span class="notify-number">2</span>' in start
    listing = client.get("/helena/benachrichtigungen/").content.decode()
    assert "Prüfe die Verjährung" in listing and "Mahnung an Schuldner" in listing and "Läuft noch" not in listing
    assert f'href="/akten/{akte.pk}/#dr-h"' in listing
    assert count(client)["count"] == 0
    assert '<span class="notify-number">0</span>' in client.get("/").content.decode()


def test_nobody_is_notified_of_someone_elses_runs_and_a_mandant_gets_nothing(client):
    akte = AkteFactory()
    run = background_run(akte.anwalt, akte)
    HelenaDraftFactory(akte=akte, origin_run=run, titel="Interner Entwurf")
    colleague = UserFactory(role=Role.ANWALT)
    mandant = UserFactory(role=Role.MANDANT)

    client.force_login(colleague)
    assert count(client) == {"count": 0, "mehr": False, "latest": []}
    assert "Interner Entwurf" not in client.get("/helena/benachrichtigungen/").content.decode()

    client.force_login(mandant)
    assert count(client) == {"count": 0, "mehr": False, "latest": []}
    assert client.get("/helena/benachrichtigungen/").status_code == 404
    assert "notify-count" not in client.get("/").content.decode()


def test_a_draft_the_user_may_no_longer_see_is_not_listed(client):
    akte = AkteFactory()
    user = akte.anwalt
    run = background_run(user, akte)
    HelenaDraftFactory(akte=akte, origin_run=run, titel="Entwurf in fremder Akte")
    akte.anwalt = UserFactory(role=Role.ANWALT)
    akte.save()
    client.force_login(user)

    assert "Entwurf in fremder Akte" not in client.get("/helena/benachrichtigungen/").content.decode()


def test_a_full_list_says_there_may_be_more(client):
    """Daily-use probe 2026-12-05: 35 finished runs counted as 30 (the list's length), without a sign."""
    from agent.chat.notifications import LIMIT

    user = UserFactory(role=Role.ANWALT)
    for n in range(LIMIT + 5):
        background_run(user, task=f"Auftrag {n}")
    client.force_login(user)
    polled = count(client)
    assert polled["count"] == LIMIT and polled["mehr"] is True
    background_user = UserFactory(role=Role.ANWALT)
    background_run(background_user)
    client.force_login(background_user)
    assert count(client)["mehr"] is False
