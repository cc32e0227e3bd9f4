"""calc_verzugszinsen: interest on a claim in default (§ 288 BGB) on the Basiszinssatz (§ 247 BGB)."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from rechner.selectors import basiszins_historie
from rechner.zahlen import parse_zahl
from rechner.zinsen import ZinsError, verzugszinsen

from ..base import Tool, ToolContext, ToolResult
from ..common import Params, ToolError, iso, money, ok, today


def _betrag(wert: Any) -> Any:
    if isinstance(wert, float):
        return Decimal(repr(wert))
    return parse_zahl(wert, feld="hauptforderung") if isinstance(wert, str) else wert


# The rate depends on whether a consumer is a party (§ 288 Abs. 1 / Abs. 2 BGB); left out, the lower
# rate is computed and the result says so.
ANNAHME_ART = (
    "Nicht angegeben, ob ein Verbraucher beteiligt ist: gerechnet mit 5 Prozentpunkten über dem Basiszinssatz "
    "(§ 288 Abs. 1 BGB). Ist an dem Rechtsgeschäft kein Verbraucher beteiligt und ist die Forderung eine "
    "Entgeltforderung (Gegenleistung für eine Ware oder Leistung, kein Schadensersatz), sind es 9 Prozentpunkte und "
    "die Pauschale von 40 € (§ 288 Abs. 2 und 5 BGB). Die Pauschale steht dem Gläubiger einer Entgeltforderung auch "
    "zu, wenn nur er Verbraucher ist und der Schuldner nicht (§ 288 Abs. 5 BGB); bitte erfragen."
)


class CalcVerzugszinsenParams(Params):
    hauptforderung: Annotated[
        Decimal, BeforeValidator(_betrag), Field(gt=0, le=Decimal("1000000000"), description="Claim in EUR ('5.000,50').")
    ]
    von: Annotated[datetime.date, Field(description="First day with interest: the day after default began (YYYY-MM-DD).")]
    bis: Annotated[datetime.date, Field(description="Last day with interest (YYYY-MM-DD), e.g. the payment day.")]
    art: Annotated[
        Literal["verbraucher", "verbraucher_glaeubiger", "unternehmer"],
        Field(
            description="'verbraucher': 5 points (§ 288 Abs. 1), when the debtor is a consumer or the claim is no "
            "Entgeltforderung (e.g. Schadensersatz); 'verbraucher_glaeubiger': the creditor is a consumer, the debtor "
            "is not, and the claim is an Entgeltforderung: 5 points and 40 EUR (§ 288 Abs. 1, 5); 'unternehmer': no "
            "consumer involved AND an Entgeltforderung (price for goods or services), 9 points and 40 EUR "
            "(§ 288 Abs. 2, 5)."
        ),
    ] = "verbraucher"
    schuldverhaeltnis_entstanden: Annotated[
        datetime.date | None,
        Field(
            description="Tag, an dem das Schuldverhältnis entstanden ist (JJJJ-MM-TT), bei einem Vertrag der Tag des "
            "Vertragsschlusses. Nur einen bekannten Tag angeben: nie das Datum der Rechnung, der Lieferung, der "
            "Leistung oder der Fälligkeit ersatzweise einsetzen – sie liegen nach dem Vertragsschluss und führen "
            "fälschlich zum neuen Recht. Ist der Vertragsschluss unbekannt und art 'unternehmer' oder "
            "'verbraucher_glaeubiger', weglassen und den Nutzer danach fragen. Vor dem 29.07.2014 entstanden: "
            "§ 288 BGB a. F. (Art. 229 § 34 Satz 1 EGBGB) – 8 statt 9 Prozentpunkte und keine Pauschale von 40 €, "
            "auch wenn der Verzug erst später begann. Ausnahme (Satz 2): Bei einem Dauerschuldverhältnis (z. B. "
            "Miete, Leasing, Dienstvertrag, Abonnement) gilt für Gegenleistungen, die nach dem 30.06.2016 erbracht "
            "wurden, das neue Recht – dann zusätzlich dauerschuldverhaeltnis=true. Vor dem 01.01.2002 entstanden: "
            "der Rechner lehnt ab (altes Recht, Art. 229 §§ 1, 5 EGBGB), außer mit dauerschuldverhaeltnis=true. "
            "Ohne diese Angabe gilt das alte Recht nur bei einem Zinsbeginn bis zum 29.07.2014, und das Ergebnis "
            "weist auf den Fall eines älteren Schuldverhältnisses hin. Spätestens der Tag vor 'von' (der Tag des "
            "Verzugseintritts), nicht in der Zukunft.",
        ),
    ] = None
    dauerschuldverhaeltnis: Annotated[
        bool,
        Field(
            description="true nur, wenn beides feststeht: Das Schuldverhältnis ist ein Dauerschuldverhältnis (z. B. "
            "Miete, Leasing, Dienstvertrag, Abonnement), und die Forderung ist das Entgelt für eine Gegenleistung, "
            "die nach dem 30.06.2016 erbracht wurde (die Leistung des Gläubigers, für die gezahlt wird, z. B. die "
            "Überlassung der Mietsache im Juli 2016 bei der Miete für Juli 2016 – nicht der Tag der Zahlung und nicht "
            "der Zinszeitraum). Dann gilt das neue Recht (9 Prozentpunkte und 40 € bei 'unternehmer', 40 € bei "
            "'verbraucher_glaeubiger'), auch wenn das Schuldverhältnis vor dem 29.07.2014 entstanden ist (Art. 229 "
            "§ 34 Satz 2 EGBGB). Betrifft die Forderung Gegenleistungen bis zum 30.06.2016: false; umfasst sie "
            "Gegenleistungen vor und nach diesem Tag, die Teile getrennt berechnen; ist es unbekannt, den Nutzer "
            "fragen. Mit einem Zinsbeginn vor dem 29.07.2014 lehnt der Rechner ab.",
        ),
    ] = False


def execute(ctx: ToolContext, params: CalcVerzugszinsenParams) -> ToolResult:
    try:
        zinsen = verzugszinsen(
            hauptforderung=params.hauptforderung,
            von=params.von,
            bis=params.bis,
            art=params.art,
            entstanden=params.schuldverhaeltnis_entstanden,
            dauerschuldverhaeltnis=params.dauerschuldverhaeltnis,
            heute=today(),
            historie=basiszins_historie(),
        )
    except ZinsError as exc:
        raise ToolError(str(exc)) from None
    data: dict[str, Any] = {
        "hauptforderung_eur": money(zinsen.hauptforderung),
        "von": iso(zinsen.von),
        "bis": iso(zinsen.bis),
        **({"schuldverhaeltnis_entstanden": iso(zinsen.entstanden)} if zinsen.entstanden else {}),
        **({"dauerschuldverhaeltnis": True} if zinsen.dauerschuldverhaeltnis else {}),
        "perioden": [
            {
                "von": iso(p.von),
                "bis": iso(p.bis),
                "tage": p.tage,
                "basiszins_prozent": str(p.basiszins),
                "zinssatz_prozent": str(p.zinssatz),
                "zinsen_eur": money(p.zinsen),
            }
            for p in zinsen.perioden
        ],
        "zinsen_eur": money(zinsen.zinsen),
        "pauschale_288_5_eur": money(zinsen.pauschale),
        "erlaeuterung": zinsen.erlaeuterung,
    }
    if "art" not in params.model_fields_set:
        data["annahmen"] = [ANNAHME_ART]
    return ok(data, sources=[{"rechner": "Verzugszinsen", "grundlage": "§§ 247, 288 BGB, Basiszinssatz der Bundesbank"}])


TOOL = Tool(
    name="calc_verzugszinsen",
    description=(
        "Compute Verzugszinsen under § 288 BGB from date to date on the Basiszinssatz history (§ 247 BGB), split "
        "by half year, exact days per calendar year.\n"
        "Use it for interest claims in dunning letters, lawsuits and settlements - never compute interest yourself.\n"
        "Returns {zinsen_eur, perioden: [{von, bis, tage, basiszins_prozent, zinssatz_prozent, zinsen_eur}], "
        "pauschale_288_5_eur, erlaeuterung}.\n"
        "For 'unternehmer'/'verbraucher_glaeubiger' pass schuldverhaeltnis_entstanden only when the day the "
        "Schuldverhältnis arose (Vertragsschluss) is known - never an invoice, delivery or due date instead; ask the "
        "user when it is unknown. A Schuldverhältnis from before 2014-07-29 keeps the old § 288 BGB (8 points, no "
        "40 EUR), except a Dauerschuldverhältnis (rent, leasing, service contract, subscription) for Gegenleistungen "
        "rendered after 2016-06-30: then also dauerschuldverhaeltnis=true (new law).\n"
        "Errors: end before start; schuldverhaeltnis_entstanden on or after von or in the future; a Zinsbeginn or "
        "Schuldverhältnis before 2002 (old law, to be checked by hand); a period after the last stored Basiszinssatz "
        "(shipped, or added by a Kanzlei admin; the message says until when it can compute and where an admin adds "
        "the rate).\n"
        'Example: {"hauptforderung": 10000, "von": "2024-01-01", "bis": "2024-12-31", "art": "unternehmer"}'
    ),
    params=CalcVerzugszinsenParams,
    execute=execute,
)
