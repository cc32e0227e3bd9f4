"""Verzugszinsen on a claim from an older Dauerschuldverhältnis (Art. 229 § 34 Satz 2 EGBGB): the new § 288 BGB
applies "soweit die Gegenleistung nach dem 30. Juni 2016 erbracht wird". The caller states it
(``dauerschuldverhaeltnis``); without the statement Satz 1 decides and the result names Satz 2."""

from datetime import date
from decimal import Decimal
from html import unescape

import pytest

from rechner.zinsen import ZinsError, verzugszinsen
from tests.factories import UserFactory

# 2020: Basiszinssatz -0,88 % all year, 366 days: the year's interest is exactly the rate
B2B_2020 = {"hauptforderung": "10.000", "von": date(2020, 1, 1), "bis": date(2020, 12, 31), "art": "unternehmer"}
# 2023: 1,62 % then 3,12 %, 365 days
B2B_2023 = {"hauptforderung": "10.000", "von": date(2023, 1, 1), "bis": date(2023, 12, 31), "art": "unternehmer"}
HEUTE = date(2026, 12, 4)
SATZ_2 = (
    "Für eine Forderung aus einem Dauerschuldverhältnis, deren Gegenleistung nach dem 30.06.2016 erbracht wurde, gilt "
    "§ 288 BGB in der seit dem 29.07.2014 geltenden Fassung, auch wenn das Schuldverhältnis vorher entstanden ist "
    "(Art. 229 § 34 Satz 2 EGBGB)"
)


def test_altes_dauerschuldverhaeltnis_mit_gegenleistung_nach_dem_30_06_2016_folgt_dem_neuen_recht() -> None:
    """The review's probe: a B2B contract of 01.03.2010, interest in 2023."""
    zinsen = verzugszinsen(**B2B_2023, entstanden=date(2010, 3, 1), dauerschuldverhaeltnis=True, heute=HEUTE)
    assert [p.zinssatz for p in zinsen.perioden] == [Decimal("10.62"), Decimal("12.12")]  # 9 points
    assert zinsen.pauschale == Decimal("40.00") and zinsen.dauerschuldverhaeltnis
    assert "nach § 288 Abs. 2 BGB (9 Prozentpunkte)" in zinsen.erlaeuterung and "a. F." not in zinsen.erlaeuterung
    assert "Das Schuldverhältnis ist am Montag, 01.03.2010 entstanden, also vor dem 29.07.2014. " + SATZ_2 in (
        zinsen.erlaeuterung
    )
    assert "bitte getrennt rechnen" in zinsen.erlaeuterung
    # the same contract without the statement: Satz 1, the old law, and the result names Satz 2
    alt = verzugszinsen(**B2B_2023, entstanden=date(2010, 3, 1), heute=HEUTE)
    assert [p.zinssatz for p in alt.perioden] == [Decimal("9.62"), Decimal("11.12")] and alt.pauschale == 0
    assert "Art. 229 § 34 Satz 2 EGBGB" in alt.erlaeuterung
    assert "für eine solche Forderung gilt dieses Ergebnis nicht" in alt.erlaeuterung
    assert "ohne dieses Datum" not in alt.erlaeuterung


def test_verbraucher_als_glaeubiger_bekommt_mit_satz_2_die_pauschale() -> None:
    zinsen = verzugszinsen(
        **{**B2B_2020, "art": "verbraucher_glaeubiger"}, entstanden=date(2013, 5, 1), dauerschuldverhaeltnis=True, heute=HEUTE
    )
    assert zinsen.zinsen == Decimal("412.00") and zinsen.pauschale == Decimal("40.00")


def test_ohne_entstehungstag_gilt_mit_der_angabe_das_neue_recht_ohne_den_allgemeinen_hinweis() -> None:
    zinsen = verzugszinsen(**B2B_2020, dauerschuldverhaeltnis=True)
    assert zinsen.zinsen == Decimal("812.00") and zinsen.pauschale == Decimal("40.00")
    assert zinsen.erlaeuterung.splitlines()[-1].startswith(SATZ_2)
    assert "Ist das Schuldverhältnis vor dem 29.07.2014 entstanden" not in zinsen.erlaeuterung


def test_nach_dem_28_07_2014_entstanden_aendert_die_angabe_nichts() -> None:
    mit = verzugszinsen(**B2B_2020, entstanden=date(2015, 1, 1), dauerschuldverhaeltnis=True, heute=HEUTE)
    ohne = verzugszinsen(**B2B_2020, entstanden=date(2015, 1, 1), heute=HEUTE)
    assert mit.erlaeuterung == ohne.erlaeuterung and mit.zinsen == Decimal("812.00") and mit.pauschale == ohne.pauschale


