"""Verzugszinsen with the day the Schuldverhältnis arose (Art. 229 § 34 EGBGB): it decides between § 288 BGB
a. F. and n. F. instead of the Zinsbeginn; without it the Zinsbeginn decides as before."""

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from html import unescape

import pytest
from django.utils import timezone

from rechner.tabellen import format_datum
from rechner.zinsen import ZinsError, verzugszinsen
from tests.factories import UserFactory

# 2020: Basiszinssatz -0,88 % all year, 366 days: the year's interest is exactly the rate
B2B_2020 = {"hauptforderung": "10.000", "von": date(2020, 1, 1), "bis": date(2020, 12, 31), "art": "unternehmer"}
HEUTE = date(2026, 12, 4)


@pytest.mark.parametrize("entstanden", [date(2013, 5, 1), date(2014, 7, 28)])
def test_vor_dem_29_07_2014_entstanden_gilt_das_alte_recht_auch_bei_spaeterem_zinsbeginn(entstanden: date) -> None:
    zinsen = verzugszinsen(**B2B_2020, entstanden=entstanden, heute=HEUTE)
    assert {p.zinssatz for p in zinsen.perioden} == {Decimal("7.12")}  # -0,88 + 8 (§ 288 Abs. 2 BGB a. F.)
    assert zinsen.zinsen == Decimal("712.00") and zinsen.pauschale == Decimal("0.00")
    assert f"am {format_datum(entstanden)} entstanden" in zinsen.erlaeuterung
    assert "Art. 229 § 34 Satz 1 EGBGB" in zinsen.erlaeuterung and "30.06.2016" in zinsen.erlaeuterung
    glaeubiger = verzugszinsen(**{**B2B_2020, "art": "verbraucher_glaeubiger"}, entstanden=entstanden, heute=HEUTE)
    assert glaeubiger.pauschale == Decimal("0.00") and glaeubiger.zinsen == Decimal("412.00")


def test_nach_dem_28_07_2014_entstanden_gilt_das_neue_recht_ohne_hinweis() -> None:
    zinsen = verzugszinsen(**B2B_2020, entstanden=date(2014, 7, 29), heute=HEUTE)
    assert zinsen.zinsen == Decimal("812.00") and zinsen.pauschale == Decimal("40.00")
    assert "a. F." not in zinsen.erlaeuterung and "Art. 229" not in zinsen.erlaeuterung
    # a Zinsbeginn up to 29.07.2014 leaves no day after 28.07.2014 for the Schuldverhältnis (default began the day
    # before): the given day cannot switch such a period to the new law
    with pytest.raises(ZinsError, match="spätestens am Montag, 28.07.2014 entstanden"):
        verzugszinsen(
            hauptforderung="10.000",
            von=date(2014, 7, 29),
            bis=date(2014, 7, 31),
            art="unternehmer",
            entstanden=date(2014, 7, 29),
            heute=HEUTE,
        )
    grenze = verzugszinsen(
        hauptforderung="10.000",
        von=date(2014, 7, 30),
        bis=date(2014, 7, 31),
        art="unternehmer",
        entstanden=date(2014, 7, 29),
        heute=HEUTE,
    )
    assert grenze.pauschale == Decimal("40.00") and grenze.perioden[0].zinssatz == Decimal("8.27")


def test_ohne_entstehungstag_entscheidet_weiter_der_zinsbeginn() -> None:
    zinsen = verzugszinsen(**B2B_2020)
    assert zinsen.zinsen == Decimal("812.00") and zinsen.pauschale == Decimal("40.00")
    assert "Ist das Schuldverhältnis vor dem 29.07.2014 entstanden" in zinsen.erlaeuterung
    alt = verzugszinsen(hauptforderung="10.000", von=date(2014, 7, 29), bis=date(2014, 7, 31), art="unternehmer")
    assert alt.pauschale == Decimal("0.00") and alt.perioden[0].zinssatz == Decimal("7.27")


def test_entstehungstag_nach_dem_zinsbeginn_oder_in_der_zukunft_wird_abgelehnt() -> None:
    with pytest.raises(ZinsError, match=r"kann nicht am Donnerstag, 02.01.2020 entstanden sein: Der Zinsbeginn"):
        verzugszinsen(**B2B_2020, entstanden=date(2020, 1, 2), heute=HEUTE)
    with pytest.raises(ZinsError, match="nicht in der Zukunft entstanden"):
        verzugszinsen(
            **{**B2B_2020, "von": date(2026, 1, 1), "bis": date(2026, 6, 30)}, entstanden=HEUTE + timedelta(days=1), heute=HEUTE
        )
    # the latest possible day is the day default began, the day before the Zinsbeginn
    assert verzugszinsen(**B2B_2020, entstanden=date(2019, 12, 31), heute=HEUTE).pauschale == Decimal("40.00")


