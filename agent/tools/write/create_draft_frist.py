"""create_draft_frist: propose a Frist, Termin or Wiedervorlage, optionally computed by the Fristenrechner."""

from __future__ import annotations

import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from akten.fristen_rules import KalenderRegelFehler, kalender_eintrag_pruefen, wiedervorlage_hinweis
from akten.models import Akte, User
from drafts.models import HelenaDraft
from drafts.services import DraftInvalid, verantwortlich_pruefen
from rechner.fristen import kalender_beschreibung, kalenderdatum
from rechner.tabellen import format_datum

from ..base import Tool, ToolContext, ToolResult
from ..common import AkteRef, Params, ToolError, akte_resolve, iso, person, today
from ..drafting import propose
from ..fristen import FristBerechnung, frist_ort_fuer, fristenrechner

ERR_BERECHNUNG_TYP = "Der Fristenrechner ('berechnung') gilt nur für typ FRIST."
ERR_FRISTABLAUF = "Eine Frist braucht 'fristablauf' oder 'berechnung' (dann rechnet der Fristenrechner ab 'datum')."
ERR_WIDERSPRUCH = (
    "Der angegebene Fristablauf {angegeben} widerspricht der Berechnung ({berechnet}). Lass 'fristablauf' weg "
    "oder prüfe die Angaben mit berechne_frist."
)
ERR_VERGANGEN = "Das Datum {datum} liegt in der Vergangenheit. Prüfe das Datum (auch das Jahr)."
# A Fristablauf given without the Fristenrechner is checked only against weekends, holidays kept in
# every Land and the past; a date that is too late cannot be seen from the date alone.
HINWEIS_UNBERECHNET = (
    "Fristablauf ohne Fristenrechner angegeben: geprüft sind nur Wochenende, bundesweite Feiertage und "
    "Vergangenheit, nicht Fristbeginn, Dauer und Feiertage am Ort der Stelle, bei der die Frist zu wahren ist. "
    "Rechne mit 'berechnung' nach oder nenne, woraus sich das Datum ergibt."
)
# kept with the entry, for whoever reviews it and later reads the calendar
VERMERK_UNBERECHNET = (
    "Fristablauf von Helena ohne Fristenrechner angegeben: geprüft sind nur Wochenende, bundesweite Feiertage und "
    "Vergangenheit – Fristbeginn, Dauer und Feiertage am Ort bitte nachrechnen."
)
ERR_VERANTWORTLICH = "Die verantwortliche Person {id} ist unbekannt oder hat keinen Zugriff auf die Akte."


class CreateDraftFristParams(Params):
    akte: AkteRef = None
    typ: Annotated[
        Literal["FRIST", "TERMIN", "WIEDERVORLAGE"],
        Field(description="FRIST = deadline, TERMIN = appointment/hearing, WIEDERVORLAGE = follow-up date."),
    ]
    titel: Annotated[str, Field(min_length=1, max_length=200, description="E.g. 'Berufungsfrist', 'Mündliche Verhandlung'.")]
    datum: Annotated[
        datetime.date,
        Field(description="TERMIN/WIEDERVORLAGE: its date. FRIST: the day of the triggering event (e.g. Zustellung)."),
    ]
    uhrzeit: Annotated[datetime.time | None, Field(description="Time of a Termin (HH:MM).")] = None
    fristablauf: Annotated[datetime.date | None, Field(description="FRIST: the last day, if already known.")] = None
    vorfrist: Annotated[datetime.date | None, Field(description="Pre-deadline reminder date.")] = None
    notfrist: Annotated[bool, Field(description="FRIST only: a Notfrist (cannot be extended).")] = False
    beschreibung: Annotated[str, Field(max_length=2000)] = ""
    verantwortlich_id: Annotated[int | None, Field(ge=1, description="User id of the responsible person; default you.")] = None
    berechnung: Annotated[
        FristBerechnung | None,
        Field(description="FRIST only: let the Fristenrechner compute fristablauf and vorfrist from 'datum'."),
    ] = None


def _verantwortlich(akte: Akte, user_id: int | None) -> User | None:
    """The responsible person by the drafts' one rule (staff who may see the Akte)."""
    try:
        return verantwortlich_pruefen(akte=akte, user_id=user_id)
    except DraftInvalid:
        raise ToolError(ERR_VERANTWORTLICH.format(id=user_id)) from None


