"""The place of a deadline (issue 12, defects 1 and 2): no default Land, holidays of parts of a Land.

Calendar: 05.06.2025 Thursday, 19.06.2025 Fronleichnam (Thursday); 01.08.2025 Friday, 08.08.2025
Augsburger Friedensfest (Friday), 15.08.2025 Mariä Himmelfahrt (Friday).
"""

from datetime import date

import pytest

from rechner.fristen import Einheit, FristError, berechne_frist, berechne_preset


def zwei_wochen(ereignis: date, bundesland: str | None, ort: str | None = None) -> object:
    return berechne_frist(ereignis_datum=ereignis, dauer=2, einheit=Einheit.WOCHEN, bundesland=bundesland, ort=ort)


@pytest.mark.parametrize("bundesland", [None, "", "  "])
def test_ohne_bundesland_kein_stiller_standard(bundesland: str | None) -> None:
    with pytest.raises(FristError, match="fehlt das Bundesland des Gerichts"):
        zwei_wochen(date(2025, 6, 5), bundesland)
    with pytest.raises(FristError, match="fehlt das Bundesland des Gerichts"):
        berechne_preset("sofortige_beschwerde", date(2025, 6, 5), bundesland)


def test_berlin_kennt_fronleichnam_nicht() -> None:
    # Do 05.06.2025 + 2 Wochen → Do 19.06.2025: Fronleichnam in NW (→ Fr 20.06.), Werktag in Berlin.
    berlin = zwei_wochen(date(2025, 6, 5), "BE", "Berlin")
    assert berlin.fristablauf == date(2025, 6, 19)
    assert zwei_wochen(date(2025, 6, 5), "NW", "Köln").fristablauf == date(2025, 6, 20)
    assert berlin.bundesland == "BE" and berlin.ort == "Berlin"
    assert "Feiertage nach dem Gerichtsort: Berlin (Berlin)" in berlin.erlaeuterung


def test_ergebnis_nennt_land_ort_und_quelle() -> None:
    ergebnis = berechne_frist(
        ereignis_datum=date(2025, 6, 5),
        dauer=2,
        einheit="wochen",
        bundesland="BY",
        ort="Nürnberg",
        ortsquelle="Gericht der Akte: Landgericht Nürnberg-Fürth",
    )
    assert ergebnis.ortsangabe == "Nürnberg (Bayern); Quelle: Gericht der Akte: Landgericht Nürnberg-Fürth"
    assert "Nürnberg (Bayern) (Gericht der Akte: Landgericht Nürnberg-Fürth)" in ergebnis.erlaeuterung


def test_muenchen_mariae_himmelfahrt_verschiebt_auf_montag() -> None:
    # Fr 01.08.2025 + 2 Wochen → Fr 15.08.2025 Mariä Himmelfahrt in München; Sa, So → Mo 18.08.2025.
    ergebnis = zwei_wochen(date(2025, 8, 1), "BY", "München")
    assert ergebnis.fristablauf == date(2025, 8, 18)
    assert ergebnis.verschoben and ergebnis.verschiebungsgrund is not None
    assert "Mariä Himmelfahrt" in ergebnis.verschiebungsgrund
    assert not ergebnis.warnungen
    assert "keine Verschiebung" not in ergebnis.erlaeuterung


@pytest.mark.parametrize("ort", [None, "Nürnberg", "Hintertupfing"])
def test_bayern_ohne_sicheren_ort_frueheres_datum_mit_warnung(ort: str | None) -> None:
    ergebnis = zwei_wochen(date(2025, 8, 1), "BY", ort)
    assert ergebnis.fristablauf == date(2025, 8, 15)  # the earlier, safe end
    assert ergebnis.fristablauf_bei_teilfeiertag == date(2025, 8, 18)
    assert len(ergebnis.warnungen) == 1
    warnung = ergebnis.warnungen[0]
    assert "Mariä Himmelfahrt" in warnung and "nur in Teilen von Bayern" in warnung
    assert "Freitag, 15.08.2025" in warnung and "Montag, 18.08.2025" in warnung
    assert "keine Verschiebung" not in ergebnis.erlaeuterung


def test_augsburger_friedensfest_nur_in_augsburg() -> None:
    # Fr 25.07.2025 + 2 Wochen → Fr 08.08.2025: Hohes Friedensfest in Augsburg → Mo 11.08.2025.
    augsburg = zwei_wochen(date(2025, 7, 25), "BY", "Augsburg")
    assert augsburg.fristablauf == date(2025, 8, 11)
    assert "Friedensfest" in (augsburg.verschiebungsgrund or "")
    muenchen = zwei_wochen(date(2025, 7, 25), "BY", "München")
    assert muenchen.fristablauf == date(2025, 8, 8) and not muenchen.warnungen
    unbekannt = zwei_wochen(date(2025, 7, 25), "BY")
    assert unbekannt.fristablauf == date(2025, 8, 8)
    assert unbekannt.warnungen and "Friedensfest" in unbekannt.warnungen[0]


@pytest.mark.parametrize(
    ("bundesland", "ort", "fristablauf", "gewarnt"),
    [
        # Do 05.06.2025 + 2 Wochen → Do 19.06.2025 Fronleichnam.
        ("TH", "Heilbad Heiligenstadt", date(2025, 6, 20), False),
        ("TH", "Erfurt", date(2025, 6, 19), True),
        ("SN", None, date(2025, 6, 19), True),
        ("SN", "Ralbitz-Rosenthal", date(2025, 6, 20), False),
    ],
)
def test_fronleichnam_in_teilen_von_sachsen_und_thueringen(
    bundesland: str, ort: str | None, fristablauf: date, gewarnt: bool
) -> None:
    ergebnis = zwei_wochen(date(2025, 6, 5), bundesland, ort)
    assert ergebnis.fristablauf == fristablauf
    assert bool(ergebnis.warnungen) is gewarnt


def test_vorfrist_behandelt_unsicheren_teilfeiertag_als_frei() -> None:
    # Fristablauf Fr 15.08.2025 (Ort unbekannt); Vorfrist 7 Tage → Fr 08.08.2025, das Friedensfest
    # könnte gelten → die Vorfrist rückt auf Do 07.08.2025 vor (früher ist sicher).
    ergebnis = zwei_wochen(date(2025, 8, 1), "BY")
    assert ergebnis.vorfrist == date(2025, 8, 7)
