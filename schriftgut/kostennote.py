"""Kostennote (§ 10 RVG) and Vorschussrechnung (§ 9 RVG) from an RVG calculation: the draft
payload (amounts exactly as the calculator computed them) and the values the template prints."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from rechner.rvg import Calculation, Position
from rechner.tabellen import format_euro, format_satz, format_zahl

if TYPE_CHECKING:
    from drafts.schemas import KostennotePayload

ART_KOSTENNOTE = "KOSTENNOTE"
ART_VORSCHUSS = "VORSCHUSS"
TITEL = {ART_KOSTENNOTE: "Kostennote", ART_VORSCHUSS: "Vorschussrechnung"}
RECHTSGRUNDLAGE = {
    ART_KOSTENNOTE: "Berechnung nach § 10 RVG",
    ART_VORSCHUSS: "Vorschuss nach § 9 RVG; wird mit der Schlussrechnung abgerechnet",
}


def _position(position: Position) -> dict[str, Any]:
    return {
        "vv": position.vv,
        "bezeichnung": position.label,
        "satz": str(position.rate) if position.rate is not None else None,
        "wert": str(position.value) if position.value is not None else None,
        "betrag": str(position.amount),
    }


def kostennote_payload(
    *,
    berechnung: Calculation,
    art: str,
    gegenstandswert: Decimal,
    leistungszeitraum_von: datetime.date,
    leistungszeitraum_bis: datetime.date,
    vorschuesse: Decimal = Decimal("0.00"),
    kurzrubrum: str = "",
) -> dict[str, Any]:
    """The KOSTENNOTE draft payload; the amounts are the calculator's, unchanged."""
    titel = TITEL[art] + (f" {kurzrubrum}" if kurzrubrum else "")
    return {
        "art": art,
        "titel": titel[:200],
        "gegenstandswert": str(gegenstandswert),
        "auftragsdatum": berechnung.auftragsdatum.isoformat(),
        "tabelle": berechnung.table,
        "positionen": [_position(p) for p in berechnung.positions],
        "anrechnungen": [_position(p) for p in berechnung.anrechnungen],
        "auslagen": [_position(p) for p in berechnung.auslagen],
        "netto": str(berechnung.net),
        "ust_satz": str(berechnung.ust_rate),
        "ust": str(berechnung.ust),
        "brutto": str(berechnung.gross),
        "vorschuesse": str(vorschuesse),
        "leistungszeitraum_von": leistungszeitraum_von.isoformat(),
        "leistungszeitraum_bis": leistungszeitraum_bis.isoformat(),
        "hinweise": list(berechnung.hinweise),
    }


def rechnung_kontext(payload: KostennotePayload, *, nummer: str) -> dict[str, Any]:
    """What the template's `rechnung` placeholder holds: German-formatted strings."""

    def zeile(p: Any) -> dict[str, str]:
        return {
            "vv": p.vv,
            "bezeichnung": p.bezeichnung,
            "satz": format_satz(p.satz) if p.satz is not None else "",
            "wert": format_euro(p.wert) if p.wert is not None else "",
            "betrag": format_euro(p.betrag),
        }

    summen = [{"bezeichnung": "Summe netto", "betrag": format_euro(payload.netto)}]
    summen.append(
        {
            "bezeichnung": f"Umsatzsteuer {format_zahl(payload.ust_satz * 100)} % (Nr. 7008 VV RVG)",
            "betrag": format_euro(payload.ust),
        }
    )
    summen.append({"bezeichnung": "Gesamtbetrag", "betrag": format_euro(payload.brutto)})
    if payload.vorschuesse:
        summen.append({"bezeichnung": "abzüglich gezahlter Vorschüsse", "betrag": format_euro(-payload.vorschuesse)})
    return {
        "titel": f"{TITEL[payload.art]} ({RECHTSGRUNDLAGE[payload.art]})",
        "nummer": nummer,
        "leistungszeitraum": f"{payload.leistungszeitraum_von:%d.%m.%Y} bis {payload.leistungszeitraum_bis:%d.%m.%Y}",
        "gegenstandswert": format_euro(payload.gegenstandswert),
        "tabelle": payload.tabelle,
        "positionen": [zeile(p) for p in [*payload.positionen, *payload.anrechnungen, *payload.auslagen]],
        "summen": summen,
        "zahlbetrag": format_euro(payload.brutto - payload.vorschuesse),
    }
