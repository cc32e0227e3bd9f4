"""berechne_frist: the Fristenrechner (§§ 187–193 BGB, § 222 ZPO)."""

from __future__ import annotations

import datetime
from typing import Annotated

from pydantic import Field

from ..base import Tool, ToolContext, ToolResult
from ..common import ok
from ..fristen import FristBerechnung, ergebnis_data, fristenrechner


class BerechneFristParams(FristBerechnung):
    ereignis_datum: Annotated[datetime.date, Field(description="Day of the triggering event, e.g. the Zustellung (YYYY-MM-DD).")]


def execute(ctx: ToolContext, params: BerechneFristParams) -> ToolResult:
    ergebnis = fristenrechner(params.ereignis_datum, params)
    return ok(
        ergebnis_data(ergebnis), sources=[{"rechner": "Fristenrechner", "rechtsgrundlage": ergebnis.rechtsgrundlage}], count=1
    )


TOOL = Tool(
    name="berechne_frist",
    description=(
        "Compute a deadline (Fristablauf) and its Vorfrist under §§ 187-193 BGB and § 222 ZPO, with public holidays "
        "of the given Bundesland, either from a statutory preset (vorlage, e.g. 'berufung') or from dauer + einheit.\n"
        "Use it whenever a deadline date is needed - never compute deadlines yourself. To enter the deadline into "
        "an Akte, propose it with create_draft_frist (which can run the same calculation).\n"
        "Returns {fristablauf, fristablauf_wochentag, vorfrist, verschoben, verschiebungsgrund, notfrist, "
        "rechtsgrundlage, erlaeuterung (step-by-step German explanation)}.\n"
        "Errors: neither or both of vorlage and dauer/einheit; deadline beyond year 9999.\n"
        'Example: {"ereignis_datum": "2025-03-14", "vorlage": "berufung", "bundesland": "BY"}'
    ),
    params=BerechneFristParams,
    execute=execute,
)
