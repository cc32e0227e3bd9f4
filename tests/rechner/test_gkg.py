"""GKG court fee tests against the printed Anlage 2 zu § 34 GKG.

Expected figures were transcribed from the GKG text on gesetze-im-internet.de: the version of the
KostRÄG 2021 and the version "Fundstelle: BGBl. 2025 I Nr. 109, S. 11" (KostBRÄG 2025).
"""

from datetime import date
from decimal import Decimal

import pytest

from rechner import gkg
from rechner.gkg import GkgError

ALT = date(2025, 5, 31)  # pending before the KostBRÄG 2025
NEU = date(2025, 6, 1)

TABELLE_2021 = {
    500: "38.00", 1_000: "58.00", 1_500: "78.00", 2_000: "98.00", 3_000: "119.00", 4_000: "140.00",
    5_000: "161.00", 6_000: "182.00", 7_000: "203.00", 8_000: "224.00", 9_000: "245.00", 10_000: "266.00",
    13_000: "295.00", 16_000: "324.00", 19_000: "353.00", 22_000: "382.00", 25_000: "411.00",
    30_000: "449.00", 35_000: "487.00", 40_000: "525.00", 45_000: "563.00", 50_000: "601.00",
    65_000: "733.00", 80_000: "865.00", 95_000: "997.00", 110_000: "1129.00", 125_000: "1261.00",
    140_000: "1393.00", 155_000: "1525.00", 170_000: "1657.00", 185_000: "1789.00", 200_000: "1921.00",
    230_000: "2119.00", 260_000: "2317.00", 290_000: "2515.00", 320_000: "2713.00", 350_000: "2911.00",
    380_000: "3109.00", 410_000: "3307.00", 440_000: "3505.00", 470_000: "3703.00", 500_000: "3901.00",
}  # fmt: skip

TABELLE_2025 = {
    500: "40.00", 1_000: "61.00", 1_500: "82.00", 2_000: "103.00", 3_000: "125.50", 4_000: "148.00",
    5_000: "170.50", 6_000: "193.00", 7_000: "215.50", 8_000: "238.00", 9_000: "260.50", 10_000: "283.00",
    13_000: "313.50", 16_000: "344.00", 19_000: "374.50", 22_000: "405.00", 25_000: "435.50",
    30_000: "476.00", 35_000: "516.50", 40_000: "557.00", 45_000: "597.50", 50_000: "638.00",
    65_000: "778.00", 80_000: "918.00", 95_000: "1058.00", 110_000: "1198.00", 125_000: "1338.00",
    140_000: "1478.00", 155_000: "1618.00", 170_000: "1758.00", 185_000: "1898.00", 200_000: "2038.00",
    230_000: "2248.00", 260_000: "2458.00", 290_000: "2668.00", 320_000: "2878.00", 350_000: "3088.00",
    380_000: "3298.00", 410_000: "3508.00", 440_000: "3718.00", 470_000: "3928.00", 500_000: "4138.00",
}  # fmt: skip


@pytest.mark.parametrize(("wert", "gebuehr"), TABELLE_2021.items())
def test_tabelle_2021_entspricht_anlage_2(wert: int, gebuehr: str) -> None:
    assert gkg.einfache_gebuehr(Decimal(wert), on=ALT) == Decimal(gebuehr)


@pytest.mark.parametrize(("wert", "gebuehr"), TABELLE_2025.items())
def test_tabelle_2025_entspricht_anlage_2(wert: int, gebuehr: str) -> None:
    assert gkg.einfache_gebuehr(Decimal(wert), on=NEU) == Decimal(gebuehr)


@pytest.mark.parametrize(
    ("wert", "alt", "neu"),
    [
        # Above 500,000 EUR: + 198 (2021) / + 210 (2025) per started 50,000 EUR (§ 34 Abs. 1 GKG).
        ("500000.01", "4099.00", "4348.00"),
        ("550000", "4099.00", "4348.00"),
        ("1000000", "5881.00", "6238.00"),
    ],
)
def test_ueber_500000(wert: str, alt: str, neu: str) -> None:
    assert gkg.einfache_gebuehr(Decimal(wert), on=ALT) == Decimal(alt)
    assert gkg.einfache_gebuehr(Decimal(wert), on=NEU) == Decimal(neu)


@pytest.mark.parametrize(("wert", "zeile"), [("500.01", 1_000), ("2000.01", 3_000), ("25000.01", 30_000)])
def test_angefangener_betrag(wert: str, zeile: int) -> None:
    assert gkg.einfache_gebuehr(Decimal(wert), on=NEU) == Decimal(TABELLE_2025[zeile])


def test_version_nach_anhaengigkeit() -> None:
    assert gkg.version_for(date(2021, 1, 1)).key == "GKG_2021"
    assert gkg.version_for(ALT).key == "GKG_2021"
    assert gkg.version_for(NEU).key == "GKG_2025"
    with pytest.raises(GkgError, match="vor dem 01.01.2021"):
        gkg.version_for(date(2020, 12, 31))


@pytest.mark.parametrize(
    ("kv", "on", "wert", "betrag"),
    [
        ("1210", ALT, 5_000, "483.00"),  # 3,0 * 161.00
        ("1210", NEU, 5_000, "511.50"),  # 3,0 * 170.50
        ("1211", NEU, 5_000, "170.50"),  # 1,0
        ("1220", NEU, 10_000, "1132.00"),  # 4,0 * 283.00
        ("1222", NEU, 10_000, "566.00"),  # 2,0 * 283.00
        ("1230", NEU, 10_000, "1415.00"),  # 5,0 * 283.00
        ("1100", NEU, 10_000, "141.50"),  # 0,5 * 283.00
        ("1100", ALT, 10_000, "133.00"),  # 0,5 * 266.00
        ("1100", NEU, 1_000, "38.00"),  # 0,5 * 61.00 = 30.50, mindestens 38,00 EUR
        ("1100", ALT, 1_000, "36.00"),  # 0,5 * 58.00 = 29.00, mindestens 36,00 EUR
    ],
)
def test_kv_gebuehren(kv: str, on: date, wert: int, betrag: str) -> None:
    position = gkg.kv_gebuehr(kv, Decimal(wert), on=on)
    assert position.amount == Decimal(betrag)
    assert position.rate == gkg.KV[kv].rate


def test_mindestgebuehr_und_rundung() -> None:
    assert gkg.gerichtsgebuehr(Decimal(500), Decimal("0.25"), on=NEU) == Decimal("15.00")  # 10.00 < 15
    # 374.50 * 0.25 = 93.625: half a cent is rounded up.
    assert gkg.gerichtsgebuehr(Decimal(19_000), Decimal("0.25"), on=NEU) == Decimal("93.63")


@pytest.mark.parametrize(
    ("aufruf", "meldung"),
    [
        (lambda: gkg.kv_gebuehr("9999", Decimal(1000), on=NEU), "nicht hinterlegt"),
        (lambda: gkg.gerichtsgebuehr(Decimal(0), Decimal(1), on=NEU), "größer als 0 Euro"),
        (lambda: gkg.gerichtsgebuehr(Decimal(1000), Decimal(0), on=NEU), "größer als 0 sein"),
        (lambda: gkg.einfache_gebuehr("abc", on=NEU), "keine Zahl"),  # type: ignore[arg-type]
    ],
)
def test_ungueltige_eingaben(aufruf: object, meldung: str) -> None:
    with pytest.raises(GkgError, match=meldung):
        aufruf()  # type: ignore[operator]
