"""How write tools propose: a PENDING HelenaDraft through drafts.services.draft_create, never a record."""

from __future__ import annotations

from typing import Any

from agent.engine.tools import ToolResult
from agent.tools.base import ToolContext
from agent.tools.common import ToolError, akte_ref, ok, source
from akten.models import Akte
from drafts.services import DraftError, draft_create

DRAFT_NOTE = (
    "Entwurf angelegt. Er wird erst zum Eintrag in der Akte, wenn ein Mensch ihn prüft und übernimmt; "
    "sage dem Benutzer, dass der Entwurf zur Prüfung bereitliegt."
)


def propose(ctx: ToolContext, *, typ: str, akte: Akte | None, payload: dict[str, Any], preview: Any) -> ToolResult:
    """Create the draft with its origin (run, tool call, untrusted input) and return its preview.

    Precondition: `akte` was resolved through `Akte.objects.visible_to(ctx.user)` in this call.
    """
    try:
        draft = draft_create(
            typ=typ,
            akte=akte,
            requested_by=ctx.user,
            payload=payload,
            run=ctx.run,
            tool_call_id=ctx.call_id[:100],
            untrusted_input=ctx.untrusted_seen,
            proposed_by_run=ctx.run is not None,
        )
    except DraftError as exc:
        raise ToolError(exc.message) from None
    data = {
        "draft_id": draft.pk,
        "typ": draft.get_typ_display(),
        "titel": draft.titel,
        "status": "offen (wartet auf Prüfung)",
        "akte": akte_ref(akte) if akte else "allgemein (keine Akte)",
        "vorschau": preview,
        "untrusted_input": draft.untrusted_input,
        "hinweis": DRAFT_NOTE,
    }
    return ok(data, sources=[source(draft, f"Entwurf „{draft.titel}“")], count=1, akte=akte)