def execute(ctx: ToolContext, params: CreateDraftFristParams) -> ToolResult:
    akte = akte_resolve(ctx, params.akte)
    fristablauf, vorfrist, notfrist = params.fristablauf, params.vorfrist, params.notfrist
    datum = params.datum
    berechnet: dict[str, Any] | None = None
    # kept with the draft (drafts.schemas.FristBerechnet): an edit may move the Fristablauf earlier, never later
    berechnung_payload: dict[str, Any] | None = None
    beschreibung = params.beschreibung
    if params.berechnung is not None:
        if params.typ != "FRIST":
            raise ToolError(ERR_BERECHNUNG_TYP)
        ergebnis = fristenrechner(params.datum, params.berechnung, frist_ort_fuer(params.berechnung, akte), akte)
        if fristablauf is not None and fristablauf != ergebnis.fristablauf:
            raise ToolError(
                ERR_WIDERSPRUCH.format(angegeben=format_datum(fristablauf), berechnet=format_datum(ergebnis.fristablauf))
            )
        fristablauf, vorfrist = ergebnis.fristablauf, vorfrist or ergebnis.vorfrist
        notfrist = notfrist or ergebnis.notfrist
        datum = kalenderdatum(ergebnis, today())
        beschreibung = kalender_beschreibung(ergebnis, params.beschreibung)
        berechnung_payload = {
            "fristablauf": iso(ergebnis.fristablauf),
            "notfrist": ergebnis.notfrist,
            "rechtsgrundlage": ergebnis.rechtsgrundlage[:300],
        }
        berechnet = {
            "rechtsgrundlage": ergebnis.rechtsgrundlage,
            "feiertage_nach": ergebnis.ortsangabe,
            "warnungen": list(ergebnis.warnungen),
            "erlaeuterung": ergebnis.erlaeuterung,
        }
    heute = today()
    if params.typ == "FRIST" and fristablauf is None:
        raise ToolError(ERR_FRISTABLAUF)
    if params.typ == "FRIST" and berechnet is None:
        beschreibung = "\n\n".join(part for part in (params.beschreibung.strip(), VERMERK_UNBERECHNET) if part)
    if params.typ != "FRIST" and params.datum < heute:
        # Helena proposes only coming appointments; a human may still record a past one.
        raise ToolError(ERR_VERGANGEN.format(datum=format_datum(params.datum)))
    try:
        kalender_eintrag_pruefen(typ=params.typ, fristablauf=fristablauf, vorfrist=vorfrist, heute=heute)
    except KalenderRegelFehler as exc:
        raise ToolError(exc.message) from None
    verantwortlich = _verantwortlich(akte, params.verantwortlich_id)
    payload: dict[str, Any] = {
        "typ": params.typ,
        "titel": params.titel,
        "datum": iso(datum),
        "uhrzeit": iso(params.uhrzeit),
        "fristablauf": iso(fristablauf),
        "vorfrist": iso(vorfrist),
        "notfrist": notfrist,
        "beschreibung": beschreibung,
        "verantwortlich_id": verantwortlich.pk if verantwortlich else None,
    }
    if berechnung_payload is not None:
        payload["berechnung"] = berechnung_payload
    preview: dict[str, Any] = {
        **{k: v for k, v in payload.items() if k not in ("verantwortlich_id", "berechnung")},
        "verantwortlich": person(verantwortlich or ctx.user),
    }
    if berechnet:
        preview["berechnung"] = berechnet
    elif params.typ == "FRIST":
        preview["hinweis"] = HINWEIS_UNBERECHNET
    if tag_hinweis := wiedervorlage_hinweis(akte=akte, typ=params.typ, datum=datum, fristablauf=fristablauf):
        preview["hinweis"] = tag_hinweis + " Sage es dem Benutzer."
    return propose(ctx, typ=HelenaDraft.Typ.FRIST, akte=akte, payload=payload, preview=preview)


TOOL = Tool(
    name="create_draft_frist",
    description=(
        "Propose a calendar entry for an Akte: a FRIST (deadline, with Fristablauf and Vorfrist), a TERMIN "
        "(appointment, hearing) or a WIEDERVORLAGE (follow-up). A human reviews it before it enters the calendar. "
        "For a FRIST either give 'fristablauf' or let the Fristenrechner compute it with 'berechnung' (preset such "
        "as 'berufung' or dauer/einheit) from 'datum' = day of the triggering event.\n"
        "Use it when a deadline or date should be entered. To only compute a deadline use berechne_frist; to list "
        "existing ones read_fristen.\n"
        "Returns {draft_id, typ, titel, status, akte, vorschau}.\n"
        "Errors: unknown Akte or no access (same message); a FRIST without fristablauf; a Fristablauf on a weekend "
        "or a holiday kept in every Land (§ 193 BGB) or in the past (a fristablauf given without 'berechnung' is "
        "checked for nothing more: prefer 'berechnung'); a Vorfrist after the Fristablauf; no known "
        "court place for 'berechnung' (ask for the court); an unknown responsible person.\n"
        'Example: {"akte": "12/25", "typ": "FRIST", "titel": "Berufungsfrist", "datum": "2025-03-14", '
        '"berechnung": {"vorlage": "berufung"}}'
    ),
    params=CreateDraftFristParams,
    execute=execute,
    writes=True,
)
