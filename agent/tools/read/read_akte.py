"""read_akte: the compact overview of one Akte."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Window

from akten import selectors
from akten.models import Akte, Beteiligter
from akten.policy import filter_fields

from ..base import Tool, ToolContext, ToolResult
from ..common import AkteRef, Params, akte_ref, akte_resolve, akte_source, cut, iso, money, ok, person

SUMMARY_CHARS = 600


class ReadAkteParams(Params):
    akte: AkteRef = None


def akte_overview(ctx: ToolContext, akte: Akte) -> dict[str, Any]:
    """The compact view of an Akte the user may see (the caller resolved it through visible_to)."""
    beteiligte = Beteiligter.objects.visible_to(ctx.user).filter(akte=akte).select_related("kontakt")
    # the next open entry and (as a window count over all open ones) how many there are, in one query
    offen = selectors.kalender_list(user=ctx.user, akte_id=akte.pk, offen=True).order_by("fristablauf", "datum", "pk")
    naechste = offen.annotate(offen_gesamt=Window(Count("pk"))).first()
    zusammenfassung, _ = cut(akte.zusammenfassung, limit=SUMMARY_CHARS)
    overview = {
        **akte_ref(akte),
        "wegen": akte.wegen,
        "sachgebiet": akte.get_sachgebiet_display(),
        "status": akte.get_status_display(),
        "gegenstandswert_eur": money(akte.gegenstandswert),
        "anwalt": person(akte.anwalt),
        "sachbearbeitung": person(akte.sachbearbeiter),
        "beteiligte": [{"rolle": b.get_rolle_display(), "name": b.kontakt.display_name} for b in beteiligte],
        "offene_kalendereintraege": naechste.offen_gesamt if naechste is not None else 0,
        "naechster_eintrag": None
        if naechste is None
        else {
            "id": naechste.pk,
            "typ": naechste.get_typ_display(),
            "titel": naechste.titel,
            "datum": iso(naechste.fristablauf or naechste.datum),
        },
        "dokumente": selectors.dokument_list(user=ctx.user, akte_id=akte.pk).count(),
        "zusammenfassung": zusammenfassung,
    }
    return filter_fields(ctx.user, "akte", overview)  # a MANDANT gets the client-facing facts only


def execute(ctx: ToolContext, params: ReadAkteParams) -> ToolResult:
    akte = akte_resolve(ctx, params.akte)
    return ok(akte_overview(ctx, akte), sources=[akte_source(akte)], count=1, akte=akte)


TOOL = Tool(
    name="read_akte",
    description=(
        "Compact overview of one Akte (case file): Aktenzeichen, Kurzrubrum, wegen, Sachgebiet, status, "
        "Gegenstandswert, Anwalt, Sachbearbeitung, Beteiligte (names and roles), number of open Fristen/Termine "
        "with the next one, number of Dokumente and the start of the case summary.\n"
        "Use it first when a question is about a case. Do not use it for the full record (read_akte_detail), "
        "documents (read_dokumente) or deadlines (read_fristen).\n"
        "Returns one object with akte_id, aktenzeichen, kurzrubrum and the fields above.\n"
        "Errors: unknown Akte or no access (same message) - then find the Akte with search_alle_akten.\n"
        'Example: {"akte": "12/25"}'
    ),
    params=ReadAkteParams,
    execute=execute,
)
