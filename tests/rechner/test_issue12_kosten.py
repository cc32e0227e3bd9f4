"""Fee calculators (issue 12): value cap, Nr. 1004, Inkasso, German rates, table properties.

2025 tables: RVG 1,0-Gebühr at 30 Mio. € = 3.752,00 + 590 × 175,00 = 107.002,00 €; at 10.000 €
= 652,00 €. GKG 1,0-Gebühr at 30 Mio. € = 4.138,00 + 590 × 210,00 = 128.038,00 €.
"""

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rechner import gkg, rvg
from rechner.rvg import PositionRequest, RvgError
from rechner.tabellen import HOECHSTWERT, format_euro, format_satz, runde_cent

NEU = date(2025, 6, 1)
ALT = date(2021, 10, 1)
TABELLEN = [rvg.RVG_2021.tabelle, rvg.RVG_2025.tabelle, gkg.GKG_2021.tabelle, gkg.GKG_2025.tabelle]


def test_rvg_hoechstwert_30_millionen() -> None:
    assert rvg.einfache_gebuehr(Decimal(50_000_000), on=NEU) == Decimal("107002.00")
    assert rvg.einfache_gebuehr(Decimal(30_000_000), on=NEU) == Decimal("107002.00")
    berechnung = rvg.calculate(
        gegenstandswert=Decimal(50_000_000), auftragsdatum=NEU, positions=[PositionRequest("3100")], ust_rate=Decimal(0)
    )
    assert any("§ 22 Abs. 2 Satz 1 RVG" in hinweis for hinweis in berechnung.hinweise)
    assert "Hinweis: Der Gegenstandswert 50.000.000,00 €" in rvg.describe(berechnung)


@pytest.mark.parametrize(
    ("wert", "personen", "einfache_gebuehr"),
    [
        # 2 × 30 Mio. = 60 Mio. cap; 50 Mio. stay: 107.002,00 + 400 × 175,00 = 177.002,00 €
        (50_000_000, 2, "177002.00"),
        # 80 Mio. → 60 Mio.: 107.002,00 + 600 × 175,00 = 212.002,00 €
        (80_000_000, 2, "212002.00"),
        # 4 × 30 Mio. = 120 Mio., but at most 100 Mio.: 107.002,00 + 1.400 × 175,00 = 352.002,00 €
        (150_000_000, 4, "352002.00"),
        # one client: 30 Mio. (§ 22 Abs. 2 Satz 1 RVG)
        (50_000_000, 1, "107002.00"),
    ],
)
def test_rvg_hoechstwert_je_auftraggeber_verschiedener_gegenstaende(wert: int, personen: int, einfache_gebuehr: str) -> None:
    """§ 22 Abs. 2 Satz 2 RVG: several clients for different Gegenstände, 30 Mio. € each, 100 Mio. € in all."""
    berechnung = rvg.calculate(
        gegenstandswert=Decimal(wert),
        auftragsdatum=NEU,
        positions=[PositionRequest("2300"), PositionRequest("3100")],
        auftraggeber_verschiedene_gegenstaende=personen,
        ust_rate=Decimal(0),
    )
    geschaeftsgebuehr, verfahrensgebuehr = berechnung.positions
    assert geschaeftsgebuehr.amount == runde_cent(Decimal(einfache_gebuehr) * Decimal("1.3"))
    assert verfahrensgebuehr.amount == geschaeftsgebuehr.amount
    assert berechnung.anrechnungen[0].amount == -runde_cent(Decimal(einfache_gebuehr) * Decimal("0.65"))
    satz_2 = [hinweis for hinweis in berechnung.hinweise if "§ 22 Abs. 2 Satz 2 RVG" in hinweis]
    if personen == 1:
        assert not satz_2 and any("§ 22 Abs. 2 Satz 1 RVG" in hinweis for hinweis in berechnung.hinweise)
    else:
        # the calculator knows only the sum: it says so
        assert any("je Auftraggeber" in hinweis and "Einzelwerte" in hinweis for hinweis in satz_2)
        grenze = min(personen * HOECHSTWERT, Decimal(100_000_000))
        assert any(f"gerechnet wird mit {format_euro(grenze)}" in hinweis for hinweis in satz_2) == (wert > grenze)


def test_rvg_mehrere_auftraggeber_unter_30_millionen_ohne_hinweis() -> None:
    berechnung = rvg.calculate(
        gegenstandswert=Decimal(10_000),
        auftragsdatum=NEU,
        positions=[PositionRequest("3100")],
        auftraggeber_verschiedene_gegenstaende=3,
    )
    assert berechnung.positions[0].amount == Decimal("847.60") and not berechnung.hinweise


@pytest.mark.parametrize(
    ("kwargs", "meldung"),
    [
        ({"auftraggeber": 2, "auftraggeber_verschiedene_gegenstaende": 2}, "gemeinschaftlich beteiligt"),
        ({"auftraggeber_verschiedene_gegenstaende": 0}, "verschiedener Gegenstände muss mindestens 1"),
    ],
)
def test_rvg_auftraggeber_nach_1008_und_22_abs_2_nicht_zugleich(kwargs: dict[str, int], meldung: str) -> None:
    with pytest.raises(RvgError, match=meldung):
        rvg.calculate(gegenstandswert=Decimal(50_000_000), auftragsdatum=NEU, positions=[PositionRequest("3100")], **kwargs)


def test_gkg_hoechstwert_30_millionen() -> None:
    position = gkg.kv_gebuehr("1210", Decimal(50_000_000), on=NEU)
    assert position.amount == Decimal("384114.00")
    assert position.hinweis is not None and "§ 39 Abs. 2 GKG" in position.hinweis


