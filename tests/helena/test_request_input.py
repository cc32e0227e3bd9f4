"""Bad input never reaches the database: control characters, NUL in bodies, API parameter values
outside the schema get a German 400 that names the field (JSON under /api/, a page elsewhere), and
an API error is JSON even when the server fails."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from akten.models import Role
from tests.factories import AkteFactory, BeteiligterFactory, HelenaDraftFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def anwalt():
    return UserFactory(role=Role.ANWALT)


@pytest.fixture
def logged_in(client, anwalt):
    client.force_login(anwalt)
    return client


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/akten/?q=%00", "q"),
        ("/api/akten/?status=%00", "status"),
        ("/api/akten/?sachgebiet=%00", "sachgebiet"),
        ("/api/fristen/?typ=%00", "typ"),
        ("/api/drafts/?status=%00", "status"),
        ("/api/dokumente/?akte=1%00", "akte"),
        ("/api/akten/?q=M%C3%BCller%1F", "q"),
        ("/api/akten/?q=%C2%85", "q"),
    ],
)
def test_control_characters_in_api_parameters_are_a_json_400_naming_the_field(logged_in, url, field):
    response = logged_in.get(url)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["field"] == field
    assert "Steuerzeichen" in body["detail"] and f"„{field}“" in body["detail"]


@pytest.mark.parametrize(
    ("url", "field"),
    [("/?q=%00", "q"), ("/recherche/?q=Miete%00", "q"), ("/helena/?akte=%00", "akte"), ("/rechner/rvg/?wert=1%00", "wert")],
)
def test_control_characters_on_pages_are_a_german_400_page_naming_the_field(logged_in, url, field):
    response = logged_in.get(url)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'lang="de"' in html and "Ungültige Anfrage" in html
    assert f"„{field}“" in html and "Steuerzeichen" in html


def test_overlong_parameter_is_refused_with_the_field(logged_in):
    response = logged_in.get("/api/akten/", {"q": "x" * 5000})
    assert response.status_code == 400
    assert response.json()["field"] == "q" and "zu lang" in response.json()["detail"]


@pytest.mark.parametrize(
    ("url", "field", "words"),
    [
        ("/api/fristen/?offen=", "offen", "leer"),
        ("/api/fristen/?offen=vielleicht", "offen", "ja oder nein"),
        ("/api/fristen/?akte=abc", "akte", "ganze Zahl"),
        ("/api/fristen/?typ=GERICHT", "typ", "Erlaubt: FRIST, TERMIN, WIEDERVORLAGE"),
        ("/api/drafts/?status=UNBEKANNT", "status", "Erlaubt: ACCEPTED, PENDING, REJECTED"),
        ("/api/drafts/?akte=zwei", "akte", "ganze Zahl"),
        ("/api/akten/?status=OFFENBAR", "status", "unbekannten Wert"),
        ("/api/akten/?sachgebiet=Mietrecht", "sachgebiet", "unbekannten Wert"),
        ("/api/alerts/?aktiv=egal", "aktiv", "ja oder nein"),
        ("/api/notizen/?akte=99999999999999999999999", "akte", "ganze Zahl"),
        ("/api/zeiterfassung/?akte=9223372036854775808", "akte", "außerhalb"),
        ("/api/akten/?limit=viele", "limit", "ganze Zahl"),
    ],
)
def test_typed_api_parameters_outside_the_schema_are_a_german_400(logged_in, url, field, words):
    response = logged_in.get(url)
    assert response.status_code == 400
    body = response.json()
    assert body["field"] == field and words in body["detail"]


def test_valid_typed_parameters_still_filter(logged_in, anwalt):
    akte = AkteFactory(anwalt=anwalt)
    HelenaDraftFactory(akte=akte)
    assert logged_in.get("/api/drafts/", {"status": "PENDING", "akte": akte.pk}).json()["count"] == 1
    assert logged_in.get("/api/drafts/", {"status": "REJECTED"}).json()["count"] == 0
    assert logged_in.get("/api/fristen/", {"offen": "ja", "typ": "FRIST"}).status_code == 200
    assert logged_in.get("/api/akten/", {"status": "OFFEN", "sachgebiet": "MIETRECHT"}).json()["count"] == 1


def test_nul_in_a_json_body_is_a_400_naming_the_field(logged_in, anwalt):
    draft = HelenaDraftFactory(akte=AkteFactory(anwalt=anwalt))
    response = logged_in.post(
        f"/api/drafts/{draft.pk}/reject/",
        data=json.dumps({"categories": ["SONSTIGES"], "reason": "Nicht\u0000so"}),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["field"] == "reason"
    draft.refresh_from_db()
    assert draft.status == "PENDING"


def test_lone_surrogate_in_a_json_body_is_a_400(logged_in, anwalt):
    draft = HelenaDraftFactory(akte=AkteFactory(anwalt=anwalt))
    response = logged_in.patch(
        f"/api/drafts/{draft.pk}/",
        data='{"payload": {"titel": "A", "text": "B\\ud800"}}',
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["field"] == "payload.text"


def test_deeply_nested_json_body_is_a_400_not_a_crash(anwalt):
    client = Client(raise_request_exception=False)
    client.force_login(anwalt)
    draft = HelenaDraftFactory(akte=AkteFactory(anwalt=anwalt))
    response = client.post(f"/api/drafts/{draft.pk}/reject/", data="[" * 50000 + "]" * 50000, content_type="application/json")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json" and "JSON" in response.json()["detail"]


def test_nul_in_a_form_body_is_a_400_page_naming_the_field(logged_in, anwalt):
    akte = AkteFactory(anwalt=anwalt)
    response = logged_in.post(f"/akten/{akte.pk}/notizen/neu/", {"text": "Anruf\x00Mandant"})
    assert response.status_code == 400
    assert "„text“" in response.content.decode()
    assert not akte.notiz_set.exists()


def test_an_api_server_error_is_json_in_german_without_internals(monkeypatch, anwalt):
    kontakt = BeteiligterFactory(akte=AkteFactory(anwalt=anwalt), kontakt__nachname="Geheimrath").kontakt

    def broken(**kwargs):
        raise RuntimeError(f"Datenbank kaputt bei {kontakt.nachname}")

    monkeypatch.setattr("akten.selectors.akte_list", broken)
    client = Client(raise_request_exception=False)
    client.force_login(anwalt)
    response = client.get("/api/akten/")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert "interner Fehler" in body["detail"]
    assert "Geheimrath" not in response.content.decode() and "RuntimeError" not in response.content.decode()


@pytest.mark.parametrize(("url", "status"), [("/api/gibt-es-nicht/", 404), ("/api/akten/999999/", 404)])
def test_every_api_error_is_json(logged_in, url, status):
    response = logged_in.get(url)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert response.json()["detail"] == "Nicht gefunden."


def test_a_page_server_error_is_the_german_page(monkeypatch, anwalt):
    def broken(**kwargs):
        raise RuntimeError("kaputt")

    monkeypatch.setattr("helena.views.akten_selectors.akte_list", broken)
    client = Client(raise_request_exception=False)
    client.force_login(anwalt)
    response = client.get("/")
    assert response.status_code == 500
    assert "Da ist etwas schiefgegangen" in response.content.decode()
