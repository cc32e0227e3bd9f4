"""Characterisation of ``berechne_frist``, ``berechne_preset`` and ``rvg.calculate`` over many inputs.

The expected digests in ``charakterisierung.json`` were recorded from the code before these
functions were split into named parts (issue 11); every result, every explanation text and every
error message must stay the same. Each case is drawn from a seeded generator, so the inputs are the
same on every run; a mismatch names the inputs of the case. Regenerate the file only for an
intended change of results: ``python -m tests.rechner.test_charakterisierung``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from rechner import fristen, rvg

ERWARTET = Path(__file__).with_name("charakterisierung.json")
FALLZAHL_FRISTEN = 2500
FALLZAHL_PRESETS = 1200
FALLZAHL_RVG = 4000

Fall = tuple[dict[str, Any], Callable[[], object]]


def _digest(ergebnis: object) -> str:
    if dataclasses.is_dataclass(ergebnis) and not isinstance(ergebnis, type):
        ergebnis = dataclasses.asdict(ergebnis)
    text = json.dumps(ergebnis, default=repr, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _ausfuehren(aufruf: Callable[[], object]) -> str:
    try:
        return _digest(aufruf())
    except (fristen.FristError, rvg.RvgError) as fehler:
        return _digest(f"{type(fehler).__name__}: {fehler}")


def _datum(zufall: random.Random) -> date:
    """Dates around month ends, leap days and holidays are over-represented on purpose."""
    art = zufall.random()
    if art < 0.3:
        jahr, monat = zufall.randint(2020, 2030), zufall.randint(1, 12)
        return date(jahr, monat, 1) - timedelta(days=zufall.randint(0, 3))
    if art < 0.4:
        return zufall.choice([date(2024, 2, 29), date(2028, 2, 29), date(2025, 12, 24), date(2026, 3, 31)])
    if art < 0.55:  # days before partial holidays (Mariä Himmelfahrt, Friedensfest, Fronleichnam)
        feiertag = zufall.choice([date(2025, 8, 15), date(2026, 8, 8), date(2025, 6, 19), date(2027, 5, 27)])
        return feiertag - timedelta(days=zufall.choice([1, 7, 14, 31, 30, 61]))
    return date(2020, 1, 1) + timedelta(days=zufall.randint(0, 11 * 365))


ORTE = [None, "", "  ", "München", "Augsburg", "Leipzig", "Erfurt", "Nürnberg", " Berlin ", "Heiligenstadt"]
LAENDER = [*fristen.BUNDESLAENDER, "by", " nw ", None, "", "XX"]


def frist_faelle() -> Iterator[Fall]:
    zufall = random.Random(1101)
    for _ in range(FALLZAHL_FRISTEN):
        eingabe: dict[str, Any] = {
            "ereignis_datum": _datum(zufall),
            "dauer": zufall.choice([1, 1, 2, 2, 3, 4, 5, 6, 10, 12, 14, 30]),
            "einheit": zufall.choice(["tage", "wochen", "monate", "jahre", "Monate", fristen.Einheit.WOCHEN]),
            "bundesland": zufall.choice(LAENDER) if zufall.random() < 0.1 else zufall.choice(list(fristen.BUNDESLAENDER)),
            "ort": zufall.choice(ORTE),
            "ortsquelle": zufall.choice([None, "Gericht der Akte", "Kanzleisitz"]),
            "fristbeginn": zufall.choice(["ereignis", "ereignis", "tagesbeginn"]),
            "vorfrist_tage": zufall.choice([None, 0, 1, 3, 7, 7, 14, 30, 60]),
            "vorfrist_arbeitstage": zufall.random() < 0.3,
            "notfrist": zufall.random() < 0.3,
            "rechtsgrundlage": zufall.choice([None, "", "§ 517 ZPO"]),
            "bezeichnung": zufall.choice([None, "Berufungsfrist"]),
        }
        if zufall.random() < 0.1:  # ends on a holiday kept only in parts of the Land
            eingabe["einheit"], eingabe["fristbeginn"] = "tage", "ereignis"
            eingabe["bundesland"] = zufall.choice(["BY", "SN", "TH"])
            feiertag = zufall.choice([date(2025, 8, 15), date(2026, 8, 8), date(2025, 6, 19), date(2026, 6, 4)])
            eingabe["ereignis_datum"] = feiertag - timedelta(days=eingabe["dauer"])
        if zufall.random() < 0.03:
            eingabe[zufall.choice(["dauer", "einheit", "fristbeginn", "vorfrist_tage", "ereignis_datum"])] = zufall.choice(
                [0, -1, True, "tage ", "quartale", "morgen", 2.5]
            )
        if zufall.random() < 0.01:
            eingabe["ereignis_datum"] = date(9999, 11, 1)
        yield eingabe, lambda eingabe=eingabe: fristen.berechne_frist(**eingabe)


# Presets added after the recording; the generator leaves them out so that it draws the same cases.
# Their own tests: tests/rechner/test_fristen_vorlagen.py, tests/akten/test_fristen_rules.py.
SPAETER_HINZUGEFUEGT = frozenset(
    {
        "widerspruch_vwgo",
        "jahresfrist_vwgo",
        "widerspruch_sgg",
        "jahresfrist_sgg",
        "beschwerdebegruendung_famfg",
        "sofortige_beschwerde_stpo",
        "wiedereinsetzung_stpo",
        "einspruch_ao",
        "klage_fgo",
    }
)


def preset_faelle() -> Iterator[Fall]:
    zufall = random.Random(1102)
    schluessel = [key for key in fristen.PRESETS if key not in SPAETER_HINZUGEFUEGT]
    for _ in range(FALLZAHL_PRESETS):
        preset = zufall.choice(schluessel)
        ereignis = _datum(zufall) if zufall.random() < 0.9 else None
        verkuendung = None
        if fristen.PRESETS[preset].grenze_monate and zufall.random() < 0.6 or zufall.random() < 0.02:
            verkuendung = (ereignis or _datum(zufall)) - timedelta(days=zufall.randint(0, 220))
        eingabe: dict[str, Any] = {
            "preset_key": preset if zufall.random() < 0.98 else "unbekannt",
            "ereignis_datum": ereignis,
            "bundesland": zufall.choice(list(fristen.BUNDESLAENDER)) if zufall.random() < 0.95 else None,
            "ort": zufall.choice(ORTE),
            "ortsquelle": zufall.choice([None, "Gericht der Akte"]),
            "vorfrist_tage": zufall.choice([None, 0, 3, 7, 14]),
            "vorfrist_arbeitstage": zufall.random() < 0.3,
            "verkuendung": verkuendung,
        }
        yield eingabe, lambda eingabe=eingabe: fristen.berechne_preset(**eingabe)


def _position(zufall: random.Random) -> rvg.PositionRequest:
    haeufig = ["2300", "2300", "3100", "3100", "3104", "3305", "3200", "1000", "1003"]
    vv = zufall.choice([*rvg.VV, "1008", "9999"]) if zufall.random() < 0.3 else zufall.choice(haeufig)
    nummer = rvg.VV.get(vv)
    rate: Decimal | None = None
    if nummer is not None and zufall.random() < 0.3:
        schritte = int((nummer.satz_bis - nummer.satz_von) / Decimal("0.1"))
        rate = nummer.satz_von + Decimal("0.1") * zufall.randint(-1, schritte + 1)
    return rvg.PositionRequest(
        vv=vv,
        rate=rate,
        value=zufall.choice([None, None, None, Decimal(zufall.randint(1, 90_000)), Decimal("40.00")]),
        umfangreich_oder_schwierig=zufall.random() < 0.3,
        angelegenheit=zufall.choice(list(rvg.Angelegenheit)) if zufall.random() < 0.1 else None,
        inkasso_unbestritten=vv == "2300" and zufall.random() < 0.2,
    )


def rvg_faelle() -> Iterator[Fall]:
    zufall = random.Random(1103)
    for _ in range(FALLZAHL_RVG):
        anrechnung: bool | rvg.AnrechnungRequest = zufall.random() < 0.7
        if zufall.random() < 0.2:
            anrechnung = rvg.AnrechnungRequest(
                rate=zufall.choice([Decimal("0.5"), Decimal("1.3"), Decimal("1.8"), Decimal("2.5"), Decimal(0)]),
                value=zufall.choice([None, Decimal(zufall.randint(1, 50_000))]),
                auftragsdatum=zufall.choice([None, date(2024, 3, 1), date(2025, 7, 1), date(2019, 1, 1)]),
            )
        wert = zufall.choice(
            [Decimal(zufall.randint(1, 60_000)), Decimal(zufall.randint(1, 600_000)), Decimal("35.50"), Decimal("31000000")]
        )
        eingabe: dict[str, Any] = {
            "gegenstandswert": wert if zufall.random() < 0.98 else Decimal(0),
            "auftragsdatum": date(2020, 12, 20) + timedelta(days=zufall.randint(0, 6 * 365)),
            "positions": tuple(
                _position(zufall) for _ in range(zufall.choice([1, 1, 2, 2, 2, 3, 3, 4]) if zufall.random() < 0.99 else 0)
            ),
            "auftraggeber": zufall.choice([1, 1, 1, 2, 3, 5, 12]) if zufall.random() < 0.99 else 0,
            "anrechnung": anrechnung,
            "pkh": zufall.random() < 0.2,
            "auslagenpauschale": zufall.random() < 0.8,
            "km": zufall.choice([None, None, Decimal(0), Decimal("123.5")]) if zufall.random() < 0.99 else Decimal(-1),
            "abwesenheit_stunden": tuple(
                zufall.choice([Decimal(3), Decimal(4), Decimal("4.5"), Decimal(8), Decimal(9)])
                if zufall.random() < 0.98
                else Decimal(0)
                for _ in range(zufall.choice([0, 0, 1, 2]))
            ),
            "ust_rate": zufall.choice([rvg.UST_REGELSATZ, rvg.UST_REGELSATZ, Decimal("0.16"), Decimal(0)])
            if zufall.random() < 0.99
            else Decimal(1),
            "weitere_auslagen": rvg.AuslagenRequest(seiten_sw=-1)
            if zufall.random() < 0.01
            else zufall.choice(
                [
                    None,
                    rvg.AuslagenRequest(seiten_sw=zufall.randint(0, 120), seiten_farbe=zufall.randint(0, 60)),
                    rvg.AuslagenRequest(dateien=zufall.randint(0, 6), fahrtkosten=Decimal("48.30"), reiseauslagen=Decimal(12)),
                ]
            ),
        }
        yield eingabe, lambda eingabe=eingabe: rvg.calculate(**eingabe)


GRUPPEN: dict[str, Callable[[], Iterator[Fall]]] = {
    "berechne_frist": frist_faelle,
    "berechne_preset": preset_faelle,
    "rvg.calculate": rvg_faelle,
}


def _aufzeichnen() -> dict[str, list[str]]:
    return {name: [_ausfuehren(aufruf) for _, aufruf in faelle()] for name, faelle in GRUPPEN.items()}


@pytest.mark.parametrize("gruppe", list(GRUPPEN))
def test_ergebnisse_wie_aufgezeichnet(gruppe: str) -> None:
    erwartet = json.loads(ERWARTET.read_text())[gruppe]
    faelle = list(GRUPPEN[gruppe]())
    assert len(faelle) == len(erwartet)
    abweichungen = [eingabe for (eingabe, aufruf), digest in zip(faelle, erwartet, strict=True) if _ausfuehren(aufruf) != digest]
    assert not abweichungen, f"{len(abweichungen)} von {len(faelle)} Fällen weichen ab, z. B.: {abweichungen[:3]}"


def test_faelle_decken_ergebnisse_und_fehler_ab() -> None:
    """The generators reach both valid results and errors, so the comparison is not vacuous."""
    for faelle in GRUPPEN.values():
        arten = {type(_ergebnis_oder_fehler(aufruf)).__name__ for _, aufruf in faelle()}
        assert arten & {"FristErgebnis", "Calculation"}
        assert arten & {"FristError", "RvgError"}


def _ergebnis_oder_fehler(aufruf: Callable[[], object]) -> object:
    try:
        return aufruf()
    except (fristen.FristError, rvg.RvgError) as fehler:
        return fehler


if __name__ == "__main__":
    ERWARTET.write_text(json.dumps(_aufzeichnen(), indent=0) + "\n")
