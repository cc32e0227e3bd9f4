"""create_alert: a notice (HelenaAlert) for the user; the one tool that writes directly."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from drafts.models import HelenaAlert

from ..base import Tool, ToolContext, ToolResult
from ..common import AKTE_FIELD_DESCRIPTION, Params, akte_optional, akte_ref, ok, source

if TYPE_CHECKING:
    AlertTyp = str
else:
    AlertTyp = Literal[tuple(HelenaAlert.Typ.values)]


class CreateAlertParams(Params):
    typ: Annotated[AlertTyp, Field(description="Kind of notice.")]
    severity: Annotated[int, Field(ge=1, le=10, description="Urgency 1 (low) to 10 (critical).")]
    titel: Annotated[str, Field(min_length=1, max_length=200)]
    text: Annotated[str, Field(max_length=4000)] = ""
    akte: Annotated[str | None, Field(max_length=40, description=AKTE_FIELD_DESCRIPTION)] = None


def execute(ctx: ToolContext, params: CreateAlertParams) -> ToolResult:
    akte = akte_optional(ctx, params.akte)
    # An alert is itself a notice, not a record of the Akte: it is written directly, for the
    # user of the run only, and never changes anything else.
    alert = HelenaAlert(
        typ=params.typ,
        severity=params.severity,
        titel=params.titel,
        text=params.text,
        akte=akte,
        recipient=ctx.user,
        origin_run=ctx.run,
    )
    alert.full_clean()
    alert.save()
    data = {
        "alert_id": alert.pk,
        "typ": alert.get_typ_display(),
        "severity": alert.severity,
        "titel": alert.titel,
        "akte": akte_ref(akte) if akte else None,
        "hinweis": "Hinweis für den Benutzer angelegt.",
    }
    return ok(data, sources=[source(alert, f"Hinweis „{alert.titel}“")], count=1, akte=akte)


TOOL = Tool(
    name="create_alert",
    description=(
        "Raise a notice (alert) for the current user, e.g. a critical deadline, an inactive case, missing "
        "Beteiligte or documents, a contradiction in the file, or a relevant new decision. Unlike the other write "
        "tools this takes effect at once, because a notice changes no record.\n"
        "Use it for things the user must not miss. Do not use it to answer questions or to propose changes.\n"
        "Returns {alert_id, typ, severity, titel, akte}.\n"
        "Errors: unknown Akte or no access (same message); severity outside 1-10.\n"
        'Example: {"typ": "FRIST_KRITISCH", "severity": 9, "titel": "Berufungsfrist läuft übermorgen ab", "akte": "12/25"}'
    ),
    params=CreateAlertParams,
    execute=execute,
    writes=True,
    label="Lege Hinweis an …",
)
