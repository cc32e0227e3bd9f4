"""create_draft_zeiterfassung: propose a time entry for an Akte."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Annotated

from pydantic import Field

from akten.services import ERR_ZEIT_ZUKUNFT
from drafts.models import HelenaDraft

from ..base import Tool, ToolContext, ToolResult
from ..common import AkteRef, Params, ToolError, akte_resolve, iso, money, today
from ..drafting import propose


class CreateDraftZeiterfassungParams(Params):
    akte: AkteRef = None
    minuten: Annotated[int, Field(ge=1, le=24 * 60, description="Duration in minutes.")]
    beschreibung: Annotated[str, Field(min_length=1, max_length=500, description="What was done (Tätigkeit).")]
    datum: Annotated[datetime.date | None, Field(description="Day of the work (YYYY-MM-DD); default today.")] = None
    abrechenbar: Annotated[bool, Field(description="Billable to the client.")] = True
    stundensatz: Annotated[
        Decimal | None, Field(ge=0, max_digits=8, decimal_places=2, description="Hourly rate in EUR, if agreed.")
    ] = None


def execute(ctx: ToolContext, params: CreateDraftZeiterfassungParams) -> ToolResult:
    akte = akte_resolve(ctx, params.akte)
    datum = params.datum or today()
    if datum > today():
        raise ToolError(ERR_ZEIT_ZUKUNFT.format(datum=f"{datum:%d.%m.%Y}"))
    payload = {
        "datum": iso(datum),
        "minuten": params.minuten,
        "beschreibung": params.beschreibung,
        "abrechenbar": params.abrechenbar,
        "stundensatz": money(params.stundensatz),
    }
    return propose(ctx, typ=HelenaDraft.Typ.ZEITERFASSUNG, akte=akte, payload=payload, preview=payload)


TOOL = Tool(
    name="create_draft_zeiterfassung",
    description=(
        "Propose a time entry (Zeiterfassung) for the current user on an Akte. A human reviews it before it is "
        "recorded.\n"
        "Use it when the user asks to record time spent ('trag 30 Minuten Telefonat ein'). To read recorded time "
        "use read_zeiterfassung.\n"
        "Returns {draft_id, typ, titel, status, akte, vorschau}.\n"
        "Errors: unknown Akte or no access (same message); minutes outside 1-1440; a date in the future.\n"
        'Example: {"akte": "12/25", "minuten": 30, "beschreibung": "Telefonat mit Mandant"}'
    ),
    params=CreateDraftZeiterfassungParams,
    execute=execute,
    writes=True,
)
