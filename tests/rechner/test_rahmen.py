"""Nr. 1008 VV RVG for Betragsrahmen- and Festgebühren: several clients in the same Gegenstand (a
Bedarfsgemeinschaft before the Sozialgericht, several Nebenkläger) raise the minimum and maximum of a
Verfahrens- or Geschäftsgebühr by 30 % each, a Festgebühr by 30 %, the increases at most doubling the
amounts (Anm. Abs. 3); the threshold of Nr. 2302 rises with them (Anm. Abs. 4).

2025 amounts: Nr. 3102 65,00–719,00 €, Nr. 2302 65,00–837,00 € (threshold 391,00 €), Nr. 3106
65,00–665,00 €, Nr. 2503 102,00 €, Nr. 4106 48,00–348,00 € (court-appointed 158,00 €).
"""

from datetime import date
from decimal import Decimal

import pytest

from rechner import rahmen
from rechner.rahmen import RahmenRequest
from rechner.rvg import RvgError

AUFTRAG = date(2025, 7, 1)


def _betraege(*requests: RahmenRequest, auftraggeber: int) -> list[tuple[str, Decimal]]:
    berechnung, _ = rahmen.berechne(auftragsdatum=AUFTRAG, positions=requests, auftraggeber=auftraggeber)
    return [(position.vv, position.amount) for position in berechnung.positions]


def test_sozialgericht_bedarfsgemeinschaft_zu_zweit() -> None:
    # 3102: 84,50–934,70 € → Mittelgebühr 509,60 €; the Terminsgebühr 3106 stays (65 + 665) / 2 = 365,00 €
    assert _betraege(RahmenRequest("3102"), RahmenRequest("3106"), auftraggeber=2) == [
        ("3102", Decimal("509.60")),
        ("3106", Decimal("365.00")),
    ]


def test_schwelle_der_2302_steigt_mit() -> None:
    # 2302 with three clients: 65 × 1,6 = 104,00 to 837 × 1,6 = 1.339,20 €, Mittel 721,60 €; threshold 391 × 1,6 = 625,60 €
    assert _betraege(RahmenRequest("2302"), auftraggeber=3) == [("2302", Decimal("625.60"))]
    assert _betraege(RahmenRequest("2302", umfangreich_oder_schwierig=True), auftraggeber=3) == [("2302", Decimal("721.60"))]
    assert _betraege(RahmenRequest("2302", betrag=Decimal("600")), auftraggeber=3) == [("2302", Decimal("600.00"))]


@pytest.mark.parametrize(("auftraggeber", "betrag"), [(1, "102.00"), (2, "132.60"), (8, "306.00"), (12, "306.00")])
def test_festgebuehr_der_beratungshilfe_hoechstens_verdreifacht(auftraggeber: int, betrag: str) -> None:
    assert _betraege(RahmenRequest("2503"), auftraggeber=auftraggeber) == [("2503", Decimal(betrag))]


def test_pflichtverteidiger_festbetrag_und_grundgebuehr() -> None:
    # 4106 court-appointed: 158 × 1,3 = 205,40 €; the Grundgebühr 4100 is no Verfahrensgebühr: 192,00 €
    assert _betraege(
        RahmenRequest("4100", pflichtverteidiger=True), RahmenRequest("4106", pflichtverteidiger=True), auftraggeber=2
    ) == [("4100", Decimal("192.00")), ("4106", Decimal("205.40"))]


def test_betrag_ausserhalb_des_erhoehten_rahmens() -> None:
    with pytest.raises(RvgError, match="84,50 € bis 934,70 €"):
        _betraege(RahmenRequest("3102", betrag=Decimal("950")), auftraggeber=2)
    with pytest.raises(RvgError, match="mindestens 1"):
        _betraege(RahmenRequest("3102"), auftraggeber=0)
