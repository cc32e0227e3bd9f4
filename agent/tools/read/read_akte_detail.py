"""read_akte_detail: the full record of one Akte."""

from __future__ import annotations

from akten import selectors
from akten.models import Beteiligter
from akten.policy import filter_fields, sees_internal

from ..base import Tool, ToolContext, ToolResult
from ..common import AkteRef, Params, akte_resolve, akte_source, cut, day, ok, person
from .read_akte import akte_overview

NOTES_SHOWN = 10


class ReadAkteDetailParams(Params):
    akte: AkteRef = None


def execute(ctx: ToolContext, params: ReadAkteDetailParams) -> ToolResult:
    akte = akte_resolve(ctx, params.akte)
    data = akte_overview(ctx, akte)
    beteiligte = Beteiligter.objects.visible_to(ctx.user).filter(akte=akte).select_related("kontakt")
    data["beteiligte"] = [
        filter_fields(
            ctx.user,
            "beteiligter",
            {
                "id": b.pk,
                "rolle": b.get_rolle_display(),
                "name": b.kontakt.display_name,
                "anschrift": b.kontakt.anschrift,
                "email": b.kontakt.email,
                "telefon": b.kontakt.telefon,
                "aktenzeichen_extern": b.aktenzeichen_extern,
            },
        )
        for b in beteiligte
    ]
    # changed_at moves when the firm edits what a Mandant does not see: the policy decides.
    data.update(filter_fields(ctx.user, "akte", {"angelegt": day(akte.created_at), "geaendert": day(akte.changed_at)}))
    if sees_internal(ctx.user):
        data["zusammenfassung"], _ = cut(akte.zusammenfassung)
        data["tags"] = list(akte.tags)
        data["dezernate"] = [d.name for d in akte.dezernate.all()]
        # Internal working notes of the firm; a Mandant never sees them.
        data["interne_notizen"], _ = cut(akte.notizen)
        notizen = selectors.notiz_list(user=ctx.user, akte_id=akte.pk)[:NOTES_SHOWN]
        data["notizen"] = [
            {
                "id": n.pk,
                "titel": n.titel,
                "text": cut(n.text, limit=500)[0],
                "autor": person(n.autor),
                "datum": day(n.created_at),
            }
            for n in notizen
        ]
    return ok(data, sources=[akte_source(akte)], count=1, akte=akte)


TOOL = Tool(
    name="read_akte_detail",
    description=(
        "Full record of one Akte: everything read_akte returns plus Beteiligte with address, e-mail, phone and their "
        "external Aktenzeichen, the whole case summary (Sachstand), tags, Dezernate, internal notes and the latest "
        "Notizen.\n"
        "Use it when you need contact data, the external court file number or the full Sachstand. For a quick "
        "overview prefer read_akte.\n"
        "Returns one object. Long texts are cut with a visible marker.\n"
        "Errors: unknown Akte or no access (same message) - find the Akte with search_alle_akten.\n"
        'Example: {"akte": "57"}'
    ),
    params=ReadAkteDetailParams,
    execute=execute,
)
