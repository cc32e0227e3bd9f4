"""The Akte page live, in a real browser: a draft that a background run creates (in the worker
process) appears without reload; after its approval the Fristen list, the Verlauf and the
navigation's notification counter update. At 390 px no page scrolls sideways."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from agent.models import AgentRun, Conversation
from akten.models import Role
from drafts import services as draft_services
from tests.factories import AkteFactory, UserFactory

from .conftest import screenshot
from .test_chat_browser import log_in, next_workday

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def no_sideways_scroll(page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_new_draft_appears_and_approval_updates_the_lists(helena_server, browser_page):
    page, base = browser_page, helena_server
    user = UserFactory(email="clara@kanzlei.example", role=Role.ANWALT, first_name="Clara", last_name="Stein")
    akte = AkteFactory(anwalt=user, kurzrubrum="Regen ./. Sonne")
    log_in(page, base, "clara@kanzlei.example")
    page.goto(f"{base}/akten/{akte.pk}/")
    page.wait_for_timeout(1500)  # the watch is registered

    conversation = Conversation.objects.create(user=user, akte=akte, title="Fristen prüfen")
    run = AgentRun.objects.create(
        user=user, akte=akte, conversation=conversation, task="Fristen prüfen", mode="BACKGROUND", status="RUNNING"
    )
    due = next_workday()
    draft_services.draft_create(
        typ="FRIST", akte=akte, requested_by=user, run=run,
        payload={
            "typ": "FRIST", "titel": "Klageerwiderungsfrist",
            "datum": timezone.localdate().isoformat(), "fristablauf": due.isoformat(),
            "beschreibung": "Frist nach § 9 XYZG",
        },
    )  # fmt: skip
    AgentRun.objects.filter(pk=run.pk).update(status="DONE", finished_at=timezone.now())

    card = page.locator("article.draft-card:has-text('Klageerwiderungsfrist')")
    card.wait_for(timeout=20_000)
    assert "Keine offenen Entwürfe." not in page.inner_text("section[aria-labelledby=dr-h]")
    assert "Klageerwiderungsfrist" not in page.inner_text("[data-live=kalender]")
    # a citation in the Frist's description that is not in the corpus is listed on the card
    assert "§ 9 XYZG: Gesetz „XYZG“ ist nicht im Bestand." in card.locator(".citations-open").inner_text()

    card.locator("text=Übernehmen").click()
    page.wait_for_selector("[data-live=kalender]:has-text('Klageerwiderungsfrist')", timeout=20_000)
    assert due.strftime("%d.%m.%Y") in page.inner_text("[data-live=kalender]")
    assert "Klageerwiderungsfrist" in page.inner_text("[data-live=verlauf]")
    screenshot(page, "20-akte-live-1280")

    page.goto(f"{base}/akten/{akte.pk}/")
    page.wait_for_selector("#notify-count:not([hidden])")
    assert page.inner_text("#notify-count .notify-number") == "2"
    page.click("#notify-link")
    assert "Klageerwiderungsfrist" in page.inner_text(".notify-list")
    screenshot(page, "21-benachrichtigungen-1280")

    page.set_viewport_size({"width": 390, "height": 844})
    for path, name in [
        ("/", "22-start-390"),
        (f"/akten/{akte.pk}/", "23-akte-390"),
        ("/helena/", "24-chat-390"),
        ("/helena/benachrichtigungen/", "25-benachrichtigungen-390"),
    ]:
        page.goto(base + path)
        screenshot(page, name)
        assert no_sideways_scroll(page), path


def test_a_wiedervorlage_draft_on_a_sunday_shows_the_hint_on_its_card(helena_server, browser_page):
    page, base = browser_page, helena_server
    user = UserFactory(email="wv@kanzlei.example", role=Role.ANWALT, first_name="Wera", last_name="Vogt")
    akte = AkteFactory(anwalt=user, kurzrubrum="Wald ./. Wiese")
    heute = timezone.localdate()
    sonntag = heute + datetime.timedelta(days=(6 - heute.weekday()) or 7)
    draft_services.draft_create(
        typ="FRIST", akte=akte, requested_by=user,
        payload={"typ": "WIEDERVORLAGE", "titel": "Sachstand prüfen", "datum": sonntag.isoformat()},
    )  # fmt: skip
    log_in(page, base, "wv@kanzlei.example")
    page.goto(f"{base}/akten/{akte.pk}/")

    hinweis = page.locator("article.draft-card:has-text('Sachstand prüfen') .draft-hinweis")
    hinweis.wait_for(timeout=20_000)
    assert f"Die Wiedervorlage fällt auf einen Sonntag ({sonntag:%d.%m.%Y})" in hinweis.inner_text()
