"""Fee rules found wrong in a review on 2026-12-03, each against the statute's wording (RVG as of
April 2026, ../shared/corpus/gesetze/rvg.md), and the inputs a calculator must ask for instead of
assuming."""

from datetime import date
from decimal import Decimal

import pytest

from rechner import famgkg, gkg, rvg
from rechner.rvg import Angelegenheit, PositionRequest, RvgError

NEU = date(2025, 7, 1)
WERT = Decimal(10_000)


def rechne(*vv: str, **kwargs: object) -> rvg.Calculation:
    positions = [PositionRequest(vv=v) if isinstance(v, str) else v for v in vv]
    return rvg.calculate(gegenstandswert=WERT, auftragsdatum=NEU, positions=positions, **kwargs)  # type: ignore[arg-type]


# -- Nr. 2300 Anm. Abs. 2: undisputed Inkasso ------------------------------------------------------


def test_inkasso_hoechstens_13_auch_wenn_besonders_umfangreich() -> None:
    """„Der Gebührensatz beträgt höchstens 1,3.“ (Anm. Abs. 2 Satz 3 zu Nr. 2300 VV RVG)."""
    assert rvg.validate_rate("2300", Decimal("1.3"), inkasso_unbestritten=True, umfangreich_oder_schwierig=True) == Decimal("1.3")
    with pytest.raises(RvgError, match="höchstens 1,3"):
        rvg.validate_rate("2300", Decimal("1.5"), inkasso_unbestritten=True, umfangreich_oder_schwierig=True)
    # without the Inkasso flag the frame up to 2.5 stays
    assert rvg.validate_rate("2300", Decimal("2.5"), umfangreich_oder_schwierig=True) == Decimal("2.5")


def test_inkasso_nennt_die_05_fuer_einfache_faelle() -> None:
    calc = rechne(PositionRequest(vv="2300", inkasso_unbestritten=True))
    assert calc.positions[0].rate == Decimal("0.9")
    assert any("einfachen Fällen" in h and "0,5" in h and "Gerechnet mit 0,9" in h for h in calc.hinweise)
    einfach = rechne(PositionRequest(vv="2300", rate=Decimal("0.5"), inkasso_unbestritten=True))
    assert not any("einfachen Fällen" in h for h in einfach.hinweise)


# -- Vorbem. 3 Abs. 4 Satz 3: several Geschäftsgebühren ---------------------------------------------


def test_von_mehreren_geschaeftsgebuehren_wird_nur_die_letzte_angerechnet() -> None:
    """„Sind mehrere Gebühren entstanden, ist für die Anrechnung die zuletzt entstandene Gebühr
    maßgebend.“ Before, both were credited and the Verfahrensgebühr was wiped out."""
    calc = rechne(
        PositionRequest(vv="2300", rate=Decimal("1.3")),
        PositionRequest(vv="2300", rate=Decimal("1.0")),
        "3100",
    )
    assert len(calc.anrechnungen) == 1
    # half of the last one's 1.0 = 0.5 × 652.00 € (Anlage 2, 10.000 €, 2025)
    assert calc.anrechnungen[0].amount == Decimal("-326.00")
    assert any("zuletzt entstandene" in h for h in calc.hinweise)


# -- PKH: § 45 Abs. 1, § 58 Abs. 2 RVG --------------------------------------------------------------


def test_pkh_gilt_nicht_fuer_die_geschaeftsgebuehr() -> None:
    """The Staatskasse pays for the court proceedings only; the Geschäftsgebühr follows § 13."""
    calc = rechne("2300", "3100", pkh=True)
    gebuehren = {p.vv: p.amount for p in calc.positions}
    assert gebuehren["2300"] == Decimal("847.60")  # 1.3 × 652.00 € (§ 13 table)
    assert gebuehren["3100"] == rvg.gebuehr(WERT, Decimal("1.3"), on=NEU, pkh=True)  # § 49 table
    assert gebuehren["3100"] < Decimal("847.60")


