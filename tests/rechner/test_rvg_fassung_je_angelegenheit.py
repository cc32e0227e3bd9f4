"""§ 60 Abs. 1 RVG per Angelegenheit: the out-of-court mandate and a Rechtsmittel follow the law of
their own day, through the library and the RVG page (the tool: tests/agent/tools/test_kosten_tool.py).

Figures from the tables in the corpus: 1.0 fee at 5,000 € is 334.00 € (KostRÄG 2021, Aufträge until
31.05.2025) and 354.50 € (KostBRÄG 2025, Anlage 2 RVG)."""

from datetime import date
from decimal import Decimal
from html import unescape

import pytest

from rechner import rvg
from tests.factories import UserFactory

ALT, NEU = date(2025, 3, 1), date(2025, 7, 1)


def _betraege(calc: rvg.Calculation) -> dict[str, Decimal]:
    return {p.vv: p.amount for p in (*calc.positions, *calc.anrechnungen)}


def test_geschaeftsgebuehr_nach_altem_recht_neben_klage_nach_neuem():
    calc = rvg.calculate(
        gegenstandswert=Decimal(5000),
        auftragsdatum=NEU,
        positions=[rvg.PositionRequest("2300"), rvg.PositionRequest("3100"), rvg.PositionRequest("3104")],
        auftragsdaten={rvg.Angelegenheit.AUSSERGERICHTLICH: ALT},
    )
    betraege = _betraege(calc)
    assert betraege["2300"] == Decimal("434.20")  # 1.3 × 334.00 (old table)
    assert betraege["3100"] == Decimal("460.85")  # 1.3 × 354.50
    assert betraege["3104"] == Decimal("425.40")  # 1.2 × 354.50
    # the Geschäftsgebühr is credited as it arose: 0.65 × 334.00, not 0.65 × 354.50 (230.43)
    assert betraege["Vorbem. 3 Abs. 4"] == Decimal("-217.10")
    assert [p.amount for p in calc.auslagen if p.vv == "7002"] == [Decimal("20.00"), Decimal("20.00")]
    assert calc.net == Decimal("1143.35")
    assert calc.version_label == rvg.RVG_2025.label
    assert calc.abweichende_fassungen == (("Außergerichtliche Vertretung", ALT, rvg.RVG_2021.label),)
    assert any(h.startswith("Außergerichtliche Vertretung: Auftrag vom 01.03.2025, daher berechnet nach") for h in calc.hinweise)
    assert "Auftragsdatum Außergerichtliche Vertretung: Samstag, 01.03.2025" in rvg.describe(calc)


def test_ohne_eigenes_datum_wird_auf_die_fassung_hingewiesen():
    calc = rvg.calculate(
        gegenstandswert=Decimal(5000), auftragsdatum=NEU, positions=[rvg.PositionRequest("2300"), rvg.PositionRequest("3100")]
    )
    assert _betraege(calc)["2300"] == Decimal("460.85")
    assert calc.abweichende_fassungen == ()
    hinweis = next(h for h in calc.hinweise if h.startswith("Außergerichtliche Vertretung und gerichtliches Verfahren"))
    assert "vor dem 01.06.2025" in hinweis and rvg.RVG_2021.label in hinweis
    # the first version has no earlier one: nothing to point at
    frueh = rvg.calculate(
        gegenstandswert=Decimal(5000), auftragsdatum=ALT, positions=[rvg.PositionRequest("2300"), rvg.PositionRequest("3100")]
    )
    assert not any("verschiedene Angelegenheiten" in h for h in frueh.hinweise)
    # an out-of-court mandate alone is one Angelegenheit: no note
    allein = rvg.calculate(gegenstandswert=Decimal(5000), auftragsdatum=NEU, positions=[rvg.PositionRequest("2300")])
    assert not any("verschiedene Angelegenheiten" in h for h in allein.hinweise)


def test_berufung_nach_der_gesetzesaenderung_nach_neuem_recht():
    positionen = [rvg.PositionRequest("3100"), rvg.PositionRequest("3200")]
    calc = rvg.calculate(
        gegenstandswert=Decimal(5000),
        auftragsdatum=ALT,
        positions=positionen,
        auftragsdaten={rvg.Angelegenheit.BERUFUNG: date(2025, 8, 1)},
    )
    betraege = _betraege(calc)
    assert betraege["3100"] == Decimal("434.20")
    assert betraege["3200"] == Decimal("567.20")  # 1.6 × 354.50
    assert calc.abweichende_fassungen == (("Berufungsverfahren", date(2025, 8, 1), rvg.RVG_2025.label),)
    ohne = rvg.calculate(gegenstandswert=Decimal(5000), auftragsdatum=ALT, positions=positionen)
    assert _betraege(ohne)["3200"] == Decimal("534.40")  # 1.6 × 334.00
    hinweis = next(h for h in ohne.hinweise if h.startswith("Berufungsverfahren:"))
    assert "ab dem 01.06.2025" in hinweis and "§ 60 Abs. 1 Satz 2 RVG" in hinweis


def test_eigenes_datum_vor_2021_wird_abgelehnt():
    with pytest.raises(rvg.RvgError, match="01.01.2021"):
        rvg.calculate(
            gegenstandswert=Decimal(5000),
            auftragsdatum=NEU,
            positions=[rvg.PositionRequest("2300"), rvg.PositionRequest("3100")],
            auftragsdaten={rvg.Angelegenheit.AUSSERGERICHTLICH: date(2020, 5, 1)},
        )


@pytest.mark.django_db
def test_rvg_seite_mit_eigenem_auftragsdatum(client):
    client.force_login(UserFactory())
    antwort = client.get(
        "/rechner/rvg/",
        {
            "gegenstandswert": "5000",
            "auftragsdatum": "2025-07-01",
            "vv_2300": "on",
            "auftragsdatum_2300": "2025-03-01",
            "vv_3100": "on",
            "vv_3104": "on",
            "anrechnung": "on",
            "auslagenpauschale": "on",
        },
    )
    html = unescape(antwort.content.decode())
    assert antwort.status_code == 200
    assert "434,20 €" in html and "-217,10 €" in html.replace("−", "-")
    assert "Auftrag Außergerichtliche Vertretung" in html and "01.03.2025" in html
    # the Kostennote's Leistungszeitraum starts with the earlier Auftrag
    assert 'name="leistungszeitraum_von" required value="2025-03-01"' in html
