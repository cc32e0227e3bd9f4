"""RVG calculator tests against the printed statutory tables.

Expected figures were transcribed from:
- Anlage 2 zu § 13 RVG, version of the KostRÄG 2021 (synopsis a.F./n.F. of Art. 11 KostBRÄG 2025 on buzer.de)
  and version of the KostBRÄG 2025 (RVG text "Fundstelle: BGBl. 2025 I Nr. 109, S. 30" as on
  gesetze-im-internet.de);
- § 49 RVG in the versions of the KostRÄG 2021 and the KostBRÄG 2025 (same sources);
- worked examples in Hinne, Das neue Vergütungsrecht ab Juni 2025, BRAK-Mitt. 2025, 178 ff.
"""

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rechner import rvg
from rechner.rvg import Angelegenheit, AnrechnungRequest, PositionRequest, RvgError

ALT = date(2024, 11, 4)  # mandate under the KostRÄG 2021 version
NEU = date(2025, 6, 2)  # mandate under the KostBRÄG 2025 version

# Anlage 2 zu § 13 RVG (KostRÄG 2021), every printed row.
TABELLE_2021 = {
    500: "49.00", 1_000: "88.00", 1_500: "127.00", 2_000: "166.00", 3_000: "222.00", 4_000: "278.00",
    5_000: "334.00", 6_000: "390.00", 7_000: "446.00", 8_000: "502.00", 9_000: "558.00", 10_000: "614.00",
    13_000: "666.00", 16_000: "718.00", 19_000: "770.00", 22_000: "822.00", 25_000: "874.00",
    30_000: "955.00", 35_000: "1036.00", 40_000: "1117.00", 45_000: "1198.00", 50_000: "1279.00",
    65_000: "1373.00", 80_000: "1467.00", 95_000: "1561.00", 110_000: "1655.00", 125_000: "1749.00",
    140_000: "1843.00", 155_000: "1937.00", 170_000: "2031.00", 185_000: "2125.00", 200_000: "2219.00",
    230_000: "2351.00", 260_000: "2483.00", 290_000: "2615.00", 320_000: "2747.00", 350_000: "2879.00",
    380_000: "3011.00", 410_000: "3143.00", 440_000: "3275.00", 470_000: "3407.00", 500_000: "3539.00",
}  # fmt: skip

# Anlage 2 zu § 13 RVG (KostBRÄG 2025), every printed row.
TABELLE_2025 = {
    500: "51.50", 1_000: "93.00", 1_500: "134.50", 2_000: "176.00", 3_000: "235.50", 4_000: "295.00",
    5_000: "354.50", 6_000: "414.00", 7_000: "473.50", 8_000: "533.00", 9_000: "592.50", 10_000: "652.00",
    13_000: "707.00", 16_000: "762.00", 19_000: "817.00", 22_000: "872.00", 25_000: "927.00",
    30_000: "1013.00", 35_000: "1099.00", 40_000: "1185.00", 45_000: "1271.00", 50_000: "1357.00",
    65_000: "1456.50", 80_000: "1556.00", 95_000: "1655.50", 110_000: "1755.00", 125_000: "1854.50",
    140_000: "1954.00", 155_000: "2053.50", 170_000: "2153.00", 185_000: "2252.50", 200_000: "2352.00",
    230_000: "2492.00", 260_000: "2632.00", 290_000: "2772.00", 320_000: "2912.00", 350_000: "3052.00",
    380_000: "3192.00", 410_000: "3332.00", 440_000: "3472.00", 470_000: "3612.00", 500_000: "3752.00",
}  # fmt: skip

