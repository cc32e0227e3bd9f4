"""Where a deadline is kept, and limits after the Verkündung (findings of a Fachanwalt's review).

- § 222 Abs. 2 ZPO / § 193 BGB count the holidays of the court at which the period is kept: for a
  Revision, its Begründung, the Nichtzulassungsbeschwerde and the Rechtsbeschwerde the
  Bundesgerichtshof in Karlsruhe; for a Berufung and its Begründung the Berufungsgericht, whose seat
  the Akte does not name. The Kanzlei's seat is no court at all. Where the place is not certain, the
  earliest end that holds in every Land applies, with a warning naming the later one.
- Limits after the Verkündung beyond §§ 517, 520 ZPO: §§ 544 Abs. 3, 4, 548, 551 Abs. 2, 569 Abs. 1
  ZPO, § 63 Abs. 3 FamFG; without a Verkündungsdatum the result warns that the limit is unchecked.
- Shorter periods that a general preset would hide: § 59 ArbGG, § 46a Abs. 3 ArbGG, § 63 Abs. 2 FamFG.
"""

from __future__ import annotations

from datetime import date

import pytest

from akten.fristen_rules import frist_ort_bestimmen
from rechner.fristen import PRESETS, berechne_preset
from tests.factories import AkteFactory


def test_revisionsbegruendung_zaehlt_die_feiertage_am_sitz_des_bgh() -> None:
    # Akte at the OLG München: 15.08.2029 is Mariä Himmelfahrt there, not in Karlsruhe
    ergebnis = berechne_preset("revisionsbegruendung", date(2029, 6, 15), "BY", ort="München", ort_art="akte")
    assert ergebnis.fristablauf == date(2029, 8, 15)
    assert ergebnis.ortsangabe == "Karlsruhe (Baden-Württemberg); Quelle: Sitz des Bundesgerichtshofs"
    assert {PRESETS[key].gericht for key in ("revision", "nichtzulassungsbeschwerde", "rechtsbeschwerde")} == {"bgh"}


def test_revision_zu_einem_anderen_bundesgericht_nimmt_das_fruehere_ende() -> None:
    """The Revision preset's hint asks for the seat of the BAG, BSG, BVerwG or BFH; that place was
    ignored, so a Revision to the BAG (Erfurt) ending on Fronleichnam 04.06.2026, a working day in
    Erfurt, came out a day late (Karlsruhe: Friday 05.06.2026)."""
    erfurt = berechne_preset("revision", date(2026, 5, 4), "TH", ort="Erfurt", ort_art="angabe")
    assert erfurt.fristablauf == date(2026, 6, 4) and erfurt.fristablauf_bei_teilfeiertag == date(2026, 6, 5)
    assert "Bundesarbeitsgericht" in erfurt.warnungen[-1] and "erst am Freitag, 05.06.2026" in erfurt.warnungen[-1]
    # without a place given, the federal court is open: the earliest end at any of them, with a
    # warning naming Karlsruhe's later day (it was Karlsruhe alone: 05.06.2026, a day late at the BAG)
    for ort_art in ("akte", "kanzlei", None):
        offen = berechne_preset("revision", date(2026, 5, 4), "TH", ort="Erfurt", ort_art=ort_art)
        assert offen.fristablauf == date(2026, 6, 4), ort_art
        assert "Bundesarbeitsgericht" in offen.warnungen[0] and "erst am Freitag, 05.06.2026" in offen.warnungen[0]
    karlsruhe = berechne_preset("revision", date(2026, 5, 4), "BW", ort="Karlsruhe", ort_art="angabe")
    assert karlsruhe.fristablauf == date(2026, 6, 5)
    # BFH München: Mariä Himmelfahrt 15.08.2029 is no holiday in Karlsruhe, the earlier end holds
    muenchen = berechne_preset("revisionsbegruendung", date(2029, 6, 15), "BY", ort="München", ort_art="angabe")
    assert muenchen.fristablauf == date(2029, 8, 15) and "erst am Donnerstag, 16.08.2029" in muenchen.warnungen[-1]
    # the same end at both places: no warning
    gleich = berechne_preset("revision", date(2026, 3, 2), "TH", ort="Erfurt", ort_art="angabe")
    assert gleich.fristablauf == date(2026, 4, 2) and not any("Bundesarbeitsgericht" in w for w in gleich.warnungen)
    assert "gilt ebenso mit den Feiertagen am angegebenen Ort, Erfurt (Thüringen)" in gleich.erlaeuterung


