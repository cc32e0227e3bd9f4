"""The Fristenrechner's parameters as the tools expose them (berechne_frist, create_draft_frist)."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, model_validator

from agent.tools.common import Params, ToolError, iso
from rechner import fristen
from rechner.tabellen import wochentag

ERR_ART = "Gib entweder 'vorlage' oder 'dauer' und 'einheit' an (nicht beides, nicht nichts)."

if TYPE_CHECKING:
    Vorlage = str
    Bundesland = str
else:
    Vorlage = Literal[tuple(fristen.PRESETS)]
    Bundesland = Literal[tuple(fristen.BUNDESLAENDER)]

VORLAGEN_TEXT = "; ".join(f"{p.key} = {p.label} ({p.rechtsgrundlage})" for p in fristen.PRESETS.values())


class FristBerechnung(Params):
    vorlage: Annotated[
        Vorlage | None, Field(description=f"A statutory period preset instead of dauer/einheit: {VORLAGEN_TEXT}.")
    ] = None
    dauer: Annotated[int | None, Field(ge=1, le=1200, description="Length of a custom period.")] = None
    einheit: Literal["tage", "wochen", "monate", "jahre"] | None = None
    bundesland: Annotated[
        Bundesland, Field(description="State whose public holidays count (for court deadlines: the court's seat).")
    ] = "NW"
    fristbeginn: Annotated[
        Literal["ereignis", "tagesbeginn"],
        Field(description="'ereignis': event day not counted (§ 187 Abs. 1 BGB, e.g. Zustellung); 'tagesbeginn': counted."),
    ] = "ereignis"
    vorfrist_tage: Annotated[
        int | None, Field(ge=0, le=90, description="Days before the end for the Vorfrist; 0 or null: none.")
    ] = 7
    vorfrist_arbeitstage: Annotated[bool, Field(description="Count the Vorfrist in working days.")] = False
    notfrist: Annotated[bool, Field(description="Custom periods only: mark as Notfrist.")] = False

    @model_validator(mode="after")
    def _one_kind(self) -> FristBerechnung:
        custom = self.dauer is not None or self.einheit is not None
        if (self.vorlage is None) == (not custom) or (custom and (self.dauer is None or self.einheit is None)):
            raise ValueError(ERR_ART)
        return self


def fristenrechner(ereignis_datum: datetime.date, berechnung: FristBerechnung) -> fristen.FristErgebnis:
    """Run rechner.fristen for the parameters; FristError becomes a ToolError with its German text."""
    try:
        if berechnung.vorlage is not None:
            return fristen.berechne_preset(
                berechnung.vorlage,
                ereignis_datum,
                berechnung.bundesland,
                vorfrist_tage=berechnung.vorfrist_tage,
                vorfrist_arbeitstage=berechnung.vorfrist_arbeitstage,
            )
        if berechnung.dauer is None or berechnung.einheit is None:
            raise ToolError(ERR_ART)
        return fristen.berechne_frist(
            ereignis_datum=ereignis_datum,
            dauer=berechnung.dauer,
            einheit=berechnung.einheit,
            bundesland=berechnung.bundesland,
            fristbeginn=berechnung.fristbeginn,
            vorfrist_tage=berechnung.vorfrist_tage,
            vorfrist_arbeitstage=berechnung.vorfrist_arbeitstage,
            notfrist=berechnung.notfrist,
        )
    except fristen.FristError as exc:
        raise ToolError(str(exc)) from None


def ergebnis_data(ergebnis: fristen.FristErgebnis) -> dict[str, Any]:
    return {
        "bezeichnung": ergebnis.bezeichnung,
        "ereignis_datum": iso(ergebnis.ereignis_datum),
        "fristbeginn": iso(ergebnis.fristbeginn),
        "rechnerisches_ende": iso(ergebnis.rechnerisches_ende),
        "fristablauf": iso(ergebnis.fristablauf),
        "fristablauf_wochentag": wochentag(ergebnis.fristablauf),
        "verschoben": ergebnis.verschoben,
        "verschiebungsgrund": ergebnis.verschiebungsgrund,
        "vorfrist": iso(ergebnis.vorfrist),
        "notfrist": ergebnis.notfrist,
        "rechtsgrundlage": ergebnis.rechtsgrundlage,
        "bundesland": fristen.BUNDESLAENDER[ergebnis.bundesland],
        "erlaeuterung": ergebnis.erlaeuterung,
    }