def test_entstehungstag_am_zinsbeginn_wird_abgelehnt_der_tag_davor_ist_der_spaeteste() -> None:
    """``von`` is the day after default began; default needs the claim, so the Schuldverhältnis arose by von - 1."""
    with pytest.raises(ZinsError) as fehler:
        verzugszinsen(**B2B_2020, entstanden=date(2020, 1, 1), heute=HEUTE)
    assert str(fehler.value) == (
        "Das Schuldverhältnis kann nicht am Mittwoch, 01.01.2020 entstanden sein: Der Zinsbeginn (Mittwoch, 01.01.2020) "
        "ist der Tag nach dem Eintritt des Verzugs, und Verzug setzt eine bestehende Forderung voraus. Das "
        "Schuldverhältnis ist also spätestens am Dienstag, 31.12.2019 entstanden."
    )


ALTES_SCHULDRECHT = (
    "Für ein solches Schuldverhältnis gilt § 288 BGB in der bis zum 31.12.2001 geltenden Fassung (Art. 229 § 5 Satz 1 "
    "EGBGB), für ein Dauerschuldverhältnis vom 01.01.2003 an das dann geltende Recht (Satz 2). Nach der alten Fassung "
    "hängt der Zinssatz davon ab, wann die Forderung fällig wurde (Art. 229 § 1 Abs. 1 Satz 3 EGBGB): ab dem "
    "01.05.2000 fünf Prozentpunkte über dem Basiszinssatz, auch zwischen Unternehmern und ohne Pauschale; vorher ein "
    "fester Zinssatz nach § 288 BGB und § 352 HGB in der davor geltenden Fassung. Diese Berechnung unterstützt Helena "
    "nicht; bitte von Hand prüfen."
)


@pytest.mark.parametrize("art", ["unternehmer", "verbraucher_glaeubiger", "verbraucher"])
def test_vor_2002_entstanden_lehnt_der_rechner_fuer_alle_beteiligten_ab(art: str) -> None:
    """Art. 229 § 5 EGBGB keeps § 288 BGB as in force until 31.12.2001, whose rate depends on the Fälligkeit
    (Art. 229 § 1 Abs. 1 Satz 3 EGBGB): 5 points only for claims due from 01.05.2000. No figure is computed."""
    with pytest.raises(ZinsError) as fehler:
        verzugszinsen(**{**B2B_2020, "art": art}, entstanden=date(2001, 12, 31), heute=HEUTE)
    assert str(fehler.value) == (
        "Das Schuldverhältnis ist am Montag, 31.12.2001 entstanden, also vor dem 01.01.2002. " + ALTES_SCHULDRECHT
    )
    assert verzugszinsen(**{**B2B_2020, "art": art}, entstanden=date(2002, 1, 1), heute=HEUTE).zinsen > 0


def test_zinsbeginn_vor_2002_nennt_das_alte_recht_und_den_alten_basiszinssatz() -> None:
    with pytest.raises(ZinsError) as fehler:
        verzugszinsen(hauptforderung="1000", von=date(2001, 12, 31), bis=date(2002, 1, 31), art="verbraucher")
    assert str(fehler.value) == (
        "Der Zinsbeginn (Montag, 31.12.2001) liegt vor dem 01.01.2002, also ist auch das Schuldverhältnis vor dem "
        "01.01.2002 entstanden; bis dahin galt statt des Basiszinssatzes nach § 247 BGB der nach dem "
        "Diskontsatz-Überleitungs-Gesetz (Art. 229 § 7 Abs. 2 EGBGB). " + ALTES_SCHULDRECHT
    )


def test_altes_recht_nach_dem_zinsbeginn_nennt_den_fall_vor_2002() -> None:
    zinsen = verzugszinsen(hauptforderung="1000", von=date(2005, 1, 1), bis=date(2005, 1, 31), art="unternehmer")
    assert zinsen.perioden[0].zinssatz == Decimal("9.21")  # 1,21 % + 8 points (§ 288 Abs. 2 BGB a. F.)
    assert "Ist es schon vor dem 01.01.2002 entstanden, gilt älteres Recht (Art. 229 § 5 EGBGB)" in zinsen.erlaeuterung


