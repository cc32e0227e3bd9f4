"""Fristen review of 2026-12-04: before the Arbeitsgericht the Einspruch against a Versäumnisurteil
or Vollstreckungsbescheid and the Widerspruch against a Mahnbescheid take one week (§ 59 Abs. 1,
§ 46a Abs. 1, 3 ArbGG), not the ZPO's two. An Arbeitsrecht Akte got the ZPO's later end, with the
one-week rule only as a remark in the explanation."""

import pytest

from tests.factories import AkteFactory

pytestmark = pytest.mark.django_db

VORLAGEN = [
    ("einspruch_versaeumnisurteil", "§ 59 Abs. 1 Satz 1 ArbGG"),
    ("einspruch_vollstreckungsbescheid", "§ 46a Abs. 1 ArbGG"),
    ("widerspruch_mahnbescheid", "§ 46a Abs. 3 ArbGG"),
]


def _akte(anwalt, sachgebiet, gericht):
    return AkteFactory(anwalt=anwalt, sachgebiet=sachgebiet, gericht_name=gericht, gericht_ort="Köln", gericht_bundesland="NW")


@pytest.mark.parametrize(("vorlage", "norm"), VORLAGEN)
@pytest.mark.parametrize(
    ("sachgebiet", "gericht"),
    [("ARBEITSRECHT", "Arbeitsgericht Köln"), ("ARBEITSRECHT", "Amtsgericht Köln"), ("SONSTIGES", "ArbG Köln")],
)
def test_before_the_arbeitsgericht_the_one_week_period_applies_with_a_warning(call, anwalt, vorlage, norm, sachgebiet, gericht):
    akte = _akte(anwalt, sachgebiet, gericht)
    result = call(anwalt, "berechne_frist", {"ereignis_datum": "2026-12-01", "vorlage": vorlage}, akte=akte)
    assert result.ok, result.error
    assert result.data["fristablauf"] == "2026-12-08"  # Tuesday, one week after Tuesday 01.12.2026
    assert norm in result.data["rechtsgrundlage"]
    warnung = next(w for w in result.data["warnungen"] if "Arbeitsgericht" in w)
    assert "15.12.2026" in warnung and "08.12.2026" in warnung


@pytest.mark.parametrize(("vorlage", "norm"), VORLAGEN)
def test_a_civil_akte_keeps_the_zpo_period(call, anwalt, vorlage, norm):
    akte = _akte(anwalt, "MIETRECHT", "Amtsgericht Köln")
    result = call(anwalt, "berechne_frist", {"ereignis_datum": "2026-12-01", "vorlage": vorlage}, akte=akte)
    assert result.ok, result.error
    assert result.data["fristablauf"] == "2026-12-15"
    assert not any(w.startswith("Die Akte ist") for w in result.data["warnungen"])


def test_the_famfg_month_names_the_two_weeks_of_an_einstweilige_anordnung(call, anwalt):
    """§ 63 Abs. 2 FamFG: two weeks against an Endentscheidung in the einstweilige Anordnung. The
    month's result only mentioned it in its explanation; now a warning names the earlier end."""
    akte = AkteFactory(anwalt=anwalt, sachgebiet="FAMILIENRECHT", gericht_name="Amtsgericht Köln", gericht_bundesland="NW")
    result = call(anwalt, "berechne_frist", {"ereignis_datum": "2026-12-01", "vorlage": "beschwerde_famfg"}, akte=akte)
    assert result.ok, result.error
    assert result.data["fristablauf"] == "2027-01-04"  # 01.01. Neujahr, 02./03.01. weekend
    warnung = next(w for w in result.data["warnungen"] if "§ 63 Abs. 2 FamFG" in w)
    assert "15.12.2026" in warnung and "einstweiligen Anordnung" in warnung
