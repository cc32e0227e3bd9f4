"""The error pages as a person meets them in the browser: the German CSRF page after a form has
gone stale, the styled 500 page with its navigation and the 404 page; each without accessibility
violations, with screenshots at 1,280 and 390 px (test-artifacts/a11y/)."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string

from akten.models import Role
from tests.factories import AkteFactory, UserFactory

from .conftest import ARTIFACTS
from .test_accessibility_browser import violations
from .test_chat_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shoot(page, name: str) -> list[str]:
    """Screenshots at both widths and the axe findings of both."""
    folder = ARTIFACTS / "a11y"
    folder.mkdir(parents=True, exist_ok=True)
    found = []
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(folder / f"fehler-{name}-{width}.png"), full_page=True)
        found += [f"@{width}: {line}" for line in violations(page)]
        if page.evaluate("document.documentElement.scrollWidth > window.innerWidth"):
            found.append(f"@{width}: scrolls sideways")
    return found


def test_a_stale_form_gets_the_german_csrf_page(helena_server, browser_page):
    page, base = browser_page, helena_server
    lawyer = UserFactory(email="fritz@kanzlei.example", role=Role.ANWALT)
    akte = AkteFactory(anwalt=lawyer)
    log_in(page, base, "fritz@kanzlei.example")
    page.goto(f"{base}/akten/{akte.pk}/")
    page.context.clear_cookies(name="csrftoken")  # as after a new login in another tab
    page.fill("form.note-form textarea", "Rückruf vereinbart.")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("form.note-form button[type=submit]")
    assert answer.value.status == 403
    page.wait_for_selector("h1:has-text('Das Formular ist abgelaufen')")
    text = page.inner_text("main")
    assert "Lade die Seite neu und schick das Formular noch einmal ab. Es wurde nichts gespeichert." in text
    assert page.locator("nav[aria-label=Hauptnavigation] a:has-text('Meine Akten')").count() == 1
    assert shoot(page, "csrf") == []


def test_the_server_error_page_is_styled_and_leads_back(helena_server, browser_page):
    page, base = browser_page, helena_server
    page.goto(f"{base}/anmelden/")  # the page's own origin, so its stylesheet loads as in production
    page.set_content(render_to_string("500.html"), wait_until="load")
    assert page.inner_text("h1") == "Da ist etwas schiefgegangen"
    assert page.evaluate("getComputedStyle(document.querySelector('.topbar')).display") == "flex"  # helena.css applies
    assert shoot(page, "500") == []
    page.click("nav[aria-label=Hauptnavigation] a:has-text('Meine Akten')")
    page.wait_for_url(f"{base}/anmelden/?next=/")


def test_an_unknown_page_gets_the_german_404(helena_server, browser_page):
    page, base = browser_page, helena_server
    UserFactory(email="gerda@kanzlei.example", role=Role.ANWALT)
    log_in(page, base, "gerda@kanzlei.example")
    response = page.goto(f"{base}/akten/999999/")
    assert response is not None and response.status == 404
    assert "Diese Seite gibt es nicht, oder du hast keinen Zugriff darauf." in page.inner_text("main")
    assert shoot(page, "404") == []