# § 49 RVG: rows above 4,000 EUR; the last entry is the fee "über" the last printed value.
PKH_2021 = {
    5_000: "284", 6_000: "295", 7_000: "306", 8_000: "317", 9_000: "328", 10_000: "339", 13_000: "354",
    16_000: "369", 19_000: "384", 22_000: "399", 25_000: "414", 30_000: "453", 35_000: "492",
    40_000: "531", 45_000: "570", 50_000: "609", 50_001: "659", 1_000_000: "659",
}  # fmt: skip
PKH_2025 = {
    5_000: "319", 6_000: "330", 7_000: "341", 8_000: "352", 9_000: "363", 10_000: "374", 13_000: "389",
    16_000: "404", 19_000: "419", 22_000: "434", 25_000: "449", 30_000: "488", 35_000: "527",
    40_000: "566", 45_000: "605", 50_000: "644", 65_000: "692", 80_000: "739", 80_001: "786",
    1_000_000: "786",
}  # fmt: skip


@pytest.mark.parametrize(("wert", "gebuehr"), TABELLE_2021.items())
def test_tabelle_2021_entspricht_anlage_2(wert: int, gebuehr: str) -> None:
    assert rvg.einfache_gebuehr(Decimal(wert), on=ALT) == Decimal(gebuehr)


@pytest.mark.parametrize(("wert", "gebuehr"), TABELLE_2025.items())
def test_tabelle_2025_entspricht_anlage_2(wert: int, gebuehr: str) -> None:
    assert rvg.einfache_gebuehr(Decimal(wert), on=NEU) == Decimal(gebuehr)


@pytest.mark.parametrize(
    ("wert", "alt", "neu"),
    [
        # Above 500,000 EUR: + 165 (2021) / + 175 (2025) per started 50,000 EUR (§ 13 Abs. 1 Satz 2 RVG).
        (500_000.01, "3704.00", "3927.00"),
        (550_000, "3704.00", "3927.00"),
        (550_001, "3869.00", "4102.00"),
        (600_000, "3869.00", "4102.00"),
        (1_000_000, "5189.00", "5502.00"),
    ],
)
def test_ueber_500000_je_angefangene_50000(wert: float, alt: str, neu: str) -> None:
    assert rvg.einfache_gebuehr(Decimal(str(wert)), on=ALT) == Decimal(alt)
    assert rvg.einfache_gebuehr(Decimal(str(wert)), on=NEU) == Decimal(neu)


@pytest.mark.parametrize(
    ("wert", "zeile"),
    [
        ("1", 500),
        ("500.01", 1_000),
        ("1000.01", 1_500),
        ("2000.01", 3_000),
        ("10000.01", 13_000),
        ("25000.01", 30_000),
        ("50000.01", 65_000),
        ("200000.01", 230_000),
        ("470000.01", 500_000),
    ],
)
def test_angefangener_betrag_zaehlt_als_volle_stufe(wert: str, zeile: int) -> None:
    assert rvg.einfache_gebuehr(Decimal(wert), on=ALT) == Decimal(TABELLE_2021[zeile])
    assert rvg.einfache_gebuehr(Decimal(wert), on=NEU) == Decimal(TABELLE_2025[zeile])


@pytest.mark.parametrize(
    ("auftragsdatum", "version"),
    [
        (date(2021, 1, 1), "RVG_2021"),
        (date(2025, 5, 31), "RVG_2021"),
        (date(2025, 6, 1), "RVG_2025"),
        (date(2027, 1, 1), "RVG_2025"),
    ],
)
def test_version_nach_auftragsdatum(auftragsdatum: date, version: str) -> None:
    assert rvg.version_for(auftragsdatum).key == version


def test_auftrag_vor_2021_wird_abgelehnt() -> None:
    with pytest.raises(RvgError, match="vor dem 01.01.2021"):
        rvg.gebuehr(Decimal(5000), Decimal("1.3"), on=date(2020, 12, 31))


@pytest.mark.parametrize(
    ("on", "rate", "expected"),
    [
        # BRAK-Mitt. 2025, 181: Zivilklage mit Streitwert 5.000 EUR, altes und neues Recht.
        (ALT, "1.3", "434.20"),
        (ALT, "1.2", "400.80"),
        (NEU, "1.3", "460.85"),
        (NEU, "1.2", "425.40"),
    ],
)
def test_gebuehr_brak_beispiel(on: date, rate: str, expected: str) -> None:
    assert rvg.gebuehr(Decimal(5000), Decimal(rate), on=on) == Decimal(expected)


