"""Fristen presets a Kanzlei uses daily (issue 12): five-month limits, labour, administrative, social
and criminal courts, Verjährung, backward deadlines. Each date was counted on the calendar.

Calendar anchors 2025: 15.01. Wednesday, 15.06. Sunday, 15.07. Tuesday, 18.04. Karfreitag,
21.04. Ostermontag, 09.06. Pfingstmontag, 19.06. Fronleichnam (NW, not BE), 31.12.2028 Sunday.
"""

from datetime import date

import pytest

from rechner.fristen import PRESETS, FristError, berechne_preset

VERKUENDUNG = date(2025, 1, 15)


@pytest.mark.parametrize("vorlage", ["berufung", "berufung_arbgg"])
def test_fuenf_monats_grenze_der_berufung(vorlage: str) -> None:
    # Verkündung Mi 15.01.2025 → spätester Beginn 15.06.2025 → Fristende Di 15.07.2025.
    # Zustellung erst Fr 20.06.2025 → 1 Monat → So 20.07. → Mo 21.07.2025: die Grenze ist früher.
    spaet = berechne_preset(vorlage, date(2025, 6, 20), "NW", verkuendung=VERKUENDUNG)
    assert spaet.fristablauf == date(2025, 7, 15) and spaet.notfrist
    assert "Fünf-Monats-Grenze" in spaet.erlaeuterung and "maßgeblich (früheres Fristende)" in spaet.erlaeuterung
    # Noch nicht zugestellt: nur die Grenze.
    assert berechne_preset(vorlage, None, "NW", verkuendung=VERKUENDUNG).fristablauf == date(2025, 7, 15)
    # Zustellung Mo 03.02.2025 → Mo 03.03.2025: früher als die Grenze.
    frueh = berechne_preset(vorlage, date(2025, 2, 3), "NW", verkuendung=VERKUENDUNG)
    assert frueh.fristablauf == date(2025, 3, 3)
    assert "Die Frist ab Zustellung endet früher" in frueh.erlaeuterung


@pytest.mark.parametrize("vorlage", ["berufungsbegruendung", "berufungsbegruendung_arbgg"])
def test_fuenf_monats_grenze_der_begruendung(vorlage: str) -> None:
    # 15.06.2025 + 2 Monate → Fr 15.08.2025 (kein Feiertag in Köln); ab Zustellung 20.06. → Mi 20.08.2025.
    assert berechne_preset(vorlage, date(2025, 6, 20), "NW", ort="Köln", verkuendung=VERKUENDUNG).fristablauf == date(2025, 8, 15)


def test_verkuendung_nur_bei_vorlagen_mit_hoechstgrenze() -> None:
    with pytest.raises(FristError, match="Höchstgrenze ab Verkündung"):
        berechne_preset("kuendigungsschutzklage", date(2025, 6, 20), "NW", verkuendung=VERKUENDUNG)


@pytest.mark.parametrize(
    ("vorlage", "ereignis", "fristablauf"),
    [
        ("befristungskontrollklage", date(2025, 6, 30), date(2025, 7, 21)),  # Mo + 3 Wochen
        ("anfechtungsklage_vwgo", date(2025, 1, 31), date(2025, 2, 28)),  # § 188 Abs. 3 BGB
        ("zulassung_berufung_vwgo", date(2025, 3, 14), date(2025, 4, 14)),  # Fr 14.03. + 1 Monat → Mo 14.04.2025
        ("zulassung_berufung_begruendung_vwgo", date(2025, 3, 14), date(2025, 5, 14)),
        ("klage_sgg", date(2025, 5, 15), date(2025, 6, 16)),  # So 15.06. → Mo 16.06.2025
        ("berufung_sgg", date(2025, 5, 7), date(2025, 6, 10)),  # Sa 07.06., So, Pfingstmontag → Di 10.06.
        ("berufung_stpo", date(2025, 3, 6), date(2025, 3, 13)),
        ("revision_stpo", date(2025, 4, 11), date(2025, 4, 22)),  # Fr 18.04. Karfreitag … Ostermontag → Di 22.04.
        ("revisionsbegruendung_stpo", date(2025, 3, 20), date(2025, 4, 22)),  # So 20.04. Ostersonntag, Mo → Di 22.04.
        ("einspruch_strafbefehl", date(2025, 4, 4), date(2025, 4, 22)),
        ("einspruch_bussgeldbescheid", date(2025, 4, 4), date(2025, 4, 22)),
    ],
)
def test_vorlagen_vorwaerts(vorlage: str, ereignis: date, fristablauf: date) -> None:
    assert berechne_preset(vorlage, ereignis, "NW").fristablauf == fristablauf