def test_vor_2002_entstandenes_dauerschuldverhaeltnis_folgt_fuer_neue_gegenleistungen_dem_neuen_recht() -> None:
    """Art. 229 § 5 Satz 2 EGBGB: from 2003 the BGB then in force; Art. 229 § 34 Satz 2 EGBGB: the 2014 version for
    Gegenleistungen after 30.06.2016. Without the statement the old law of 2001 would decide: refused."""
    zinsen = verzugszinsen(**B2B_2020, entstanden=date(1998, 4, 1), dauerschuldverhaeltnis=True, heute=HEUTE)
    assert zinsen.zinsen == Decimal("812.00") and zinsen.pauschale == Decimal("40.00")
    assert "Art. 229 § 5 Satz 2 EGBGB" in zinsen.erlaeuterung
    with pytest.raises(ZinsError, match="Diese Berechnung unterstützt Helena nicht"):
        verzugszinsen(**B2B_2020, entstanden=date(1998, 4, 1), heute=HEUTE)


def test_mit_der_angabe_gilt_das_neue_recht_erst_ab_dem_29_07_2014() -> None:
    with pytest.raises(ZinsError) as fehler:
        verzugszinsen(hauptforderung="1000", von=date(2014, 7, 28), bis=date(2014, 8, 31), dauerschuldverhaeltnis=True)
    assert str(fehler.value).startswith("Zinsbeginn Montag, 28.07.2014: Die Angabe „Dauerschuldverhältnis, Gegenleistung")
    assert "bitte von Hand prüfen" in str(fehler.value)
    erster_tag = verzugszinsen(
        hauptforderung="1000", von=date(2014, 7, 29), bis=date(2014, 7, 31), art="unternehmer", dauerschuldverhaeltnis=True
    )
    assert erster_tag.perioden[0].zinssatz == Decimal("8.27") and erster_tag.pauschale == Decimal("40.00")  # -0,73 + 9


@pytest.fixture
def angemeldet(client, db):
    client.force_login(UserFactory())
    return client


def test_seite_nennt_beim_entstehungstag_den_vertragsschluss_und_satz_2(angemeldet) -> None:
    html = unescape(angemeldet.get("/rechner/zinsen/").content.decode())
    assert "nicht das Datum der Rechnung, Lieferung oder Fälligkeit" in html
    assert "Dauerschuldverhältnis (z. B. Miete, Leasing, Dienstvertrag) gilt für Gegenleistungen" in html
    assert "Vor dem 01.01.2002 entstanden: rechnet Helena nicht" in html


def test_seite_rechnet_ein_altes_dauerschuldverhaeltnis_mit_neuer_gegenleistung_nach_neuem_recht(angemeldet) -> None:
    params = {"hauptforderung": "10.000", "von": "2023-01-01", "bis": "2023-12-31", "art": "unternehmer"}
    leer = unescape(angemeldet.get("/rechner/zinsen/").content.decode())
    assert 'name="dauerschuldverhaeltnis"' in leer and 'type="checkbox"' in leer
    assert "Dauerschuldverhältnis (z. B. Miete, Leasing, Dienstvertrag): Forderung für eine Gegenleistung" in leer
    neu = unescape(
        angemeldet.get(
            "/rechner/zinsen/", {**params, "entstanden": "2010-03-01", "dauerschuldverhaeltnis": "on"}
        ).content.decode()
    )
    assert "10,62 %" in neu and "12,12 %" in neu and "Verzugspauschale (§ 288 Abs. 5 BGB)" in neu
    assert "Art. 229 § 34 Satz 2 EGBGB" in neu.split('id="ergebnis-h"')[1]
    alt = unescape(angemeldet.get("/rechner/zinsen/", {**params, "entstanden": "2010-03-01"}).content.decode())
    assert "9,62 %" in alt and "Verzugspauschale (§ 288 Abs. 5 BGB)" not in alt
    frueh = unescape(
        angemeldet.get("/rechner/zinsen/", {**params, "von": "2014-07-01", "dauerschuldverhaeltnis": "on"}).content.decode()
    )
    assert "bitte von Hand prüfen" in frueh and 'id="ergebnis-h"' not in frueh


def test_fuer_verbraucher_nennt_das_ergebnis_satz_2_nicht() -> None:
    """Between consumers the rate is 5 points under the old and the new law, without a Pauschale:
    the Satz 2 hint ("bitte getrennt rechnen") would ask for a calculation that changes nothing."""
    zinsen = verzugszinsen(
        **{**B2B_2023, "art": "verbraucher"}, entstanden=date(2010, 3, 1), dauerschuldverhaeltnis=True, heute=HEUTE
    )
    assert [p.zinssatz for p in zinsen.perioden] == [Decimal("6.62"), Decimal("8.12")]  # 5 points
    assert zinsen.pauschale == 0
    assert "Art. 229 § 34 Satz 2" not in zinsen.erlaeuterung and "getrennt rechnen" not in zinsen.erlaeuterung