def test_rundung_halber_cent_wird_aufgerundet() -> None:
    # 134.50 EUR * 0.65 = 87.425 EUR: ROUND_HALF_UP gives 87.43 (banker's rounding would give 87.42).
    assert rvg.gebuehr(Decimal(1500), Decimal("0.65"), on=NEU) == Decimal("87.43")


@pytest.mark.parametrize(
    ("on", "wert", "rate"),
    [
        (ALT, 300, "0.3"),  # 49.00 * 0.3 = 14.70 < 15
        (NEU, 500, "0.25"),  # 51.50 * 0.25 = 12.875 < 15
    ],
)
def test_mindestgebuehr_15_euro(on: date, wert: int, rate: str) -> None:
    assert rvg.gebuehr(Decimal(wert), Decimal(rate), on=on) == Decimal("15.00")


@pytest.mark.parametrize(("wert", "gebuehr"), PKH_2021.items())
def test_pkh_tabelle_2021(wert: int, gebuehr: str) -> None:
    assert rvg.einfache_gebuehr(Decimal(wert), on=ALT, pkh=True) == Decimal(gebuehr)


@pytest.mark.parametrize(("wert", "gebuehr"), PKH_2025.items())
def test_pkh_tabelle_2025(wert: int, gebuehr: str) -> None:
    assert rvg.einfache_gebuehr(Decimal(wert), on=NEU, pkh=True) == Decimal(gebuehr)


@pytest.mark.parametrize("wert", [500, 1_000, 3_000, 4_000])
def test_pkh_bis_4000_nach_regeltabelle(wert: int) -> None:
    assert rvg.einfache_gebuehr(Decimal(wert), on=NEU, pkh=True) == Decimal(TABELLE_2025[wert])
    assert rvg.einfache_gebuehr(Decimal(wert), on=ALT, pkh=True) == Decimal(TABELLE_2021[wert])


@pytest.mark.parametrize(
    ("on", "wert", "rate", "expected"),
    [
        # BRAK-Mitt. 2025, 181: PKH bei 5.000 EUR und bei mehr als 80.000 EUR (altes Recht: über 50.000 EUR).
        (ALT, 5_000, "1.3", "369.20"),
        (ALT, 5_000, "1.2", "340.80"),
        (NEU, 5_000, "1.3", "414.70"),
        (NEU, 5_000, "1.2", "382.80"),
        (ALT, 90_000, "1.3", "856.70"),
        (ALT, 90_000, "1.2", "790.80"),
        (NEU, 90_000, "1.3", "1021.80"),
        (NEU, 90_000, "1.2", "943.20"),
    ],
)
def test_pkh_gebuehren_brak_beispiel(on: date, wert: int, rate: str, expected: str) -> None:
    assert rvg.gebuehr(Decimal(wert), Decimal(rate), on=on, pkh=True) == Decimal(expected)


@pytest.mark.parametrize(
    ("on", "pkh", "net", "ust", "gross"),
    [
        # BRAK-Mitt. 2025, 181: 3100 + 3104 + 7002 bei 5.000 EUR; USt 19 % selbst gerechnet.
        (ALT, False, "855.00", "162.45", "1017.45"),
        (NEU, False, "906.25", "172.19", "1078.44"),
        (ALT, True, "730.00", "138.70", "868.70"),
        (NEU, True, "817.50", "155.33", "972.83"),
    ],
)
def test_calculate_zivilklage_5000(on: date, pkh: bool, net: str, ust: str, gross: str) -> None:
    ergebnis = rvg.calculate(
        gegenstandswert=Decimal(5000),
        auftragsdatum=on,
        positions=[PositionRequest("3100"), PositionRequest("3104")],
        pkh=pkh,
    )
    assert ergebnis.net == Decimal(net)
    assert ergebnis.auslagenpauschale == Decimal("20.00")
    assert ergebnis.ust == Decimal(ust)
    assert ergebnis.gross == Decimal(gross)
    assert ergebnis.anrechnungen == ()


