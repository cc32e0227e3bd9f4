"""Calculator pages through the Django test client: forms, results, German errors, login."""

import re
from html import unescape

import pytest

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SEITEN = ["/rechner/", "/rechner/rvg/", "/rechner/gkg/", "/rechner/fristen/"]


@pytest.fixture
def angemeldet(client):
    client.force_login(UserFactory())
    return client


def seite(client, url: str, params: dict[str, str] | None = None) -> str:
    antwort = client.get(url, params or {})
    assert antwort.status_code == 200
    return unescape(antwort.content.decode())


@pytest.mark.parametrize("url", SEITEN)
def test_anonym_wird_zur_anmeldung_umgeleitet(client, url: str) -> None:
    antwort = client.get(url)
    assert antwort.status_code == 302
    assert antwort["Location"] == f"/anmelden/?next={url}"


def test_uebersicht_und_navigation(angemeldet) -> None:
    html = seite(angemeldet, "/rechner/")
    assert 'href="/rechner/"' in html  # Hauptnavigation
    for url in SEITEN[1:]:
        assert f'href="{url}"' in html


@pytest.mark.parametrize(("url", "feld"), [("/rechner/rvg/", "gegenstandswert"), ("/rechner/gkg/", "gkg-streitwert")])
def test_leeres_formular_ohne_ergebnis_und_ohne_fehler(angemeldet, url: str, feld: str) -> None:
    html = seite(angemeldet, url)
    assert f'name="{feld}"' in html
    assert "Die Berechnung war nicht möglich" not in html
    assert 'id="ergebnis-h"' not in html


def test_keine_inline_skripte_oder_styles(angemeldet) -> None:
    # CSP: script-src/style-src 'self' only.
    html = seite(angemeldet, "/rechner/rvg/", {"gegenstandswert": "5000", "vv_3100": "on"})
    # scripts only from files (`<script src=…>`), never inline; no inline styles
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == []
    assert "style=" not in html and "<style" not in html


@pytest.mark.parametrize(
    ("pkh", "tabelle", "netto", "ust", "brutto"),
    [
        (False, "Anlage 2 zu § 13 RVG (KostBRÄG 2025)", "906,25 €", "172,19 €", "1.078,44 €"),
        (True, "§ 49 RVG (KostBRÄG 2025)", "817,50 €", "155,33 €", "972,83 €"),
    ],
)
def test_rvg_zivilklage_5000_nach_kostbraeg_2025(angemeldet, pkh: bool, tabelle: str, netto: str, ust: str, brutto: str) -> None:
    # Same inputs and figures as tests/rechner/test_rvg.py::test_calculate_zivilklage_5000
    # (BRAK-Mitt. 2025, 181): 3100 + 3104 + 7002 bei 5.000 EUR, Auftrag nach dem 01.06.2025.
    params = {
        "gegenstandswert": "5.000,00",
        "auftragsdatum": "2025-06-02",
        "auftraggeber": "1",
        "vv_3100": "on",
        "vv_3104": "on",
        "anrechnung": "on",
        "auslagenpauschale": "on",
    }
    if pkh:
        params["pkh"] = "on"
    html = seite(angemeldet, "/rechner/rvg/", params)
    assert f"<dt>Gebührentabelle</dt><dd>{tabelle}</dd>" in html
    assert "Montag, 02.06.2025" in html
    assert '<td>3100</td><td>Verfahrensgebühr</td><td class="betrag">1,3</td>' in html
    assert '<td>3104</td><td>Terminsgebühr</td><td class="betrag">1,2</td>' in html
    assert "<td>7002</td>" in html
    assert f'Zwischensumme netto</th><td class="betrag">{netto}</td>' in html
    assert f'Umsatzsteuer 19 % (Nr. 7008 VV RVG)</th><td class="betrag">{ust}</td>' in html
    assert f'Gesamtbetrag brutto</th><td class="betrag">{brutto}</td>' in html
    assert "Anrechnung gesamt" not in html