@pytest.mark.parametrize(
    ("eingabe", "angezeigt"),
    [
        (datetime(2020, 1, 1, 12, 30, tzinfo=UTC), "(angegeben: Mittwoch, 01.01.2020, 12:30 Uhr)"),
        ("2013-05-01", "(angegeben: „2013-05-01“)"),
    ],
)
def test_falsche_angaben_erscheinen_deutsch_nie_als_python_darstellung(eingabe: object, angezeigt: str) -> None:
    with pytest.raises(ZinsError) as entstanden:
        verzugszinsen(**B2B_2020, entstanden=eingabe, heute=HEUTE)  # type: ignore[arg-type]
    assert str(entstanden.value).startswith("Bitte gib den Tag, an dem das Schuldverhältnis entstanden ist, als Datum an")
    assert angezeigt in str(entstanden.value) and "datetime" not in str(entstanden.value)
    with pytest.raises(ZinsError) as beginn:
        verzugszinsen(**{**B2B_2020, "von": eingabe})  # type: ignore[arg-type]
    assert angezeigt in str(beginn.value) and "datetime" not in str(beginn.value)


@pytest.fixture
def angemeldet(client, db):
    client.force_login(UserFactory())
    return client


def seite(client, **params: str) -> str:
    antwort = client.get("/rechner/zinsen/", {"hauptforderung": "10.000", "von": "2020-01-01", "bis": "2020-12-31", **params})
    assert antwort.status_code == 200
    return unescape(antwort.content.decode())


def test_seite_zeigt_das_feld_und_rechnet_mit_dem_entstehungstag(angemeldet) -> None:
    leer = unescape(angemeldet.get("/rechner/zinsen/").content.decode())
    assert 'name="entstanden"' in leer and "Schuldverhältnis entstanden am" in leer

    alt = seite(angemeldet, art="unternehmer", entstanden="2013-05-01")
    assert "Verzugszinsen: 712,00 €" in alt and "7,12 %" in alt
    assert "Verzugspauschale (§ 288 Abs. 5 BGB)" not in alt
    assert "Das Schuldverhältnis ist am Mittwoch, 01.05.2013 entstanden" in alt

    neu = seite(angemeldet, art="unternehmer", entstanden="2015-03-01")
    assert "Verzugszinsen: 812,00 €" in neu and "Verzugspauschale (§ 288 Abs. 5 BGB)" in neu
    assert "Art. 229 § 34" not in neu.split('id="ergebnis-h"')[1]

    ohne = seite(angemeldet, art="unternehmer")
    assert "Verzugszinsen: 812,00 €" in ohne
    assert "Ist das Schuldverhältnis vor dem 29.07.2014 entstanden" in ohne


def test_seite_lehnt_einen_entstehungstag_nach_dem_zinsbeginn_oder_in_der_zukunft_ab(angemeldet) -> None:
    spaeter = seite(angemeldet, art="unternehmer", entstanden="2020-02-01")
    assert "kann nicht am Samstag, 01.02.2020 entstanden sein: Der Zinsbeginn (Mittwoch, 01.01.2020)" in spaeter
    assert 'id="ergebnis-h"' not in spaeter and 'id="id_entstanden_error"' in spaeter
    morgen = timezone.localdate() + timedelta(days=1)
    zukunft = seite(angemeldet, art="verbraucher", entstanden=morgen.isoformat())
    assert f"nicht in der Zukunft entstanden sein (angegeben: {format_datum(morgen)})" in zukunft
    assert 'id="ergebnis-h"' not in zukunft
    for art in ("unternehmer", "verbraucher"):
        vor_2002 = seite(angemeldet, art=art, entstanden="2001-06-01")
        assert "Das Schuldverhältnis ist am Freitag, 01.06.2001 entstanden, also vor dem 01.01.2002." in vor_2002
        assert "Diese Berechnung unterstützt Helena nicht; bitte von Hand prüfen." in vor_2002
        assert "Rechne dafür" not in vor_2002 and 'id="ergebnis-h"' not in vor_2002


def test_seite_lehnt_den_zinsbeginn_als_entstehungstag_ab(angemeldet) -> None:
    gleich = seite(angemeldet, art="unternehmer", entstanden="2020-01-01")
    assert "spätestens am Dienstag, 31.12.2019 entstanden" in gleich
    assert 'id="ergebnis-h"' not in gleich and 'id="id_entstanden_error"' in gleich
    assert "Verzugszinsen: 812,00 €" in seite(angemeldet, art="unternehmer", entstanden="2019-12-31")


@pytest.mark.parametrize("von", ["", "31.02.2020", "kein Datum"])
def test_seite_lehnt_einen_kuenftigen_entstehungstag_auch_bei_fehlendem_zinsbeginn_ab(angemeldet, von: str) -> None:
    morgen = timezone.localdate() + timedelta(days=1)
    html = seite(angemeldet, art="unternehmer", von=von, entstanden=morgen.isoformat())
    assert f"nicht in der Zukunft entstanden sein (angegeben: {format_datum(morgen)})" in html
    assert 'id="id_entstanden_error"' in html and 'id="ergebnis-h"' not in html