def test_calculate_mit_anrechnung_der_geschaeftsgebuehr() -> None:
    # 2025, Wert 10.000 EUR (1,0 = 652.00): 2300 1,3 = 847.60; 3100 1,3 = 847.60;
    # Anrechnung 0,65 = 423.80; 3104 1,2 = 782.40; 7002 je Angelegenheit 20.00.
    ergebnis = rvg.calculate(
        gegenstandswert=Decimal(10_000),
        auftragsdatum=NEU,
        positions=[PositionRequest("2300"), PositionRequest("3100"), PositionRequest("3104")],
    )
    assert [p.amount for p in ergebnis.positions] == [Decimal("847.60"), Decimal("847.60"), Decimal("782.40")]
    (anrechnung,) = ergebnis.anrechnungen
    assert anrechnung.rate == Decimal("0.65")
    assert anrechnung.amount == Decimal("-423.80")
    assert anrechnung.angelegenheit is Angelegenheit.ERSTER_RECHTSZUG
    assert [a.angelegenheit for a in ergebnis.auslagen] == [Angelegenheit.AUSSERGERICHTLICH, Angelegenheit.ERSTER_RECHTSZUG]
    assert ergebnis.auslagenpauschale == Decimal("40.00")
    assert ergebnis.net == Decimal("2093.80")
    assert ergebnis.ust == Decimal("397.82")
    assert ergebnis.gross == Decimal("2491.62")
    assert ergebnis.version == "RVG_2025"


def test_anrechnung_hoechstens_075() -> None:
    # Geschäftsgebühr 2,0 → halbe Gebühr 1,0, begrenzt auf 0,75: 0.75 * 652.00 = 489.00.
    ergebnis = rvg.calculate(
        gegenstandswert=Decimal(10_000),
        auftragsdatum=NEU,
        positions=[PositionRequest("2300", rate=Decimal("2.0"), umfangreich_oder_schwierig=True), PositionRequest("3100")],
    )
    assert ergebnis.positions[0].amount == Decimal("1304.00")
    assert ergebnis.anrechnungen[0].rate == Decimal("0.75")
    assert ergebnis.anrechnungen[0].amount == Decimal("-489.00")


def test_anrechnung_nach_dem_wert_der_ins_verfahren_uebergeht() -> None:
    # Außergerichtlich 10.000 EUR, eingeklagt nur 6.000 EUR: 0,65 * 414.00 = 269.10.
    ergebnis = rvg.calculate(
        gegenstandswert=Decimal(10_000),
        auftragsdatum=NEU,
        positions=[PositionRequest("2300"), PositionRequest("3100", value=Decimal(6_000))],
    )
    assert ergebnis.anrechnungen[0].value == Decimal(6_000)
    assert ergebnis.anrechnungen[0].amount == Decimal("-269.10")


def test_anrechnung_einer_frueheren_geschaeftsgebuehr_nach_altem_recht() -> None:
    # Geschäftsgebühr 1,3 aus einem Auftrag von 2024, Klage 2025: 0,65 * 614.00 (Tabelle 2021) = 399.10.
    ergebnis = rvg.calculate(
        gegenstandswert=Decimal(10_000),
        auftragsdatum=NEU,
        positions=[PositionRequest("3100"), PositionRequest("3104")],
        anrechnung=AnrechnungRequest(rate=Decimal("1.3"), auftragsdatum=ALT),
    )
    assert ergebnis.anrechnungen[0].amount == Decimal("-399.10")
    assert ergebnis.net == Decimal("847.60") + Decimal("782.40") - Decimal("399.10") + Decimal("20.00")


