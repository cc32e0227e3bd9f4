"""FamGKG court fees in family matters: Verfahrenswert rules and typical KV numbers.

Legal basis (FamGKG as in force since the KostBRÄG 2025)
- § 28 FamGKG: the fee table has the amounts of § 34 GKG (Anlage 2), minimum fee 15 EUR;
  § 33 Abs. 2 FamGKG: value at most 30 million EUR.
- § 43 FamGKG (Ehesachen): net income of both spouses in three months, at least 3,000 EUR, at
  most 1 million EUR; § 44 Abs. 2: each Kindschaftssache in the Verbund adds 20 % of that value,
  at most 5,000 EUR each; § 50 Abs. 1: Versorgungsausgleich 10 % of the three-month income per
  Anrecht, at least 1,000 EUR; § 45 Abs. 1: Kindschaftssachen (Sorge, Umgang, Herausgabe) 5,000 EUR.
  Both fixed values were 4,000 EUR in the version of the KostRÄG 2021, which stays in force for
  proceedings pending before 1 June 2025 (§ 63 FamGKG): the date the matter became pending decides.
  § 51 Abs. 1, 2: Unterhalt twelve monthly amounts after filing plus the arrears due at filing.
- KV FamGKG: Nr. 1110 (Ehesache, Verfahren im Allgemeinen, 2.0), 1111 (ermäßigt, 0.5), 1220
  (selbständige Familienstreitsache, e.g. Unterhalt, 3.0), 1221 (ermäßigt, 1.0), 1310
  (Kindschaftssache, 0.5). The KV is not part of the statute corpus; the value rules are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Literal

from rechner import gkg
from rechner.tabellen import als_decimal, format_euro, runde_cent

Art = Literal["scheidung", "kindschaft", "unterhalt"]

EHESACHE_MIN = Decimal(3_000)
EHESACHE_MAX = Decimal(1_000_000)
# § 45 Abs. 1 and the cap of § 44 Abs. 2 FamGKG: (since, value), newest first
KINDSCHAFT_WERTE = ((date(2025, 6, 1), Decimal(5_000)), (date(2021, 1, 1), Decimal(4_000)))


def kindschaftswert(on: date) -> Decimal:
    """The fixed value of a Kindschaftssache (and the cap per Kindschaftsfolgesache) for a matter
    pending since ``on``; GkgError before 2021 (the tables the calculator knows)."""
    for seit, wert in KINDSCHAFT_WERTE:
        if on >= seit:
            return wert
    gkg.version_for(on)  # raises the German error for dates before the known tables
    raise gkg.GkgError(f"Kein Kindschaftswert für {on:%d.%m.%Y} hinterlegt.")


VA_MIN = Decimal(1_000)

FEHLER_ART = "Unbekannte Familiensache „{wert}“: zulässig sind scheidung, kindschaft und unterhalt."
FEHLER_NEGATIV = "{feld} darf nicht negativ sein (angegeben: {wert})."
FEHLER_ANZAHL = "{feld}: bitte eine ganze Zahl ab 0 (angegeben: {wert})."
# A missing amount is asked for, never taken as 0: the value would be the minimum (Scheidung) or
# 0 EUR (Unterhalt), and the court fee too low.
FEHLER_NETTO_FEHLT = (
    "Scheidung: Das monatliche Nettoeinkommen beider Ehegatten fehlt (§ 43 Abs. 2 FamGKG). "
    "Bitte angeben; ohne Einkommen 0 (dann gilt der Mindestwert von 3.000 €)."
)
FEHLER_UNTERHALT_FEHLT = (
    "Unterhalt: Der monatlich geforderte Betrag fehlt (§ 51 Abs. 1 FamGKG). Bitte angeben, "
    "dazu einen Rückstand bei Einreichung (§ 51 Abs. 2 FamGKG)."
)

KV: dict[str, gkg.KvNummer] = {
    nummer.kv: nummer
    for nummer in (
        gkg.KvNummer("1110", "Ehesache (Scheidung) mit Folgesachen, Verfahren im Allgemeinen", Decimal("2.0")),
        gkg.KvNummer("1111", "Ehesache, ermäßigte Gebühr (z. B. Rücknahme, Verzicht auf Begründung)", Decimal("0.5")),
        gkg.KvNummer("1220", "Selbständige Familienstreitsache (z. B. Unterhalt), Verfahren im Allgemeinen", Decimal("3.0")),
        gkg.KvNummer("1221", "Selbständige Familienstreitsache, ermäßigte Gebühr", Decimal("1.0")),
        gkg.KvNummer("1310", "Kindschaftssache (Sorge, Umgang, Herausgabe), Verfahren im Allgemeinen", Decimal("0.5")),
    )
}
_KV_JE_ART = {"scheidung": "1110", "kindschaft": "1310", "unterhalt": "1220"}


@dataclass(frozen=True)
class FamilienKosten:
    art: str
    verfahrenswert: Decimal
    wertbegruendung: tuple[str, ...]
    kv: str
    label: str
    rate: Decimal
    gebuehr: Decimal


def _betrag(wert: object, feld: str) -> Decimal:
    try:
        zahl = als_decimal(wert, feld=feld)
    except ValueError as fehler:
        raise gkg.GkgError(str(fehler)) from None
    if zahl < 0:
        raise gkg.GkgError(FEHLER_NEGATIV.format(feld=feld, wert=format_euro(zahl)))
    return zahl


def _anzahl(wert: int, feld: str) -> int:
    if isinstance(wert, bool) or not isinstance(wert, int) or wert < 0:
        raise gkg.GkgError(FEHLER_ANZAHL.format(feld=feld, wert=wert))
    return wert


def verfahrenswert(
    art: str,
    *,
    on: date,
    netto_monat: object = None,
    anrechte: int = 0,
    kindschaftsfolgesachen: int = 0,
    unterhalt_monat: object = None,
    rueckstand: object = None,
) -> tuple[Decimal, tuple[str, ...]]:
    """The Verfahrenswert and its reasoning for a matter pending since ``on``. ``netto_monat`` is the
    monthly net income of both spouses. The amount a matter's value rests on (``netto_monat`` for a
    Scheidung, ``unterhalt_monat`` or ``rueckstand`` for Unterhalt) must be given; None raises."""
    kindschaft = kindschaftswert(on)
    fassung = "" if on >= KINDSCHAFT_WERTE[0][0] else " a. F. (anhängig vor dem 01.06.2025, § 63 FamGKG)"
    if art == "kindschaft":
        return kindschaft, (
            f"Kindschaftssache: {format_euro(kindschaft)} (§ 45 Abs. 1 FamGKG{fassung}), auch für mehrere Kinder (§ 45 Abs. 2).",
        )
    if art == "unterhalt":
        if unterhalt_monat is None and rueckstand is None:
            raise gkg.GkgError(FEHLER_UNTERHALT_FEHLT)
        monat = _betrag(0 if unterhalt_monat is None else unterhalt_monat, "Monatlicher Unterhalt")
        alt = _betrag(0 if rueckstand is None else rueckstand, "Rückstand")
        if not monat and not alt:
            raise gkg.GkgError(FEHLER_UNTERHALT_FEHLT)
        wert = runde_cent(12 * monat + alt)
        return wert, (
            f"Unterhalt: 12 × {format_euro(monat)} = {format_euro(12 * monat)} (§ 51 Abs. 1 FamGKG) "
            f"zuzüglich Rückstand bei Einreichung {format_euro(alt)} (§ 51 Abs. 2 FamGKG) = {format_euro(wert)}.",
            "Wird Unterhalt für weniger als zwölf Monate gefordert, ist höchstens der Gesamtbetrag der geforderten "
            "Leistung maßgeblich (§ 51 Abs. 1 Satz 1 FamGKG).",
        )
    if art != "scheidung":
        raise gkg.GkgError(FEHLER_ART.format(wert=art))
    if netto_monat is None:
        raise gkg.GkgError(FEHLER_NETTO_FEHLT)
    netto = _betrag(netto_monat, "Nettoeinkommen")
    drei_monate = 3 * netto
    ehesache = min(max(drei_monate, EHESACHE_MIN), EHESACHE_MAX)
    zeilen = [
        f"Ehesache: dreifaches Monatsnetto beider Ehegatten {format_euro(drei_monate)}, mindestens 3.000 €, höchstens "
        f"1 Mio. € (§ 43 FamGKG) = {format_euro(ehesache)}."
    ]
    wert = ehesache
    anzahl_va = _anzahl(anrechte, "Anrechte")
    if anzahl_va:
        va = max(runde_cent(drei_monate * Decimal("0.1") * anzahl_va), VA_MIN)
        zeilen.append(
            f"Versorgungsausgleich: {anzahl_va} Anrecht(e) × 10 % von {format_euro(drei_monate)}, mindestens 1.000 € "
            f"(§ 50 Abs. 1 FamGKG) = {format_euro(va)}."
        )
        wert += va
    kinder = _anzahl(kindschaftsfolgesachen, "Kindschaftsfolgesachen")
    if kinder:
        je = min(runde_cent(ehesache * Decimal("0.2")), kindschaft)
        zeilen.append(
            f"Kindschaftsfolgesachen im Verbund: {kinder} × 20 % der Ehesache, höchstens {format_euro(kindschaft)} je "
            f"Sache (§ 44 Abs. 2 FamGKG{fassung}) = {format_euro(je * kinder)}."
        )
        wert += je * kinder
    zeilen.append(f"Verfahrenswert gesamt (§ 44 Abs. 1 FamGKG: ein Verfahren): {format_euro(wert)}.")
    zeilen.append(
        "Der Wert der Ehesache ist hier allein aus dem Einkommen berechnet; das Gericht bestimmt ihn nach Ermessen unter "
        "Berücksichtigung aller Umstände, auch des Vermögens der Ehegatten (§ 43 Abs. 1 FamGKG), und kann höher liegen."
    )
    return wert, tuple(zeilen)


def familienkosten(art: str, *, on: date, kv: str | None = None, **werte: object) -> FamilienKosten:
    """Verfahrenswert and court fee of a family matter; ``kv`` defaults to the usual number of ``art``.

    Raises GkgError (German) for invalid input or dates before 2021.
    """
    if art not in _KV_JE_ART:
        raise gkg.GkgError(FEHLER_ART.format(wert=art))
    nummer = KV.get(kv or _KV_JE_ART[art])
    if nummer is None:
        raise gkg.GkgError(gkg.FEHLER_UNBEKANNT.format(kv=kv, verfuegbar=", ".join(KV)).replace("KV GKG", "KV FamGKG"))
    wert, begruendung = verfahrenswert(art, on=on, **werte)  # type: ignore[arg-type]
    tabelle = gkg.version_for(on).tabelle
    return FamilienKosten(
        art=art,
        verfahrenswert=wert,
        wertbegruendung=begruendung,
        kv=nummer.kv,
        label=nummer.label,
        rate=nummer.rate,
        gebuehr=tabelle.gebuehr(max(wert, Decimal("0.01")), nummer.rate),
    )
