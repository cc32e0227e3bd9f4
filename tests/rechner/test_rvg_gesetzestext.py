"""Every implemented VV number checked against the current RVG Anlage 1 in the corpus (issue 12).

The statute text (shared/corpus/gesetze/rvg.md, gesetze-im-internet.de, last changed 8.12.2025) holds
Anlage 1 as one line of table cells: "NNNN | Gebührentatbestand .......... | Satz oder Betrag".
"""

import re
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from rechner import rahmen, rvg

KORPUS = Path("/work/shared/corpus/gesetze/rvg.md")
if not KORPUS.exists():  # the shared folder beside the repository
    KORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "gesetze" / "rvg.md"

pytestmark = pytest.mark.skipif(not KORPUS.exists(), reason="RVG-Text des Korpus nicht vorhanden")

ZAHL = r"\d{1,3}(?: \d{3})*,\d{2}|\d+,\d"


def _anlage_1() -> str:
    text = KORPUS.read_text(encoding="utf-8")
    start = text.index("## Anlage 1")
    return text[start : text.index("## Anlage 2")]


def _eintrag(anlage: str, vv: str) -> str:
    """The value cell(s) of Nr. ``vv``: the text after ".......... |" within its entry or, where the
    statute prints no dots before the cell (e.g. Nrn. 1010, 4102), after the first "| " with a number."""
    treffer = re.search(rf"(?:; |\[Nr\. \| [^;]*; ){vv} \| ", anlage)
    assert treffer, f"Nr. {vv} nicht im Gesetzestext gefunden"
    rest = anlage[treffer.end() :]
    naechste = re.search(r"; \d{4} \| ", rest)
    eintrag = rest[: naechste.start() + 2] if naechste else rest
    if ".......... |" in eintrag:
        return eintrag[eintrag.index(".......... |") + len(".......... |") :][:200]
    zelle = re.search(rf"\| ((?:{ZAHL}) .*)", eintrag)
    assert zelle, f"Kein Satz für Nr. {vv}"
    return " " + zelle[1][:200]


def _dezimal(text: str) -> Decimal:
    return Decimal(text.replace(" ", "").replace(",", "."))


@pytest.fixture(scope="module")
def anlage() -> str:
    return _anlage_1()


@pytest.mark.parametrize("vv", sorted(rvg.VV))
def test_satz_oder_rahmen_der_wertgebuehren(anlage: str, vv: str) -> None:
    nummer = rvg.VV[vv]
    zelle = _eintrag(anlage, vv)
    rahmen_treffer = re.match(rf"\s*({ZAHL}) bis ({ZAHL});", zelle)
    if rahmen_treffer:
        assert (nummer.satz_von, nummer.satz_bis) == (_dezimal(rahmen_treffer[1]), _dezimal(rahmen_treffer[2]))
    elif vv == "3335":
        assert nummer.satz_bis == _dezimal(re.search(rf"höchstens ({ZAHL})", zelle)[1])  # type: ignore[index]
    else:
        satz = re.match(rf"\s*({ZAHL})", zelle)
        assert satz, zelle
        assert nummer.satz_von == nummer.satz_bis == _dezimal(satz[1])


@pytest.mark.parametrize("vv", sorted(rahmen.RAHMEN))
def test_betragsrahmen_und_festgebuehren(anlage: str, vv: str) -> None:
    gebuehr = rahmen.RAHMEN[vv]
    zelle = _eintrag(anlage, vv)
    if gebuehr.festgebuehr:
        assert gebuehr.von == _dezimal(re.match(rf"\s*({ZAHL}) €", zelle)[1])  # type: ignore[index]
        return
    treffer = re.match(rf"\s*({ZAHL}) bis ({ZAHL}) €(?: \| ({ZAHL}) €)?", zelle)
    assert treffer, zelle
    assert (gebuehr.von, gebuehr.bis) == (_dezimal(treffer[1]), _dezimal(treffer[2]))
    pflicht = _dezimal(treffer[3]) if treffer[3] else None
    assert gebuehr.pflicht == pflicht
    if gebuehr.schwelle is not None:
        assert f"mehr als {gebuehr.schwelle:.2f}".replace(".", ",") + " €" in anlage


