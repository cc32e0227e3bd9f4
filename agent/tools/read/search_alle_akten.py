"""search_alle_akten: the user's Akten by Aktenzeichen, Kurzrubrum, Beteiligte, Sachgebiet, status."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from akten import selectors
from akten.models import Akte, Sachgebiet

from ..base import Tool, ToolContext, ToolResult
from ..common import Limit, Params, akte_ref, akte_source, money, ok, person

if TYPE_CHECKING:
    SachgebietCode = str
    StatusCode = str
else:
    SachgebietCode = Literal[tuple(Sachgebiet.values)]
    StatusCode = Literal[tuple(Akte.Status.values)]


class SearchAlleAktenParams(Params):
    suche: Annotated[
        str,
        Field(max_length=200, description="Text found in Aktenzeichen, Kurzrubrum, 'wegen' or a Beteiligter's name."),
    ] = ""
    status: StatusCode | None = None
    sachgebiet: SachgebietCode | None = None
    limit: Limit = 20


def execute(ctx: ToolContext, params: SearchAlleAktenParams) -> ToolResult:
    akten = selectors.akte_list(user=ctx.user, q=params.suche, status=params.status or "", sachgebiet=params.sachgebiet or "")
    total = akten.count()
    rows = list(akten[: params.limit])
    data = {
        "anzahl": total,
        "akten": [
            {
                **akte_ref(a),
                "wegen": a.wegen,
                "sachgebiet": a.get_sachgebiet_display(),
                "status": a.get_status_display(),
                "gegenstandswert_eur": money(a.gegenstandswert),
                "anwalt": person(a.anwalt),
                "beteiligte": [f"{b.get_rolle_display()}: {b.kontakt.display_name}" for b in a.beteiligte.all()],
            }
            for a in rows
        ],
    }
    sources = [akte_source(a) for a in rows] or [{"query": params.suche}]
    return ok(data, sources=sources, count=len(rows), akten=(a.pk for a in rows))


TOOL = Tool(
    name="search_alle_akten",
    description=(
        "Search all Akten you may see by Aktenzeichen, Kurzrubrum, subject ('wegen') or the name of a Beteiligter "
        "(client, opponent, court), optionally filtered by status and Sachgebiet.\n"
        "Use it to find the right Akte when the user names a client or a case, or when another tool said an Akte "
        "was not found. Not for document contents (search_dokumente).\n"
        "Returns {anzahl, akten: [{akte_id, aktenzeichen, kurzrubrum, wegen, sachgebiet, status, beteiligte}]}, "
        "most recently changed first. An empty list means no visible Akte matches.\n"
        "Errors: invalid status or Sachgebiet values.\n"
        'Example: {"suche": "Schmidt", "status": "OFFEN"}'
    ),
    params=SearchAlleAktenParams,
    execute=execute,
    cross_akte=True,
)