def test_pkh_zieht_keine_anrechnung_ab_und_sagt_warum() -> None:
    calc = rechne("2300", "3100", pkh=True)
    assert calc.anrechnungen == ()
    assert any("§ 58 Abs. 2 RVG" in h for h in calc.hinweise)
    ohne_pkh = rechne("2300", "3100")
    assert len(ohne_pkh.anrechnungen) == 1 and not any("§ 58 Abs. 2" in h for h in ohne_pkh.hinweise)


# -- Nr. 1000 / 1003: anhängig or not ---------------------------------------------------------------


def test_einigung_15_neben_gerichtsverfahren_warnt_auch_mit_geschaeftsgebuehr() -> None:
    """2300 + 3100 + 1000: the 1.5 was filed under the out-of-court matter without a word, though the
    Gegenstand may be pending (then Nr. 1003, 1.0)."""
    calc = rechne("2300", "3100", "1000")
    assert any("Nr. 1003" in h and "neben einem gerichtlichen Verfahren" in h for h in calc.hinweise)


@pytest.mark.parametrize("vv", [("1000",), ("2300", "1000")])
def test_einigung_15_ohne_gerichtsverfahren_nennt_die_annahme(vv: tuple[str, ...]) -> None:
    calc = rechne(*vv)
    assert any("kein gerichtliches Verfahren anhängig" in h for h in calc.hinweise)


def test_einigung_1003_ohne_gerichtsgebuehr_bleibt_in_der_einen_angelegenheit() -> None:
    """2300 + 1003: no second Angelegenheit and no second Nr. 7002 (Anm. Abs. 1 zu Nr. 7002)."""
    calc = rechne("2300", "1003")
    assert {p.angelegenheit for p in calc.positions} == {Angelegenheit.AUSSERGERICHTLICH}
    assert [p.vv for p in calc.auslagen].count("7002") == 1
    # with a court fee it belongs to the court proceedings, as before
    mit_klage = rechne("2300", "3100", "1003")
    einigung = next(p for p in mit_klage.positions if p.vv == "1003")
    assert einigung.angelegenheit is Angelegenheit.ERSTER_RECHTSZUG


def test_zusatzgebuehr_1010_bleibt_im_gerichtsverfahren() -> None:
    calc = rechne("2300", "1010")
    assert next(p for p in calc.positions if p.vv == "1010").angelegenheit is Angelegenheit.ERSTER_RECHTSZUG


# -- FamGKG: a missing amount is asked for -----------------------------------------------------------


def test_unterhalt_ohne_betrag_wird_erfragt() -> None:
    with pytest.raises(gkg.GkgError, match="monatlich geforderte Betrag fehlt"):
        famgkg.familienkosten("unterhalt", on=NEU)
    with pytest.raises(gkg.GkgError, match="monatlich geforderte Betrag fehlt"):
        famgkg.familienkosten("unterhalt", on=NEU, unterhalt_monat=0, rueckstand=0)
    nur_rueckstand = famgkg.familienkosten("unterhalt", on=NEU, rueckstand=1200)
    assert nur_rueckstand.verfahrenswert == Decimal("1200.00")


def test_scheidung_ohne_einkommen_wird_erfragt_null_gilt() -> None:
    with pytest.raises(gkg.GkgError, match="Nettoeinkommen beider Ehegatten fehlt"):
        famgkg.familienkosten("scheidung", on=NEU)
    assert famgkg.familienkosten("scheidung", on=NEU, netto_monat=0).verfahrenswert == Decimal(3000)


# -- Nr. 1000 Nr. 2: Zahlungsvereinbarung ----------------------------------------------------------


def test_zahlungsvereinbarung_07_aus_der_haelfte_des_anspruchs() -> None:
    """Nr. 1000 Nr. 2 VV RVG: 0,7; § 31b RVG: 50 % des Anspruchs. Before, only the 1.5 of Nr. 1 existed."""
    berechnung = rechne("2300", PositionRequest("1000", zahlungsvereinbarung=True))
    einigung = next(p for p in berechnung.positions if p.vv == "1000")
    assert (einigung.rate, einigung.value, einigung.amount) == (Decimal("0.7"), Decimal("5000.00"), Decimal("248.15"))
    assert "Zahlungsvereinbarung" in einigung.label
    assert any("§ 31b RVG" in hinweis for hinweis in berechnung.hinweise)
    assert not any("1,5" in hinweis for hinweis in berechnung.hinweise)  # no note on the 1.5 of Nr. 1


