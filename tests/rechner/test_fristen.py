"""Deadline calculator tests with worked examples (§§ 187–193 BGB, § 222 ZPO).

Each expected date was counted by hand on the calendar; the comment gives the steps.
Calendar anchors: 01.01.2024 Monday (leap year), 01.01.2025 Wednesday, 01.01.2026 Thursday,
01.01.2027 Friday. Easter Sunday: 31.03.2024, 20.04.2025, 05.04.2026, 28.03.2027.
"""

from datetime import date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rechner import fristen
from rechner.fristen import Einheit, FristError, berechne_frist, berechne_preset


def frist(ereignis: date, dauer: int, einheit: Einheit, bundesland: str = "NW", **kwargs: object) -> fristen.FristErgebnis:
    return berechne_frist(ereignis_datum=ereignis, dauer=dauer, einheit=einheit, bundesland=bundesland, **kwargs)  # type: ignore[arg-type]


def test_karfreitag_bis_ostermontag_verschiebt_auf_dienstag() -> None:
    # Zustellung Do 29.02.2024; Berufung 1 Monat → Fr 29.03.2024 = Karfreitag; Sa 30.03., So 31.03.,
    # Mo 01.04. Ostermontag → Di 02.04.2024.
    ergebnis = berechne_preset("berufung", date(2024, 2, 29), "NW")
    assert ergebnis.rechnerisches_ende == date(2024, 3, 29)
    assert ergebnis.fristablauf == date(2024, 4, 2)
    assert ergebnis.verschoben
    assert ergebnis.verschiebungsgrund is not None
    for grund in ("Karfreitag", "Samstag", "Sonntag", "Ostermontag", "Dienstag, 02.04.2024"):
        assert grund in ergebnis.verschiebungsgrund
    assert ergebnis.notfrist
    assert ergebnis.bezeichnung == "Berufungsfrist"
    assert ergebnis.rechtsgrundlage.startswith("§ 517 ZPO")
    assert "§ 193 BGB" in ergebnis.rechtsgrundlage


def test_ostermontag_2025() -> None:
    # Mo 07.04.2025 + 2 Wochen → Mo 21.04.2025 = Ostermontag → Di 22.04.2025.
    ergebnis = frist(date(2025, 4, 7), 2, Einheit.WOCHEN, "BY")
    assert ergebnis.rechnerisches_ende == date(2025, 4, 21)
    assert ergebnis.fristablauf == date(2025, 4, 22)


def test_karfreitag_2026() -> None:
    # Di 03.03.2026 + 1 Monat → Fr 03.04.2026 Karfreitag; Sa, So, Mo 06.04. Ostermontag → Di 07.04.2026.
    assert frist(date(2026, 3, 3), 1, Einheit.MONATE, "HH").fristablauf == date(2026, 4, 7)


def test_pfingstmontag() -> None:
    # Mo 26.05.2025 + 2 Wochen → Mo 09.06.2025 = Pfingstmontag → Di 10.06.2025.
    ergebnis = frist(date(2025, 5, 26), 2, Einheit.WOCHEN)
    assert ergebnis.fristablauf == date(2025, 6, 10)
    assert ergebnis.verschiebungsgrund is not None and "Pfingstmontag" in ergebnis.verschiebungsgrund


def test_samstag_vor_feiertagsmontag_verschiebt_auf_dienstag() -> None:
    # Mi 07.05.2025 + 1 Monat → Sa 07.06.2025; So 08.06.; Mo 09.06. Pfingstmontag → Di 10.06.2025.
    ergebnis = frist(date(2025, 5, 7), 1, Einheit.MONATE)
    assert ergebnis.rechnerisches_ende == date(2025, 6, 7)
    assert ergebnis.fristablauf == date(2025, 6, 10)