def test_regelverjaehrung_zum_jahresende() -> None:
    ergebnis = berechne_preset("verjaehrung_regel", date(2022, 5, 10), "NW")
    assert ergebnis.fristablauf == ergebnis.rechnerisches_ende == date(2025, 12, 31)
    assert "Schluss des Jahres" in ergebnis.erlaeuterung and not ergebnis.warnungen and not ergebnis.verschoben


@pytest.mark.parametrize(
    ("vorlage", "ereignis", "land", "rechnerisch", "notiert", "nach_193"),
    [
        # 31.12.2028 is a Sunday, 01.01.2029 Neujahr: noted Friday 29.12.2028, § 193 BGB: Tuesday 02.01.2029.
        ("verjaehrung_regel", date(2025, 2, 1), "BE", date(2028, 12, 31), date(2028, 12, 29), date(2029, 1, 2)),
        # 31.12.2022 was a Saturday: noted Friday 30.12.2022, § 193 BGB: Monday 02.01.2023.
        ("verjaehrung_regel", date(2019, 7, 1), "NW", date(2022, 12, 31), date(2022, 12, 30), date(2023, 1, 2)),
        # § 548 BGB: Rückerhalt 31.08.2025 → Saturday 28.02.2026 (§ 188 Abs. 3 BGB): noted Friday 27.02.2026,
        # § 193 BGB: Monday 02.03.2026.
        ("verjaehrung_mietsache", date(2025, 8, 31), "NW", date(2026, 2, 28), date(2026, 2, 27), date(2026, 3, 2)),
        # Rückerhalt 04.12.2025 → Thursday 04.06.2026, Fronleichnam in NW (not in Berlin).
        ("verjaehrung_mietsache", date(2025, 12, 4), "NW", date(2026, 6, 4), date(2026, 6, 3), date(2026, 6, 5)),
    ],
)
def test_verjaehrung_notiert_den_letzten_werktag_und_nennt_193_bgb(
    vorlage: str, ereignis: date, land: str, rechnerisch: date, notiert: date, nach_193: date
) -> None:
    """The calendar date of a Verjährung is never later than its calculated end (§ 548 BGB moved over
    a weekend before, the regular one kept a Sunday that the calendar refuses); the warning names the
    later end under § 193 BGB."""
    ergebnis = berechne_preset(vorlage, ereignis, land)
    assert ergebnis.rechnerisches_ende == rechnerisch
    assert ergebnis.fristablauf == notiert and ergebnis.verschoben
    assert len(ergebnis.warnungen) == 1
    warnung = ergebnis.warnungen[0]
    assert "§ 193 BGB" in warnung and f"{nach_193:%d.%m.%Y}" in warnung and f"{notiert:%d.%m.%Y}" in warnung
    assert "§ 193 BGB" in ergebnis.rechtsgrundlage


def test_verjaehrung_auf_werktag_und_vorfrist() -> None:
    # Rückerhalt 04.12.2025 → Thursday 04.06.2026 is a working day in Berlin; Vorfrist seven days earlier.
    berlin = berechne_preset("verjaehrung_mietsache", date(2025, 12, 4), "BE")
    assert berlin.fristablauf == date(2026, 6, 4) and not berlin.verschoben and not berlin.warnungen
    assert berlin.vorfrist == date(2026, 5, 28)
    # the regular Verjährung takes the Vorfrist asked for, too (it ignored it before)
    regel = berechne_preset("verjaehrung_regel", date(2022, 5, 10), "NW", vorfrist_tage=14)
    assert regel.vorfrist == date(2025, 12, 17)
    assert berechne_preset("verjaehrung_regel", date(2022, 5, 10), "NW", vorfrist_tage=None).vorfrist is None


