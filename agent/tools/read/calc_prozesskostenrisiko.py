"""calc_prozesskostenrisiko: the cost risk of a civil or labour court case in one or two instances."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from akten.models import Sachgebiet
from rechner import gkg, rvg
from rechner.risiko import prozesskostenrisiko
from rechner.zahlen import parse_zahl

from ..base import Tool, ToolContext, ToolResult
from ..common import (
    AKTE_FIELD_DESCRIPTION,
    ANNAHME_KOSTEN_DATUM,
    Params,
    ToolError,
    akte_optional,
    akte_ref,
    akte_source,
    iso,
    money,
    ok,
    today,
)

ERR_WERT = "Kein Streitwert angegeben. Gib 'streitwert' an oder eine Akte, deren Gegenstandswert gelten soll."
# What the estimate assumes besides a left-out date (said in the result): one party on each side.
ANNAHME_PARTEIEN = (
    "Gerechnet mit einer Partei je Seite und je Instanz mit Verfahrens- und Terminsgebühr, Auslagenpauschale und "
    "Umsatzsteuer; ohne Einigungsgebühr, Reisekosten, Zeugen- und Sachverständigenkosten. Mehrere Auftraggeber "
    "erhöhen die Verfahrensgebühr (Nr. 1008 VV RVG)."
)


# Which procedural cost rule was taken when the call did not say (§ 91 ZPO or § 12a ArbGG).
ANNAHME_GERICHT = {
    "zivil": "Gerechnet als Zivilprozess (§ 91 ZPO: der Verlierer trägt auch den gegnerischen Anwalt). Vor dem "
    "Arbeitsgericht trägt in erster Instanz jede Partei ihren Anwalt selbst (§ 12a ArbGG): dann gericht='arbeit'.",
    "arbeit": "Gerechnet vor dem Arbeitsgericht, weil die Akte Arbeitsrecht ist (§ 12a ArbGG: in erster Instanz "
    "keine Erstattung der Anwaltskosten).",
}


def _betrag(wert: Any) -> Any:
    if isinstance(wert, float):
        return Decimal(repr(wert))
    return parse_zahl(wert, feld="streitwert") if isinstance(wert, str) else wert


class CalcProzesskostenrisikoParams(Params):
    streitwert: Annotated[
        Decimal | None,
        BeforeValidator(_betrag),
        Field(gt=0, le=Decimal("1000000000"), description="Streitwert in EUR ('5.000' = 5000); omit to use the Akte's."),
    ] = None
    akte: Annotated[str | None, Field(max_length=40, description=AKTE_FIELD_DESCRIPTION)] = None
    instanzen: Annotated[Literal[1, 2], Field(description="1 = first instance, 2 = first instance and Berufung.")] = 1
    gericht: Annotated[
        Literal["zivil", "arbeit"] | None,
        Field(
            description="'zivil' (§ 91 ZPO) or 'arbeit' (§ 12a ArbGG in the first instance); omitted: from the Akte's "
            "Sachgebiet (Arbeitsrecht: 'arbeit'), else 'zivil', and the result says so."
        ),
    ] = None
    vorsteuerabzug: Annotated[
        bool,
        Field(
            description="The client may deduct input tax: the own lawyer's fees without USt "
            "(the opponent's USt stays in, § 104 Abs. 2 Satz 3 ZPO)."
        ),
    ] = False
    datum: Annotated[datetime.date | None, Field(description="Date of the mandate / filing; default today.")] = None


def execute(ctx: ToolContext, params: CalcProzesskostenrisikoParams) -> ToolResult:
    akte = akte_optional(ctx, params.akte) if params.streitwert is None or params.akte else None
    wert = params.streitwert if params.streitwert is not None else (akte.gegenstandswert if akte else None)
    if not wert:
        raise ToolError(ERR_WERT)
    datum = params.datum or today()
    gericht = params.gericht
    if gericht is None:
        akte_der_frage = akte or ctx.akte  # the Akte asked about, else the chat's
        gericht = "arbeit" if akte_der_frage is not None and akte_der_frage.sachgebiet == Sachgebiet.ARBEITSRECHT else "zivil"
    try:
        risiko = prozesskostenrisiko(
            streitwert=wert,
            datum=datum,
            instanzen=params.instanzen,
            gericht=gericht,
            vorsteuerabzug=params.vorsteuerabzug,
            heute=today(),
        )
    except (rvg.RvgError, gkg.GkgError) as exc:
        raise ToolError(str(exc)) from None
    data: dict[str, Any] = {
        "streitwert_eur": money(wert),
        "datum": iso(datum),
        "tabelle": [
            {
                "instanz": z.instanz,
                "eigener_anwalt_eur": money(z.eigener_anwalt),
                "gegenanwalt_eur": money(z.gegenanwalt),
                "gericht_eur": money(z.gericht),
                "summe_eur": money(z.summe),
            }
            for z in risiko.zeilen
        ],
        "gesamt_bei_unterliegen_eur": money(risiko.gesamt),
        "hinweise": list(risiko.hinweise),
        "annahmen": ([ANNAHME_KOSTEN_DATUM.format(datum=f"{datum:%d.%m.%Y}", fassung="")] if params.datum is None else [])
        + ([ANNAHME_GERICHT[gericht]] if params.gericht is None else [])
        + [ANNAHME_PARTEIEN],
    }
    sources: list[dict[str, Any]] = [{"rechner": "Prozesskostenrisiko", "grundlage": "§ 91 ZPO, § 12a ArbGG, RVG, GKG"}]
    if akte is not None:
        data["akte"] = akte_ref(akte)
        sources.append(akte_source(akte))
    return ok(data, sources=sources, count=len(risiko.zeilen), akte=akte)


TOOL = Tool(
    name="calc_prozesskostenrisiko",
    description=(
        "Compute the Prozesskostenrisiko: what losing a civil (or labour court) case costs in one or two instances - "
        "own lawyer, opposing lawyer and court fees per instance, as a table with the total.\n"
        "Use it when a client asks what a lawsuit or an appeal may cost. For a fee note of one lawyer use "
        "get_kosten_rules.\n"
        "Returns {streitwert_eur, tabelle: [{instanz, eigener_anwalt_eur, gegenanwalt_eur, gericht_eur, summe_eur}], "
        "gesamt_bei_unterliegen_eur, hinweise}.\n"
        "Errors: no Streitwert (give one or an Akte that has one); dates before 2021.\n"
        'Example: {"streitwert": 10000, "instanzen": 2}'
    ),
    params=CalcProzesskostenrisikoParams,
    execute=execute,
)
