"""RVG review of 2026-12-04, figures checked against the Vergütungsverzeichnis (KostBRÄG 2025,
Wert 10.000 €: 1,0 = 652,00 €): crediting that the calculator left out, so the note came out too
high."""

from datetime import date
from decimal import Decimal

from rechner import rvg
from rechner.rvg import Angelegenheit, PositionRequest

NEU = date(2025, 7, 1)
WERT = Decimal(10_000)


def _rechnung(*positionen: PositionRequest) -> rvg.Calculation:
    return rvg.calculate(gegenstandswert=WERT, auftragsdatum=NEU, positions=list(positionen))


def test_die_pruefung_der_erfolgsaussicht_wird_auf_die_berufung_angerechnet() -> None:
    """Anm. zu Nr. 2100 VV RVG: „Die Gebühr ist auf eine Gebühr für das Rechtsmittelverfahren anzurechnen.“"""
    ergebnis = _rechnung(PositionRequest("2100", rate=Decimal("0.75")), PositionRequest("3200"), PositionRequest("3202"))
    (anrechnung,) = ergebnis.anrechnungen
    assert anrechnung.amount == Decimal("-489.00") and "auf Nr. 3200" in anrechnung.label
    assert ergebnis.net == Decimal("1865.60")  # 489,00 + 1.043,20 + 782,40 − 489,00 + 2 × 20,00


def test_das_gutachten_nr_2101_wird_ebenso_angerechnet() -> None:
    ergebnis = _rechnung(PositionRequest("2101"), PositionRequest("3206"))
    (anrechnung,) = ergebnis.anrechnungen
    assert anrechnung.amount == Decimal("-847.60")  # 1,3 × 652,00


def test_ohne_rechtsmittelverfahren_bleibt_die_pruefungsgebuehr_stehen() -> None:
    ergebnis = _rechnung(PositionRequest("2100", rate=Decimal("0.75")))
    assert not ergebnis.anrechnungen and ergebnis.net == Decimal("509.00")


def test_pkh_verfahren_und_hauptsache_sind_dieselbe_angelegenheit() -> None:
    """§ 16 Nr. 2, § 15 Abs. 2 RVG: Nr. 3335 is not earned next to Nr. 3100, and one Nr. 7002."""
    ergebnis = _rechnung(PositionRequest("3335"), PositionRequest("3100"), PositionRequest("3104"))
    (anrechnung,) = ergebnis.anrechnungen
    assert anrechnung.amount == Decimal("-652.00")
    assert [a.angelegenheit for a in ergebnis.auslagen] == [Angelegenheit.ERSTER_RECHTSZUG]
    assert ergebnis.net == Decimal("1650.00")  # 847,60 + 782,40 + 20,00


def test_das_pkh_verfahren_allein_bleibt_eine_eigene_angelegenheit() -> None:
    ergebnis = _rechnung(PositionRequest("3335"))
    assert not ergebnis.anrechnungen
    assert [a.angelegenheit for a in ergebnis.auslagen] == [Angelegenheit.PKH_VERFAHREN]
    assert ergebnis.net == Decimal("672.00")


def test_die_mahnverfahrensgebuehr_wird_auch_auf_die_ermaessigte_verfahrensgebuehr_angerechnet() -> None:
    """Anm. zu Nr. 3305: credited against „die Verfahrensgebühr für einen nachfolgenden Rechtsstreit“,
    which Nr. 3101 is in its reduced form."""
    ergebnis = _rechnung(PositionRequest("3305"), PositionRequest("3101"))
    (anrechnung,) = ergebnis.anrechnungen
    assert anrechnung.amount == Decimal("-521.60") and "auf Nr. 3101" in anrechnung.label
    assert ergebnis.net == Decimal("692.00")
