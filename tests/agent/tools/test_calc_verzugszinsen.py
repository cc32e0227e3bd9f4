"""calc_verzugszinsen with schuldverhaeltnis_entstanden (Art. 229 § 34 EGBGB), called as the engine calls it."""

from datetime import timedelta

import pytest
from django.utils import timezone

pytestmark = pytest.mark.django_db

# 2020: Basiszinssatz -0,88 % all year, 366 days
B2B_2020 = {"hauptforderung": "10.000", "von": "2020-01-01", "bis": "2020-12-31", "art": "unternehmer"}


def test_das_modell_erfaehrt_auf_deutsch_wann_es_den_entstehungstag_angibt(call, anwalt) -> None:
    from agent.tools.read.calc_verzugszinsen import CalcVerzugszinsenParams

    schema = CalcVerzugszinsenParams.model_json_schema()["properties"]["schuldverhaeltnis_entstanden"]
    assert "Vor dem 29.07.2014 entstanden" in schema["description"] and "Art. 229 § 34 Satz 1 EGBGB" in schema["description"]


def test_das_modell_setzt_nie_rechnungs_liefer_oder_faelligkeitsdatum_ein_und_kennt_satz_2(call, anwalt) -> None:
    from agent.tools.read.calc_verzugszinsen import TOOL, CalcVerzugszinsenParams

    schema = CalcVerzugszinsenParams.model_json_schema()["properties"]
    entstanden = schema["schuldverhaeltnis_entstanden"]["description"]
    assert "nie das Datum der Rechnung, der Lieferung, der Leistung oder der Fälligkeit" in entstanden
    assert "den Nutzer danach fragen" in entstanden
    assert "Dauerschuldverhältnis" in entstanden and "nach dem 30.06.2016" in entstanden
    assert "auch wenn der Verzug erst später begann. Ausnahme (Satz 2)" in entstanden
    flag = schema["dauerschuldverhaeltnis"]
    assert flag["type"] == "boolean" and flag["default"] is False
    assert "Art. 229 § 34 Satz 2 EGBGB" in flag["description"] and "nach dem 30.06.2016 erbracht" in flag["description"]
    assert "never an invoice, delivery or due date" in TOOL.description


def test_altes_dauerschuldverhaeltnis_mit_neuer_gegenleistung_nach_neuem_recht(call, anwalt) -> None:
    """The review's probe: B2B contract of 01.03.2010, interest in 2023."""
    probe = {"hauptforderung": "10.000", "von": "2023-01-01", "bis": "2023-12-31", "art": "unternehmer"}
    result = call(
        anwalt, "calc_verzugszinsen", {**probe, "schuldverhaeltnis_entstanden": "2010-03-01", "dauerschuldverhaeltnis": True}
    )
    assert result.ok, result.error
    assert [p["zinssatz_prozent"] for p in result.data["perioden"]] == ["10.62", "12.12"]
    assert result.data["pauschale_288_5_eur"] == "40.00" and result.data["dauerschuldverhaeltnis"] is True
    assert "Art. 229 § 34 Satz 2 EGBGB" in result.data["erlaeuterung"]
    ohne = call(anwalt, "calc_verzugszinsen", {**probe, "schuldverhaeltnis_entstanden": "2010-03-01"})
    assert ohne.ok and ohne.data["pauschale_288_5_eur"] == "0.00" and "dauerschuldverhaeltnis" not in ohne.data
    assert [p["zinssatz_prozent"] for p in ohne.data["perioden"]] == ["9.62", "11.12"]
    assert "für eine solche Forderung gilt dieses Ergebnis nicht" in ohne.data["erlaeuterung"]
    frueh = call(anwalt, "calc_verzugszinsen", {**probe, "von": "2014-07-01", "dauerschuldverhaeltnis": True})
    assert not frueh.ok and "bitte von Hand prüfen" in frueh.error


def test_altes_schuldverhaeltnis_nach_altem_recht(call, anwalt) -> None:
    result = call(anwalt, "calc_verzugszinsen", {**B2B_2020, "schuldverhaeltnis_entstanden": "2013-05-01"})
    assert result.ok, result.error
    assert {p["zinssatz_prozent"] for p in result.data["perioden"]} == {"7.12"}
    assert result.data["zinsen_eur"] == "712.00" and result.data["pauschale_288_5_eur"] == "0.00"
    assert result.data["schuldverhaeltnis_entstanden"] == "2013-05-01"
    assert "am Mittwoch, 01.05.2013 entstanden" in result.data["erlaeuterung"]


def test_neues_schuldverhaeltnis_ohne_hinweis_auf_altes_recht(call, anwalt) -> None:
    result = call(anwalt, "calc_verzugszinsen", {**B2B_2020, "schuldverhaeltnis_entstanden": "2014-07-29"})
    assert result.ok, result.error
    assert result.data["zinsen_eur"] == "812.00" and result.data["pauschale_288_5_eur"] == "40.00"
    assert "a. F." not in result.data["erlaeuterung"]
    ohne = call(anwalt, "calc_verzugszinsen", B2B_2020)
    assert ohne.ok and ohne.data["zinsen_eur"] == "812.00" and "schuldverhaeltnis_entstanden" not in ohne.data
    assert "Ist das Schuldverhältnis vor dem 29.07.2014 entstanden" in ohne.data["erlaeuterung"]


def test_entstehungstag_nach_dem_zinsbeginn_oder_in_der_zukunft_ist_ein_fehler(call, anwalt) -> None:
    spaeter = call(anwalt, "calc_verzugszinsen", {**B2B_2020, "schuldverhaeltnis_entstanden": "2020-03-01"})
    assert not spaeter.ok and "kann nicht am Sonntag, 01.03.2020 entstanden sein" in spaeter.error
    gleich = call(anwalt, "calc_verzugszinsen", {**B2B_2020, "schuldverhaeltnis_entstanden": "2020-01-01"})
    assert not gleich.ok and "spätestens am Dienstag, 31.12.2019 entstanden" in gleich.error
    davor = call(anwalt, "calc_verzugszinsen", {**B2B_2020, "schuldverhaeltnis_entstanden": "2019-12-31"})
    assert davor.ok and davor.data["zinsen_eur"] == "812.00"
    morgen = (timezone.localdate() + timedelta(days=1)).isoformat()
    zukunft = call(anwalt, "calc_verzugszinsen", {**B2B_2020, "schuldverhaeltnis_entstanden": morgen})
    assert not zukunft.ok and "nicht in der Zukunft entstanden" in zukunft.error


@pytest.mark.parametrize("art", ["unternehmer", "verbraucher"])
def test_schuldverhaeltnis_vor_2002_lehnt_das_werkzeug_ab(call, anwalt, art: str) -> None:
    result = call(anwalt, "calc_verzugszinsen", {**B2B_2020, "art": art, "schuldverhaeltnis_entstanden": "2001-06-01"})
    assert not result.ok and "Art. 229 § 5 Satz 1 EGBGB" in result.error
    assert "Diese Berechnung unterstützt Helena nicht; bitte von Hand prüfen." in result.error
