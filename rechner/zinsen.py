"""Verzugszinsen (§ 288 BGB) on the Basiszinssatz (§ 247 BGB) from date to date.

Legal basis
- § 288 Abs. 1 BGB: 5 percentage points above the Basiszinssatz; § 288 Abs. 2 BGB: 9 points for an
  Entgeltforderung where no consumer is involved; § 288 Abs. 5 BGB: 40 EUR Pauschale in that case.
- § 247 BGB: the Basiszinssatz changes on 1 January and 1 July; its history is shipped in
  ``data/basiszinssatz.json`` (Deutsche Bundesbank). A Kanzlei adds later half years in the admin
  (``rechner.models.Basiszinssatz``); callers pass that extended history in (``historie``), the
  functions here stay free of Django. Periods after the last known half year are refused.
- Art. 229 § 34 EGBGB: § 288 Abs. 2 (9 points) and Abs. 5 (40 EUR) in the version in force since
  2014-07-29 apply only to Schuldverhältnisse that arose after 2014-07-28; for older ones § 288 a. F.
  applies: 8 points for the Entgeltforderung without a consumer, no Pauschale. A Zinsbeginn up to
  2014-07-29 means default began by 2014-07-28, so the Schuldverhältnis is older: the old law is
  applied. A later Zinsbeginn may still belong to an older Schuldverhältnis; the result says so. A
  caller who knows the day the Schuldverhältnis arose (``entstanden``) passes it: up to 2014-07-28 the
  old law applies to the whole period, later the new one, without the note.
- Art. 229 § 34 Satz 2 EGBGB: an older Dauerschuldverhältnis follows the new law "soweit die Gegenleistung
  nach dem 30. Juni 2016 erbracht wird". The Gegenleistung is the creditor's performance the Entgelt is
  owed for (the word the same 2014 law uses in § 271a BGB: "Empfang der Gegenleistung"), e.g. the use of
  a flat in July 2016 for July's rent; it is neither the interest period nor the day of payment. The
  calculator cannot know it: ``dauerschuldverhaeltnis`` is the caller's statement that the claim is the
  Entgelt for such a Gegenleistung after 2016-06-30 from a Dauerschuldverhältnis. Then the new law applies
  to the whole claim, whenever the Schuldverhältnis arose (one older than 2002 has followed the BGB then
  in force since 2003, Art. 229 § 5 Satz 2 EGBGB). A claim for Gegenleistungen on both sides of the day
  is to be split by the caller. The new law did not exist before 2014-07-29: with the statement, a
  Zinsbeginn before that day is refused.
- Art. 229 § 5 EGBGB: for a Schuldverhältnis older than 2002 § 288 BGB in its version up to 2001-12-31
  applies (a Dauerschuldverhältnis from 2003 the BGB then in force). That version had one rate for
  everybody, and which one depends on the day the claim fell due, which the calculator does not know:
  5 points over the Basiszinssatz for claims due from 2000-05-01, before that § 288 BGB and § 352 HGB in
  their older version (Art. 229 § 1 Abs. 1 Satz 3 EGBGB). Until 2001-12-31 the Basiszinssatz was that of
  the Diskontsatz-Überleitungs-Gesetz (Art. 229 § 7 EGBGB), not in the shipped history. So a
  Schuldverhältnis that arose before 2002, and a Zinsbeginn before 2002 (default, and so the
  Schuldverhältnis, is older), is refused for every kind of party with one German message.
- Interest runs from the day after Verzugseintritt (§ 187 Abs. 1 BGB analogously); ``von`` is the
  first and ``bis`` the last day with interest. Days are counted exactly and divided by the days of
  their calendar year (365 or 366); every half year and year is a period of its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Literal, NamedTuple

from rechner.tabellen import als_decimal, format_datum, format_euro, format_zahl, runde_cent

DATEN = Path(__file__).resolve().parent / "data" / "basiszinssatz.json"

# "verbraucher": a consumer is a party, or the claim is no Entgeltforderung (§ 288 Abs. 1 BGB);
# "verbraucher_glaeubiger": only the creditor is a consumer, the debtor is not, and the claim is an
# Entgeltforderung: 5 points, and the 40 EUR of § 288 Abs. 5 BGB, which asks only about the debtor;
# "unternehmer": no consumer is a party and the claim is an Entgeltforderung (§ 288 Abs. 2, 5 BGB).
Glaeubigerart = Literal["verbraucher", "verbraucher_glaeubiger", "unternehmer"]
AUFSCHLAG: dict[str, Decimal] = {"verbraucher": Decimal(5), "verbraucher_glaeubiger": Decimal(5), "unternehmer": Decimal(9)}
MIT_PAUSCHALE = frozenset({"verbraucher_glaeubiger", "unternehmer"})
PAUSCHALE_288_5 = Decimal("40.00")
# Art. 229 § 34 EGBGB: the last Zinsbeginn whose Schuldverhältnis certainly arose before 2014-07-29
# (interest runs from the day after default began, and default never precedes the Schuldverhältnis)
ALTES_RECHT_BIS = date(2014, 7, 29)
AUFSCHLAG_ALT: dict[str, Decimal] = {**AUFSCHLAG, "unternehmer": Decimal(8)}  # § 288 Abs. 2 BGB a. F.
HINWEIS_ALTES_RECHT = (
    "Zinsbeginn {von}: Das Schuldverhältnis ist vor dem 29.07.2014 entstanden. Für solche Schuldverhältnisse gilt "
    "§ 288 BGB in der bis zum 28.07.2014 geltenden Fassung (Art. 229 § 34 EGBGB): {folge}. Ist es schon vor dem "
    "01.01.2002 entstanden, gilt älteres Recht (Art. 229 § 5 EGBGB), das Helena nicht berechnet; bitte dann von Hand "
    "prüfen."
)
FOLGE_ALT = {
    "unternehmer": "8 statt 9 Prozentpunkte über dem Basiszinssatz und keine Pauschale nach § 288 Abs. 5 BGB",
    "verbraucher_glaeubiger": "keine Pauschale nach § 288 Abs. 5 BGB",
}
# Art. 229 § 34 Satz 1 EGBGB: the last day on which a Schuldverhältnis arose under the old law
ALTES_RECHT_ENTSTANDEN_BIS = date(2014, 7, 28)
HINWEIS_ALTES_RECHT_ENTSTANDEN = (
    "Das Schuldverhältnis ist am {entstanden} entstanden, also vor dem 29.07.2014. Dafür gilt § 288 BGB in der bis "
    "zum 28.07.2014 geltenden Fassung (Art. 229 § 34 Satz 1 EGBGB): {folge}. Bei einem Dauerschuldverhältnis gilt "
    "für Gegenleistungen, die nach dem 30.06.2016 erbracht werden, das neue Recht (Art. 229 § 34 Satz 2 EGBGB); "
    "für eine solche Forderung gilt dieses Ergebnis nicht, sie ist als Dauerschuldverhältnis mit Gegenleistung nach "
    "dem 30.06.2016 zu rechnen."
)
# Art. 229 § 34 Satz 2 EGBGB: the new law for an older Dauerschuldverhältnis's Gegenleistung after 2016-06-30
NEUES_RECHT_AB = date(2014, 7, 29)
ANLASS_ENTSTANDEN_VOR_2014 = "Das Schuldverhältnis ist am {entstanden} entstanden, also vor dem 29.07.2014. "
HINWEIS_DAUERSCHULD = (
    "{anlass}Für eine Forderung aus einem Dauerschuldverhältnis, deren Gegenleistung nach dem 30.06.2016 erbracht "
    "wurde, gilt § 288 BGB in der seit dem 29.07.2014 geltenden Fassung, auch wenn das Schuldverhältnis vorher "
    "entstanden ist (Art. 229 § 34 Satz 2 EGBGB){vor_2002}; so ist hier gerechnet. Für Gegenleistungen bis zum "
    "30.06.2016 gilt bei einem vor dem 29.07.2014 entstandenen Schuldverhältnis das alte Recht: bitte getrennt rechnen."
)
DAUERSCHULD_VOR_2002 = (
    ", auch vor dem 01.01.2002 (ein solches Dauerschuldverhältnis folgt seit dem 01.01.2003 dem jeweils geltenden "
    "BGB, Art. 229 § 5 Satz 2 EGBGB)"
)
FEHLER_DAUERSCHULD_VOR_2014 = (
    "Zinsbeginn {von}: Die Angabe „Dauerschuldverhältnis, Gegenleistung nach dem 30.06.2016“ führt zu § 288 BGB in "
    "der seit dem 29.07.2014 geltenden Fassung (Art. 229 § 34 Satz 2 EGBGB), die für Zinstage vor dem 29.07.2014 "
    "nicht gilt. Diese Berechnung unterstützt Helena nicht; bitte von Hand prüfen."
)
# Art. 229 § 5 EGBGB: an older Schuldverhältnis keeps § 288 BGB as in force up to 2001-12-31
SCHULDRECHTSREFORM = date(2002, 1, 1)
ANLASS_ENTSTANDEN_VOR_2002 = "Das Schuldverhältnis ist am {entstanden} entstanden, also vor dem 01.01.2002."
ANLASS_BEGINN_VOR_2002 = (
    "Der Zinsbeginn ({von}) liegt vor dem 01.01.2002, also ist auch das Schuldverhältnis vor dem 01.01.2002 "
    "entstanden; bis dahin galt statt des Basiszinssatzes nach § 247 BGB der nach dem Diskontsatz-Überleitungs-Gesetz "
    "(Art. 229 § 7 Abs. 2 EGBGB)."
)
FEHLER_ALTES_SCHULDRECHT = (
    "{anlass} Für ein solches Schuldverhältnis gilt § 288 BGB in der bis zum 31.12.2001 geltenden Fassung (Art. 229 "
    "§ 5 Satz 1 EGBGB), für ein Dauerschuldverhältnis vom 01.01.2003 an das dann geltende Recht (Satz 2). Nach der "
    "alten Fassung hängt der Zinssatz davon ab, wann die Forderung fällig wurde (Art. 229 § 1 Abs. 1 Satz 3 EGBGB): "
    "ab dem 01.05.2000 fünf Prozentpunkte über dem Basiszinssatz, auch zwischen Unternehmern und ohne Pauschale; "
    "vorher ein fester Zinssatz nach § 288 BGB und § 352 HGB in der davor geltenden Fassung. Diese Berechnung "
    "unterstützt Helena nicht; bitte von Hand prüfen."
)
FEHLER_ENTSTANDEN_DATUM = "Bitte gib den Tag, an dem das Schuldverhältnis entstanden ist, als Datum an (angegeben: {wert})."
FEHLER_ENTSTANDEN_ZUKUNFT = "Das Schuldverhältnis kann nicht in der Zukunft entstanden sein (angegeben: {entstanden})."
FEHLER_ENTSTANDEN_NACH_BEGINN = (
    "Das Schuldverhältnis kann nicht am {entstanden} entstanden sein: Der Zinsbeginn ({von}) ist der Tag nach dem "
    "Eintritt des Verzugs, und Verzug setzt eine bestehende Forderung voraus. Das Schuldverhältnis ist also spätestens "
    "am {spaetestens} entstanden."
)
HINWEIS_ENTSTEHUNG = (
    "Ist das Schuldverhältnis vor dem 29.07.2014 entstanden, gilt § 288 BGB a. F. (Art. 229 § 34 EGBGB; bei einem "
    "Dauerschuldverhältnis nur für Gegenleistungen bis zum 30.06.2016): {folge}."
)

FEHLER_BETRAG = "Die Hauptforderung muss größer als 0 Euro sein (angegeben: {wert})."
FEHLER_DATUM = "Bitte gib Beginn und Ende der Verzinsung als Datum an (angegeben: {wert})."
FEHLER_REIHENFOLGE = "Das Ende der Verzinsung ({bis}) liegt vor ihrem Beginn ({von})."
FEHLER_VOR_2002 = "Der Basiszinssatz nach § 247 BGB ist ab dem 01.01.2002 hinterlegt; Beginn {von} liegt davor."
FEHLER_NICHT_HINTERLEGT = (
    "Der Basiszinssatz ab dem {ab} ist im Rechner noch nicht hinterlegt (zuletzt gültig bis {bis}). Eine Administratorin "
    "oder ein Administrator kann den von der Deutschen Bundesbank bekanntgemachten Satz unter Verwaltung → Rechner → "
    "Basiszinssätze ergänzen; bis dahin kannst du die Verzinsung bis {bis} berechnen."
)
FEHLER_ART = (
    "Unbekannte Art „{wert}“: zulässig sind „verbraucher“ (§ 288 Abs. 1 BGB), „verbraucher_glaeubiger“ (§ 288 Abs. 1, 5 "
    "BGB) und „unternehmer“ (§ 288 Abs. 2, 5 BGB)."
)


class ZinsError(ValueError):
    """Invalid input for an interest calculation; the message is German."""


@dataclass(frozen=True)
class Basiszins:
    gueltig_ab: date
    satz: Decimal  # percent


class Zinshistorie(NamedTuple):
    """Basiszinssätze half year by half year, without gaps, and the last day they cover."""

    werte: tuple[Basiszins, ...]
    gueltig_bis: date


@lru_cache(maxsize=1)
def basiszinssaetze() -> Zinshistorie:
    """The shipped history (a file of the release: caching it per process is safe)."""
    daten = json.loads(DATEN.read_text(encoding="utf-8"))
    werte = tuple(Basiszins(date.fromisoformat(ab), Decimal(satz)) for ab, satz in daten["werte"])
    return Zinshistorie(werte, date.fromisoformat(daten["gueltig_bis"]))


def ist_halbjahresbeginn(tag: date) -> bool:
    """1 January or 1 July: the only days the Basiszinssatz changes (§ 247 Abs. 1 Satz 2 BGB)."""
    return tag.day == 1 and tag.month in (1, 7)


def historie_ergaenzt(historie: Zinshistorie, ergaenzungen: Iterable[Basiszins]) -> Zinshistorie:
    """``historie`` continued by ``ergaenzungen`` (ordered by ``gueltig_ab``) as far as they follow on half year
    by half year. An entry after a gap ends the history: for the gap the last known rate would silently apply."""
    werte, bis = list(historie.werte), historie.gueltig_bis
    for eintrag in ergaenzungen:
        if eintrag.gueltig_ab <= bis:
            continue
        if eintrag.gueltig_ab != bis + timedelta(days=1) or not ist_halbjahresbeginn(eintrag.gueltig_ab):
            break
        werte.append(eintrag)
        bis = halbjahr_ende(eintrag.gueltig_ab)
    return Zinshistorie(tuple(werte), bis)


def basiszins_am(tag: date, historie: Zinshistorie | None = None) -> Decimal:
    """The Basiszinssatz in percent on ``tag`` (``historie``: the shipped one unless given).
    Raises ZinsError outside the history."""
    werte, bis = historie if historie is not None else basiszinssaetze()
    if tag < werte[0].gueltig_ab:
        raise ZinsError(FEHLER_VOR_2002.format(von=format_datum(tag)))
    if tag > bis:
        raise ZinsError(FEHLER_NICHT_HINTERLEGT.format(ab=format_datum(bis + timedelta(days=1)), bis=format_datum(bis)))
    return [w.satz for w in werte if w.gueltig_ab <= tag][-1]


@dataclass(frozen=True)
class Zinsperiode:
    von: date
    bis: date
    tage: int
    jahrestage: int
    basiszins: Decimal
    zinssatz: Decimal
    zinsen: Decimal  # rounded to cents for display; the total is rounded once


@dataclass(frozen=True)
class Zinsberechnung:
    hauptforderung: Decimal
    art: str
    von: date
    bis: date
    perioden: tuple[Zinsperiode, ...]
    zinsen: Decimal
    pauschale: Decimal
    erlaeuterung: str
    entstanden: date | None = None  # the day the Schuldverhältnis arose, as the caller gave it
    # the caller's statement: Dauerschuldverhältnis, the claim pays for a Gegenleistung after 2016-06-30
    dauerschuldverhaeltnis: bool = False


def halbjahr_ende(tag: date) -> date:
    """The last day of the half year of ``tag``."""
    return date(tag.year, 6, 30) if tag.month < 7 else date(tag.year, 12, 31)


def angabe(wert: object) -> str:
    """A rejected input as a German user reads it: a day as "Montag, 01.01.2020" (with the time if there is one),
    text in quotes, never Python's repr."""
    if isinstance(wert, datetime):
        return f"{format_datum(wert.date())}, {wert:%H:%M} Uhr"
    if isinstance(wert, date):
        return format_datum(wert)
    if wert is None or wert == "":
        return "nichts"
    return f"„{wert}“"


