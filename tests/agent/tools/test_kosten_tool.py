"""get_kosten_rules: German amounts, the value cap, Nr. 1004, Inkasso and German rates (issue 12)."""

import pytest

from akten.models import Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def anwalt():
    return UserFactory(role=Role.ANWALT)


def kosten(call, anwalt, **args):
    result = call(anwalt, "get_kosten_rules", {"datum": "2025-07-01", **args})
    assert result.ok, result.error
    return result.data


def test_deutscher_tausenderpunkt(call, anwalt):
    data = kosten(call, anwalt, gegenstandswert="5.000", rvg_positionen=[{"vv": "3100"}], umsatzsteuer=False)
    assert data["gegenstandswert_eur"] == "5000.00"
    assert data["rvg"]["positionen"][0]["betrag_eur"] == "460.85"
    mit_cent = kosten(call, anwalt, gegenstandswert="5.000,50", gkg_nummern=["1210"])
    assert mit_cent["gegenstandswert_eur"] == "5000.50"


def test_mehrdeutiger_betrag_wird_auf_deutsch_abgelehnt(call, anwalt):
    result = call(anwalt, "get_kosten_rules", {"gegenstandswert": "1,234", "rvg_positionen": [{"vv": "3100"}]})
    assert not result.ok and "mehrdeutig" in result.error


def test_hoechstwert_30_millionen(call, anwalt):
    data = kosten(
        call,
        anwalt,
        gegenstandswert="50.000.000",
        rvg_positionen=[{"vv": "3100", "satz": "1,3"}],
        gkg_nummern=["1210"],
        auslagenpauschale=False,
        umsatzsteuer=False,
    )
    assert data["rvg"]["positionen"][0]["betrag_eur"] == "139102.60"  # 1,3 × 107.002,00
    assert data["gkg"]["positionen"][0]["betrag_eur"] == "384114.00"
    assert any("§ 22 Abs. 2" in hinweis for hinweis in data["rvg"]["hinweise"])


def test_einigung_in_der_berufung(call, anwalt):
    data = kosten(call, anwalt, gegenstandswert=10000, rvg_positionen=[{"vv": "3200"}, {"vv": "3202"}, {"vv": "1004"}])
    assert data["rvg"]["gesamt_eur"] == "3204.91"
    falsch = call(
        anwalt,
        "get_kosten_rules",
        {"gegenstandswert": 10000, "rvg_positionen": [{"vv": "3200"}, {"vv": "3202"}, {"vv": "1003"}]},
    )
    assert not falsch.ok and "Nr. 1004" in falsch.error


def test_saetze_mit_komma_und_nachkommastelle(call, anwalt):
    data = kosten(call, anwalt, gegenstandswert=5000, rvg_positionen=[{"vv": "3100"}, {"vv": "1003"}])
    einigung = data["rvg"]["positionen"][1]
    assert einigung["satz"] == "1,0"
    assert "Nr. 1003: 1,0 Einigungsgebühr" in data["rvg"]["aufstellung"]


def test_inkasso_unbestritten(call, anwalt):
    data = kosten(
        call,
        anwalt,
        gegenstandswert=40,
        rvg_positionen=[{"vv": "2300", "inkasso_unbestritten": True}],
        auslagenpauschale=False,
        umsatzsteuer=False,
    )
    # 0,9 × 31,50 € = 28,35 € (§ 13 Abs. 2 RVG, Anm. Abs. 2 zu Nr. 2300 VV RVG).
    assert data["rvg"]["positionen"][0]["betrag_eur"] == "28.35"
    zu_hoch = call(
        anwalt,
        "get_kosten_rules",
        {"gegenstandswert": 1000, "rvg_positionen": [{"vv": "2300", "satz": 1.3, "inkasso_unbestritten": True}]},
    )
    assert not zu_hoch.ok and "mehr als 0,9" in zu_hoch.error