def test_anrechnung_ohne_verfahrensgebuehr_wird_abgelehnt() -> None:
    with pytest.raises(RvgError, match="Verfahrensgebühr des gerichtlichen Verfahrens"):
        rvg.calculate(
            gegenstandswert=Decimal(10_000),
            auftragsdatum=NEU,
            positions=[PositionRequest("3104")],
            anrechnung=AnrechnungRequest(rate=Decimal("1.3")),
        )


def test_ohne_anrechnung() -> None:
    ergebnis = rvg.calculate(
        gegenstandswert=Decimal(10_000),
        auftragsdatum=NEU,
        positions=[PositionRequest("2300"), PositionRequest("3100")],
        anrechnung=False,
    )
    assert ergebnis.anrechnungen == ()
    assert ergebnis.anrechnung == Decimal("0.00")


def test_mahnverfahren_wird_auf_rechtsstreit_angerechnet() -> None:
    # 2025, 5.000 EUR: 3305 1,0 = 354.50 voll auf 3100 angerechnet; 7002 im Mahnverfahren und im Rechtsstreit.
    ergebnis = rvg.calculate(
        gegenstandswert=Decimal(5_000),
        auftragsdatum=NEU,
        positions=[PositionRequest("3305"), PositionRequest("3100"), PositionRequest("3104")],
    )
    assert [a.amount for a in ergebnis.anrechnungen] == [Decimal("-354.50")]
    assert ergebnis.auslagenpauschale == Decimal("40.00")
    assert ergebnis.net == Decimal("926.25")


def test_widerspruch_antragsgegner() -> None:
    ergebnis = rvg.calculate(gegenstandswert=Decimal(5_000), auftragsdatum=NEU, positions=[PositionRequest("3307")])
    assert ergebnis.positions[0].amount == Decimal("177.25")  # 0,5 * 354.50
    assert ergebnis.auslagenpauschale == Decimal("20.00")


def test_erhoehung_mehrere_auftraggeber() -> None:
    # Zwei Auftraggeber: 3100 mit 1,3 + 0,3 = 1,6 * 354.50 = 567.20, davon Erhöhung 106.35.
    ergebnis = rvg.calculate(
        gegenstandswert=Decimal(5_000),
        auftragsdatum=NEU,
        positions=[PositionRequest("3100"), PositionRequest("3104")],
        auftraggeber=2,
    )
    vv = [p.vv for p in ergebnis.positions]
    assert vv == ["3100", "1008", "3104"]
    erhoehung_ = ergebnis.positions[1]
    assert erhoehung_.rate == Decimal("0.3")
    assert erhoehung_.amount == Decimal("106.35")
    assert ergebnis.fees == Decimal("567.20") + Decimal("425.40")


@pytest.mark.parametrize(
    ("auftraggeber", "zuschlag"),
    [(1, "0"), (2, "0.3"), (3, "0.6"), (7, "1.8"), (8, "2.0"), (30, "2.0")],
)
def test_erhoehung_hoechstens_2_0(auftraggeber: int, zuschlag: str) -> None:
    assert rvg.erhoehung(auftraggeber) == Decimal(zuschlag)


ERHOEHUNGSFAEHIG = {"2300", "3100", "3101", "3200", "3201", "3206", "3207", "3208", "3305", "3307", "3309", "3335", "3403"}


@pytest.mark.parametrize("vv", sorted(rvg.VV))
def test_jede_verfahrens_und_geschaeftsgebuehr_ist_erhoehungsfaehig(vv: str) -> None:
    """Nr. 1008 VV RVG: "Die Verfahrens- oder Geschäftsgebühr erhöht sich für jede weitere Person" – every
    one of them (also Nrn. 3335 and 3403), no other fee (Einigungs-, Termins-, Zusatzgebühr, Prüfung)."""
    assert rvg.VV[vv].erhoehungsfaehig == (vv in ERHOEHUNGSFAEHIG)