@pytest.mark.parametrize(
    ("bundesland", "fristablauf"),
    [
        # Do 16.05.2024 + 2 Wochen → Do 30.05.2024 = Fronleichnam in NW und BY (→ Fr 31.05.), nicht in BE und HH.
        ("NW", date(2024, 5, 31)),
        ("BY", date(2024, 5, 31)),
        ("BE", date(2024, 5, 30)),
        ("HH", date(2024, 5, 30)),
    ],
)
def test_fronleichnam_nur_in_einigen_laendern(bundesland: str, fristablauf: date) -> None:
    assert frist(date(2024, 5, 16), 2, Einheit.WOCHEN, bundesland).fristablauf == fristablauf


def test_fronleichnam_2026_sofortige_beschwerde() -> None:
    # Do 21.05.2026 + 2 Wochen → Do 04.06.2026 Fronleichnam (NW) → Fr 05.06.2026; in Berlin kein Feiertag.
    assert berechne_preset("sofortige_beschwerde", date(2026, 5, 21), "NW").fristablauf == date(2026, 6, 5)
    assert berechne_preset("sofortige_beschwerde", date(2026, 5, 21), "BE").fristablauf == date(2026, 6, 4)


@pytest.mark.parametrize(
    ("bundesland", "fristablauf"),
    [
        # Fr 17.10.2025 + 2 Wochen → Fr 31.10.2025 Reformationstag in BB und SN; Sa 01.11., So 02.11. → Mo 03.11.2025.
        # In NW ist der 31.10. ein gewöhnlicher Freitag.
        ("BB", date(2025, 11, 3)),
        ("SN", date(2025, 11, 3)),
        ("NW", date(2025, 10, 31)),
    ],
)
def test_reformationstag(bundesland: str, fristablauf: date) -> None:
    assert frist(date(2025, 10, 17), 2, Einheit.WOCHEN, bundesland).fristablauf == fristablauf


def test_frauentag_nur_in_berlin() -> None:
    # Do 08.02.2024 + 1 Monat → Fr 08.03.2024 Internationaler Frauentag (BE); Sa 09.03., So 10.03. → Mo 11.03.2024.
    berlin = frist(date(2024, 2, 8), 1, Einheit.MONATE, "BE")
    assert berlin.fristablauf == date(2024, 3, 11)
    assert berlin.verschiebungsgrund is not None and "Frauentag (Feiertag in Berlin)" in berlin.verschiebungsgrund
    assert frist(date(2024, 2, 8), 1, Einheit.MONATE, "NW").fristablauf == date(2024, 3, 8)
    # Mo 22.02.2027 + 2 Wochen → Mo 08.03.2027 Frauentag → Di 09.03.2027.
    assert frist(date(2027, 2, 22), 2, Einheit.WOCHEN, "BE").fristablauf == date(2027, 3, 9)


def test_buss_und_bettag_in_sachsen() -> None:
    # Mi 06.11.2024 + 2 Wochen → Mi 20.11.2024 Buß- und Bettag (SN) → Do 21.11.2024; in NW kein Feiertag.
    sachsen = frist(date(2024, 11, 6), 2, Einheit.WOCHEN, "SN")
    assert sachsen.fristablauf == date(2024, 11, 21)
    assert sachsen.verschiebungsgrund is not None and "Buß- und Bettag" in sachsen.verschiebungsgrund
    assert frist(date(2024, 11, 6), 2, Einheit.WOCHEN, "NW").fristablauf == date(2024, 11, 20)


