"""read_zeiterfassung: the time entries of one Akte with totals."""

from __future__ import annotations

import datetime
from decimal import ROUND_HALF_UP, Decimal

from pydantic import model_validator

from akten import selectors

from ..base import Tool, ToolContext, ToolResult
from ..common import AkteRef, Limit, Params, akte_ref, akte_resolve, iso, money, ok, person, source

ERR_RANGE = "'von' liegt nach 'bis'."


class ReadZeiterfassungParams(Params):
    akte: AkteRef = None
    von: datetime.date | None = None
    bis: datetime.date | None = None
    limit: Limit = 50

    @model_validator(mode="after")
    def _range(self) -> ReadZeiterfassungParams:
        if self.von and self.bis and self.von > self.bis:
            raise ValueError(ERR_RANGE)
        return self


def execute(ctx: ToolContext, params: ReadZeiterfassungParams) -> ToolResult:
    akte = akte_resolve(ctx, params.akte)
    eintraege = selectors.zeiterfassung_list(user=ctx.user, akte_id=akte.pk)
    if params.von:
        eintraege = eintraege.filter(datum__gte=params.von)
    if params.bis:
        eintraege = eintraege.filter(datum__lte=params.bis)
    alle = list(eintraege.order_by("-datum", "-pk"))
    minuten = sum(e.minuten for e in alle)
    abrechenbar = [e for e in alle if e.abrechenbar]
    wert = sum(
        (Decimal(e.minuten) / 60 * e.stundensatz for e in abrechenbar if e.stundensatz is not None), Decimal("0")
    ).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    rows = alle[: params.limit]
    data = {
        "akte": akte_ref(akte),
        "anzahl": len(alle),
        "summe_minuten": minuten,
        "summe_stunden": str((Decimal(minuten) / 60).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)),
        "abrechenbare_minuten": sum(e.minuten for e in abrechenbar),
        "wert_abrechenbar_eur": money(wert),
        "eintraege": [
            {
                "id": e.pk,
                "datum": iso(e.datum),
                "minuten": e.minuten,
                "taetigkeit": e.beschreibung,
                "bearbeiter": person(e.user),
                "abrechenbar": e.abrechenbar,
                "stundensatz_eur": money(e.stundensatz),
            }
            for e in rows
        ],
    }
    sources = [source(e, f"{e.datum:%d.%m.%Y} {e.minuten} min ({akte.aktenzeichen})") for e in rows]
    return ok(data, sources=sources, count=len(rows), akte=akte)


TOOL = Tool(
    name="read_zeiterfassung",
    description=(
        "Time entries (Zeiterfassung) of one Akte with totals: minutes, hours, billable minutes and the billable "
        "value from the hourly rates.\n"
        "Use it for 'how much time did we spend', billing questions. Not for statutory fees (get_kosten_rules).\n"
        "Returns {akte, anzahl, summe_minuten, summe_stunden, abrechenbare_minuten, wert_abrechenbar_eur, "
        "eintraege: [...]}, newest first; dates as YYYY-MM-DD.\n"
        "Errors: unknown Akte or no access (same message); 'von' after 'bis'.\n"
        'Example: {"akte": "12/25", "von": "2025-01-01"}'
    ),
    params=ReadZeiterfassungParams,
    execute=execute,
)
