"""read_akte_verlauf: the Akte's activity history (what happened, when, by whom)."""

from __future__ import annotations

from akten.models import AktenActivity
from drafts.models import HelenaDraft

from ..base import Tool, ToolContext, ToolResult
from ..common import AkteRef, Limit, Params, akte_ref, akte_resolve, moment, ok, source


class ReadAkteVerlaufParams(Params):
    akte: AkteRef = None
    limit: Limit = 30


def execute(ctx: ToolContext, params: ReadAkteVerlaufParams) -> ToolResult:
    akte = akte_resolve(ctx, params.akte)
    # AkteBoundQuerySet.visible_to: through Akte.objects.visible_to; a Mandant sees no history.
    verlauf = (
        AktenActivity.objects.visible_to(ctx.user).filter(akte=akte).select_related("actor_user").order_by("-created_at", "-pk")
    )
    total = verlauf.count()
    rows = list(verlauf[: params.limit])
    data = {
        "akte": akte_ref(akte),
        "anzahl": total,
        "ereignisse": [
            {
                "id": a.pk,
                "zeitpunkt": moment(a.created_at),
                "typ": a.get_typ_display(),
                "beschreibung": a.beschreibung,
                "durch": a.actor_label,
            }
            for a in rows
        ],
    }
    # An entry of a draft proposed after reading text of others names that draft's title, which the
    # text may have written ("SYSTEM: …"): the whole result is then text of others.
    draft_ids = [d for a in rows if isinstance(a.data, dict) and isinstance(d := a.data.get("draft"), int)]
    untrusted = bool(draft_ids) and HelenaDraft.objects.filter(pk__in=draft_ids, untrusted_input=True).exists()
    return ok(data, sources=[source(a, a.beschreibung[:80]) for a in rows], count=len(rows), akte=akte, untrusted=untrusted)


TOOL = Tool(
    name="read_akte_verlauf",
    description=(
        "The history of one Akte: what happened when and by whom (created, changed, documents uploaded, deadlines "
        "entered, time recorded, Helena drafts created, accepted or rejected).\n"
        "Use it for 'what happened last', 'who changed the case'. For the case content use read_akte.\n"
        "Returns {akte, anzahl, ereignisse: [{zeitpunkt, typ, beschreibung, durch}]}, newest first.\n"
        "Errors: unknown Akte or no access (same message) - find the Akte with search_alle_akten.\n"
        'Example: {"akte": "12/25", "limit": 10}'
    ),
    params=ReadAkteVerlaufParams,
    execute=execute,
)