@pytest.mark.parametrize(("vv", "satz", "betrag"), [("3403", "0.8", "283.60"), ("3335", "1.0", "354.50")])
def test_erhoehung_der_einzeltaetigkeit_und_des_pkh_verfahrens(vv: str, satz: str, betrag: str) -> None:
    # 5.000 € (2025): 1,0 = 354,50 €; two clients: + 0,3 = 106,35 €
    ergebnis = rvg.calculate(gegenstandswert=Decimal(5_000), auftragsdatum=NEU, positions=[PositionRequest(vv)], auftraggeber=2)
    assert [(p.vv, p.rate, p.amount) for p in ergebnis.positions] == [
        (vv, Decimal(satz), Decimal(betrag)),
        ("1008", Decimal("0.3"), Decimal("106.35")),
    ]


def test_erhoehung_erhoeht_auch_die_anrechnung_bis_075() -> None:
    # 2300 1,3 + 0,3 = 1,6; Hälfte 0,8 → höchstens 0,75.
    ergebnis = rvg.calculate(
        gegenstandswert=Decimal(10_000),
        auftragsdatum=NEU,
        positions=[PositionRequest("2300"), PositionRequest("3100")],
        auftraggeber=2,
    )
    assert ergebnis.anrechnungen[0].rate == Decimal("0.75")


def test_einigungsgebuehr_gehoert_zur_anhaengigen_angelegenheit() -> None:
    ergebnis = rvg.calculate(
        gegenstandswert=Decimal(5_000),
        auftragsdatum=NEU,
        positions=[PositionRequest("3100"), PositionRequest("3104"), PositionRequest("1003")],
    )
    assert ergebnis.positions[2].amount == Decimal("354.50")
    assert ergebnis.positions[2].angelegenheit is Angelegenheit.ERSTER_RECHTSZUG
    assert len(ergebnis.auslagen) == 1


def test_aussergerichtliche_einigung() -> None:
    # 2300 1,3 (460.85) + 1000 1,5 (531.75) bei 5.000 EUR, eine Angelegenheit, eine Pauschale.
    ergebnis = rvg.calculate(
        gegenstandswert=Decimal(5_000),
        auftragsdatum=NEU,
        positions=[PositionRequest("2300"), PositionRequest("1000")],
    )
    assert [p.amount for p in ergebnis.positions] == [Decimal("460.85"), Decimal("531.75")]
    assert {p.angelegenheit for p in ergebnis.positions} == {Angelegenheit.AUSSERGERICHTLICH}
    assert ergebnis.auslagenpauschale == Decimal("20.00")


def test_auslagenpauschale_20_prozent_bei_kleinen_gebuehren() -> None:
    # 3100 bei 500 EUR (2025): 1,3 * 51.50 = 66.95; 20 % = 13.39.
    ergebnis = rvg.calculate(gegenstandswert=Decimal(500), auftragsdatum=NEU, positions=[PositionRequest("3100")])
    assert ergebnis.auslagenpauschale == Decimal("13.39")


def test_reisekosten_7003_und_7005() -> None:
    ergebnis = rvg.calculate(
        gegenstandswert=Decimal(5_000),
        auftragsdatum=NEU,
        positions=[PositionRequest("3104")],
        auslagenpauschale=False,
        km=Decimal(100),
        abwesenheit_stunden=[Decimal(4), Decimal("4.5"), Decimal(8), Decimal(9)],
    )
    assert [(a.vv, a.amount) for a in ergebnis.auslagen] == [
        ("7003", Decimal("42.00")),
        ("7005", Decimal("30.00")),
        ("7005", Decimal("50.00")),
        ("7005", Decimal("50.00")),
        ("7005", Decimal("80.00")),
    ]
    assert ergebnis.auslagenpauschale == Decimal("0.00")


def test_ohne_umsatzsteuer() -> None:
    ergebnis = rvg.calculate(
        gegenstandswert=Decimal(5_000), auftragsdatum=NEU, positions=[PositionRequest("3100")], ust_rate=Decimal(0)
    )
    assert ergebnis.ust == Decimal("0.00")
    assert ergebnis.gross == ergebnis.net == Decimal("480.85")