@pytest.mark.parametrize(
    ("ereignis", "dauer", "einheit", "fristablauf"),
    [
        # Mi 11.12.2024 + 2 Wochen → Mi 25.12. (1. Weihnachtstag), Do 26.12. (2. Weihnachtstag) → Fr 27.12.2024.
        (date(2024, 12, 11), 2, Einheit.WOCHEN, date(2024, 12, 27)),
        # Mi 18.12.2024 + 2 Wochen → Mi 01.01.2025 Neujahr → Do 02.01.2025.
        (date(2024, 12, 18), 2, Einheit.WOCHEN, date(2025, 1, 2)),
        # So 30.11.2025 + 1 Monat → Di 30.12.2025; Silvester und der Tag davor sind keine Feiertage.
        (date(2025, 11, 30), 1, Einheit.MONATE, date(2025, 12, 30)),
        # Fr 11.12.2026 + 2 Wochen → Fr 25.12.2026; Sa 26.12. (2. Weihnachtstag), So 27.12. → Mo 28.12.2026.
        (date(2026, 12, 11), 2, Einheit.WOCHEN, date(2026, 12, 28)),
        # Di 01.12.2026 + 1 Monat → Fr 01.01.2027 Neujahr; Sa 02.01., So 03.01. → Mo 04.01.2027.
        (date(2026, 12, 1), 1, Einheit.MONATE, date(2027, 1, 4)),
    ],
)
def test_weihnachten_und_jahreswechsel(ereignis: date, dauer: int, einheit: Einheit, fristablauf: date) -> None:
    assert frist(ereignis, dauer, einheit).fristablauf == fristablauf


@pytest.mark.parametrize(
    ("ereignis", "dauer", "einheit", "ende", "fristablauf"),
    [
        # § 188 Abs. 3 BGB: 31.01. + 1 Monat → letzter Februartag.
        (date(2024, 1, 31), 1, Einheit.MONATE, date(2024, 2, 29), date(2024, 2, 29)),  # Schaltjahr, Do
        (date(2025, 1, 31), 1, Einheit.MONATE, date(2025, 2, 28), date(2025, 2, 28)),  # Fr
        (date(2026, 1, 31), 1, Einheit.MONATE, date(2026, 2, 28), date(2026, 3, 2)),  # Sa → Mo 02.03.
        (date(2027, 1, 31), 1, Einheit.MONATE, date(2027, 2, 28), date(2027, 3, 1)),  # So → Mo 01.03.
        (date(2025, 3, 31), 1, Einheit.MONATE, date(2025, 4, 30), date(2025, 4, 30)),  # Mi
        # Two months from 31.12.: February has no 31st.
        (date(2023, 12, 31), 2, Einheit.MONATE, date(2024, 2, 29), date(2024, 2, 29)),
        (date(2024, 12, 31), 2, Einheit.MONATE, date(2025, 2, 28), date(2025, 2, 28)),
        # 29.02.2024 + 1 Jahr: 29.02.2025 fehlt → Fr 28.02.2025.
        (date(2024, 2, 29), 1, Einheit.JAHRE, date(2025, 2, 28), date(2025, 2, 28)),
        # No "Ultimo" rule: 28.02.2025 + 1 Monat → Fr 28.03.2025, not 31.03.
        (date(2025, 2, 28), 1, Einheit.MONATE, date(2025, 3, 28), date(2025, 3, 28)),
    ],
)
def test_monatsende(ereignis: date, dauer: int, einheit: Einheit, ende: date, fristablauf: date) -> None:
    ergebnis = frist(ereignis, dauer, einheit)
    assert ergebnis.rechnerisches_ende == ende
    assert ergebnis.fristablauf == fristablauf


def test_monatsende_erlaeuterung() -> None:
    ergebnis = frist(date(2025, 1, 31), 1, Einheit.MONATE)
    assert "§ 188 Abs. 3 BGB" in ergebnis.erlaeuterung
    assert "§ 188 Abs. 2, 3 BGB" in ergebnis.rechtsgrundlage


def test_berufungsbegruendung_im_schaltjahr() -> None:
    # Zustellung So 31.12.2023 (Zustellung am Wochenende ist möglich) + 2 Monate → Do 29.02.2024.
    ergebnis = berechne_preset("berufungsbegruendung", date(2023, 12, 31), "NW")
    assert ergebnis.fristablauf == date(2024, 2, 29)
    assert not ergebnis.notfrist


