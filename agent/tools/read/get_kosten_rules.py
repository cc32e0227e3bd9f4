"""get_kosten_rules: RVG lawyer fees and GKG court fees with their positions (rechner.rvg, rechner.gkg)."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from rechner import famgkg, gkg, rahmen, rvg
from rechner.tabellen import format_satz
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

ERR_WERT = "Kein Gegenstandswert angegeben. Gib 'gegenstandswert' an oder eine Akte, deren Gegenstandswert gelten soll."
ERR_WERT_AKTE = "Die Akte {aktenzeichen} hat keinen Gegenstandswert. Gib 'gegenstandswert' an."
# What the calculation assumed for an input the call left out: said in the result, never silent.
ANNAHME_ANRECHTE = (
    "Gerechnet ohne Versorgungsausgleich (0 Anrechte). Er wird im Scheidungsverbund in der Regel von Amts wegen "
    "mitentschieden (§ 137 Abs. 2 FamFG) und erhöht den Wert je Anrecht um 10 % des in drei Monaten erzielten "
    "Nettoeinkommens der Ehegatten, insgesamt mindestens um 1.000 € (§ 50 Abs. 1 FamGKG); bitte die Zahl der Anrechte "
    "erfragen."
)
ANNAHME_AUFTRAGGEBER = (
    "Gerechnet mit einem Auftraggeber. Bei mehreren Auftraggebern im selben Gegenstand erhöht sich die Geschäfts- "
    "bzw. Verfahrensgebühr um 0,3 je weitere Person (Nr. 1008 VV RVG); bitte die Zahl erfragen."
)


def _zahl(feld: str) -> BeforeValidator:
    """Amounts and rates from the model: German strings through the one parser ("5.000" = 5000),
    JSON numbers as written (a float is read from its shortest repr, never its binary value)."""

    def lesen(wert: Any) -> Any:
        if isinstance(wert, float):
            return Decimal(repr(wert))
        if isinstance(wert, str):
            return parse_zahl(wert, feld=feld)
        return wert

    return BeforeValidator(lesen)


if TYPE_CHECKING:
    VvNummer = str
    KvNummer = str
    RahmenNummer = str
else:
    VvNummer = Literal[tuple(rvg.VV)]
    KvNummer = Literal[tuple(gkg.KV)]
    RahmenNummer = Literal[tuple(rahmen.RAHMEN)]


class RvgPosition(Params):
    vv: Annotated[VvNummer, Field(description="Number of the Vergütungsverzeichnis, e.g. '3100'.")]
    satz: Annotated[
        Decimal | None,
        _zahl("satz"),
        Field(gt=0, le=10, description="Fee rate; omit for the usual rate (e.g. 1.3 for Nr. 2300)."),
    ] = None
    wert: Annotated[
        Decimal | None,
        _zahl("wert"),
        Field(
            gt=0,
            description="Value of the part of the Gegenstand this fee is for, e.g. a Mehrvergleich: 3100 on the pending "
            "claim and 3101 on the rest, 1003 and 1000 likewise (together capped by § 15 Abs. 3 RVG); omit for the "
            "gegenstandswert. For a Zahlungsvereinbarung: the claim.",
        ),
    ] = None
    umfangreich_oder_schwierig: Annotated[
        bool,
        Field(description="Nr. 2300 above 1.3 only (above 0.9 for undisputed Inkasso): the work was extensive or difficult."),
    ] = False
    inkasso_unbestritten: Annotated[
        bool,
        Field(
            description="Nr. 2300 only: Inkasso of an undisputed claim (at most 0.9 unless besonders umfangreich "
            "oder schwierig, never above 1.3; 0.5 in simple cases; 1.0 fee 31.50 EUR up to 50 EUR, § 13 Abs. 2 RVG)."
        ),
    ] = False
    zahlungsvereinbarung: Annotated[
        bool,
        Field(
            description="Nr. 1000 only: the Einigung is a Zahlungsvereinbarung (instalments or deferred payment while "
            "the creditor holds off suing or enforcing): 0.7 from 50 % of the claim (Nr. 1000 Nr. 2 VV, § 31b RVG)."
        ),
    ] = False


class RahmenPosition(Params):
    vv: Annotated[
        RahmenNummer,
        Field(
            description="Betragsrahmen- or Festgebühr: Teil 4/5 (Straf-, Bußgeldsachen), "
            "2302/3102/3106 (Sozialrecht), 2500-2508 (Beratungshilfe)."
        ),
    ]
    betrag: Annotated[
        Decimal | None,
        _zahl("betrag"),
        Field(gt=0, le=100000, description="Amount within the frame (§ 14 RVG); omit for the Mittelgebühr."),
    ] = None
    pflichtverteidiger: Annotated[bool, Field(description="Court-appointed lawyer: the fixed fee (Teile 4, 5).")] = False
    umfangreich_oder_schwierig: Annotated[bool, Field(description="Nr. 2302 above 391 EUR only.")] = False


class Auslagen(Params):
    km: Annotated[Decimal | None, _zahl("km"), Field(ge=0, le=100000, description="Nr. 7003: km by own car.")] = None
    abwesenheit_stunden: Annotated[
        list[Annotated[Decimal, _zahl("abwesenheit_stunden")]],
        Field(max_length=30, description="Nr. 7005: hours away, one entry per travel day."),
    ] = []
    seiten_sw: Annotated[int, Field(ge=0, le=100000, description="Nr. 7000: copies/prints in black and white.")] = 0
    seiten_farbe: Annotated[int, Field(ge=0, le=100000, description="Nr. 7000: copies/prints in colour.")] = 0
    dateien: Annotated[int, Field(ge=0, le=1000, description="Nr. 7000 Nr. 2: electronic files handed over.")] = 0
    fahrtkosten: Annotated[
        Decimal | None, _zahl("fahrtkosten"), Field(ge=0, description="Nr. 7004: train/plane/taxi costs in EUR.")
    ] = None
    reiseauslagen: Annotated[
        Decimal | None, _zahl("reiseauslagen"), Field(ge=0, description="Nr. 7006: other travel costs (hotel, parking).")
    ] = None

    def request(self) -> rvg.AuslagenRequest:
        return rvg.AuslagenRequest(
            seiten_sw=self.seiten_sw,
            seiten_farbe=self.seiten_farbe,
            dateien=self.dateien,
            fahrtkosten=self.fahrtkosten,
            reiseauslagen=self.reiseauslagen,
        )


class Familiensache(Params):
    art: Annotated[Literal["scheidung", "kindschaft", "unterhalt"], Field(description="Kind of family matter.")]
    netto_monat: Annotated[
        Decimal | None,
        _zahl("netto_monat"),
        Field(ge=0, description="Scheidung (required): monthly net income of both spouses; 0 if none."),
    ] = None
    anrechte: Annotated[int, Field(ge=0, le=50, description="Scheidung: Anrechte in the Versorgungsausgleich.")] = 0
    kindschaftsfolgesachen: Annotated[int, Field(ge=0, le=10, description="Scheidung: Kindschaftssachen in the Verbund.")] = 0
    unterhalt_monat: Annotated[
        Decimal | None, _zahl("unterhalt_monat"), Field(ge=0, description="Unterhalt (required): monthly amount claimed.")
    ] = None
    rueckstand: Annotated[Decimal | None, _zahl("rueckstand"), Field(ge=0, description="Unterhalt: arrears due at filing.")] = (
        None
    )


class GetKostenRulesParams(Params):
    gegenstandswert: Annotated[
        Decimal | None,
        _zahl("gegenstandswert"),
        Field(
            gt=0,
            le=Decimal("1000000000"),
            description="Gegenstands-/Streitwert in EUR as a number or German string ('5.000,50'); omit to use the Akte's.",
        ),
    ] = None
    akte: Annotated[str | None, Field(max_length=40, description=AKTE_FIELD_DESCRIPTION)] = None
    datum: Annotated[
        datetime.date | None,
        Field(
            description="Date of the mandate (RVG, § 60 RVG); also the day the case became pending for the court fees "
            "(GKG, § 71 GKG) unless datum_anhaengig is given; default today."
        ),
    ] = None
    datum_anhaengig: Annotated[
        datetime.date | None,
        Field(
            description="GKG: day the proceedings became (or will become) pending, if it differs from 'datum' (the "
            "mandate): the court fees follow the law of that day (§ 71 Abs. 1 GKG)."
        ),
    ] = None
    datum_aussergerichtlich: Annotated[
        datetime.date | None,
        Field(
            description="RVG: date of the out-of-court mandate (Nr. 2300) if it differs from 'datum' (the court "
            "mandate): the Geschäftsgebühr, its Nr. 7002 and its Anrechnung follow the law of that day (§ 60 RVG)."
        ),
    ] = None
    datum_rechtsmittel: Annotated[
        datetime.date | None,
        Field(
            description="RVG: day the Berufung/Revision was filed (or its mandate given) if it differs from 'datum': "
            "its fees follow the law of that day (§ 60 Abs. 1 Satz 2 RVG)."
        ),
    ] = None
    rvg_positionen: Annotated[list[RvgPosition], Field(max_length=12, description="Lawyer's fee positions (RVG).")] = []
    gkg_nummern: Annotated[list[KvNummer], Field(max_length=6, description="Court fee numbers (KV GKG), e.g. ['1210'].")] = []
    rahmen_positionen: Annotated[
        list[RahmenPosition],
        Field(max_length=12, description="Fees that do not follow the value (Straf-, Bußgeld-, Sozialrecht, Beratungshilfe)."),
    ] = []
    auslagen: Annotated[Auslagen | None, Field(description="Auslagen Nrn. 7000, 7003-7006 VV RVG.")] = None
    familie: Annotated[
        Familiensache | None,
        Field(
            description="FamGKG: Verfahrenswert (§§ 43-51 FamGKG) and court fee of a Scheidung, Kindschafts- or Unterhaltssache."
        ),
    ] = None
    auftraggeber: Annotated[int, Field(ge=1, le=30, description="Number of clients (Nr. 1008 VV RVG increase).")] = 1
    anrechnung: Annotated[bool, Field(description="Credit the Geschäftsgebühr (Vorbem. 3 Abs. 4 VV RVG).")] = True
    pkh: Annotated[bool, Field(description="Legal aid (Prozesskostenhilfe): § 49 RVG table.")] = False
    auslagenpauschale: Annotated[bool, Field(description="Add Nr. 7002 VV RVG (20 %, max. 20 EUR).")] = True
    umsatzsteuer: Annotated[bool, Field(description="Add 19 % USt (Nr. 7008 VV RVG).")] = True


def _catalog() -> dict[str, Any]:
    return {
        "hinweis": "Gib rvg_positionen und/oder gkg_nummern an, um zu rechnen.",
        "rvg_nummern": [
            {
                "vv": n.vv,
                "bezeichnung": n.label,
                "satz": format_satz(n.regelsatz)
                if n.satz_von == n.satz_bis
                else f"{format_satz(n.satz_von)} bis {format_satz(n.satz_bis)} (Regel {format_satz(n.regelsatz)})",
            }
            for n in rvg.VV.values()
        ],
        "gkg_nummern": [{"kv": n.kv, "bezeichnung": n.label, "satz": format_satz(n.rate)} for n in gkg.KV.values()],
        "rahmen_nummern": [
            {
                "vv": g.vv,
                "bezeichnung": g.label,
                "betrag": money(g.von)
                if g.festgebuehr
                else f"{money(g.von)} bis {money(g.bis)} (Mittelgebühr {money(g.mittelgebuehr)}"
                + (f", Pflichtverteidiger {money(g.pflicht)})" if g.pflicht else ")"),
            }
            for g in rahmen.RAHMEN.values()
        ],
    }


def _rvg_data(calc: rvg.Calculation) -> dict[str, Any]:
    return {
        "fassung": calc.version_label,
        "tabelle": calc.table,
        "positionen": [_position(p) for p in calc.positions],
        "anrechnungen": [_position(p) for p in calc.anrechnungen],
        "auslagen": [_position(p) for p in calc.auslagen],
        "netto_eur": money(calc.net),
        "umsatzsteuer_eur": money(calc.ust),
        "gesamt_eur": money(calc.gross),
        "hinweise": list(calc.hinweise),
        **(
            {
                "auftragsdaten_je_angelegenheit": [
                    {"angelegenheit": angelegenheit, "datum": iso(datum), "fassung": fassung}
                    for angelegenheit, datum, fassung in calc.abweichende_fassungen
                ]
            }
            if calc.abweichende_fassungen
            else {}
        ),
        "aufstellung": rvg.describe(calc),
    }


def _auftragsdaten(params: GetKostenRulesParams) -> dict[rvg.Angelegenheit, datetime.date]:
    """The Angelegenheiten whose Auftrag (§ 60 Abs. 1 RVG) the call dates on their own."""
    daten: dict[rvg.Angelegenheit, datetime.date] = {}
    if params.datum_aussergerichtlich is not None:
        daten[rvg.Angelegenheit.AUSSERGERICHTLICH] = params.datum_aussergerichtlich
    if params.datum_rechtsmittel is not None:
        daten[rvg.Angelegenheit.BERUFUNG] = daten[rvg.Angelegenheit.REVISION] = params.datum_rechtsmittel
    return daten


def _position(p: rvg.Position) -> dict[str, Any]:
    return {
        "nr": p.vv,
        "bezeichnung": p.label,
        "satz": format_satz(p.rate) if p.rate is not None else None,
        "betrag_eur": money(p.amount),
    }


def _rahmen(params: GetKostenRulesParams, datum: datetime.date) -> dict[str, Any]:
    calc, _ = rahmen.berechne(
        auftragsdatum=datum,
        positions=[
            rahmen.RahmenRequest(
                vv=p.vv,
                betrag=p.betrag,
                pflichtverteidiger=p.pflichtverteidiger,
                umfangreich_oder_schwierig=p.umfangreich_oder_schwierig,
            )
            for p in params.rahmen_positionen
        ],
        auslagenpauschale=params.auslagenpauschale,
        ust_rate=rvg.UST_REGELSATZ if params.umsatzsteuer else Decimal("0"),
        auslagen=params.auslagen.request() if params.auslagen else None,
        auftraggeber=params.auftraggeber,
    )
    return _rvg_data(calc)


def _familie(familie: Familiensache, datum: datetime.date) -> dict[str, Any]:
    try:
        kosten = famgkg.familienkosten(
            familie.art,
            on=datum,
            netto_monat=familie.netto_monat,
            anrechte=familie.anrechte,
            kindschaftsfolgesachen=familie.kindschaftsfolgesachen,
            unterhalt_monat=familie.unterhalt_monat,
            rueckstand=familie.rueckstand,
        )
    except gkg.GkgError as exc:
        raise ToolError(str(exc)) from None
    return {
        "verfahrenswert_eur": money(kosten.verfahrenswert),
        "wertbegruendung": list(kosten.wertbegruendung),
        "gerichtsgebuehr": {"nr": kosten.kv, "bezeichnung": kosten.label, "satz": format_satz(kosten.rate)},
        "gerichtsgebuehr_eur": money(kosten.gebuehr),
        "hinweis": "Verfahrenswert als Gegenstandswert für die Anwaltsgebühren: get_kosten_rules mit gegenstandswert.",
    }


def execute(ctx: ToolContext, params: GetKostenRulesParams) -> ToolResult:
    if params.familie is not None and not (params.rvg_positionen or params.gkg_nummern or params.rahmen_positionen):
        datum = params.datum or today()
        nur_familie: dict[str, Any] = {"datum": iso(datum), "famgkg": _familie(params.familie, datum)}
        if annahmen := _annahmen(params, datum, nur_familie):
            nur_familie["annahmen"] = annahmen
        return ok(
            nur_familie,
            sources=[{"rechner": "FamGKG", "grundlage": "§§ 28, 43-51 FamGKG"}],
            count=1,
        )
    if not params.rvg_positionen and not params.gkg_nummern and not params.rahmen_positionen:
        return ok(_catalog(), sources=[{"rechner": "RVG/GKG-Rechner"}], count=0)
    if params.rahmen_positionen and not params.rvg_positionen and not params.gkg_nummern:
        datum = params.datum or today()
        try:
            nur_rahmen: dict[str, Any] = {"datum": iso(datum), "rahmengebuehren": _rahmen(params, datum)}
        except rvg.RvgError as exc:
            raise ToolError(str(exc)) from None
        if annahmen := _annahmen(params, datum, nur_rahmen):
            nur_rahmen["annahmen"] = annahmen
        return ok(
            nur_rahmen,
            sources=[{"rechner": "RVG Betragsrahmen", "fassung": rvg.RVG_2025.label}],
            count=len(params.rahmen_positionen),
        )
    akte = akte_optional(ctx, params.akte) if params.gegenstandswert is None or params.akte else None
    wert = params.gegenstandswert if params.gegenstandswert is not None else (akte.gegenstandswert if akte else None)
    if not wert:
        raise ToolError(ERR_WERT_AKTE.format(aktenzeichen=akte.aktenzeichen) if akte else ERR_WERT)
    datum = params.datum or today()
    data: dict[str, Any] = {"gegenstandswert_eur": money(wert), "datum": iso(datum)}
    if akte is not None:
        data["akte"] = akte_ref(akte)
    sources: list[dict[str, Any]] = [akte_source(akte)] if akte else []
    try:
        if params.rvg_positionen:
            calc = rvg.calculate(
                gegenstandswert=wert,
                auftragsdatum=datum,
                positions=[
                    rvg.PositionRequest(
                        vv=p.vv,
                        rate=p.satz,
                        value=p.wert,
                        umfangreich_oder_schwierig=p.umfangreich_oder_schwierig,
                        inkasso_unbestritten=p.inkasso_unbestritten,
                        zahlungsvereinbarung=p.zahlungsvereinbarung,
                    )
                    for p in params.rvg_positionen
                ],
                auftraggeber=params.auftraggeber,
                anrechnung=params.anrechnung,
                pkh=params.pkh,
                auslagenpauschale=params.auslagenpauschale,
                km=params.auslagen.km if params.auslagen else None,
                abwesenheit_stunden=params.auslagen.abwesenheit_stunden if params.auslagen else (),
                ust_rate=rvg.UST_REGELSATZ if params.umsatzsteuer else Decimal("0"),
                weitere_auslagen=params.auslagen.request() if params.auslagen else None,
                auftragsdaten=_auftragsdaten(params),
            )
            data["rvg"] = _rvg_data(calc)
            sources.append({"rechner": "RVG", "fassung": calc.version_label})
        if params.gkg_nummern:
            anhaengig = params.datum_anhaengig or datum
            positionen = gkg.kv_gebuehren(list(params.gkg_nummern), wert, on=anhaengig)
            version = gkg.version_for(anhaengig)
            data["gkg"] = {
                "fassung": version.label,
                "anhaengig": iso(anhaengig),
                "positionen": [
                    {"nr": p.kv, "bezeichnung": p.label, "satz": format_satz(p.rate), "betrag_eur": money(p.amount)}
                    for p in positionen
                ],
                "gesamt_eur": money(sum((p.amount for p in positionen), Decimal("0.00"))),
            }
            sources.append({"rechner": "GKG", "fassung": version.label})
        if params.rahmen_positionen:
            data["rahmengebuehren"] = _rahmen(params, datum)
        if params.familie is not None:
            data["famgkg"] = _familie(params.familie, datum)
    except (rvg.RvgError, gkg.GkgError) as exc:
        raise ToolError(str(exc)) from None
    annahmen = _annahmen(params, datum, data)
    if annahmen:
        data["annahmen"] = annahmen
    return ok(data, sources=sources, count=len(params.rvg_positionen) + len(params.gkg_nummern), akte=akte)


ANNAHME_ANHAENGIG = (
    "Gerichtsgebühren nach dem Recht am {datum} berechnet, dem angegebenen Datum. Maßgeblich ist, wann das Verfahren "
    "anhängig wurde (§ 71 Abs. 1 GKG), nicht der Auftrag: ist es später anhängig geworden oder wird die Klage erst "
    "jetzt eingereicht, gilt womöglich eine neuere Fassung – bitte datum_anhaengig angeben."
)


def _annahmen(params: GetKostenRulesParams, datum: datetime.date, data: dict[str, Any]) -> list[str]:
    """The inputs the call left out that change the result: the date (the fee version; also of the
    Rahmen amounts and of the FamGKG values) and, for fees that Nr. 1008 VV RVG raises, the number of
    clients."""
    annahmen = []
    if params.datum is None:
        fassung = (data.get("rvg") or data.get("gkg") or {}).get("fassung", "")
        annahmen.append(ANNAHME_KOSTEN_DATUM.format(datum=f"{datum:%d.%m.%Y}", fassung=f" ({fassung})" if fassung else ""))
    familie = params.familie
    if familie is not None and familie.art == "scheidung" and "anrechte" not in familie.model_fields_set:
        annahmen.append(ANNAHME_ANRECHTE)
    if (
        params.gkg_nummern
        and params.datum is not None
        and params.datum_anhaengig is None
        and gkg.version_for(params.datum) != gkg.version_for(today())
    ):
        annahmen.append(ANNAHME_ANHAENGIG.format(datum=f"{params.datum:%d.%m.%Y}"))
    if "auftraggeber" not in params.model_fields_set and (
        any(rvg.VV[p.vv].erhoehungsfaehig for p in params.rvg_positionen if p.vv in rvg.VV) or params.rahmen_positionen
    ):
        annahmen.append(ANNAHME_AUFTRAGGEBER)
    return annahmen


TOOL = Tool(
    name="get_kosten_rules",
    description=(
        "Calculate statutory fees: lawyer's fees under the RVG (positions of the Vergütungsverzeichnis with "
        "Nr. 1008 increase, Anrechnung, Auslagen 7000-7006, USt; Betragsrahmengebühren of Straf-, Bußgeld- and "
        "Sozialrecht with Mittelgebühr and § 14 reasoning; Beratungshilfe) and court fees under the GKG (Kostenverzeichnis), "
        "in the version that applies on 'datum'. Call it without positions to get the list of supported numbers "
        "and their rates.\n"
        "Use it for any fee or cost-risk question - never compute fees yourself. Not for billed hours "
        "(read_zeiterfassung).\n"
        "Returns {gegenstandswert_eur, datum, rvg: {positionen, anrechnungen, auslagen, netto_eur, umsatzsteuer_eur, "
        "gesamt_eur, aufstellung}, gkg: {positionen, gesamt_eur}}; amounts as decimal strings in EUR.\n"
        "Errors: no Gegenstandswert (give one or an Akte that has one); rate outside the frame of a VV number; "
        "dates before 2021.\n"
        'Example: {"gegenstandswert": 5000, "rvg_positionen": [{"vv": "3100"}, {"vv": "3104"}], "gkg_nummern": ["1210"]}'
    ),
    params=GetKostenRulesParams,
    execute=execute,
    label="Berechne Kosten …",
)
