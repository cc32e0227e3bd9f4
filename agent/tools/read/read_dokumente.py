"""read_dokumente: the list of an Akte's documents (metadata, no text)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from akten import selectors
from akten.policy import filter_fields

from ..base import Tool, ToolContext, ToolResult
from ..common import AkteRef, Limit, Params, akte_ref, akte_resolve, day, ok, person, source


class ReadDokumenteParams(Params):
    akte: AkteRef = None
    titel_enthaelt: Annotated[str, Field(max_length=200, description="Only documents whose title contains this text.")] = ""
    limit: Limit = 30


def execute(ctx: ToolContext, params: ReadDokumenteParams) -> ToolResult:
    akte = akte_resolve(ctx, params.akte)
    dokumente = selectors.dokument_list(user=ctx.user, akte_id=akte.pk).order_by("-created_at", "-pk")
    if params.titel_enthaelt:
        dokumente = dokumente.filter(name__icontains=params.titel_enthaelt)
    total = dokumente.count()
    rows = list(dokumente[: params.limit])
    data = {
        "akte": akte_ref(akte),
        "anzahl": total,
        "dokumente": [
            filter_fields(
                ctx.user,
                "dokument_tool",
                {
                    "id": d.pk,
                    "titel": d.name,
                    "status": d.get_status_display(),
                    "datum": day(d.created_at),
                    "typ": d.mime_type,
                    "groesse_bytes": d.groesse,
                    "texterkennung": d.get_text_status_display(),
                    "von_helena_entworfen": d.erstellt_von_helena,
                    "erstellt_von": person(d.erstellt_von),
                },
            )
            for d in rows
        ],
    }
    return ok(data, sources=[source(d, d.name) for d in rows], count=len(rows), akte=akte)


TOOL = Tool(
    name="read_dokumente",
    description=(
        "List the documents of one Akte: id, title, status, date, file type, size and whether their text was "
        "extracted. No document text.\n"
        "Use it to find a document's id, then read it with read_dokument_detail. To find documents by their "
        "content use search_dokumente instead.\n"
        "Returns {akte, anzahl, dokumente: [...]}, newest first.\n"
        "Errors: unknown Akte or no access (same message) - find the Akte with search_alle_akten.\n"
        'Example: {"akte": "12/25", "titel_enthaelt": "Kündigung"}'
    ),
    params=ReadDokumenteParams,
    execute=execute,
)
