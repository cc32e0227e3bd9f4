"""create_notiz: propose a note, bound to an Akte or general."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from drafts.models import HelenaDraft

from ..base import Tool, ToolContext, ToolResult
from ..common import AKTE_FIELD_DESCRIPTION, Params, akte_optional
from ..drafting import propose


class CreateNotizParams(Params):
    akte: Annotated[str | None, Field(max_length=40, description=AKTE_FIELD_DESCRIPTION)] = None
    allgemein: Annotated[bool, Field(description="True: a general note bound to no Akte, even if the conversation has one.")] = (
        False
    )
    titel: Annotated[str, Field(max_length=200, description="Short title (optional).")] = ""
    text: Annotated[str, Field(min_length=1, max_length=20_000, description="The note.")]


def execute(ctx: ToolContext, params: CreateNotizParams) -> ToolResult:
    akte = None if params.allgemein and not params.akte else akte_optional(ctx, params.akte)
    payload = {"titel": params.titel, "text": params.text}
    preview = {"titel": params.titel, "text": params.text[:400]}
    return propose(ctx, typ=HelenaDraft.Typ.NOTIZ, akte=akte, payload=payload, preview=preview)


TOOL = Tool(
    name="create_notiz",
    description=(
        "Propose a note (Notiz), e.g. a telephone memo or a reminder, for an Akte or as a general note of the user "
        "(allgemein=true or no Akte in the conversation). A human reviews it before it is stored.\n"
        "Use it for short internal notes. For documents use create_draft_dokument, for follow-up dates "
        "create_draft_frist with typ WIEDERVORLAGE.\n"
        "Returns {draft_id, typ, titel, status, akte, vorschau}.\n"
        "Errors: unknown Akte or no access (same message); empty text.\n"
        'Example: {"akte": "12/25", "titel": "Telefonat", "text": "Mandant ruft morgen zurück."}'
    ),
    params=CreateNotizParams,
    execute=execute,
    writes=True,
)