def test_rvg_anrechnung_der_geschaeftsgebuehr(angemeldet) -> None:
    # tests/rechner/test_rvg.py::test_calculate_mit_anrechnung_der_geschaeftsgebuehr:
    # 10.000 EUR, 2300 1,3 + 3100 + 3104; Anrechnung 0,65 = 423.80; brutto 2491.62.
    html = seite(
        angemeldet,
        "/rechner/rvg/",
        {
            "gegenstandswert": "10000",
            "auftragsdatum": "2025-06-02",
            "vv_2300": "on",
            "satz_2300": "1,3",
            "vv_3100": "on",
            "vv_3104": "on",
            "anrechnung": "on",
            "auslagenpauschale": "on",
        },
    )
    assert '<td>2300</td><td>Geschäftsgebühr</td><td class="betrag">1,3</td>' in html
    assert "847,60 €" in html and "782,40 €" in html
    assert "Anrechnung der Geschäftsgebühr (1,3) zur Hälfte, höchstens 0,75, auf Nr. 3100" in html
    assert '<td class="betrag">0,65</td>' in html
    assert "-423,80 €" in html
    assert "40,00 €" in html  # two Auslagenpauschalen
    assert "2.093,80 €" in html and "397,82 €" in html and "2.491,62 €" in html


def test_rvg_ungueltiger_wert_zeigt_deutschen_fehler(angemeldet) -> None:
    html = seite(angemeldet, "/rechner/rvg/", {"gegenstandswert": "fünftausend", "vv_3100": "on"})
    assert "Bitte gib eine Zahl ein, z. B. 5.000,00 oder 5000." in html
    assert 'aria-invalid="true"' in html
    assert 'id="ergebnis-h"' not in html


def test_rvg_ohne_position_zeigt_rechnerfehler(angemeldet) -> None:
    html = seite(angemeldet, "/rechner/rvg/", {"gegenstandswert": "5000"})
    assert "Die Berechnung war nicht möglich." in html
    assert "Bitte mindestens eine Gebührenposition angeben." in html
    assert 'id="ergebnis-h"' not in html


def test_rvg_auftrag_vor_2021_zeigt_rechnerfehler(angemeldet) -> None:
    html = seite(angemeldet, "/rechner/rvg/", {"gegenstandswert": "5000", "auftragsdatum": "2020-12-31", "vv_3100": "on"})
    assert "Für Aufträge vor dem 01.01.2021 ist keine Gebührentabelle hinterlegt (Auftragsdatum: 31.12.2020)." in html


def test_rvg_geschaeftsgebuehr_ueber_13_ohne_begruendung(angemeldet) -> None:
    html = seite(angemeldet, "/rechner/rvg/", {"gegenstandswert": "5000", "vv_2300": "on", "satz_2300": "1,8"})
    assert "Eine Geschäftsgebühr von mehr als 1,3 kann nur gefordert werden" in html
    assert 'id="ergebnis-h"' not in html


def test_gkg_erster_rechtszug(angemeldet) -> None:
    # tests/rechner/test_gkg.py: Nr. 1210, 5.000 EUR, 2025 → 3,0 × 170.50 = 511.50.
    html = seite(angemeldet, "/rechner/gkg/", {"gkg-streitwert": "5.000", "gkg-kv": "1210", "gkg-anhaengig_seit": "2025-06-02"})
    assert "Anlage 2 zu § 34 GKG (KostBRÄG 2025)" in html
    assert "<td>1210</td>" in html
    assert '<td class="betrag">3,0</td>' in html
    assert "5.000,00 €" in html
    assert "511,50 €" in html


def test_gkg_fehler(angemeldet) -> None:
    html = seite(angemeldet, "/rechner/gkg/", {"gkg-streitwert": "5000", "gkg-kv": "9999"})
    assert "Bitte wähle einen der angebotenen Einträge aus." in html
    html = seite(angemeldet, "/rechner/gkg/", {"gkg-streitwert": "5000", "gkg-kv": "1210", "gkg-anhaengig_seit": "2019-01-01"})
    assert "Für Verfahren, die vor dem 01.01.2021 anhängig wurden, ist keine Gebührentabelle hinterlegt (01.01.2019)." in html
    assert 'id="ergebnis-h"' not in html


def test_fristen_berufung_ueber_ostern(angemeldet) -> None:
    # tests/rechner/test_fristen.py: Zustellung Do 29.02.2024; Berufung 1 Monat → Fr 29.03.2024 Karfreitag;
    # Sa, So, Mo 01.04. Ostermontag → Di 02.04.2024.
    html = seite(
        angemeldet,
        "/rechner/fristen/",
        {"vorlage": "berufung", "ereignisdatum": "2024-02-29", "bundesland": "NW", "vorfrist": "7"},
    )
    assert "Berufungsfrist: Fristablauf Dienstag, 02.04.2024" in html
    assert '<th scope="row">Fristbeginn (erster mitgezählter Tag)</th><td>Freitag, 01.03.2024</td>' in html
    assert '<th scope="row">Rechnerisches Fristende</th><td>Freitag, 29.03.2024</td>' in html
    assert '<th scope="row">Fristablauf</th><td>Dienstag, 02.04.2024, 24:00 Uhr</td>' in html
    assert "29.03.2024 Karfreitag" in html and "01.04.2024 Ostermontag" in html
    assert '<th scope="row">Vorfrist</th><td>Dienstag, 26.03.2024</td>' in html
    assert '<th scope="row">Notfrist</th><td>ja</td>' in html
    assert "§ 517 ZPO" in html and "§ 193 BGB, § 222 Abs. 2 ZPO" in html
    assert "Nordrhein-Westfalen" in html


