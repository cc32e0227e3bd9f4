"""Prozesskostenrisiko: what a civil case costs the losing party in one or two instances.

Per instance the loser bears (§ 91 Abs. 1 ZPO) the own lawyer, the opposing lawyer and the court:
- erster Rechtszug: Nrn. 3100 (1,3) and 3104 (1,2) VV RVG, Nr. 1210 KV GKG (3,0);
- Berufung: Nrn. 3200 (1,6) and 3202 (1,2) VV RVG, Nr. 1220 KV GKG (4,0);
- each lawyer with Nr. 7002 and 19 % USt (Nr. 7008); the client's own lawyer without USt if the
  client may deduct input tax. The opposing lawyer keeps the USt: the loser reimburses it unless the
  winner may deduct it (§ 104 Abs. 2 Satz 3 ZPO), which the client cannot know.
In the labour court's first instance each party bears its own lawyer whatever the outcome (§ 12a
Abs. 1 Satz 1 ArbGG); the court fee is Nr. 8210 KV GKG (2,0). The Berufung to the LAG follows § 91 ZPO
(Nr. 8220 KV GKG, 3,2). Amounts follow the versions in force on ``datum`` (§ 60 RVG, § 71 GKG).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Literal

from rechner import gkg, rvg
from rechner.rvg import PositionRequest
from rechner.tabellen import format_euro

Gericht = Literal["zivil", "arbeit"]

FEHLER_INSTANZEN = "Bitte eine oder zwei Instanzen angeben (angegeben: {wert})."
FEHLER_GERICHT = "Unbekannte Gerichtsbarkeit „{wert}“: zulässig sind „zivil“ und „arbeit“."
HINWEIS_VORSTEUER = (
    "Eigener Anwalt ohne Umsatzsteuer (Vorsteuerabzug). Der Gegenanwalt ist mit Umsatzsteuer gerechnet: Sie ist "
    "nur dann nicht zu erstatten, wenn der Gegner zum Vorsteuerabzug berechtigt ist (§ 104 Abs. 2 Satz 3 ZPO)."
)

HINWEIS_ANHAENGIG = (
    "Gerichtsgebühr des ersten Rechtszugs nach dem Recht vom {datum:%d.%m.%Y} ({alt}): maßgeblich ist, wann die Klage "
    "anhängig wurde (§ 71 Abs. 1 GKG). Wird sie erst jetzt eingereicht, beträgt sie {neu} (Recht vom {heute:%d.%m.%Y})."
)

HINWEIS_BERUFUNGSSUMME = {
    "zivil": (
        "Die Berufung ist nur zulässig, wenn der Wert des Beschwerdegegenstands {summe} übersteigt oder das Gericht "
        "sie im Urteil zulässt (§ 511 Abs. 2 ZPO{uebergang}); bei einem Streitwert von {wert} also nur nach Zulassung."
    ),
    "arbeit": (
        "Die Berufung ist nur zulässig, wenn der Wert des Beschwerdegegenstands {summe} übersteigt, das Arbeitsgericht "
        "sie zulässt oder es um Bestand, Begründung oder Kündigung eines Arbeitsverhältnisses geht (§ 64 Abs. 2 "
        "ArbGG); bei einem Streitwert von {wert} sonst nur nach Zulassung."
    ),
}
# § 511 Abs. 2 Nr. 1 ZPO: 1 000 Euro for decisions from 2026 on, 600 Euro before (§ 47 Abs. 1 EGZPO)
BERUFUNGSSUMME_ZPO_AB = date(2026, 1, 1)


def berufungssumme(gericht: str, urteil_ab: date) -> Decimal:
    """The value the Beschwer must exceed for a Berufung without Zulassung: § 64 Abs. 2 lit. b ArbGG,
    § 511 Abs. 2 Nr. 1 ZPO (for a judgment given, or heard to its end, from ``urteil_ab`` on)."""
    if gericht == "arbeit" or urteil_ab < BERUFUNGSSUMME_ZPO_AB:
        return Decimal("600")
    return Decimal("1000")


_INSTANZEN: dict[str, tuple[tuple[str, tuple[str, ...], str], ...]] = {
    "zivil": (("Erster Rechtszug", ("3100", "3104"), "1210"), ("Berufung", ("3200", "3202"), "1220")),
    "arbeit": (("Erster Rechtszug (Arbeitsgericht)", ("3100", "3104"), "8210"), ("Berufung (LAG)", ("3200", "3202"), "8220")),
}


@dataclass(frozen=True)
class RisikoZeile:
    instanz: str
    eigener_anwalt: Decimal
    gegenanwalt: Decimal  # what the loser must reimburse; 0 in the labour court's first instance
    gericht: Decimal
    summe: Decimal
    gegenanwalt_erstattungsfaehig: bool


@dataclass(frozen=True)
class Prozesskostenrisiko:
    streitwert: Decimal
    datum: date
    gericht: str
    zeilen: tuple[RisikoZeile, ...]
    gesamt: Decimal
    hinweise: tuple[str, ...]


def prozesskostenrisiko(
    *,
    streitwert: Decimal,
    datum: date,
    instanzen: int = 1,
    gericht: str = "zivil",
    vorsteuerabzug: bool = False,
    heute: date,
) -> Prozesskostenrisiko:
    """The cost risk of losing completely in ``instanzen`` (1 or 2) instances, as table rows.

    ``datum`` is the Auftrag (and filing) of the first instance. A Berufung is commissioned and filed
    later, not before ``heute``: its fees follow the law of that day (§ 60 Abs. 1 RVG, § 71 Abs. 1
    Satz 2 GKG), so an estimate for an old mandate does not charge an appeal at the old tables.

    Raises RvgError or GkgError (German messages) for invalid values and dates.
    """
    if isinstance(instanzen, bool) or instanzen not in (1, 2):
        raise rvg.RvgError(FEHLER_INSTANZEN.format(wert=instanzen))
    if gericht not in _INSTANZEN:
        raise rvg.RvgError(FEHLER_GERICHT.format(wert=gericht))
    zeilen: list[RisikoZeile] = []
    hinweise = [
        "Annahme: vollständiges Unterliegen nach streitiger Verhandlung ohne Vergleich; Gegenanwalt mit denselben "
        "Gebühren; ohne Reisekosten, Sachverständige und Zeugen.",
    ]
    berufung_ab = max(datum, heute)
    for index, (name, vv_nummern, kv) in enumerate(_INSTANZEN[gericht][:instanzen]):
        stichtag = datum if index == 0 else berufung_ab
        berechnung = rvg.calculate(
            gegenstandswert=streitwert,
            auftragsdatum=stichtag,
            positions=[PositionRequest(vv) for vv in vv_nummern],
            anrechnung=False,
        )
        anwalt = berechnung.net if vorsteuerabzug else berechnung.gross
        erstattung = not (gericht == "arbeit" and index == 0)
        gegner = berechnung.gross if erstattung else Decimal("0.00")
        gebuehr = gkg.kv_gebuehr(kv, streitwert, on=stichtag).amount
        if index == 0 and gkg.version_for(datum) != gkg.version_for(berufung_ab):
            # § 71 Abs. 1 GKG: the court fee follows the day the case became pending, which may be
            # today rather than the day of the mandate
            spaeter = gkg.kv_gebuehr(kv, streitwert, on=berufung_ab).amount
            hinweise.append(
                HINWEIS_ANHAENGIG.format(datum=datum, alt=format_euro(gebuehr), neu=format_euro(spaeter), heute=heute)
            )
        zeilen.append(RisikoZeile(name, anwalt, gegner, gebuehr, anwalt + gegner + gebuehr, erstattung))
    if instanzen == 2 and berufung_ab != datum:
        hinweise.append(
            f"Berufung gerechnet nach dem Recht vom {berufung_ab:%d.%m.%Y}: sie wird frühestens heute beauftragt und "
            "eingelegt (§ 60 Abs. 1 RVG, § 71 Abs. 1 Satz 2 GKG)."
        )
    if instanzen == 2 and streitwert <= (summe := berufungssumme(gericht, berufung_ab)):
        # the Beschwer cannot exceed the value in dispute: the estimate adds an instance that needs Zulassung
        uebergang = ", für vor 2026 verkündete Urteile 600 € nach § 47 Abs. 1 EGZPO" if gericht == "zivil" else ""
        hinweise.append(
            HINWEIS_BERUFUNGSSUMME[gericht].format(summe=format_euro(summe), wert=format_euro(streitwert), uebergang=uebergang)
        )
    if vorsteuerabzug:
        hinweise.append(HINWEIS_VORSTEUER)
    if gericht == "arbeit":
        hinweise.append(
            "Arbeitsgericht erster Instanz: keine Erstattung der Anwaltskosten, jede Partei trägt ihren Anwalt "
            "(§ 12a Abs. 1 Satz 1 ArbGG); ein gerichtlicher Vergleich lässt die Gerichtsgebühr entfallen."
        )
    return Prozesskostenrisiko(
        streitwert=streitwert,
        datum=datum,
        gericht=gericht,
        zeilen=tuple(zeilen),
        gesamt=sum((z.summe for z in zeilen), Decimal("0.00")),
        hinweise=tuple(hinweise),
    )