@pytest.mark.parametrize(
    ("preset", "ereignis", "fristablauf"),
    [
        # § 188 Abs. 2 BGB: Wochenfristen enden am gleichnamigen Wochentag.
        ("einspruch_versaeumnisurteil", date(2025, 3, 4), date(2025, 3, 18)),  # Di → Di
        ("widerspruch_mahnbescheid", date(2025, 3, 6), date(2025, 3, 20)),  # Do → Do
        ("kuendigungsschutzklage", date(2025, 9, 10), date(2025, 10, 1)),  # Mi + 3 Wochen → Mi
        ("einspruch_vollstreckungsbescheid", date(2025, 3, 7), date(2025, 3, 21)),  # Fr → Fr
    ],
)
def test_wochenfristen(preset: str, ereignis: date, fristablauf: date) -> None:
    ergebnis = berechne_preset(preset, ereignis, "NW")
    assert ergebnis.fristablauf == fristablauf
    assert ergebnis.fristablauf.weekday() == ereignis.weekday()
    assert not ergebnis.verschoben


def test_samstag_wird_auf_montag_verschoben() -> None:
    # Sa 01.03.2025 + 2 Wochen → Sa 15.03.2025; So 16.03. → Mo 17.03.2025.
    ergebnis = frist(date(2025, 3, 1), 2, Einheit.WOCHEN)
    assert ergebnis.fristablauf == date(2025, 3, 17)
    assert ergebnis.verschiebungsgrund is not None
    assert "15.03.2025 Samstag; 16.03.2025 Sonntag" in ergebnis.verschiebungsgrund


def test_feiertag_am_samstag() -> None:
    # Sa 08.02.2025 + 1 Monat → Sa 08.03.2025 (zugleich Frauentag in BE); So 09.03. → Mo 10.03.2025.
    ergebnis = frist(date(2025, 2, 8), 1, Einheit.MONATE, "BE")
    assert ergebnis.fristablauf == date(2025, 3, 10)
    assert ergebnis.verschiebungsgrund is not None and "Samstag (Frauentag)" in ergebnis.verschiebungsgrund


@pytest.mark.parametrize(
    ("dauer", "ende", "fristablauf"),
    [
        # Mo 07.04.2025 + 10 Tage → Do 17.04.2025.
        (10, date(2025, 4, 17), date(2025, 4, 17)),
        # + 11 Tage → Fr 18.04.2025 Karfreitag; Sa, So, Mo 21.04. Ostermontag → Di 22.04.2025.
        (11, date(2025, 4, 18), date(2025, 4, 22)),
    ],
)
def test_tagesfristen(dauer: int, ende: date, fristablauf: date) -> None:
    ergebnis = frist(date(2025, 4, 7), dauer, Einheit.TAGE)
    assert ergebnis.fristbeginn == date(2025, 4, 8)
    assert ergebnis.rechnerisches_ende == ende
    assert ergebnis.fristablauf == fristablauf


@pytest.mark.parametrize(
    ("beginn", "dauer", "einheit", "ende", "fristablauf"),
    [
        # § 187 Abs. 2, § 188 Abs. 2 Alt. 2 BGB: Beginn Sa 01.03.2025 mitgezählt, 1 Monat → Mo 31.03.2025.
        (date(2025, 3, 1), 1, Einheit.MONATE, date(2025, 3, 31), date(2025, 3, 31)),
        # Beginn Mo 03.03.2025, 2 Wochen → So 16.03.2025 → Mo 17.03.2025.
        (date(2025, 3, 3), 2, Einheit.WOCHEN, date(2025, 3, 16), date(2025, 3, 17)),
        # Beginn Mo 03.03.2025, 3 Tage (03., 04., 05.) → Mi 05.03.2025.
        (date(2025, 3, 3), 3, Einheit.TAGE, date(2025, 3, 5), date(2025, 3, 5)),
        # Beginn 31.01.2025, 1 Monat: der 31.02. fehlt → Fr 28.02.2025 (§ 188 Abs. 3 BGB).
        (date(2025, 1, 31), 1, Einheit.MONATE, date(2025, 2, 28), date(2025, 2, 28)),
        # Beginn 01.03.2024, 1 Jahr → Tag vor dem 01.03.2025 = Fr 28.02.2025.
        (date(2024, 3, 1), 1, Einheit.JAHRE, date(2025, 2, 28), date(2025, 2, 28)),
    ],
)
def test_fristbeginn_tagesbeginn(beginn: date, dauer: int, einheit: Einheit, ende: date, fristablauf: date) -> None:
    ergebnis = frist(beginn, dauer, einheit, fristbeginn="tagesbeginn")
    assert ergebnis.fristbeginn == beginn
    assert ergebnis.rechnerisches_ende == ende
    assert ergebnis.fristablauf == fristablauf
    assert "§ 187 Abs. 2 BGB" in ergebnis.erlaeuterung


