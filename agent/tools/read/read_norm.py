"""read_norm: the full text of one norm by its citation."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from recherche import search
from recherche.models import Norm

from ..base import Tool, ToolContext, ToolResult
from ..common import Params, ToolError, cut, ok

ERR_ZITAT = (
    "Das Zitat „{zitat}“ wurde nicht erkannt. Schreibe es wie „§ 573c BGB“ oder „Art. 1 GG“; "
    "nutze search_gesetze, um die Norm zu finden."
)
ERR_NORM = "{zitat} ist nicht in der Datenbank. Nutze search_gesetze, um die passende Norm zu finden."
ERR_OFFSET = "offset {offset} liegt hinter dem Ende des Normtextes ({length} Zeichen)."


class ReadNormParams(Params):
    zitat: Annotated[str, Field(min_length=3, max_length=100, description="The citation, e.g. '§ 573c BGB', 'Art. 1 GG'.")]
    offset: Annotated[int, Field(ge=0, description="Character offset to continue reading a cut text.")] = 0


def execute(ctx: ToolContext, params: ReadNormParams) -> ToolResult:
    zitate = search.parse_citations(params.zitat)
    if not zitate:
        raise ToolError(ERR_ZITAT.format(zitat=params.zitat))
    art, nummer, abk = zitate[0]
    # Exact citations are resolved first by the search; full-text mode needs no embedding.
    result = search.search_normen(query=f"{art} {nummer} {abk}", limit=1, mode="fulltext")
    hit = next((r for r in result.results if r["exakt"]), None)
    if hit is None:
        raise ToolError(ERR_NORM.format(zitat=f"{art} {nummer} {abk}"))
    norm = Norm.objects.select_related("gesetz").get(pk=hit["id"])
    if params.offset and params.offset >= len(norm.text):
        raise ToolError(ERR_OFFSET.format(offset=params.offset, length=len(norm.text)))
    text, gekuerzt = cut(norm.text, offset=params.offset)
    data = {
        "zitat": norm.zitat,
        "ueberschrift": norm.titel,
        "gesetz": f"{norm.gesetz.abkuerzung} – {norm.gesetz.titel}",
        "stand": norm.gesetz.stand,
        "gliederung": norm.gliederung,
        "text": text,
        "gekuerzt": gekuerzt,
        "url": norm.official_url,
    }
    if len(zitate) > 1:
        data["hinweis"] = "Nur die erste zitierte Norm wurde gelesen; rufe read_norm für jede weitere einzeln auf."
    return ok(data, sources=[{"zitat": norm.zitat, "table": "recherche_norm", "id": norm.pk, "url": norm.official_url}], count=1)


TOOL = Tool(
    name="read_norm",
    description=(
        "Read the full text of one norm (statutory provision) by its citation.\n"
        "Use it when you need the exact wording, e.g. after search_gesetze. One norm per call; for several norms "
        "call it several times.\n"
        "Returns {zitat, ueberschrift, gesetz, stand, gliederung, text, gekuerzt, url}; long texts are cut with a "
        "visible marker, continue with 'offset'.\n"
        "Errors: citation not recognised; norm not in the database (use search_gesetze).\n"
        'Example: {"zitat": "§ 573c BGB"}'
    ),
    params=ReadNormParams,
    execute=execute,
)
