"""The one amount parser (issue 12, defect 3): German notation, ambiguous input refused."""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rechner import gkg, rvg
from rechner.tabellen import format_euro
from rechner.zahlen import parse_zahl


@pytest.mark.parametrize(
    ("text", "zahl"),
    [
        ("5.000", "5000"),
        ("5.000,50", "5000.50"),
        ("5000,50", "5000.50"),
        ("1.000.000", "1000000"),
        ("1.234.567,89 €", "1234567.89"),
        ("5 000 EUR", "5000"),
        ("5000", "5000"),
        ("1,3", "1.3"),
        ("1.3", "1.3"),
        ("5000.5", "5000.5"),
        ("-2,5", "-2.5"),
    ],
)
def test_deutsche_schreibweise(text: str, zahl: str) -> None:
    assert parse_zahl(text, feld="Wert") == Decimal(zahl)


@pytest.mark.parametrize(
    ("text", "meldung"),
    [
        ("1,234", "mehrdeutig"),
        ("1234.567", "mehrdeutig"),
        ("0.125", "mehrdeutig"),
        ("5,000.50", "englischer Schreibweise"),
        ("1,000,000", "englischer Schreibweise"),
        ("5.00.0", "keine Zahl"),
        ("1e5", "keine Zahl"),
        ("fünf", "keine Zahl"),
        ("", "keine Zahl"),
    ],
)
def test_mehrdeutiges_und_falsches_wird_abgelehnt(text: str, meldung: str) -> None:
    with pytest.raises(ValueError, match=meldung):
        parse_zahl(text, feld="Gegenstandswert")


def test_float_wird_abgelehnt() -> None:
    with pytest.raises(ValueError, match="kein float"):
        parse_zahl(5000.5, feld="Wert")


def test_rechner_lesen_deutsche_tausenderpunkte() -> None:
    # Before issue 12, "5.000" was read as 5 EUR by the pure functions as well.
    assert rvg.gebuehr("5.000", Decimal("1.3"), on=rvg.RVG_2025.gueltig_ab) == Decimal("460.85")  # type: ignore[arg-type]
    assert gkg.kv_gebuehr("1210", "5.000", on=gkg.GKG_2025.gueltig_ab).amount == Decimal("511.50")  # type: ignore[arg-type]


@given(st.decimals(min_value=Decimal("0.01"), max_value=Decimal("999999999.99"), places=2))
def test_format_euro_und_parser_sind_umkehrbar(betrag: Decimal) -> None:
    assert parse_zahl(format_euro(betrag), feld="Betrag") == betrag