def test_vorfrist_sieben_tage() -> None:
    # Zustellung Mi 05.03.2025 + 1 Monat → Sa 05.04.2025 → Mo 07.04.2025; Vorfrist 7 Tage → Mo 31.03.2025.
    ergebnis = berechne_preset("berufung", date(2025, 3, 5), "NW")
    assert ergebnis.fristablauf == date(2025, 4, 7)
    assert ergebnis.vorfrist == date(2025, 3, 31)


def test_vorfrist_auf_karfreitag_wird_vorverlegt() -> None:
    # Di 05.03.2024 + 1 Monat → Fr 05.04.2024; 7 Tage vorher Fr 29.03.2024 Karfreitag → Do 28.03.2024.
    ergebnis = berechne_preset("berufung", date(2024, 3, 5), "NW")
    assert ergebnis.fristablauf == date(2024, 4, 5)
    assert ergebnis.vorfrist == date(2024, 3, 28)


def test_vorfrist_am_wochenende_wird_vorverlegt() -> None:
    # Mo 03.03.2025 + 2 Wochen → Mo 17.03.2025; 1 Tag vorher So 16.03., Sa 15.03. → Fr 14.03.2025.
    assert frist(date(2025, 3, 3), 2, Einheit.WOCHEN, vorfrist_tage=1).vorfrist == date(2025, 3, 14)


def test_vorfrist_in_arbeitstagen() -> None:
    # Fristablauf Di 02.04.2024 (NW); 3 Arbeitstage zurück: Mo 01.04. Ostermontag, So, Sa, Fr 29.03. Karfreitag
    # zählen nicht; Do 28.03. (1), Mi 27.03. (2), Di 26.03. (3) → Di 26.03.2024.
    ergebnis = berechne_preset("berufung", date(2024, 2, 29), "NW", vorfrist_tage=3, vorfrist_arbeitstage=True)
    assert ergebnis.vorfrist == date(2024, 3, 26)


def test_vorfrist_entfaellt() -> None:
    assert frist(date(2025, 3, 3), 2, Einheit.WOCHEN, vorfrist_tage=None).vorfrist is None
    assert frist(date(2025, 3, 3), 2, Einheit.WOCHEN, vorfrist_tage=0).vorfrist is None
    # Mo 03.03.2025 + 3 Tage → Do 06.03.2025; 7 Tage vorher läge vor dem Ereignis.
    kurz = frist(date(2025, 3, 3), 3, Einheit.TAGE)
    assert kurz.vorfrist is None
    assert "Vorfrist (7 Tage) entfällt" in kurz.erlaeuterung


@pytest.mark.parametrize(
    ("preset", "notfrist"),
    [
        ("berufung", True),
        ("berufungsbegruendung", False),
        ("revision", True),
        ("revisionsbegruendung", False),
        ("einspruch_versaeumnisurteil", True),
        ("einspruch_vollstreckungsbescheid", True),
        ("widerspruch_mahnbescheid", False),
        ("kuendigungsschutzklage", False),
        ("sofortige_beschwerde", True),
        ("klageerwiderung", False),
        ("stellungnahme", False),
    ],
)
def test_preset_notfrist(preset: str, notfrist: bool) -> None:
    ergebnis = berechne_preset(preset, date(2025, 3, 4), "NW")
    assert ergebnis.notfrist is notfrist
    assert fristen.PRESETS[preset].rechtsgrundlage in ergebnis.rechtsgrundlage
    assert ("Notfrist: nicht verlängerbar" in ergebnis.erlaeuterung) is notfrist