def test_rueckwaertsfrist_132_zpo() -> None:
    """§ 132 ZPO: a full week (three full days) between the day of service and the Termin, neither
    counted: for a Termin on Friday 27.06.2025 service by Thursday 19.06.2025, Fronleichnam in NW →
    Wednesday 18.06.2025; in Berlin a working day."""
    nrw = berechne_preset("schriftsatz_vor_termin", date(2025, 6, 27), "NW")
    assert nrw.fristablauf == date(2025, 6, 18) and nrw.verschoben
    assert "Werktag davor" in (nrw.verschiebungsgrund or "")
    assert "Spätester Tag der Zustellung: Mittwoch, 18.06.2025" in nrw.erlaeuterung
    assert berechne_preset("schriftsatz_vor_termin", date(2025, 6, 27), "BE").fristablauf == date(2025, 6, 19)
    # Termin Mo 23.06.2025: days 20, 21, 22 lie between → service by Do 19.06. (NW: Fronleichnam → Mi 18.06.)
    assert berechne_preset("gegenerklaerung_vor_termin", date(2025, 6, 23), "NW").fristablauf == date(2025, 6, 18)
    assert berechne_preset("gegenerklaerung_vor_termin", date(2025, 6, 24), "NW").fristablauf == date(2025, 6, 20)


@pytest.mark.parametrize(
    ("vorlage", "termin", "spaetestens"),
    [
        # a Termin on Wednesday: service on Tuesday of the week before at the latest (not Wednesday)
        ("schriftsatz_vor_termin", date(2027, 6, 16), date(2027, 6, 8)),
        # Monday: Sunday 06.06. → the working day before, Friday 04.06.
        ("schriftsatz_vor_termin", date(2027, 6, 14), date(2027, 6, 4)),
        # Thursday: Sunday 13.06. → Friday 11.06.
        ("gegenerklaerung_vor_termin", date(2027, 6, 17), date(2027, 6, 11)),
        # Friday 13.06.2025: Monday 09.06. is Pfingstmontag → Friday 06.06.
        ("gegenerklaerung_vor_termin", date(2025, 6, 13), date(2025, 6, 6)),
    ],
)
def test_rueckwaertsfrist_volle_frist_zwischen_zustellung_und_termin(vorlage, termin, spaetestens) -> None:
    assert berechne_preset(vorlage, termin, "NW").fristablauf == spaetestens


def test_rueckwaertsfrist_nimmt_unsicheren_teilfeiertag_als_frei() -> None:
    # Termin Mo 25.08.2025: So 17.08. → Sa → Fr 15.08.2025 (Mariä Himmelfahrt in Teilen Bayerns) → Do 14.08.2025.
    assert berechne_preset("schriftsatz_vor_termin", date(2025, 8, 25), "BY").fristablauf == date(2025, 8, 14)


def test_alle_vorlagen_haben_rechtsgrundlage_und_ereignis() -> None:
    for vorlage in PRESETS.values():
        assert vorlage.rechtsgrundlage and vorlage.ereignis and vorlage.label


@pytest.mark.parametrize(
    ("vorlage", "ereignis", "land", "fristablauf"),
    [
        # § 70 Abs. 1 VwGO: Bekanntgabe Mo 04.05.2026 → Do 04.06.2026, Fronleichnam in NW → Fr 05.06.2026
        ("widerspruch_vwgo", date(2026, 5, 4), "NW", date(2026, 6, 5)),
        ("widerspruch_vwgo", date(2026, 5, 4), "BE", date(2026, 6, 4)),
        # § 84 Abs. 1 SGG: Fr 31.10.2025 → So 30.11.2025 (§ 188 Abs. 3 BGB) → Mo 01.12.2025
        ("widerspruch_sgg", date(2025, 10, 31), "NW", date(2025, 12, 1)),
        # § 58 Abs. 2 VwGO: a year from 29.02.2024 → Fr 28.02.2025 (§ 188 Abs. 3 BGB)
        ("jahresfrist_vwgo", date(2024, 2, 29), "NW", date(2025, 2, 28)),
        # § 66 Abs. 2 SGG: Fr 01.11.2024 → Sa 01.11.2025 → Mo 03.11.2025
        ("jahresfrist_sgg", date(2024, 11, 1), "NW", date(2025, 11, 3)),
    ],
)
def test_widerspruch_und_jahresfrist_ohne_belehrung(vorlage: str, ereignis: date, land: str, fristablauf: date) -> None:
    """Widerspruch against a Verwaltungsakt (§ 70 VwGO, § 84 SGG) and the year without a (correct)
    Rechtsbehelfsbelehrung (§ 58 Abs. 2 VwGO, § 66 Abs. 2 SGG): common, and there were no presets."""
    ergebnis = berechne_preset(vorlage, ereignis, land)
    assert ergebnis.fristablauf == fristablauf and not ergebnis.notfrist
    assert PRESETS[vorlage].rechtsgrundlage in ergebnis.rechtsgrundlage
    if vorlage.startswith("widerspruch"):
        # the postal Bekanntgabe on the fourth day (§ 41 Abs. 2 VwVfG, § 37 Abs. 2 SGB X) and the year without Belehrung
        assert "vierten Tag" in ergebnis.erlaeuterung and "jahresfrist_" in ergebnis.erlaeuterung