def test_auslagen(anlage: str) -> None:
    assert "20 % der Gebühren – höchstens 20,00 €" in _eintrag(anlage, "7002")
    assert rvg.RVG_2025.km_satz == _dezimal(re.match(rf"\s*({ZAHL}) €", _eintrag(anlage, "7003"))[1])  # type: ignore[index]
    assert "1. von nicht mehr als 4 Stunden .......... | 30,00 €" in anlage
    assert "2. von mehr als 4 bis 8 Stunden .......... | 50,00 €" in anlage
    assert "3. von mehr als 8 Stunden .......... | 80,00 €" in anlage
    assert rvg.RVG_2025.abwesenheitsgeld == (Decimal("30.00"), Decimal("50.00"), Decimal("80.00"))
    assert "| 0,50 € 0,15 € 1,00 € 0,30 €" in anlage
    assert (rvg.SEITE_SW, rvg.SEITE_FARBE) == ((Decimal("0.50"), Decimal("0.15")), (Decimal("1.00"), Decimal("0.30")))
    assert "je Datei .......... | 1,50 €" in anlage and "insgesamt höchstens .......... | 5,00 €" in anlage
    assert (rvg.JE_DATEI, rvg.DATEIEN_HOECHSTENS) == (Decimal("1.50"), Decimal("5.00"))
    for vv in ("7004", "7006"):
        assert _eintrag(anlage, vv).startswith(" in voller Höhe")


def test_inkasso_grundgebuehr_und_hoechstwert() -> None:
    text = KORPUS.read_text(encoding="utf-8")
    assert "beträgt bei einem Gegenstandswert bis 50 Euro die Gebühr abweichend von Absatz 1 Satz 1 31,50 Euro" in text
    assert rvg.RVG_2025.inkasso_bis_50 == Decimal("31.50")
    assert "Der Wert beträgt in derselben Angelegenheit höchstens 30 Millionen Euro" in text


def test_famgkg_wertvorschriften_und_tabelle() -> None:
    from rechner import famgkg, gkg

    text = (KORPUS.parent / "famgkg.md").read_text(encoding="utf-8")
    assert "Der Wert darf nicht unter 3 000 Euro und nicht über 1 Million Euro angenommen werden." in text
    assert (famgkg.EHESACHE_MIN, famgkg.EHESACHE_MAX) == (Decimal(3000), Decimal(1_000_000))
    assert "beträgt der Verfahrenswert 5 000 Euro" in text and famgkg.kindschaftswert(date(2025, 6, 1)) == Decimal(5000)
    assert "um 20 Prozent, höchstens um jeweils 5 000 Euro" in text
    assert "für jedes Anrecht 10 Prozent" in text and "insgesamt mindestens 1 000 Euro" in text
    assert famgkg.VA_MIN == Decimal(1000)
    assert "der für die ersten zwölf Monate nach Einreichung des Antrags geforderte Betrag maßgeblich" in text
    assert "Der Verfahrenswert beträgt höchstens 30 Millionen Euro" in text
    # § 28 FamGKG has the amounts of the GKG table.
    assert "beträgt bei einem Verfahrenswert bis 500 Euro die Gebühr 40 Euro" in text
    assert "2 000 | 500 | 21,00; 10 000 | 1 000 | 22,50; 25 000 | 3 000 | 30,50; 50 000 | 5 000 | 40,50" in text
    assert "200 000 | 15 000 | 140,00; 500 000 | 30 000 | 210,00; über 500 000 | 50 000 | 210,00" in text
    assert gkg.GKG_2025.tabelle.grundgebuehr == Decimal("40.00")