def test_fristen_manuell_samstag_wird_auf_montag_verschoben(angemeldet) -> None:
    # tests/rechner/test_fristen.py: Sa 01.03.2025 + 2 Wochen → Sa 15.03.2025; So 16.03. → Mo 17.03.2025.
    html = seite(
        angemeldet,
        "/rechner/fristen/",
        {"dauer": "2", "einheit": "wochen", "fristbeginn": "ereignis", "ereignisdatum": "2025-03-01", "bundesland": "NW"},
    )
    assert '<th scope="row">Rechnerisches Fristende</th><td>Samstag, 15.03.2025</td>' in html
    assert '<th scope="row">Fristablauf</th><td>Montag, 17.03.2025, 24:00 Uhr</td>' in html
    assert "15.03.2025 Samstag; 16.03.2025 Sonntag" in html
    assert '<th scope="row">Notfrist</th><td>nein</td>' in html
    assert '<th scope="row">Vorfrist</th><td>keine</td>' in html


def test_fristen_ohne_vorlage_und_dauer(angemeldet) -> None:
    html = seite(angemeldet, "/rechner/fristen/", {"ereignisdatum": "2025-03-01"})
    assert "Bitte wähle eine Fristvorlage oder gib Dauer und Einheit der Frist an." in html
    assert 'id="ergebnis-h"' not in html


def test_fristen_ungueltiges_datum(angemeldet) -> None:
    html = seite(angemeldet, "/rechner/fristen/", {"vorlage": "berufung", "ereignisdatum": "31.02.2025"})
    assert "Bitte gib ein gültiges Datum ein, z. B. 01.07.2025." in html


def test_fristen_rechnerfehler_als_formularfehler(angemeldet) -> None:
    html = seite(
        angemeldet, "/rechner/fristen/", {"dauer": "1000", "einheit": "jahre", "ereignisdatum": "9999-01-01", "bundesland": "NW"}
    )
    assert "Die Frist reicht über das Jahr 9999 hinaus und kann nicht berechnet werden." in html
    assert 'id="ergebnis-h"' not in html


def test_rvg_hoechstwert_bei_auftraggebern_verschiedener_gegenstaende(angemeldet) -> None:
    """§ 22 Abs. 2 Satz 2 RVG through the page: two clients for different Gegenstände, 80 Mio. € → 60 Mio. €."""
    html = seite(
        angemeldet,
        "/rechner/rvg/",
        {"gegenstandswert": "80.000.000", "vv_3100": "on", "auftraggeber_verschiedene_gegenstaende": "2"},
    )
    assert "gerechnet wird mit 60.000.000,00 €" in html and "§ 22 Abs. 2 Satz 2 RVG" in html
    assert "Summe der so begrenzten Einzelwerte" in html


@pytest.mark.parametrize(
    "eingaben",
    [
        {"ereignisdatum": "0001-01-01", "bundesland": "BY", "dauer": "1", "einheit": "tage", "vorfrist": "7"},
        {"ereignisdatum": "0001-01-05", "bundesland": "BY", "dauer": "2", "einheit": "wochen", "vorfrist": "365"},
        {"vorlage": "berufung", "ereignisdatum": "0001-01-01", "bundesland": "BY"},
        {"vorlage": "gegenerklaerung_vor_termin", "ereignisdatum": "0001-01-01", "bundesland": "BY"},
    ],
)
def test_fristen_ein_datum_im_jahr_1_ist_ein_deutscher_fehler_kein_absturz(angemeldet, eingaben) -> None:
    """A typo of the year reached the Vorfrist's arithmetic below the year 1: 500 (OverflowError)."""
    html = seite(angemeldet, "/rechner/fristen/", eingaben)
    assert "liegt vor 1900 und kann nicht berechnet werden" in html
    assert 'id="ergebnis-h"' not in html
