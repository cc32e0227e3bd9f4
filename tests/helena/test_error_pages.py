"""Error pages a Kanzlei user may meet: a styled 500 with navigation, a German CSRF page."""

import pytest
from django.template.loader import render_to_string
from django.test import Client

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_server_error_page_is_german_styled_and_has_navigation():
    html = render_to_string("500.html")  # Django renders it without a request context
    assert "Da ist etwas schiefgegangen" in html and 'href="/"' in html and "helena.css" in html


def test_a_server_error_answers_the_styled_page_with_navigation_and_json_under_api(monkeypatch):
    """Through Django's real handler500 (DEBUG off), not only the template."""
    from akten import selectors

    def broken(**kwargs):
        raise RuntimeError("kaputt")

    monkeypatch.setattr(selectors, "akte_list", broken)
    client = Client(raise_request_exception=False)
    client.force_login(UserFactory())

    page = client.get("/")
    api = client.get("/api/akten/")

    assert page.status_code == 500
    body = page.content.decode()
    assert "Da ist etwas schiefgegangen" in body and 'aria-label="Hauptnavigation"' in body and "kaputt" not in body
    assert api.status_code == 500 and api["Content-Type"] == "application/json"
    assert api.json()["detail"].startswith("Es ist ein interner Fehler aufgetreten.")


def test_csrf_failure_is_a_german_page_in_du_form():
    client = Client(enforce_csrf_checks=True)
    client.force_login(UserFactory())
    page = client.post("/akten/1/nachricht/", {"text": "x"})
    assert page.status_code == 403
    body = page.content.decode()
    assert "Das Formular ist abgelaufen" in body and "Lade die Seite neu" in body


def test_csrf_failure_of_the_api_is_german_json():
    client = Client(enforce_csrf_checks=True)
    client.force_login(UserFactory())
    api = client.post("/api/drafts/1/accept/")
    assert api.status_code == 403
    assert api.json()["detail"] == "CSRF-Prüfung fehlgeschlagen. Lade die Seite neu und versuch es noch einmal."


@pytest.mark.django_db
def test_a_page_called_with_the_wrong_method_says_so_in_german(client):
    """Daily-use probe 2026-12-05: GET on a form's target (or /abmelden/ typed in) gave a blank page."""
    user = UserFactory()
    client.force_login(user)
    for url in ("/kalender/1/erledigt/", "/abmelden/"):
        response = client.get(url)
        assert response.status_code == 405 and response["Allow"]
        assert "So nicht möglich" in response.content.decode()
    api = client.post("/api/akten/")
    assert api.status_code == 405 and api["Content-Type"].startswith("application/json")
