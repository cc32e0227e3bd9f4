"""Daily Kanzlei work and administration in a real browser, with screenshots at 1,280 and 390 px:
the Fristenkontrolle on the start page (overdue first and marked, "erledigt" with who and when in
the Verlauf, filter per person), the admin as the Kanzlei admin uses it (role × tool grid within
1,280 px, tier form with the pseudonymisation default and the connection test naming the demo
model, rate limits in force) and the API docs (anonymous visitors are led to the login and back)."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from agent.models import TierConfig
from akten.models import KalenderEintrag, Role
from tests.factories import AkteFactory, DezernatFactory, KalenderEintragFactory, UserFactory

from .conftest import ARTIFACTS
from .test_chat_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shoot_both(page, name: str) -> None:
    folder = ARTIFACTS / "daily"
    folder.mkdir(parents=True, exist_ok=True)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    print(f"\nScreenshots: {folder}")


def test_fristenkontrolle_overdue_first_erledigt_with_who_and_when_and_filter(helena_server, browser_page):
    page, base = browser_page, helena_server
    today = timezone.localdate()
    lawyer = UserFactory(email="hanna@kanzlei.example", role=Role.ANWALT, first_name="Hanna", last_name="Roth")
    colleague = UserFactory(role=Role.ANWALT, first_name="Ida", last_name="Sommer")
    akte = AkteFactory(anwalt=lawyer)
    two_days_ago = today - datetime.timedelta(days=2)
    KalenderEintragFactory(akte=akte, titel="Klageerwiderung", datum=two_days_ago, fristablauf=two_days_ago)
    KalenderEintragFactory(akte=akte, titel="Berufungsbegründung", fristablauf=today + datetime.timedelta(days=20))
    dezernat = DezernatFactory(name="Zivilrecht")
    dezernat.members.set([lawyer, colleague])
    akte_sommer = AkteFactory(anwalt=colleague)
    akte_sommer.dezernate.set([dezernat])
    KalenderEintragFactory(akte=akte_sommer, titel="Stellungnahme Sommer", fristablauf=today + datetime.timedelta(days=5))
    log_in(page, base, "hanna@kanzlei.example")

    rows = page.locator(".kontrolle-table tbody tr")
    assert "Klageerwiderung" in rows.first.inner_text() and "überfällig" in rows.first.inner_text()
    assert "overdue" in (rows.first.get_attribute("class") or "")
    assert "Stellungnahme Sommer" in page.inner_text(".kontrolle-table")  # her Dezernat's, too
    shoot_both(page, "fristenkontrolle")

    page.click("button[aria-label^='Klageerwiderung (']")  # "… (Aktenzeichen, Datum) als erledigt markieren"
    page.wait_for_selector(".messages:has-text('„Klageerwiderung“ ist als erledigt vermerkt.')")
    assert "Klageerwiderung" not in page.inner_text(".kontrolle-table")
    done = KalenderEintrag.objects.get(titel="Klageerwiderung")
    assert done.erledigt and done.erledigt_von == lawyer and done.erledigt_at is not None
    page.goto(f"{base}/akten/{akte.pk}/")
    assert "Frist „Klageerwiderung“ erledigt (Hanna Roth)" in " ".join(page.inner_text("[data-live=verlauf]").split())

    page.goto(f"{base}/")
    page.select_option("#k-person", str(colleague.pk))
    page.click("form.filters button[type=submit]")
    page.wait_for_url(f"{base}/?person={colleague.pk}&dezernat=")
    assert "Stellungnahme Sommer" in page.inner_text(".kontrolle-table")
    assert "Berufungsbegründung" not in page.inner_text(".kontrolle-table")


def test_admin_grid_tier_form_rate_limits_and_api_docs(helena_server, browser_page):
    page, base = browser_page, helena_server
    UserFactory(
        email="admin@kanzlei.example", role=Role.ADMIN, is_staff=True, is_superuser=True, first_name="Ada", last_name="Admin"
    )
    tier = TierConfig.objects.create(
        tier=3, name="Cloud", provider=TierConfig.Provider.OPENAI, model="gpt-test", base_url="http://127.0.0.1:9/v1",
        is_cloud=True, timeout_seconds=2,
    )  # fmt: skip

    # API docs first, as an anonymous visitor: led to the login and back to the docs
    page.goto(f"{base}/api/docs/")
    page.wait_for_url(f"{base}/anmelden/?next=/api/docs/")
    page.fill("input[name=username]", "admin@kanzlei.example")
    page.fill("input[name=password]", "geheim-1234")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/api/docs/")
    page.wait_for_selector("text=Akten auflisten", timeout=60_000)
    page.wait_for_selector("text=Entwurf übernehmen")
    shoot_both(page, "api-docs")

    page.goto(f"{base}/admin/agent/toolpermission/")
    page.wait_for_selector("table")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # fits 1,280 px
    shoot_both(page, "admin-rollen-werkzeuge")

    page.goto(f"{base}/admin/agent/tierconfig/{tier.pk}/change/")
    form_text = page.inner_text("#content")
    assert "Standard: an bei Cloud-Modellen, aus bei lokalen Modellen" in form_text
    assert "Für diese Stufe gilt jetzt: an (Standard für Cloud-Modelle)." in form_text
    assert "Alle Zeiten in deutscher Zeit (Europe/Berlin)." in page.inner_text("#header")
    page.click("form.tier-test button")
    page.wait_for_selector(".messagelist:has-text('keine Antwort')", timeout=60_000)
    assert "eingebaute Demo-Modell" in page.inner_text(".messagelist")
    shoot_both(page, "admin-modellstufe")

    page.goto(f"{base}/admin/agent/ratelimit/")
    table = page.inner_text("table.limits-in-force")
    assert "Rechtsanwalt/Rechtsanwältin" in table and "Standard (60)" in table
    assert "HELENA_RATELIMIT_WRITE" in page.inner_text("table.other-limits")
    shoot_both(page, "admin-anfragelimits")


def test_a_finished_background_run_shows_in_the_navigation_counter_and_the_list(helena_server, browser_page):
    from agent.models import AgentRun, Conversation

    page, base = browser_page, helena_server
    user = UserFactory(email="jonas@kanzlei.example", role=Role.ANWALT)
    log_in(page, base, "jonas@kanzlei.example")
    assert page.locator("#notify-count").is_hidden()

    # while the page is open, a background run finishes: the counter appears without a reload
    conversation = Conversation.objects.create(user=user, title="Verjährung")
    AgentRun.objects.create(
        user=user, conversation=conversation, task="Prüfe die Verjährung", mode=AgentRun.Mode.BACKGROUND,
        status=AgentRun.Status.DONE, finished_at=timezone.now(),
    )  # fmt: skip
    page.wait_for_selector("#notify-count:visible .notify-number:text-is('1')", timeout=90_000)
    shoot_both(page, "benachrichtigung-zaehler")

    page.click("#notify-link")
    page.wait_for_selector("main:has-text('Auftrag „Prüfe die Verjährung“')")
    shoot_both(page, "benachrichtigungen")
    page.goto(f"{base}/")
    assert page.locator("#notify-count").is_hidden()
