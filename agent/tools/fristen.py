"""The Fristenrechner's parameters as the tools expose them (berechne_frist, create_draft_frist)."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, model_validator

from akten.fristen_rules import FristOrt, KalenderRegelFehler, frist_berechnen, frist_ort_bestimmen
from akten.models import Akte
from rechner import fristen
from rechner.tabellen import wochentag

from .common import Params, ToolError, iso

ERR_ART = "Gib entweder 'vorlage' oder 'dauer' und 'einheit' an, nicht beides und nicht nichts"

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
        Bundesland | None,
        Field(
            description="State of the court whose holidays count. Omit it to use the court entered in the Akte "
            "(or, if the Akte names no court, the Kanzlei's seat); if neither is known you get an error asking for it."
        ),
    ] = None
    ort: Annotated[
        str | None,
        Field(
            max_length=100,
            description="Municipality of the court (e.g. 'München'); decides holidays kept only in parts of a state.",
        ),
    ] = None
    fristbeginn: Annotated[
        Literal["ereignis", "tagesbeginn"],
        Field(description="'ereignis': event day not counted (§ 187 Abs. 1 BGB, e.g. Zustellung); 'tagesbeginn': counted."),
    ] = "ereignis"
    vorfrist_tage: Annotated[
        int | None, Field(ge=0, le=90, description="Days before the end for the Vorfrist; 0 or null: none.")
    ] = 7
    vorfrist_arbeitstage: Annotated[bool, Field(description="Count the Vorfrist in working days.")] = False
    verkuendung: Annotated[
        datetime.date | None,
        Field(
            description="Presets with a limit after the pronouncement ("
            + ", ".join(sorted(key for key, preset in fristen.PRESETS.items() if preset.grenze_monate))
            + "; FamFG: day of Erlass): day the decision was pronounced; adds that limit (the earlier end applies)."
        ),
    ] = None
    notfrist: Annotated[bool, Field(description="Custom periods only: mark as Notfrist.")] = False

    @model_validator(mode="after")
    def _one_kind(self) -> FristBerechnung:
        custom = self.dauer is not None or self.einheit is not None
        if (self.vorlage is None) == (not custom) or (custom and (self.dauer is None or self.einheit is None)):
            raise ValueError(ERR_ART)
        return self


def frist_ort_fuer(berechnung: FristBerechnung, akte: Akte | None) -> FristOrt:
    """The place whose holidays count (see akten.fristen_rules.frist_ort_bestimmen) as a ToolError on failure."""
    try:
        return frist_ort_bestimmen(akte=akte, bundesland=berechnung.bundesland, ort=berechnung.ort, vorlage=berechnung.vorlage)
    except KalenderRegelFehler as exc:
        raise ToolError(exc.message) from None


def fristenrechner(
    ereignis_datum: datetime.date, berechnung: FristBerechnung, ort: FristOrt, akte: Akte | None
) -> fristen.FristErgebnis:
    """akten.fristen_rules.frist_berechnen for the parameters at ``ort``; FristError becomes a
    ToolError with its German text."""
    if berechnung.vorlage is None and (berechnung.dauer is None or berechnung.einheit is None):
        raise ToolError(f"{ERR_ART}.")
    try:
        return frist_berechnen(
            ort=ort,
            akte=akte,
            ereignis_datum=ereignis_datum,
            vorlage=berechnung.vorlage,
            dauer=berechnung.dauer,
            einheit=berechnung.einheit,
            fristbeginn=berechnung.fristbeginn,
            vorfrist_tage=berechnung.vorfrist_tage,
            vorfrist_arbeitstage=berechnung.vorfrist_arbeitstage,
            verkuendung=berechnung.verkuendung,
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
        "ort": ergebnis.ort,
        "feiertage_nach": ergebnis.ortsangabe,
        "warnungen": list(ergebnis.warnungen),
        "fristablauf_bei_teilfeiertag": iso(ergebnis.fristablauf_bei_teilfeiertag),
        "erlaeuterung": ergebnis.erlaeuterung,
    }
