"""read_fristen: Fristen, Termine and Wiedervorlagen of one Akte or of all the user's Akten."""

from __future__ import annotations

from typing import Literal

from django.db.models import Q
from django.db.models.functions import Coalesce

from akten import selectors
from akten.policy import filter_fields, sees_internal

from ..base import Tool, ToolContext, ToolResult
from ..common import AkteRef, Limit, Params, akte_optional, akte_ref, iso, ok, person, source, today


class ReadFristenParams(Params):
    akte: AkteRef = None
    zeitraum: Literal["aktiv", "vergangen", "alle"] = "aktiv"
    typ: Literal["FRIST", "TERMIN", "WIEDERVORLAGE", "ALLE"] = "ALLE"
    limit: Limit = 30


def execute(ctx: ToolContext, params: ReadFristenParams) -> ToolResult:
    akte = akte_optional(ctx, params.akte)
    heute = today()
    eintraege = selectors.kalender_list(
        user=ctx.user,
        akte_id=akte.pk if akte else None,
        typ="" if params.typ == "ALLE" else params.typ,
        offen=True if params.zeitraum == "aktiv" else None,  # KalenderEintragQuerySet.open()
    ).annotate(stichtag=Coalesce("fristablauf", "datum"))
    if params.zeitraum == "aktiv":
        eintraege = eintraege.order_by("stichtag", "pk")
    elif params.zeitraum == "vergangen":
        # a MANDANT does not learn which of her Termine the firm marked erledigt (selectors.kalender_list)
        vergangen = Q(erledigt=True) | Q(stichtag__lt=heute) if sees_internal(ctx.user) else Q(stichtag__lt=heute)
        eintraege = eintraege.filter(vergangen).order_by("-stichtag", "-pk")
    else:
        eintraege = eintraege.order_by("stichtag", "pk")
    total = eintraege.count()
    rows = list(eintraege[: params.limit])
    data = {
        "akte": akte_ref(akte) if akte else "alle deine Akten",
        "zeitraum": params.zeitraum,
        "anzahl": total,
        "eintraege": [
            filter_fields(  # a MANDANT (her Termine only): the field rule of akten.policy
                ctx.user,
                "termin",
                {
                    "id": e.pk,
                    "typ": e.get_typ_display(),
                    "titel": e.titel,
                    "akte": akte_ref(e.akte),
                    "datum": iso(e.datum),
                    "uhrzeit": iso(e.uhrzeit),
                    "fristablauf": iso(e.fristablauf),
                    "vorfrist": iso(e.vorfrist),
                    "notfrist": e.notfrist,
                    "erledigt": e.erledigt,
                    "ueberfaellig": not e.erledigt and e.stichtag < heute,
                    "tage_bis_stichtag": (e.stichtag - heute).days,
                    "verantwortlich": person(e.verantwortlich),
                    "beschreibung": e.beschreibung[:300],
                },
            )
            for e in rows
        ],
    }
    sources = [source(e, f"{e.get_typ_display()} {e.titel} ({e.akte.aktenzeichen})") for e in rows]
    return ok(data, sources=sources, count=len(rows), akte=akte, akten=(e.akte_id for e in rows))


TOOL = Tool(
    name="read_fristen",
    description=(
        "List Fristen (deadlines), Termine (appointments, hearings) and Wiedervorlagen (follow-ups) of one Akte, or "
        "of all Akten you may see when no Akte is given and the conversation has none.\n"
        "zeitraum: 'aktiv' = not done yet, soonest first, overdue ones flagged ueberfaellig; 'vergangen' = done or "
        "dated before today, latest first; 'alle' = everything. typ filters FRIST, TERMIN or WIEDERVORLAGE.\n"
        "Use it for 'what is due', 'when is the hearing'. To compute a new deadline use berechne_frist; to propose "
        "one use create_draft_frist.\n"
        "Returns {akte, zeitraum, anzahl, eintraege: [{id, typ, titel, akte, datum, fristablauf, vorfrist, notfrist, "
        "erledigt, ueberfaellig, tage_bis_stichtag, verantwortlich}]}.\n"
        "Errors: unknown Akte or no access (same message) - find the Akte with search_alle_akten.\n"
        'Example: {"akte": "12/25", "zeitraum": "aktiv", "typ": "FRIST"}'
    ),
    params=ReadFristenParams,
    execute=execute,
)