def test_widerspruch_mit_dem_ort_der_akte_nimmt_das_frueheste_ende() -> None:
    """A Widerspruch is filed at the Behörde, not at the Akte's court: the court's place (or the
    Kanzlei's seat) gives the earliest end valid in every Land and a warning; it gave the court's
    holiday (Fronleichnam at the SG Köln, a day late for a Behörde in Berlin)."""
    for ort_art in ("akte", "kanzlei"):
        ergebnis = berechne_preset("widerspruch_vwgo", date(2026, 5, 4), "NW", ort="Köln", ort_art=ort_art)
        assert ergebnis.fristablauf == date(2026, 6, 4), ort_art
        assert "Sitz der Stelle" in ergebnis.warnungen[0] and "erst am Freitag, 05.06.2026" in ergebnis.warnungen[0]
    assert berechne_preset("widerspruch_vwgo", date(2026, 5, 4), "NW", ort="Köln", ort_art="angabe").fristablauf == date(
        2026, 6, 5
    )


def test_beschwerdebegruendung_in_familienstreitsachen() -> None:
    """§ 117 Abs. 1 Satz 3 FamFG: two months from the written Bekanntgabe, at the latest from five months
    after the Erlass; filed at the Beschwerdegericht (OLG), whose holidays count. A common period in
    Unterhalt and Zugewinn cases that had no preset."""
    # Bekanntgabe Mi 15.01.2025 → Sa 15.03.2025 → Mo 17.03.2025
    ergebnis = berechne_preset("beschwerdebegruendung_famfg", date(2025, 1, 15), "NW")
    assert ergebnis.fristablauf == date(2025, 3, 17) and not ergebnis.notfrist
    # Erlass 15.01.2025, no Bekanntgabe: begins 15.06.2025 → Fr 15.08.2025
    assert berechne_preset("beschwerdebegruendung_famfg", None, "BE", verkuendung=date(2025, 1, 15)).fristablauf == date(
        2025, 8, 15
    )
    # the Akte's court (the Familiengericht) is not the OLG: 15.08.2025 is Mariä Himmelfahrt in München only
    akte = berechne_preset("beschwerdebegruendung_famfg", date(2025, 6, 15), "BY", ort="München", ort_art="akte")
    assert akte.fristablauf == date(2025, 8, 15) and akte.fristablauf_bei_teilfeiertag == date(2025, 8, 18)


def test_berufung_sgg_mit_den_feiertagen_des_landessozialgerichts() -> None:
    """§ 151 Abs. 1 SGG: the Berufung is filed at the LSG, which for the SG Berlin sits in Potsdam
    (Brandenburg). Zustellung Do 08.02.2024 → Fr 08.03.2024: Frauentag in Berlin only. With the Akte's
    court (SG Berlin) the calculator must not move the end to Mo 11.03.2024: at the LSG the Frist ends
    on 08.03.2024 (§ 64 Abs. 3 SGG); the Berlin date is named in a warning."""
    akte = berechne_preset(
        "berufung_sgg", date(2024, 2, 8), "BE", ort="Berlin", ortsquelle="Gericht der Akte: SG Berlin", ort_art="akte"
    )
    assert akte.fristablauf == date(2024, 3, 8)
    assert akte.fristablauf_bei_teilfeiertag == date(2024, 3, 11)
    assert any("Rechtsmittelgerichts" in warnung for warnung in akte.warnungen)
    lsg = berechne_preset("berufung_sgg", date(2024, 2, 8), "BB", ort="Potsdam", ort_art="angabe")
    assert lsg.fristablauf == date(2024, 3, 8) and not lsg.warnungen
