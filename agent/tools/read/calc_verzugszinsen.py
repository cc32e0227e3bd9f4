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
            description="Tag, an dem das Schuldverhältnis entstanden ist (JJJJ-MM-TT), bei einem Vertrag der "
            "Vertragsschluss. Angeben, wenn er bekannt ist und art 'unternehmer' oder 'verbraucher_glaeubiger' ist: "
            "Ist es vor dem 29.07.2014 entstanden, gilt § 288 BGB a. F. (Art. 229 § 34 EGBGB) – 8 statt 9 "
            "Prozentpunkte und keine Pauschale von 40 €, auch wenn der Verzug erst später begann; danach das neue "
            "Recht. Weglassen, wenn unbekannt: dann gilt das alte Recht nur bei einem Zinsbeginn bis zum "
            "29.07.2014, und das Ergebnis weist auf den Fall eines älteren Schuldverhältnisses hin (dann erfragen). "
            "Vor dem 01.01.2002 entstanden: der Rechner lehnt ab (altes Recht, Art. 229 §§ 1, 5 EGBGB). "
            "Spätestens der Tag vor 'von' (der Tag des Verzugseintritts), nicht in der Zukunft.",
        ),
    ] = None


def execute(ctx: ToolContext, params: CalcVerzugszinsenParams) -> ToolResult:
    try:
        zinsen = verzugszinsen(
            hauptforderung=params.hauptforderung,
            von=params.von,
            bis=params.bis,
            art=params.art,
            entstanden=params.schuldverhaeltnis_entstanden,
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
        "Pass schuldverhaeltnis_entstanden when known for 'unternehmer'/'verbraucher_glaeubiger': a "
        "Schuldverhältnis from before 2014-07-29 keeps the old § 288 BGB (8 points, no 40 EUR).\n"
        "Errors: end before start; schuldverhaeltnis_entstanden on or after von or in the future; a Zinsbeginn or "
        "Schuldverhältnis before 2002 (old law, to be checked by hand); a period after the last stored Basiszinssatz "
        "(shipped, or added by a Kanzlei admin; the message says until when it can compute and where an admin adds "
        "the rate).\n"
        'Example: {"hauptforderung": 10000, "von": "2024-01-01", "bis": "2024-12-31", "art": "unternehmer"}'
    ),
    params=CalcVerzugszinsenParams,
    execute=execute,
)
