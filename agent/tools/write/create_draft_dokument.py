"""create_draft_dokument: propose a document (markdown) for an Akte."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from drafts.models import HelenaDraft

from ..base import Tool, ToolContext, ToolResult
from ..common import AkteRef, Params, akte_resolve, cut
from ..drafting import propose

PREVIEW_CHARS = 600


class CreateDraftDokumentParams(Params):
    akte: AkteRef = None
    titel: Annotated[str, Field(min_length=1, max_length=200, description="Document title, e.g. 'Klageerwiderung'.")]
    inhalt_markdown: Annotated[str, Field(min_length=1, max_length=200_000, description="The full document in Markdown.")]
    mandant_sichtbar: Annotated[bool, Field(description="Whether the client may see the document once accepted.")] = False


def execute(ctx: ToolContext, params: CreateDraftDokumentParams) -> ToolResult:
    akte = akte_resolve(ctx, params.akte)
    payload = {"titel": params.titel, "inhalt_markdown": params.inhalt_markdown, "mandant_sichtbar": params.mandant_sichtbar}
    preview = {
        "titel": params.titel,
        "anfang": cut(params.inhalt_markdown, limit=PREVIEW_CHARS)[0],
        "zeichen": len(params.inhalt_markdown),
    }
    return propose(ctx, typ=HelenaDraft.Typ.DOKUMENT, akte=akte, payload=payload, preview=preview)


TOOL = Tool(
    name="create_draft_dokument",
    description=(
        "Propose a new document (letter, pleading, memo) for an Akte, written in Markdown. It becomes a draft card "
        "that a human reviews; nothing is stored in the Akte until they accept it.\n"
        "Use it when the user asks you to write or draft a document. Start from a template (search_muster) where one "
        "fits. Do not use it for short notes (create_notiz).\n"
        "Returns {draft_id, typ, titel, status, akte, vorschau}.\n"
        "Errors: unknown Akte or no access (same message); empty title or content.\n"
        'Example: {"akte": "12/25", "titel": "Mahnung", "inhalt_markdown": "Sehr geehrte Damen und Herren, ..."}'
    ),
    params=CreateDraftDokumentParams,
    execute=execute,
    writes=True,
)
