"""Kostennote from the RVG calculator page: draft, approval with Rechnungsnummer, amounts to the cent."""

from __future__ import annotations

import datetime
from decimal import Decimal
from urllib.parse import urlencode

import pytest
from django.urls import reverse
from django.utils import timezone

from akten.models import Dokument, Role
from drafts.models import HelenaDraft
from drafts.services import draft_accept
from rechner import rvg
from rechner.tabellen import format_euro
from tests.factories import UserFactory

from .helpers import akte_mit_parteien, docx_text, kanzlei, pdf_text

pytestmark = pytest.mark.django_db

ANFRAGE = {
    "gegenstandswert": "5.400,00",
    "auftragsdatum": "01.07.2025",
    "auftraggeber": "1",
    "vv_2300": "on",
    "satz_2300": "1,3",
    "vv_3100": "on",
    "vv_3104": "on",
    "anrechnung": "on",
    "auslagenpauschale": "on",
    "gesendet": "1",
}


def _rechner() -> rvg.Calculation:
    return rvg.calculate(
        gegenstandswert=Decimal("5400"),
        auftragsdatum=datetime.date(2025, 7, 1),
        positions=[rvg.PositionRequest("2300", rate=Decimal("1.3")), rvg.PositionRequest("3100"), rvg.PositionRequest("3104")],
    )


def _entwurf(client, akte, **extra: str):
    return client.post(
        reverse("rechner-rvg-kostennote"),
        {
            "anfrage": urlencode(ANFRAGE),
            "aktenzeichen": akte.aktenzeichen,
            "art": "KOSTENNOTE",
            "leistungszeitraum_von": "2025-07-01",
            "leistungszeitraum_bis": "2025-11-30",
            **extra,
        },
    )


def test_calculator_page_offers_the_action(client):
    akte = akte_mit_parteien()
    client.force_login(akte.anwalt)
    html = client.get(reverse("rechner-rvg") + "?" + urlencode(ANFRAGE)).content.decode()
    assert "Als Kostennote-Entwurf in die Akte" in html


def test_kostennote_amounts_equal_the_calculator_to_the_cent(client):
    kanzlei()
    akte = akte_mit_parteien()
    client.force_login(akte.anwalt)
    antwort = _entwurf(client, akte)
    assert antwort.status_code == 302 and antwort["Location"].startswith(reverse("akte-detail", args=[akte.pk]))
    draft = HelenaDraft.objects.get(typ="KOSTENNOTE")
    erwartet = _rechner()
    p = draft.payload
    assert [Decimal(x["betrag"]) for x in p["positionen"]] == [x.amount for x in erwartet.positions]
    assert [Decimal(x["betrag"]) for x in p["anrechnungen"]] == [x.amount for x in erwartet.anrechnungen]
    assert [Decimal(x["betrag"]) for x in p["auslagen"]] == [x.amount for x in erwartet.auslagen]
    assert (Decimal(p["netto"]), Decimal(p["ust"]), Decimal(p["brutto"])) == (erwartet.net, erwartet.ust, erwartet.gross)
    assert not Dokument.objects.exists()

    accepted = draft_accept(draft_id=draft.pk, by=akte.anwalt)
    dokument = Dokument.objects.get(pk=accepted.result_object_id)
    jahr = timezone.localdate().year
    assert dokument.name.endswith(f"Nr. {jahr}-0001")
    with dokument.datei.open("rb") as handle:
        text = docx_text(handle.read())
    for zeile in (*erwartet.positions, *erwartet.anrechnungen, *erwartet.auslagen):
        assert format_euro(zeile.amount) in text, zeile
    for betrag in (erwartet.net, erwartet.ust, erwartet.gross):
        assert format_euro(betrag) in text
    for erwartet_text in (f"Nr. {jahr}-0001", "01.07.2025 bis 30.11.2025", "IBAN DE89 3704 0044 0532 0130 00", "DE123456789"):
        assert erwartet_text in text
    assert "{{" not in text and "{%" not in text and "[fehlt" not in text
    pdf = client.get(f"/api/dokumente/{dokument.pk}/datei/pdf/")
    assert format_euro(erwartet.gross) in pdf_text(pdf.content)