def test_geschaeftsgebuehr_ueber_13_nur_wenn_umfangreich_oder_schwierig() -> None:
    with pytest.raises(RvgError, match="umfangreich oder schwierig"):
        rvg.calculate(
            gegenstandswert=Decimal(10_000), auftragsdatum=NEU, positions=[PositionRequest("2300", rate=Decimal("1.5"))]
        )
    ergebnis = rvg.calculate(
        gegenstandswert=Decimal(10_000),
        auftragsdatum=NEU,
        positions=[PositionRequest("2300", rate=Decimal("1.5"), umfangreich_oder_schwierig=True)],
    )
    assert ergebnis.positions[0].amount == Decimal("978.00")


@pytest.mark.parametrize("rate", ["0.4", "2.6"])
def test_geschaeftsgebuehr_ausserhalb_des_rahmens(rate: str) -> None:
    with pytest.raises(RvgError, match="außerhalb des Rahmens von Nr. 2300 VV RVG .*0,5 bis 2,5"):
        rvg.validate_rate("2300", Decimal(rate), umfangreich_oder_schwierig=True)


def test_fester_satz_kann_nicht_geaendert_werden() -> None:
    with pytest.raises(RvgError, match="festen Gebührensatz 1,3; angegeben wurde 1,5"):
        rvg.validate_rate("3100", Decimal("1.5"))


@pytest.mark.parametrize(("vv", "meldung"), [("9999", "nicht hinterlegt"), ("1008", "Zahl der Auftraggeber")])
def test_unbekannte_oder_abgeleitete_nummer(vv: str, meldung: str) -> None:
    with pytest.raises(RvgError, match=meldung):
        rvg.calculate(gegenstandswert=Decimal(5_000), auftragsdatum=NEU, positions=[PositionRequest(vv)])


@pytest.mark.parametrize(
    ("kwargs", "meldung"),
    [
        ({"gegenstandswert": Decimal(0)}, "größer als 0 Euro"),
        ({"gegenstandswert": 5000.0}, "kein float"),
        ({"positions": []}, "mindestens eine Gebührenposition"),
        ({"auftraggeber": 0}, "mindestens 1"),
        ({"km": Decimal(-1)}, "nicht negativ"),
        ({"abwesenheit_stunden": [Decimal(0)]}, "größer als 0 Stunden"),
        ({"ust_rate": Decimal(19)}, "zwischen 0 und 1"),
    ],
)
def test_ungueltige_eingaben(kwargs: dict[str, object], meldung: str) -> None:
    eingaben: dict[str, object] = {
        "gegenstandswert": Decimal(5_000),
        "auftragsdatum": NEU,
        "positions": [PositionRequest("3100")],
        **kwargs,
    }
    with pytest.raises(RvgError, match=meldung):
        rvg.calculate(**eingaben)  # type: ignore[arg-type]


def test_pkh_tabellenname_und_beschreibung() -> None:
    ergebnis = rvg.calculate(gegenstandswert=Decimal(90_000), auftragsdatum=NEU, positions=[PositionRequest("3100")], pkh=True)
    assert ergebnis.table == "§ 49 RVG (KostBRÄG 2025)"
    text = rvg.describe(ergebnis)
    assert "Nr. 3100: 1,3 Verfahrensgebühr (Wert 90.000,00 €): 1.021,80 €" in text
    assert "Gesamtbetrag:" in text


@given(
    wert=st.decimals(min_value=Decimal("0.01"), max_value=Decimal(2_000_000), places=2),
    mehr=st.decimals(min_value=Decimal("0.01"), max_value=Decimal(100_000), places=2),
    on=st.sampled_from([ALT, NEU]),
)
def test_tabelle_steigt_monoton(wert: Decimal, mehr: Decimal, on: date) -> None:
    assert rvg.einfache_gebuehr(wert, on=on) <= rvg.einfache_gebuehr(wert + mehr, on=on)
    assert rvg.einfache_gebuehr(wert, on=on, pkh=True) <= rvg.einfache_gebuehr(wert, on=on)
