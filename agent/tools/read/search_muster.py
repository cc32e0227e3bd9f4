"""search_muster: the firm's templates (Muster) with their placeholders."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from recherche import search
from recherche.models import Muster

from ..base import Tool, ToolContext, ToolResult
from ..common import Params, cut, ok


class SearchMusterParams(Params):
    suche: Annotated[str, Field(min_length=2, max_length=500, description="What the template is for, in words.")]
    kategorie: Annotated[str, Field(max_length=100, description="Part of the category, e.g. 'Mietrecht'.")] = ""
    mit_text: Annotated[bool, Field(description="Also return the full text of the best template.")] = False
    limit: Annotated[int, Field(ge=1, le=20, description="Maximum number of templates.")] = 5


def execute(ctx: ToolContext, params: SearchMusterParams) -> ToolResult:
    result = search.search_muster(query=params.suche, kategorie=params.kategorie, limit=params.limit)
    muster = [
        {
            "muster_id": r["id"],
            "name": r["name"],
            "kategorie": r["kategorie"],
            "kanzleieigen": r["kanzlei_eigen"],
            "beschreibung": r["beschreibung"],
            "platzhalter": r["platzhalter"],
            "auszug": r["snippet"],
        }
        for r in result.results
    ]
    if params.mit_text and muster:
        best = Muster.objects.get(pk=muster[0]["muster_id"])
        muster[0]["text"], muster[0]["gekuerzt"] = cut(best.text)
    data: dict[str, object] = {"suche": params.suche, "muster": muster}
    if result.hinweis:
        data["hinweis"] = result.hinweis
    sources = [{"muster": r["name"], "table": "recherche_muster", "id": r["id"]} for r in result.results]
    return ok(data, sources=sources or [{"query": params.suche}], count=len(muster))


TOOL = Tool(
    name="search_muster",
    description=(
        "Search the firm's document templates (Muster: letters, pleadings, contracts) with their placeholders; "
        "firm-made templates rank first on ties.\n"
        "Use it before drafting a document with create_draft_dokument, to start from the firm's template. Set "
        "mit_text=true to get the full text of the best match.\n"
        "Returns {suche, muster: [{muster_id, name, kategorie, kanzleieigen, beschreibung, platzhalter, auszug, "
        "text?}]}.\n"
        "Errors: none besides invalid arguments; an empty list means nothing matched.\n"
        'Example: {"suche": "Mahnung offene Rechnung", "mit_text": true}'
    ),
    params=SearchMusterParams,
    execute=execute,
    firm_only=True,
)
