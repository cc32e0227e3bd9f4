"""update_akte: propose changes to an Akte's fields and its case summary."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field

from akten.models import Akte, Sachgebiet
from drafts.models import HelenaDraft
from drafts.schemas import AkteChanges

from ..base import Tool, ToolContext, ToolResult
from ..common import AkteRef, Params, akte_resolve
from ..drafting import propose


def _document_choices(schema: dict[str, Any]) -> None:
    schema["properties"]["sachgebiet"]["description"] = "One of: " + ", ".join(Sachgebiet.values)


class ProposedChanges(AkteChanges):
    """The fields an Akte update may change (drafts.schemas.AkteChanges, which also refuses null
    where the Akte allows no empty value), with the Sachgebiete named in the schema."""

    model_config = ConfigDict(json_schema_extra=_document_choices)


class UpdateAkteParams(Params):
    akte: AkteRef = None
    changes: Annotated[
        ProposedChanges,
        Field(description="Only the fields to change; 'zusammenfassung' is the case summary (Sachstand)."),
    ]
    begruendung: Annotated[str, Field(max_length=2000, description="Why these changes (shown to the reviewer).")] = ""


def _shown(value: Any) -> Any:
    return str(value) if value is not None and not isinstance(value, str | list | bool) else value


def execute(ctx: ToolContext, params: UpdateAkteParams) -> ToolResult:
    akte = akte_resolve(ctx, params.akte)
    changes = params.changes.model_dump(mode="json", exclude_unset=True)
    preview = {
        "aenderungen": [
            {
                "feld": str(getattr(Akte._meta.get_field(feld), "verbose_name", feld)),
                "vorher": _shown(getattr(akte, feld)),
                "nachher": neu,
            }
            for feld, neu in changes.items()
        ],
        "begruendung": params.begruendung,
    }
    payload = {"changes": changes, "begruendung": params.begruendung}
    return propose(ctx, typ=HelenaDraft.Typ.AKTE_UPDATE, akte=akte, payload=payload, preview=preview)


TOOL = Tool(
    name="update_akte",
    description=(
        "Propose changes to an Akte's fields - kurzrubrum, wegen, sachgebiet, status (OFFEN, RUHEND, ARCHIVIERT, "
        "GESCHLOSSEN), gegenstandswert, notizen, tags - and/or a new case summary (zusammenfassung). A human reviews "
        "the change before it is applied.\n"
        "Use it after reading the Akte when the user asks to update the case or to write its Sachstand. Give only "
        "the fields that change.\n"
        "Returns {draft_id, typ, titel, status, akte, vorschau: {aenderungen: [{feld, vorher, nachher}]}}.\n"
        "Errors: unknown Akte or no access (same message); no field given; invalid values.\n"
        'Example: {"akte": "12/25", "changes": {"status": "RUHEND", "zusammenfassung": "Verfahren ruht bis ..."}, '
        '"begruendung": "Vergleichsverhandlungen"}'
    ),
    params=UpdateAkteParams,
    execute=execute,
    label="Entwerfe Änderung der Akte …",
    writes=True,
)