def test_berufungsbegruendung_nimmt_ohne_berufungsgericht_das_frueheste_ende() -> None:
    # LG Augsburg: 08.08.2029 is the Augsburger Friedensfest, but the Begründung goes to the OLG München
    ergebnis = berechne_preset("berufungsbegruendung", date(2029, 6, 8), "BY", ort="Augsburg", ort_art="akte")
    assert ergebnis.fristablauf == date(2029, 8, 8)
    assert ergebnis.fristablauf_bei_teilfeiertag == date(2029, 8, 9)
    assert "Sitz des Rechtsmittelgerichts" in ergebnis.warnungen[0]
    assert "endet die Frist erst am Donnerstag, 09.08.2029" in ergebnis.warnungen[0]
    # at the court of the Akte's own decision nothing changes for a Stellungnahme
    assert berechne_preset("stellungnahme", date(2029, 7, 25), "BY", ort="Augsburg", ort_art="akte").fristablauf == date(
        2029, 8, 9
    )


@pytest.mark.django_db
def test_der_ort_des_berufungsgerichts_darf_vom_gericht_der_akte_abweichen() -> None:
    akte = AkteFactory(gericht_name="Landgericht Augsburg", gericht_ort="Augsburg", gericht_bundesland="BY")
    ort = frist_ort_bestimmen(akte=akte, bundesland="BY", ort="München", vorlage="berufungsbegruendung")
    assert (ort.ort, ort.art) == ("München", "angabe")
    ergebnis = berechne_preset("berufungsbegruendung", date(2029, 6, 8), ort.bundesland, ort=ort.ort, ort_art=ort.art)
    assert ergebnis.fristablauf == date(2029, 8, 8)
    assert not any("Rechtsmittelgerichts" in w for w in ergebnis.warnungen)
    # for a deadline at the Akte's own court a different place is uncertain: the earliest end, a warning
    abweichend = frist_ort_bestimmen(akte=akte, bundesland="BY", ort="München", vorlage="stellungnahme")
    assert abweichend.art == "abweichend" and "Augsburg" in abweichend.quelle


def test_kanzleisitz_statt_gericht_nimmt_das_frueheste_ende_und_warnt() -> None:
    ergebnis = berechne_preset("einspruch_versaeumnisurteil", date(2029, 8, 1), "BY", ort="München", ort_art="kanzlei")
    assert ergebnis.fristablauf == date(2029, 8, 15)
    assert "Die Akte nennt kein Gericht" in ergebnis.warnungen[0]
    assert "erst am Donnerstag, 16.08.2029" in ergebnis.warnungen[0]
    # the court of the Akte is the court: its holidays count
    assert berechne_preset("einspruch_versaeumnisurteil", date(2029, 8, 1), "BY", ort="München", ort_art="akte").fristablauf == (
        date(2029, 8, 16)
    )


def test_rueckwaertsfrist_mit_kanzleisitz_zaehlt_die_feiertage_jedes_landes() -> None:
    # Termin Fr 27.06.2025: service by Do 19.06.2025, Fronleichnam in other Länder → Mi 18.06.
    # (a Kanzlei in Berlin, where it is a working day, must not be told 19.06. for a court in Köln)
    ergebnis = berechne_preset("schriftsatz_vor_termin", date(2025, 6, 27), "BE", ort="Berlin", ort_art="kanzlei")
    assert ergebnis.fristablauf == date(2025, 6, 18)
    assert "Feiertage jedes Bundeslandes" in ergebnis.warnungen[0]
    assert berechne_preset("schriftsatz_vor_termin", date(2025, 6, 27), "BE", ort="Berlin").fristablauf == date(2025, 6, 19)


@pytest.mark.parametrize(
    ("vorlage", "zustellung", "verkuendung", "fristablauf"),
    [
        # § 548 ZPO: starts at the latest 5 months after Verkündung (15.06.2025) → 15.07.2025
        ("revision", date(2025, 7, 1), date(2025, 1, 15), date(2025, 7, 15)),
        # § 551 Abs. 2 Satz 3 ZPO: 2 months from the same latest start → 15.08.2025
        ("revisionsbegruendung", None, date(2025, 1, 15), date(2025, 8, 15)),
        # § 544 Abs. 3 ZPO: ends at the latest 6 months after Verkündung (30.03.2026, not 02.04.2026)
        ("nichtzulassungsbeschwerde", date(2026, 3, 2), date(2025, 9, 30), date(2026, 3, 30)),
        # § 544 Abs. 4 ZPO: Begründung 7 months after Verkündung at the latest
        ("nichtzulassungsbeschwerde_begruendung", date(2026, 3, 2), date(2025, 9, 30), date(2026, 4, 30)),
        # § 569 Abs. 1 Satz 2 ZPO: starts 5 months after Verkündung (02.06.2025) → Mo 16.06.2025
        ("sofortige_beschwerde", date(2025, 8, 1), date(2025, 1, 2), date(2025, 6, 16)),
    ],
)
def test_hoechstgrenzen_ab_verkuendung(vorlage, zustellung, verkuendung, fristablauf) -> None:
    ergebnis = berechne_preset(vorlage, zustellung, "NW", ort="Köln", verkuendung=verkuendung)
    assert ergebnis.fristablauf == fristablauf
    assert "Diese Grenze ist maßgeblich" in ergebnis.erlaeuterung


