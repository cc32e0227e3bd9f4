"""The Kostennote form under the RVG calculator names a wrong input by the field's German label
(„Aktenzeichen: Bitte fülle dieses Feld aus.“), never by its code name („aktenzeichen“,
„gegenstandswert“, „__all__“) or as the HTML of Django's error list."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from drafts.models import HelenaDraft

from .helpers import akte_mit_parteien, kanzlei
from .test_kostennote import ANFRAGE

pytestmark = pytest.mark.django_db

CODE_NAMES = re.compile(
    r"aktenzeichen|\bart\b|leistungszeitraum_|vorschuesse|anfrage|gegenstandswert|__all__|non_field_errors|errorlist|<"
)


def _messages(client, akte, **eingaben: str) -> list[str]:
    """The messages on the calculator page the form leads back to."""
    daten = {
        "anfrage": urlencode(ANFRAGE),
        "aktenzeichen": akte.aktenzeichen,
        "art": "KOSTENNOTE",
        "leistungszeitraum_von": "2025-07-01",
        "leistungszeitraum_bis": "2025-11-30",
        **eingaben,
    }
    antwort = client.post(reverse("rechner-rvg-kostennote"), daten, follow=True)
    assert antwort.status_code == 200
    liste = re.search(r'<ul class="messages"[^>]*>(.*?)</ul>', antwort.content.decode(), re.S)
    assert liste is not None
    return [re.sub(r"\s+", " ", eintrag).strip() for eintrag in re.findall(r"<li>(.*?)</li>", liste.group(1), re.S)]


@pytest.mark.parametrize(
    ("eingaben", "meldung"),
    [
        ({"aktenzeichen": ""}, "Aktenzeichen: Bitte fülle dieses Feld aus."),
        ({"aktenzeichen": "1" * 31}, "Aktenzeichen: Bitte gib höchstens 30 Zeichen ein (es sind 31)."),
        ({"art": "RECHNUNG"}, "Art: Bitte wähle einen der angebotenen Einträge aus."),
        ({"leistungszeitraum_von": "gestern"}, "Leistungszeitraum von: Bitte gib ein gültiges Datum ein, z. B. 01.07.2025."),
        ({"leistungszeitraum_bis": ""}, "Leistungszeitraum bis: Bitte fülle dieses Feld aus."),
        ({"vorschuesse": "viel"}, "Bereits gezahlte Vorschüsse: Bitte gib eine Zahl ein, z. B. 5.000,00 oder 5000."),
        ({"vorschuesse": "-5"}, "Bereits gezahlte Vorschüsse: Der Wert muss mindestens 0 betragen."),
        ({"vorschuesse": "9" * 19}, "Bereits gezahlte Vorschüsse: Der Wert darf höchstens 1.000.000.000 betragen."),
        ({"anfrage": ""}, "Berechnung: Bitte berechne zuerst die Gebühren."),
        (
            {"anfrage": urlencode({**ANFRAGE, "gegenstandswert": ""})},
            "Die Berechnung ist unvollständig: Gegenstandswert in Euro: Bitte fülle dieses Feld aus.",
        ),
    ],
)
def test_an_error_names_the_field_by_its_german_label(client, eingaben, meldung):
    kanzlei()
    akte = akte_mit_parteien()
    client.force_login(akte.anwalt)

    meldungen = _messages(client, akte, **eingaben)

    assert meldungen == [meldung]
    assert not CODE_NAMES.search(" ".join(meldungen))
    assert not HelenaDraft.objects.exists()


def test_a_number_the_parser_refuses_names_the_field_once(client):
    kanzlei()
    akte = akte_mit_parteien()
    client.force_login(akte.anwalt)

    (meldung,) = _messages(client, akte, vorschuesse="1,234")

    assert meldung.startswith("Bereits gezahlte Vorschüsse: „1,234“ ist mehrdeutig.")
    assert meldung.count("Vorschüsse") == 1


def test_every_wrong_field_gets_its_own_message(client):
    kanzlei()
    akte = akte_mit_parteien()
    client.force_login(akte.anwalt)

    meldungen = _messages(client, akte, aktenzeichen="", leistungszeitraum_von="", leistungszeitraum_bis="")

    assert meldungen == [
        "Aktenzeichen: Bitte fülle dieses Feld aus.",
        "Leistungszeitraum von: Bitte fülle dieses Feld aus.",
        "Leistungszeitraum bis: Bitte fülle dieses Feld aus.",
    ]


def test_valid_advances_still_reach_the_draft(client):
    kanzlei()
    akte = akte_mit_parteien()
    client.force_login(akte.anwalt)

    _messages(client, akte, vorschuesse="100,50")

    assert HelenaDraft.objects.get(typ="KOSTENNOTE").payload["vorschuesse"] == "100.50"


def test_a_kostennote_cannot_bill_a_period_ending_after_today(client):
    """Work-product probe 2026-12-05: a Leistungszeitraum until 2030 was accepted; § 10 RVG bills work
    done, what is to come is a Vorschuss (§ 9 RVG), which may reach into the future."""
    import datetime

    from django.utils import timezone

    kanzlei()
    akte = akte_mit_parteien()
    client.force_login(akte.anwalt)
    morgen = (timezone.localdate() + datetime.timedelta(days=1)).isoformat()

    (meldung,) = _messages(client, akte, leistungszeitraum_bis=morgen)
    assert "nicht nach heute enden" in meldung and "Vorschussrechnung" in meldung
    assert not HelenaDraft.objects.exists()
    _messages(client, akte, art="VORSCHUSS", leistungszeitraum_bis=morgen)
    assert HelenaDraft.objects.filter(payload__art="VORSCHUSS").exists()