def test_zahlungsvereinbarung_mit_eigenem_anspruch_und_nur_bei_nr_1000() -> None:
    berechnung = rechne("2300", PositionRequest("1000", zahlungsvereinbarung=True, value=Decimal(3000)))
    assert next(p for p in berechnung.positions if p.vv == "1000").value == Decimal("1500.00")
    with pytest.raises(RvgError, match="nur bei der Einigungsgebühr Nr. 1000"):
        rechne("3100", PositionRequest("1003", zahlungsvereinbarung=True))
    with pytest.raises(RvgError, match="fest 0,7"):
        rechne("2300", PositionRequest("1000", zahlungsvereinbarung=True, rate=Decimal("1.5")))


def test_zahlungsvereinbarung_vor_dem_inkassogesetz_wird_nicht_mit_dem_neuen_recht_gerechnet() -> None:
    """0,7 aus 50 % gilt für Aufträge ab 01.10.2021; davor 1,5 aus 20 % (§ 31b RVG a. F.): for an Auftrag
    of 01.03.2021 it computed the new rule (too low a fee)."""
    with pytest.raises(RvgError, match="ab dem 01.10.2021"):
        rvg.calculate(
            gegenstandswert=WERT,
            auftragsdatum=date(2021, 3, 1),
            positions=[PositionRequest("2300"), PositionRequest("1000", zahlungsvereinbarung=True)],
        )


# -- § 15 Abs. 3 RVG: fees for parts of the Gegenstand at different rates --------------------------


def test_mehrvergleich_wird_nach_paragraf_15_abs_3_gekappt() -> None:
    """10.000 € anhängig, 5.000 € mitverglichen: 3100 (1,3) + 3101 (0,8) höchstens 1,3 aus 15.000 €,
    1003 (1,0) + 1000 (1,5) höchstens 1,5 aus 15.000 €. Before, the parts were simply added."""
    berechnung = rechne(
        PositionRequest("3100", value=Decimal(10_000)),
        PositionRequest("3101", value=Decimal(5_000)),
        PositionRequest("3104", value=Decimal(15_000)),
        PositionRequest("1003", value=Decimal(10_000)),
        PositionRequest("1000", value=Decimal(5_000)),
    )
    kuerzungen = [p for p in berechnung.positions if p.vv == "§ 15 Abs. 3"]
    assert [p.amount for p in kuerzungen] == [Decimal("-140.60"), Decimal("-40.75")]
    verfahren = sum(p.amount for p in berechnung.positions if p.vv in ("3100", "3101")) + kuerzungen[0].amount
    einigung = sum(p.amount for p in berechnung.positions if p.vv in ("1003", "1000")) + kuerzungen[1].amount
    assert verfahren == rvg.gebuehr(Decimal(15_000), Decimal("1.3"), on=NEU) == Decimal("990.60")
    assert einigung == rvg.gebuehr(Decimal(15_000), Decimal("1.5"), on=NEU) == Decimal("1143.00")
    assert sum(1 for h in berechnung.hinweise if "§ 15 Abs. 3 RVG" in h) == 2


def test_teilgebuehren_unter_der_grenze_bleiben_ungekuerzt() -> None:
    berechnung = rechne(PositionRequest("3100", value=Decimal(1_000)), PositionRequest("3101", value=Decimal(100_000)))
    assert not [p for p in berechnung.positions if p.vv == "§ 15 Abs. 3"]


@pytest.mark.parametrize(
    ("positionen", "meldung"),
    [
        (("3100", "3101"), "verschiedene Teile des Gegenstands"),
        (("3100", "1003", "1000"), "verschiedene Teile des Gegenstands"),
        (("3100", "3100"), "nur einmal"),
    ],
)
def test_teilgebuehren_ohne_eigenen_wert_werden_erfragt(positionen: tuple[str, ...], meldung: str) -> None:
    """Both on the whole Gegenstand cannot arise: 1.3 + 0.8 on the same value was computed before."""
    with pytest.raises(RvgError, match=meldung):
        rechne(*positionen)
