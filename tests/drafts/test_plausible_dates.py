"""A Frist due 9999-12-31, a Termin in the year 1 or a time record of 100,000 minutes is a typo: no
path to the record takes it (drafts, admin, services share the model's rules)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from akten.models import KalenderEintrag, Zeiterfassung
from drafts import services
from tests.factories import AkteFactory, UserFactory
from tests.support.dates import next_workday

pytestmark = pytest.mark.django_db


def _accept(typ, payload):
    akte = AkteFactory()
    draft = services.draft_create(typ=typ, akte=akte, requested_by=akte.anwalt, payload=payload)
    client = Client(raise_request_exception=False)
    client.force_login(akte.anwalt)
    return client.post(
        f"/api/drafts/{draft.pk}/accept/", {"version": services.draft_version(draft)}, content_type="application/json"
    )


@pytest.mark.parametrize(
    ("typ", "payload"),
    [
        ("FRIST", {"typ": "FRIST", "titel": "Frist", "datum": timezone.localdate().isoformat(), "fristablauf": "9999-12-31"}),
        ("FRIST", {"typ": "TERMIN", "titel": "Termin", "datum": "0001-01-01"}),
        ("ZEITERFASSUNG", {"datum": "0001-01-01", "minuten": 30, "beschreibung": "Telefonat"}),
    ],
)
def test_an_implausible_date_is_refused_in_german(typ, payload):
    response = _accept(typ, payload)
    assert response.status_code == 400, response.content
    assert "nicht plausibel (erlaubt: 1900 bis 2199)" in response.json()["detail"]
    assert not KalenderEintrag.objects.exists() and not Zeiterfassung.objects.exists()


def test_the_admin_takes_no_time_record_longer_than_a_day():
    admin = UserFactory(is_staff=True, is_superuser=True)
    akte = AkteFactory()
    client = Client()
    client.force_login(admin)
    response = client.post(
        "/admin/akten/zeiterfassung/add/",
        {"akte": akte.pk, "user": akte.anwalt.pk, "datum": next_workday(-3).isoformat(), "minuten": 100000,
         "beschreibung": "Aktenstudium", "abrechenbar": "on", "stundensatz": "250"},
    )  # fmt: skip
    assert response.status_code == 200 and not Zeiterfassung.objects.exists()
    assert "kleiner oder gleich 1440" in response.content.decode()


@pytest.mark.parametrize("body", ['{"version": NaN}', '{"version": Infinity}', '{"version": '])
def test_a_body_that_is_no_json_is_refused_in_german(body):
    """DRF quoted the JSON parser's English reason: "Out of range float values are not JSON compliant"."""
    akte = AkteFactory()
    draft = services.draft_create(typ="NOTIZ", akte=akte, requested_by=akte.anwalt, payload={"text": "x"})
    client = Client(raise_request_exception=False)
    client.force_login(akte.anwalt)
    response = client.post(f"/api/drafts/{draft.pk}/accept/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["detail"] == "Der Inhalt der Anfrage ist kein gültiges JSON."