def pruefe_entstanden(entstanden: object, *, von: date | None, heute: date) -> None:
    """Raise ZinsError (German) unless ``entstanden`` is a day not after ``heute`` and before the Zinsbeginn ``von``:
    ``von`` is the day after default began, and default needs the claim, so the Schuldverhältnis arose by ``von`` - 1
    at the latest. ``von`` None (not known, e.g. an invalid form field): only the day itself is checked."""
    if isinstance(entstanden, datetime) or not isinstance(entstanden, date):
        raise ZinsError(FEHLER_ENTSTANDEN_DATUM.format(wert=angabe(entstanden)))
    if entstanden > heute:
        raise ZinsError(FEHLER_ENTSTANDEN_ZUKUNFT.format(entstanden=format_datum(entstanden)))
    if von is not None and entstanden >= von:
        raise ZinsError(
            FEHLER_ENTSTANDEN_NACH_BEGINN.format(
                entstanden=format_datum(entstanden), von=format_datum(von), spaetestens=format_datum(von - timedelta(days=1))
            )
        )


def verzugszinsen(
    *,
    hauptforderung: object,
    von: date,
    bis: date,
    art: str = "verbraucher",
    entstanden: date | None = None,
    dauerschuldverhaeltnis: bool = False,
    heute: date | None = None,
    historie: Zinshistorie | None = None,
) -> Zinsberechnung:
    """Interest under § 288 BGB on ``hauptforderung`` for every day from ``von`` to ``bis`` (both included).

    ``art`` (``Glaeubigerart``): "unternehmer" (no consumer involved, Entgeltforderung) 9 points and the 40 EUR
    Pauschale; "verbraucher_glaeubiger" (a consumer's Entgeltforderung against a debtor who is none) 5 points and the
    Pauschale; "verbraucher" 5 points. For a Zinsbeginn up to 2014-07-29 the Schuldverhältnis is older than the
    2014 reform and § 288 BGB a. F. applies (Art. 229 § 34 EGBGB): 8 points instead of 9, no Pauschale.
    ``entstanden``: the day the Schuldverhältnis arose, if known; it decides instead of the Zinsbeginn (up to
    2014-07-28 the old law, later the new one). It may lie neither after ``heute`` (required with it) nor on or after
    ``von`` (the day after default began). A Schuldverhältnis or Zinsbeginn before 2002 is refused for every ``art``
    (Art. 229 §§ 1, 5, 7 EGBGB: the rate depends on the Fälligkeit, and the old Basiszinssatz is not shipped).
    ``dauerschuldverhaeltnis``: the caller states that the claim is the Entgelt from a Dauerschuldverhältnis for a
    Gegenleistung rendered after 2016-06-30; then the new law applies however old the Schuldverhältnis is
    (Art. 229 § 34 Satz 2 EGBGB), and a Zinsbeginn before 2014-07-29 is refused.
    ``historie``: the Basiszinssätze to use; without it only the shipped ones (the pages and the agent tool pass
    ``rechner.selectors.basiszins_historie()``, which adds the Kanzlei's entries). Raises ZinsError with a German message.
    """
    historie = historie if historie is not None else basiszinssaetze()
    try:
        betrag = als_decimal(hauptforderung, feld="Hauptforderung")
    except ValueError as fehler:
        raise ZinsError(str(fehler)) from None
    if betrag <= 0:
        raise ZinsError(FEHLER_BETRAG.format(wert=format_euro(betrag)))
    for wert in (von, bis):
        if isinstance(wert, datetime) or not isinstance(wert, date):
            raise ZinsError(FEHLER_DATUM.format(wert=angabe(wert)))
    if bis < von:
        raise ZinsError(FEHLER_REIHENFOLGE.format(von=format_datum(von), bis=format_datum(bis)))
    if art not in AUFSCHLAG:
        raise ZinsError(FEHLER_ART.format(wert=art))
    if von < SCHULDRECHTSREFORM:
        raise ZinsError(FEHLER_ALTES_SCHULDRECHT.format(anlass=ANLASS_BEGINN_VOR_2002.format(von=format_datum(von))))
    if dauerschuldverhaeltnis and von < NEUES_RECHT_AB:
        raise ZinsError(FEHLER_DAUERSCHULD_VOR_2014.format(von=format_datum(von)))
    # refuses periods outside the history before any work, naming the day that lies outside
    basiszins_am(von, historie)
    basiszins_am(bis, historie)
    if entstanden is not None:
        if heute is None:
            raise TypeError("verzugszinsen(): entstanden needs heute, the caller's today")
        pruefe_entstanden(entstanden, von=von, heute=heute)
        if entstanden < SCHULDRECHTSREFORM and not dauerschuldverhaeltnis:
            anlass = ANLASS_ENTSTANDEN_VOR_2002.format(entstanden=format_datum(entstanden))
            raise ZinsError(FEHLER_ALTES_SCHULDRECHT.format(anlass=anlass))
        vorher_entstanden = entstanden <= ALTES_RECHT_ENTSTANDEN_BIS
    else:
        vorher_entstanden = von <= ALTES_RECHT_BIS
    # Satz 2 makes the new law apply however old the Schuldverhältnis is; without the statement Satz 1 decides
    # (for a consumer the rate is the same under both laws and there is no Pauschale: nothing to say)
    satz_2 = dauerschuldverhaeltnis and art in MIT_PAUSCHALE and (entstanden is None or vorher_entstanden)
    altes_recht = art in MIT_PAUSCHALE and vorher_entstanden and not dauerschuldverhaeltnis
    aufschlag = (AUFSCHLAG_ALT if altes_recht else AUFSCHLAG)[art]
    perioden: list[Zinsperiode] = []
    summe = Decimal(0)
    beginn = von
    while beginn <= bis:
        ende = min(halbjahr_ende(beginn), bis)
        tage = (ende - beginn).days + 1
        jahrestage = 366 if beginn.year % 4 == 0 and (beginn.year % 100 != 0 or beginn.year % 400 == 0) else 365
        basis = basiszins_am(beginn, historie)
        satz = basis + aufschlag
        zinsen = betrag * satz / 100 * tage / jahrestage
        summe += zinsen
        perioden.append(Zinsperiode(beginn, ende, tage, jahrestage, basis, satz, runde_cent(zinsen)))
        beginn = ende + timedelta(days=1)
    pauschale = PAUSCHALE_288_5 if art in MIT_PAUSCHALE and not altes_recht else Decimal("0.00")
    if art == "unternehmer":
        norm = "§ 288 Abs. 2 BGB a. F. (8 Prozentpunkte)" if altes_recht else "§ 288 Abs. 2 BGB (9 Prozentpunkte)"
    else:
        norm = "§ 288 Abs. 1 BGB (5 Prozentpunkte)"
    zeilen = [
        f"Verzugszinsen auf {format_euro(betrag)} vom {format_datum(von)} bis {format_datum(bis)} nach {norm} über dem "
        "Basiszinssatz (§ 247 BGB), taggenau je Halbjahr:"
    ]
    zeilen.extend(
        f"{p.von:%d.%m.%Y}–{p.bis:%d.%m.%Y}: {p.tage} Tage × {format_zahl(p.zinssatz)} % "
        f"(Basiszins {format_zahl(p.basiszins)} %) / {p.jahrestage} = {format_euro(p.zinsen)}"
        for p in perioden
    )
    zeilen.append(f"Zinsen gesamt: {format_euro(runde_cent(summe))}.")
    if pauschale:
        zeilen.append("Verzugspauschale nach § 288 Abs. 5 BGB: 40,00 € (auf Kosten der Rechtsverfolgung anzurechnen).")
    if satz_2:
        anlass = ANLASS_ENTSTANDEN_VOR_2014.format(entstanden=format_datum(entstanden)) if entstanden is not None else ""
        vor_2002 = DAUERSCHULD_VOR_2002 if entstanden is not None and entstanden < SCHULDRECHTSREFORM else ""
        zeilen.append(HINWEIS_DAUERSCHULD.format(anlass=anlass, vor_2002=vor_2002))
    elif altes_recht and entstanden is not None:
        zeilen.append(HINWEIS_ALTES_RECHT_ENTSTANDEN.format(entstanden=format_datum(entstanden), folge=FOLGE_ALT[art]))
    elif altes_recht:
        zeilen.append(HINWEIS_ALTES_RECHT.format(von=format_datum(von), folge=FOLGE_ALT[art]))
    elif art in MIT_PAUSCHALE and entstanden is None:
        zeilen.append(HINWEIS_ENTSTEHUNG.format(folge=FOLGE_ALT[art]))
    return Zinsberechnung(
        hauptforderung=betrag,
        art=art,
        von=von,
        bis=bis,
        perioden=tuple(perioden),
        zinsen=runde_cent(summe),
        pauschale=pauschale,
        erlaeuterung="\n".join(zeilen),
        entstanden=entstanden,
        dauerschuldverhaeltnis=dauerschuldverhaeltnis,
    )
