"""Meine Aufträge in the browser: a waiting background run shows its place in the queue and the
page follows it (through the runs API) as the runs ahead of it start."""

from __future__ import annotations

import pytest

from agent.models import AgentRun
from akten.models import Role
from tests.factories import UserFactory

from .conftest import screenshot
from .test_chat_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OTHER_TASK = "Räumungsklage Familie Mustermann vorbereiten"


def test_runs_page_shows_and_follows_the_place_in_the_queue(helena_server, browser_page):
    page, base = browser_page, helena_server
    me = UserFactory(email="anna@kanzlei.example", role=Role.ANWALT)
    colleague = UserFactory(role=Role.ANWALT)
    # waiting runs without a queued task: no worker takes them, they stay in the queue
    ahead = AgentRun.objects.create(user=colleague, task=OTHER_TASK, mode=AgentRun.Mode.BACKGROUND)
    AgentRun.objects.create(user=me, task="Prüfe alle offenen Fristen.", mode=AgentRun.Mode.BACKGROUND)
    log_in(page, base, me.email)
    page.goto(f"{base}/helena/auftraege/")
    page.wait_for_selector(".queue-position:has-text('Platz 2 in der Warteschlange')")
    assert OTHER_TASK not in page.content()
    screenshot(page, "auftraege-warteschlange")
    AgentRun.objects.filter(pk=ahead.pk).update(status=AgentRun.Status.RUNNING)
    page.wait_for_selector(".queue-position:has-text('Platz 1 in der Warteschlange')", timeout=20_000)
