"""Calculator pages for issue 12: the court's place, partial holidays, German numbers, value cap, bookmarks."""

from html import unescape

import pytest

from akten.models import KanzleiProfil
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def angemeldet(client):
    client.force_login(UserFactory())
    return client


def seite(client, params: dict[str, str]) -> str:
    antwort = client.get("/rechner/fristen/", params)
    assert antwort.status_code == 200
    return unescape(antwort.content.decode())


ZWEI_WOCHEN = {"dauer": "2", "einheit": "wochen", "ereignisdatum": "2025-06-05"}


def test_ohne_bundesland_und_ohne_kanzleisitz_fragt_die_seite_nach(angemeldet) -> None:
    html = seite(angemeldet, ZWEI_WOCHEN)
    assert "fehlt das Bundesland des Gerichts" in html
    assert 'id="ergebnis-h"' not in html


def test_berlin_endet_einen_tag_frueher_als_nrw(angemeldet) -> None:
    html = seite(angemeldet, {**ZWEI_WOCHEN, "bundesland": "BE", "ort": "Berlin"})
    assert "Fristablauf Donnerstag, 19.06.2025" in html
    assert "Berlin (Berlin); Quelle: Angabe" in html


def test_ohne_angabe_gilt_der_kanzleisitz_und_wird_genannt(angemeldet) -> None:
    KanzleiProfil(name="Kanzlei", sitz_ort="Köln", sitz_bundesland="NW").save()
    html = seite(angemeldet, ZWEI_WOCHEN)
    assert "Fristablauf Freitag, 20.06.2025" in html
    assert "Köln (Nordrhein-Westfalen); Quelle: Kanzleisitz" in html


def test_muenchen_mariae_himmelfahrt(angemeldet) -> None:
    params = {"dauer": "2", "einheit": "wochen", "ereignisdatum": "2025-08-01", "bundesland": "BY"}
    muenchen = seite(angemeldet, {**params, "ort": "München"})
    assert "Fristablauf Montag, 18.08.2025" in muenchen
    ohne_ort = seite(angemeldet, params)
    assert "Fristablauf Freitag, 15.08.2025" in ohne_ort
    assert "Mariä Himmelfahrt – ein Feiertag nur in Teilen von Bayern" in ohne_ort
    assert "keine Verschiebung" not in ohne_ort and "keine – das rechnerische Fristende" not in ohne_ort


def test_ort_ohne_bundesland(angemeldet) -> None:
    html = seite(angemeldet, {**ZWEI_WOCHEN, "ort": "München"})
    assert "Bitte wähle zum Ort auch das Bundesland des Gerichts." in html


def test_ungueltige_einheit_nur_mit_passender_meldung(angemeldet) -> None:
    html = seite(angemeldet, {**ZWEI_WOCHEN, "einheit": "quartale", "bundesland": "NW"})
    assert "Bitte wähle einen der angebotenen Einträge aus." in html
    assert "Bitte wähle eine Fristvorlage oder gib Dauer und Einheit der Frist an." not in html


def test_gkg_seite_hoechstwert(angemeldet) -> None:
    antwort = angemeldet.get(
        "/rechner/gkg/", {"gkg-streitwert": "50.000.000", "gkg-kv": "1210", "gkg-anhaengig_seit": "2025-07-01"}
    )
    html = unescape(antwort.content.decode())
    assert "384.114,00 €" in html and "§ 39 Abs. 2 GKG" in html


def test_rvg_lesezeichen_behaelt_auslagenpauschale_und_anrechnung(angemeldet) -> None:
    # A bookmarked URL without the form's marker: Nr. 7002 (ticked by default) stays in.
    params = {"gegenstandswert": "5.000", "auftragsdatum": "2025-07-01", "vv_3100": "on"}
    html = unescape(angemeldet.get("/rechner/rvg/", params).content.decode())
    assert "Pauschale für Post- und Telekommunikationsentgelte" in html
    # Submitted through the form (marker present) an unticked box stays unticked.
    html = unescape(angemeldet.get("/rechner/rvg/", {**params, "gesendet": "1"}).content.decode())
    assert "Pauschale für Post- und Telekommunikationsentgelte" not in html


def test_rvg_seite_einigung_berufung(angemeldet) -> None:
    params = {"gegenstandswert": "10.000", "auftragsdatum": "2025-07-01", "vv_3200": "on", "vv_3202": "on"}
    html = unescape(angemeldet.get("/rechner/rvg/", {**params, "einigung": "1004"}).content.decode())
    assert "3.204,91 €" in html


def test_rvg_seite_liest_tausenderpunkt_und_lehnt_mehrdeutiges_ab(angemeldet) -> None:
    params = {"auftragsdatum": "2025-07-01", "vv_3100": "on", "auslagenpauschale": "", "gesendet": "1"}
    html = unescape(angemeldet.get("/rechner/rvg/", {**params, "gegenstandswert": "5.000"}).content.decode())
    assert "460,85 €" in html
    html = unescape(angemeldet.get("/rechner/rvg/", {**params, "gegenstandswert": "1,234"}).content.decode())
    assert "„1,234“ ist mehrdeutig" in html and 'id="ergebnis-h"' not in html


def test_fristenseite_fuenf_monats_grenze_und_rueckwaerts(angemeldet) -> None:
    params = {"vorlage": "berufung", "ereignisdatum": "2025-06-20", "verkuendung": "2025-01-15", "bundesland": "NW"}
    assert "Berufungsfrist: Fristablauf Dienstag, 15.07.2025" in seite(angemeldet, params)
    rueck = {"vorlage": "schriftsatz_vor_termin", "ereignisdatum": "2025-06-26", "bundesland": "NW"}
    assert "Fristablauf Mittwoch, 18.06.2025" in seite(angemeldet, rueck)
    manuell = seite(angemeldet, {**ZWEI_WOCHEN, "bundesland": "NW", "verkuendung": "2025-01-15"})
    assert "Das Verkündungsdatum gilt nur für die Berufungsvorlagen" in manuell


def test_zinsseite(angemeldet) -> None:
    params = {"hauptforderung": "10.000", "von": "2024-01-01", "bis": "2024-12-31", "art": "verbraucher"}
    html = unescape(angemeldet.get("/rechner/zinsen/", params).content.decode())
    assert "Verzugszinsen: 849,43 €" in html and "3,62 %" in html
    html = unescape(angemeldet.get("/rechner/zinsen/", {**params, "bis": "2026-03-01"}).content.decode())
    assert "ist im Rechner noch nicht hinterlegt" in html and 'id="ergebnis-h"' not in html


def test_risikoseite(angemeldet) -> None:
    params = {"streitwert": "10.000", "instanzen": "2", "gericht": "zivil", "datum": "2025-07-01"}
    html = unescape(angemeldet.get("/rechner/prozesskostenrisiko/", params).content.decode())
    assert "Kosten bei vollständigem Unterliegen: 10.300,52 €" in html
    assert "Berufung" in html and "1.132,00 €" in html