def test_ohne_verkuendungsdatum_warnt_die_vorlage_vor_der_ungeprueften_grenze() -> None:
    ergebnis = berechne_preset("nichtzulassungsbeschwerde", date(2026, 3, 2), "NW")
    assert (
        "Ohne Verkündungsdatum ist die Höchstgrenze nicht geprüft: die Frist endet spätestens sechs Monate"
        in (ergebnis.warnungen[-1])
    )
    assert berechne_preset("kuendigungsschutzklage", date(2026, 3, 2), "NW").warnungen == ()


@pytest.mark.parametrize(
    ("vorlage", "ereignis", "fristablauf", "notfrist"),
    [
        ("einspruch_versaeumnisurteil_arbgg", date(2027, 6, 16), date(2027, 6, 23), True),  # § 59 ArbGG: 1 week
        ("widerspruch_mahnbescheid_arbgg", date(2027, 6, 16), date(2027, 6, 23), False),  # § 46a Abs. 3 ArbGG
        ("einspruch_vollstreckungsbescheid_arbgg", date(2027, 6, 16), date(2027, 6, 23), True),  # § 59 ArbGG: 1 week
        ("beschwerde_famfg_zwei_wochen", date(2027, 6, 16), date(2027, 6, 30), False),  # § 63 Abs. 2 FamFG
    ],
)
def test_kuerzere_fristen_haben_eigene_vorlagen(vorlage, ereignis, fristablauf, notfrist) -> None:
    ergebnis = berechne_preset(vorlage, ereignis, "NW", ort="Köln")
    assert (ergebnis.fristablauf, ergebnis.notfrist) == (fristablauf, notfrist)


def test_die_allgemeinen_vorlagen_nennen_die_kuerzeren_fristen() -> None:
    assert "§ 59 Abs. 1 Satz 1 ArbGG" in PRESETS["einspruch_versaeumnisurteil"].hinweis
    assert "eine Woche" in PRESETS["einspruch_vollstreckungsbescheid"].hinweis
    assert "§ 46a Abs. 3 ArbGG" in PRESETS["widerspruch_mahnbescheid"].hinweis
    assert "§ 63 Abs. 2 FamFG" in PRESETS["beschwerde_famfg"].hinweis


def test_revisionsbegruendung_stpo_nennt_die_regel_des_gesetzes() -> None:
    hinweis = PRESETS["revisionsbegruendung_stpo"].hinweis
    assert "21 Wochen" in hinweis and "35 Wochen" in hinweis
    assert "Seiten" not in hinweis


def test_eine_zustellung_vor_der_verkuendung_wird_nicht_gerechnet() -> None:
    from rechner.fristen import FristError

    with pytest.raises(FristError, match="liegt vor der Verkündung"):
        berechne_preset("berufung", date(2025, 1, 1), "NW", verkuendung=date(2025, 2, 1))


def test_frist_ohne_sicheren_ort_ueber_einen_bundesweiten_feiertag() -> None:
    """The earliest end valid in every Land moved over a nationwide holiday: its explanation named
    the holiday's place through the calendar of no Land and failed (KeyError) instead of answering."""
    # an Akte without a court: the Kanzlei's seat stands in, the end holds in every Land
    ergebnis = berechne_preset("berufung", date(2026, 11, 25), "NW", ort="Köln", ort_art="kanzlei")
    assert ergebnis.fristablauf == date(2026, 12, 28)
    revision = berechne_preset("revision", date(2026, 11, 25), "BW", ort="Karlsruhe", ort_art="akte")
    assert revision.fristablauf == date(2026, 12, 28)


@pytest.mark.parametrize(
    ("vorlage", "warnung"),
    [
        ("stellungnahme", "die Frist setzt das Gericht"),  # a court-set period may be shorter than two weeks
        ("wiedereinsetzung", "§ 234 Abs. 3 ZPO"),  # the one-year limit may end first
        ("schriftsatz_vor_termin", "nicht der Tag der Einreichung"),  # § 132 ZPO: the latest day of service
        ("gegenerklaerung_vor_termin", "nicht der Tag der Einreichung"),
    ],
)
def test_vorlagen_die_ein_datum_nicht_sicher_kennen_warnen(vorlage, warnung) -> None:
    ergebnis = berechne_preset(vorlage, date(2027, 6, 16), "NW", ort="Köln")
    assert any(warnung in w for w in ergebnis.warnungen)
    assert warnung in ergebnis.erlaeuterung
