"""berechne_frist: the Fristenrechner (§§ 187–193 BGB, § 222 ZPO)."""

from __future__ import annotations

import datetime
from typing import Annotated

from pydantic import Field

from ..base import Tool, ToolContext, ToolResult
from ..common import AkteRef, akte_optional, akte_source, ok
from ..fristen import FristBerechnung, ergebnis_data, frist_ort_fuer, fristenrechner


class BerechneFristParams(FristBerechnung):
    ereignis_datum: Annotated[
        datetime.date,
        Field(
            description="Day of the triggering event (YYYY-MM-DD), e.g. the day the Zustellung counts as effected: "
            "the date of the eEB/EB for service to a lawyer (§ 173 ZPO); for Ersatzzustellung the day of Einlegung or "
            "of the Mitteilung (§ 180 Satz 2, § 181 Abs. 1 Satz 4 ZPO), not the day the letter was found; for "
            "a court's Aufgabe zur Post ordered under § 184 Abs. 1 ZPO two weeks after posting (§ 184 Abs. 2 ZPO); "
            "an authority's Bescheid sent by ordinary post (not formally served) the fourth day after posting "
            "(§ 41 Abs. 2 VwVfG, § 37 Abs. 2 SGB X, § 122 Abs. 2 Nr. 1 AO), likewise a court's order in FamFG "
            "proceedings made known by ordinary post (§ 15 Abs. 2 Satz 2 FamFG; a decision open to appeal is formally "
            "served on whoever it goes against, § 41 Abs. 1 Satz 2 FamFG: then the day of service). "
            "Ask the user how it was served if unclear."
        ),
    ]
    akte: AkteRef = None


def execute(ctx: ToolContext, params: BerechneFristParams) -> ToolResult:
    akte = akte_optional(ctx, params.akte)
    ergebnis = fristenrechner(params.ereignis_datum, params, frist_ort_fuer(params, akte), akte)
    sources = [{"rechner": "Fristenrechner", "rechtsgrundlage": ergebnis.rechtsgrundlage, "feiertage_nach": ergebnis.ortsangabe}]
    if akte is not None:
        sources.append(akte_source(akte))
    return ok(ergebnis_data(ergebnis), sources=sources, count=1, akte=akte)


TOOL = Tool(
    name="berechne_frist",
    description=(
        "Compute a deadline (Fristablauf) and its Vorfrist under §§ 187-193 BGB and § 222 ZPO with the public holidays "
        "at the court's place, either from a statutory preset (vorlage, e.g. 'berufung') or from dauer + einheit.\n"
        "The place: the court entered in the Akte (the conversation's Akte or 'akte'); if the Akte names no court, "
        "the Kanzlei's seat (then the earliest end valid in every Land, with a warning); or give 'bundesland' and 'ort' "
        "of the court. Appeals are kept at the appeal court (berufung, berufungsbegruendung and the like: give its "
        "'bundesland'/'ort', else the earliest end with a warning; revision and the like: the BGH in Karlsruhe). "
        "Without any place you get an error: then ask the user for the court.\n"
        "Use it whenever a deadline date is needed - never compute deadlines yourself. To enter the deadline into "
        "an Akte, propose it with create_draft_frist (which can run the same calculation).\n"
        "Returns {fristablauf, fristablauf_wochentag, vorfrist, verschoben, verschiebungsgrund, notfrist, "
        "rechtsgrundlage, feiertage_nach (Land and Ort used), warnungen (e.g. a holiday kept only in parts of the "
        "Land, a place not certainly the court's, an unchecked limit after the Verkündung: tell the user), "
        "fristablauf_bei_teilfeiertag (the later end if that holiday or place applies), erlaeuterung (step-by-step "
        "German explanation)}.\n"
        "Errors: neither or both of vorlage and dauer/einheit; no known place; a place that contradicts the Akte's "
        "court; deadline beyond year 9999.\n"
        'Example: {"ereignis_datum": "2025-03-14", "vorlage": "berufung", "bundesland": "BY", "ort": "München"}'
    ),
    params=BerechneFristParams,
    execute=execute,
)
