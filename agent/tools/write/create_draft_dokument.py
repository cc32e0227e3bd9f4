"""create_draft_dokument: propose a document for an Akte, optionally filled into a firm template."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.urls import reverse
from pydantic import Field

from drafts.models import HelenaDraft
from schriftgut.services import ERR_EMPFAENGER, schriftstueck_rendern, vorlage_waehlen
from schriftgut.vorlagen import VorlagenFehler

from ..base import Tool, ToolContext, ToolResult
from ..common import AkteRef, Params, ToolError, akte_resolve, cut
from ..drafting import propose

PREVIEW_CHARS = 600


class CreateDraftDokumentParams(Params):
    akte: AkteRef = None
    titel: Annotated[str, Field(min_length=1, max_length=200, description="Document title, e.g. 'Klageerwiderung'.")]
    inhalt_markdown: Annotated[
        str,
        Field(
            min_length=1,
            max_length=200_000,
            description="The document's own text in Markdown. With a template: only the body (arguments, requests); "
            "letterhead, court, Rubrum, date and signature come from the template and the Akte.",
        ),
    ]
    vorlage: Annotated[
        str | None,
        Field(
            max_length=100,
            description="Template id or name, e.g. 'Klageerwiderung', 'Mahnschreiben', 'Kündigungsschutzklage', "
            "'Schriftsatz', 'Brief'. Omit for a plain letter on letterhead.",
        ),
    ] = None
    mandant_partei: Annotated[
        Literal["KLAEGER", "BEKLAGTER"] | None,
        Field(description="Side of the client in a lawsuit, if the template does not fix it (for the Rubrum)."),
    ] = None
    empfaenger: Annotated[
        Literal["GEGENSEITE", "MANDANT"] | None,
        Field(
            description="Whom a letter goes to (templates 'Brief' and firm letters): GEGENSEITE = the other side, "
            "to its lawyer where it has one; MANDANT = the firm's own client. Required for such a template; a "
            "Mahnschreiben always goes to the other side."
        ),
    ] = None
    mandant_sichtbar: Annotated[bool, Field(description="Whether the client may see the document once accepted.")] = False


def execute(ctx: ToolContext, params: CreateDraftDokumentParams) -> ToolResult:
    akte = akte_resolve(ctx, params.akte)
    payload: dict[str, Any] = {
        "titel": params.titel,
        "inhalt_markdown": params.inhalt_markdown,
        "mandant_sichtbar": params.mandant_sichtbar,
    }
    try:
        wahl = vorlage_waehlen(params.vorlage) if params.vorlage else None
        if wahl is not None and wahl.empfaenger_offen and params.empfaenger is None:
            raise ToolError(ERR_EMPFAENGER.format(name=wahl.stand.name))
        vorlage = wahl.als_payload() if wahl is not None else None
        if vorlage is not None and params.mandant_partei:
            vorlage["mandant_partei"] = params.mandant_partei
        if vorlage is not None and params.empfaenger and wahl is not None and wahl.empfaenger_offen:
            vorlage["empfaenger"] = params.empfaenger
        # Fill once now so that the card lists what the Akte lacks (court, Aktenzeichen, ...).
        fehlend = schriftstueck_rendern(akte=akte, titel=params.titel, markdown=params.inhalt_markdown, vorlage=vorlage).fehlend
    except VorlagenFehler as fehler:
        raise ToolError(fehler.message) from None
    if vorlage is not None:
        payload["vorlage"] = vorlage
    if fehlend:
        payload["fehlende_felder"] = fehlend
    preview = {
        "titel": params.titel,
        "vorlage": vorlage["name"] if vorlage else "Brief (ohne Vorlage)",
        # whom it goes to; a recipient given for a template that addresses no one (a Mahnschreiben
        # goes to the other side) is said to be ignored
        "empfaenger": (vorlage or {}).get("empfaenger")
        or ("GEGENSEITE (Mahnschreiben)" if wahl is not None and wahl.mahnschreiben else None),
        "fehlende_felder": fehlend,
        "anfang": cut(params.inhalt_markdown, limit=PREVIEW_CHARS)[0],
        "zeichen": len(params.inhalt_markdown),
    }
    result = propose(ctx, typ=HelenaDraft.Typ.DOKUMENT, akte=akte, payload=payload, preview=preview)
    if isinstance(result.data, dict) and "draft_id" in result.data:
        draft_id = result.data["draft_id"]
        result.data["downloads"] = {
            fmt: reverse("api-draft-datei", kwargs={"pk": draft_id, "ausgabe": fmt}) for fmt in ("docx", "pdf")
        }
    return result


TOOL = Tool(
    name="create_draft_dokument",
    description=(
        "Propose a new document (letter, pleading, memo) for an Akte. It becomes a draft card that a human reviews; "
        "nothing is stored in the Akte until they accept it, then it is stored as a Word file on the firm's letterhead.\n"
        "Use it when the user asks you to write or draft a document. For pleadings and letters name a template "
        "(vorlage: exactly 'Klageerwiderung', 'Klage', 'Kündigungsschutzklage', 'Schriftsatz', 'Mahnschreiben', "
        "'Brief' or a firm template's name; for a Replik, a Berufung or anything else use 'Schriftsatz'; for 'Brief' "
        "say whom it goes to with 'empfaenger'); the template fills letterhead, court, Rubrum with the parties, "
        "Aktenzeichen, date and signature from the Akte, and your Markdown goes where the template leaves room. Do not "
        "use it for short notes "
        "(create_notiz).\n"
        "Returns {draft_id, typ, titel, status, akte, vorschau: {vorlage, fehlende_felder, ...}, downloads}. Tell the "
        "user which fields are missing (fehlende_felder), e.g. the court's Aktenzeichen.\n"
        "Errors: unknown Akte or no access (same message); unknown template (the message lists the existing ones); "
        "empty title or content.\n"
        'Example: {"akte": "12/25", "titel": "Klageerwiderung", "vorlage": "Klageerwiderung", '
        '"inhalt_markdown": "## Anträge\\n\\nDie Klage wird abgewiesen.\\n\\n## Begründung\\n\\n..."}'
    ),
    params=CreateDraftDokumentParams,
    execute=execute,
    writes=True,
)