def test_erlaeuterung_ohne_verschiebung() -> None:
    ergebnis = frist(date(2025, 3, 4), 2, Einheit.WOCHEN)
    assert not ergebnis.verschoben
    assert ergebnis.verschiebungsgrund is None
    assert "§ 187 Abs. 1 BGB" in ergebnis.erlaeuterung
    assert "keine Verschiebung" in ergebnis.erlaeuterung
    assert "Fristablauf: Dienstag, 18.03.2025, 24:00 Uhr." in ergebnis.erlaeuterung


def test_eingaben_werden_normalisiert() -> None:
    ergebnis = berechne_frist(ereignis_datum=date(2024, 5, 16), dauer=2, einheit="Wochen", bundesland=" nw ")
    assert ergebnis.bundesland == "NW"
    assert ergebnis.einheit is Einheit.WOCHEN
    assert ergebnis.fristablauf == date(2024, 5, 31)


@pytest.mark.parametrize(
    ("kwargs", "meldung"),
    [
        ({"dauer": 0}, "größer als 0"),
        ({"dauer": -3}, "größer als 0"),
        ({"dauer": True}, "ganze Zahl"),
        ({"einheit": "quartale"}, "Unbekannte Einheit"),
        ({"bundesland": "XX"}, "Unbekanntes Bundesland „XX“. Zulässig sind die Kürzel: BB, BE, BW"),
        ({"bundesland": "Augsburg"}, "Unbekanntes Bundesland"),
        ({"fristbeginn": "zustellung"}, "Unbekannter Fristbeginn"),
        ({"vorfrist_tage": -1}, "Vorfrist"),
        ({"ereignis_datum": datetime(2025, 3, 4, 12, 0)}, "ohne Uhrzeit"),  # noqa: DTZ001
        ({"dauer": 10_000, "einheit": Einheit.JAHRE}, "Jahr 9999"),
    ],
)
def test_ungueltige_eingaben(kwargs: dict[str, object], meldung: str) -> None:
    eingaben: dict[str, object] = {
        "ereignis_datum": date(2025, 3, 4),
        "dauer": 2,
        "einheit": Einheit.WOCHEN,
        "bundesland": "NW",
        **kwargs,
    }
    with pytest.raises(FristError, match=meldung):
        berechne_frist(**eingaben)  # type: ignore[arg-type]


def test_unbekannte_vorlage() -> None:
    with pytest.raises(FristError, match="Unbekannte Fristvorlage „berufungg“. Verfügbar sind: berufung"):
        berechne_preset("berufungg", date(2025, 3, 4), "NW")


def test_frist_error_ist_value_error() -> None:
    assert issubclass(FristError, ValueError)


@given(
    ereignis=st.dates(min_value=date(2024, 1, 1), max_value=date(2027, 10, 31)),
    dauer=st.integers(min_value=1, max_value=30),
    einheit=st.sampled_from(list(Einheit)),
    bundesland=st.sampled_from(sorted(fristen.BUNDESLAENDER)),
    fristbeginn=st.sampled_from(["ereignis", "tagesbeginn"]),
)
def test_fristablauf_ist_immer_ein_werktag(
    ereignis: date, dauer: int, einheit: Einheit, bundesland: str, fristbeginn: fristen.Fristbeginn
) -> None:
    ergebnis = berechne_frist(
        ereignis_datum=ereignis, dauer=dauer, einheit=einheit, bundesland=bundesland, fristbeginn=fristbeginn
    )
    assert fristen.ist_werktag(ergebnis.fristablauf, bundesland)
    # The longest run of non-working days is four (Karfreitag to Ostermontag).
    assert timedelta(0) <= ergebnis.fristablauf - ergebnis.rechnerisches_ende <= timedelta(days=4)
    assert ergebnis.verschoben is (ergebnis.fristablauf != ergebnis.rechnerisches_ende)
    if ergebnis.vorfrist is not None:
        assert ergebnis.vorfrist < ergebnis.fristablauf
        assert fristen.ist_werktag(ergebnis.vorfrist, bundesland)
