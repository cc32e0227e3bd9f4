"""search_gesetze: hybrid search over statutes, returning citation objects."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from recherche import search
from recherche.models import Gesetz

from ..base import Tool, ToolContext, ToolResult
from ..common import Params, ToolError, ok

ERR_GESETZ = "Gesetz „{abk}“ ist nicht in der Datenbank. Verfügbar sind: {known}."


class SearchGesetzeParams(Params):
    suche: Annotated[
        str, Field(min_length=2, max_length=500, description="A citation ('§ 573c BGB') or a legal question in words.")
    ]
    gesetz: Annotated[
        str | None, Field(max_length=30, description="Restrict to one statute by its abbreviation, e.g. 'BGB', 'ZPO'.")
    ] = None
    limit: Annotated[int, Field(ge=1, le=20, description="Maximum number of norms.")] = 5


def execute(ctx: ToolContext, params: SearchGesetzeParams) -> ToolResult:
    gesetz = None
    if params.gesetz:
        known = list(Gesetz.objects.values_list("abkuerzung", flat=True))
        gesetz = next((abk for abk in known if abk.lower() == params.gesetz.lower()), None)
        if gesetz is None:
            raise ToolError(ERR_GESETZ.format(abk=params.gesetz, known=", ".join(sorted(known))))
    sachgebiet = str(ctx.akte.sachgebiet) if ctx.akte is not None else ""
    result = search.search_normen(query=params.suche, gesetz=gesetz, limit=params.limit, sachgebiet=sachgebiet)
    normen = [
        {
            "zitat": r["zitat"],
            "ueberschrift": r["ueberschrift"],
            "auszug": r["snippet"],
            "exakt": r["exakt"],
            "score": r["score"],
            "stand": r["stand"],
            "url": r["url"],
            "norm_id": r["id"],
        }
        for r in result.results
    ]
    data: dict[str, object] = {"suche": params.suche, "normen": normen}
    if result.nicht_im_bestand:
        data["nicht_im_bestand"] = [{"zitat": z["zitiert"], "grund": z["grund"]} for z in result.nicht_im_bestand]
    if result.hinweis:
        data["hinweis"] = result.hinweis
    sources = [{"zitat": r["zitat"], "table": "recherche_norm", "id": r["id"], "url": r["url"]} for r in result.results]
    return ok(data, sources=sources or [{"query": params.suche}], count=len(normen))


TOOL = Tool(
    name="search_gesetze",
    description=(
        "Search 85 German federal statutes in their consolidated versions of April 2026 (BGB, ZPO, FamFG, ArbGG, "
        "KSchG, StGB, StPO, StVG, VVG, SGB I-XII, VwGO, InsO, GmbHG, HGB, RVG, GKG, ...) by citation or by a "
        "question in words. Citations in the query in any form ('§ 573c BGB', '§ 253 II BGB', 'BGB § 433', "
        "'§§ 187, 188 BGB', 'Art. 20 III GG', 'Nr. 3100 VV RVG', '§ 7 SGB II') are resolved exactly and come "
        "first; then full-text and semantic hits above a relevance floor, preferring the statutes of the "
        "current Akte's field of law.\n"
        "Use it to find the norms for a legal question and to cite them. To read a norm's full text use read_norm.\n"
        "Returns {suche, normen: [{zitat, ueberschrift, auszug, exakt, score, stand, url}], nicht_im_bestand?, "
        "hinweis?}; cite norms by 'zitat' and say which version ('stand') you read. 'nicht_im_bestand' lists "
        "cited norms or laws that are not in the corpus: say so, never substitute another norm. An empty list "
        "with a 'hinweis' means nothing relevant was found.\n"
        "Errors: unknown statute abbreviation in 'gesetz' (the message lists the available ones).\n"
        'Example: {"suche": "Kündigungsfrist Wohnraummiete Vermieter", "gesetz": "BGB"}'
    ),
    params=SearchGesetzeParams,
    execute=execute,
)