def test_einigung_in_der_berufung_nr_1004() -> None:
    berechnung = rvg.calculate(
        gegenstandswert=Decimal(10_000),
        auftragsdatum=NEU,
        positions=[PositionRequest("3200"), PositionRequest("3202"), PositionRequest("1004")],
    )
    assert [(p.vv, p.amount) for p in berechnung.positions] == [
        ("3200", Decimal("1043.20")),
        ("3202", Decimal("782.40")),
        ("1004", Decimal("847.60")),
    ]
    assert berechnung.gross == Decimal("3204.91")


def test_nr_1003_in_der_berufung_und_1004_in_erster_instanz_werden_abgelehnt() -> None:
    with pytest.raises(RvgError, match="Nr. 1004"):
        rvg.calculate(
            gegenstandswert=Decimal(10_000),
            auftragsdatum=NEU,
            positions=[PositionRequest("3200"), PositionRequest("1003")],
        )
    with pytest.raises(RvgError, match="nur, wenn über den Gegenstand ein Berufungs"):
        rvg.calculate(
            gegenstandswert=Decimal(10_000),
            auftragsdatum=NEU,
            positions=[PositionRequest("3100"), PositionRequest("1004")],
        )


@pytest.mark.parametrize(("on", "grundgebuehr"), [(ALT, "30.00"), (NEU, "31.50")])
def test_inkasso_bis_50_euro(on: date, grundgebuehr: str) -> None:
    berechnung = rvg.calculate(
        gegenstandswert=Decimal(50),
        auftragsdatum=on,
        positions=[PositionRequest("2300", inkasso_unbestritten=True)],
        auslagenpauschale=False,
        ust_rate=Decimal(0),
    )
    assert berechnung.positions[0].rate == Decimal("0.9")
    assert berechnung.positions[0].amount == (Decimal(grundgebuehr) * Decimal("0.9")).quantize(Decimal("0.01"))
    # Above 50 EUR the normal table applies: 0,9 × 51,50 € (2025, bis 500 €) = 46,35 €.
    ueber = rvg.calculate(
        gegenstandswert=Decimal(51),
        auftragsdatum=NEU,
        positions=[PositionRequest("2300", inkasso_unbestritten=True)],
        auslagenpauschale=False,
        ust_rate=Decimal(0),
    )
    assert ueber.positions[0].amount == Decimal("46.35")


def test_inkasso_ueber_0_9_nur_besonders_umfangreich_oder_schwierig() -> None:
    with pytest.raises(RvgError, match="mehr als 0,9"):
        rvg.validate_rate("2300", Decimal("1.0"), inkasso_unbestritten=True)
    assert rvg.validate_rate("2300", Decimal("1.3"), inkasso_unbestritten=True, umfangreich_oder_schwierig=True) == Decimal("1.3")
    with pytest.raises(RvgError, match="nur für Nr. 2300"):
        rvg.validate_rate("3100", None, inkasso_unbestritten=True)
    with pytest.raises(RvgError, match="ab dem 01.10.2021"):
        rvg.calculate(
            gegenstandswert=Decimal(40),
            auftragsdatum=date(2021, 9, 30),
            positions=[PositionRequest("2300", inkasso_unbestritten=True)],
        )


@pytest.mark.parametrize(("satz", "text"), [("1", "1,0"), ("1.0", "1,0"), ("1.30", "1,3"), ("0.65", "0,65"), ("2", "2,0")])
def test_saetze_werden_wie_in_kostennoten_geschrieben(satz: str, text: str) -> None:
    assert format_satz(Decimal(satz)) == text


def test_aufstellung_schreibt_1_komma_0() -> None:
    berechnung = rvg.calculate(
        gegenstandswert=Decimal(5000), auftragsdatum=NEU, positions=[PositionRequest("3100"), PositionRequest("1003")]
    )
    assert "Nr. 1003: 1,0 Einigungsgebühr" in rvg.describe(berechnung)


WERTE = st.decimals(min_value=Decimal("0.01"), max_value=Decimal(100_000_000), places=2)


@given(a=WERTE, b=WERTE, tabelle=st.sampled_from(TABELLEN))
def test_tabellen_sind_monoton(a: Decimal, b: Decimal, tabelle) -> None:  # type: ignore[no-untyped-def]
    klein, gross = sorted((a, b))
    assert tabelle.einfache_gebuehr(klein) <= tabelle.einfache_gebuehr(gross)


@given(wert=st.decimals(min_value=HOECHSTWERT, max_value=Decimal(10**12), places=2), tabelle=st.sampled_from(TABELLEN))
def test_ueber_dem_hoechstwert_bleibt_die_gebuehr_gleich(wert: Decimal, tabelle) -> None:  # type: ignore[no-untyped-def]
    assert tabelle.einfache_gebuehr(wert) == tabelle.einfache_gebuehr(HOECHSTWERT)


@given(
    wert=WERTE,
    satz=st.decimals(min_value=Decimal("0.1"), max_value=Decimal(5), places=2),
    tabelle=st.sampled_from(TABELLEN),
)
def test_mindestgebuehr_15_euro(wert: Decimal, satz: Decimal, tabelle) -> None:  # type: ignore[no-untyped-def]
    gebuehr = tabelle.gebuehr(wert, satz)
    assert gebuehr >= Decimal("15.00")
    if gebuehr > Decimal("15.00"):
        assert gebuehr == runde_cent(tabelle.einfache_gebuehr(wert) * satz)