def test_rechnungsnummer_is_never_reused_after_undo(client):
    kanzlei()
    akte = akte_mit_parteien()
    client.force_login(akte.anwalt)
    _entwurf(client, akte)
    draft = HelenaDraft.objects.get(typ="KOSTENNOTE")
    from drafts.services import draft_undo

    draft_accept(draft_id=draft.pk, by=akte.anwalt)
    draft_undo(draft_id=draft.pk, by=akte.anwalt)
    accepted = draft_accept(draft_id=draft.pk, by=akte.anwalt)
    assert Dokument.objects.get(pk=accepted.result_object_id).name.endswith("-0002")


def test_vorschuss_and_tampered_amounts(client):
    kanzlei()
    akte = akte_mit_parteien()
    client.force_login(akte.anwalt)
    _entwurf(client, akte, art="VORSCHUSS")
    draft = HelenaDraft.objects.get(typ="KOSTENNOTE")
    assert draft.payload["art"] == "VORSCHUSS"
    kaputt = {**draft.payload, "netto": "1.00"}
    antwort = client.patch(f"/api/drafts/{draft.pk}/", {"payload": kaputt}, content_type="application/json")
    assert antwort.status_code == 400 and "Positionen ergeben" in antwort.content.decode()
    text = docx_text(client.get(f"/api/drafts/{draft.pk}/datei/docx/").content)
    assert "Vorschussrechnung (Vorschuss nach § 9 RVG" in text and "wird bei der Übernahme vergeben" in text


def test_foreign_akte_is_not_found_for_the_action(client):
    akte = akte_mit_parteien()
    client.force_login(UserFactory(role=Role.ANWALT))
    antwort = _entwurf(client, akte)
    assert antwort.status_code == 302 and not HelenaDraft.objects.exists()


def test_kostennote_takes_every_input_of_the_calculator_page(client):
    """Abwesenheitsgeld, copies, travel costs: what the page charges, the Kostennote charges (it
    computed without them and came out lower than the page)."""
    kanzlei()
    akte = akte_mit_parteien()
    client.force_login(akte.anwalt)
    anfrage = {**ANFRAGE, "abwesenheit_stunden": "5", "seiten_sw": "60", "fahrtkosten": "12,40", "km": "30"}
    seite = client.get(reverse("rechner-rvg") + "?" + urlencode(anfrage)).context["ergebnis"]
    assert seite is not None and seite.gross > _rechner().gross
    antwort = client.post(
        reverse("rechner-rvg-kostennote"),
        {
            "anfrage": urlencode(anfrage),
            "aktenzeichen": akte.aktenzeichen,
            "art": "KOSTENNOTE",
            "leistungszeitraum_von": "2025-07-01",
            "leistungszeitraum_bis": "2025-11-30",
        },
    )
    assert antwort.status_code == 302
    p = HelenaDraft.objects.get(typ="KOSTENNOTE").payload
    assert [Decimal(x["betrag"]) for x in p["auslagen"]] == [x.amount for x in seite.auslagen]
    assert (Decimal(p["netto"]), Decimal(p["ust"]), Decimal(p["brutto"])) == (seite.net, seite.ust, seite.gross)


def test_the_fee_table_gives_the_description_the_room(client):
    """Review 2026-12-04: five equal columns wrapped „Pauschale für Post- und Telekommunikationsentgelte“
    over six lines and split „Telekommunikation|sentgelte“ inside the word in the PDF."""
    kanzlei()
    akte = akte_mit_parteien()
    client.force_login(akte.anwalt)
    _entwurf(client, akte)
    draft = HelenaDraft.objects.get(typ="KOSTENNOTE")
    dokument = Dokument.objects.get(pk=draft_accept(draft_id=draft.pk, by=akte.anwalt).result_object_id)
    text = pdf_text(client.get(f"/api/dokumente/{dokument.pk}/datei/pdf/").content)
    assert "Telekommunikationsentgelte" in text.replace("-\n", "")
    assert "Telekommunikation\n" not in text and "Pauschale für Post- und" in text
