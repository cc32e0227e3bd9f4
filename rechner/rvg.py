"""RVG fees: value-based fees, VV positions, Anrechnung, Auslagen and USt.

Legal basis
- § 13 Abs. 1 RVG with Anlage 2 (fee table, step rule), § 13 Abs. 3 RVG (minimum fee 15 EUR in both
  versions; numbered Abs. 2 in earlier texts), § 2 Abs. 2 Satz 2 RVG (rounding to cents, half a cent up).
- § 49 RVG: fees of the court-appointed lawyer (PKH/VKH) for values above 4,000 EUR.
- Vergütungsverzeichnis (Anlage 1): Nrn. 1000, 1003, 1008, 2300, 3100, 3104, 3200, 3202, 3305, 3307,
  Vorbemerkung 3 Abs. 4 (Anrechnung der Geschäftsgebühr), Anm. zu Nrn. 3305 und 3307
  (Anrechnung im Mahnverfahren), 7002, 7003, 7005, 7008.
- § 60 Abs. 1 RVG: the version in force when the unconditional mandate was given applies, so the
  version is chosen by the Auftragsdatum.

Versions
- ``RVG_2021``: KostRÄG 2021 (BGBl. I 2020 S. 3229), mandates from 2021-01-01 to 2025-05-31.
- ``RVG_2025``: KostBRÄG 2025 (BGBl. 2025 I Nr. 109), mandates from 2025-06-01.
  The Auslagen of Nrn. 7002, 7003 and 7005 were not changed by the KostBRÄG 2025.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum
from typing import NamedTuple

from rechner.tabellen import (
    HOECHSTWERT,
    Wertgebuehrentabelle,
    als_decimal,
    format_datum,
    format_euro,
    format_satz,
    format_zahl,
    runde_cent,
    satzgebuehr,
    stufen,
)

FEHLER_DATUM = "Für Aufträge vor dem 01.01.2021 ist keine Gebührentabelle hinterlegt (Auftragsdatum: {datum})."
FEHLER_WERT = "Der Gegenstandswert muss größer als 0 Euro sein (angegeben: {wert})."
FEHLER_SATZ = "Der Gebührensatz muss größer als 0 sein (angegeben: {satz})."
FEHLER_UNBEKANNT = "Nr. {vv} VV RVG ist im Rechner nicht hinterlegt. Verfügbar sind die Nrn. {verfuegbar}."
FEHLER_1008 = (
    "Nr. 1008 VV RVG wird nicht als eigene Position angegeben; die Erhöhung ergibt sich aus der Zahl der "
    "Auftraggeber (Parameter auftraggeber)."
)
FEHLER_FESTER_SATZ = "Nr. {vv} VV RVG ({bezeichnung}) hat den festen Gebührensatz {satz}; angegeben wurde {angegeben}."
FEHLER_RAHMEN = (
    "Der Gebührensatz {angegeben} liegt außerhalb des Rahmens von Nr. {vv} VV RVG ({bezeichnung}): zulässig sind {von} bis {bis}."
)
FEHLER_SCHWELLE = (
    "Eine Geschäftsgebühr von mehr als {schwelle} kann nur gefordert werden, wenn die Tätigkeit umfangreich oder "
    "schwierig war (Anm. Abs. 1 zu Nr. 2300 VV RVG). Bitte bestätige, dass sie umfangreich oder "
    "schwierig war, oder wähle einen Satz bis {schwelle}."
)
FEHLER_KEINE_POSITIONEN = "Bitte mindestens eine Gebührenposition angeben."
FEHLER_AUFTRAGGEBER = "Die Zahl der Auftraggeber muss mindestens 1 sein (angegeben: {anzahl})."
FEHLER_KM = "Die gefahrenen Kilometer dürfen nicht negativ sein (angegeben: {km})."
FEHLER_STUNDEN = "Die Abwesenheitsdauer muss größer als 0 Stunden sein (angegeben: {stunden})."
FEHLER_UST = "Der Umsatzsteuersatz muss zwischen 0 und 1 liegen, z. B. 0.19 (angegeben: {satz})."
FEHLER_SCHWELLE_INKASSO = (
    "Bei einer Inkassodienstleistung über eine unbestrittene Forderung kann eine Geschäftsgebühr von mehr als 0,9 "
    "nur gefordert werden, wenn sie besonders umfangreich oder besonders schwierig war (Anm. Abs. 2 zu Nr. 2300 VV "
    "RVG). Bitte bestätige das oder wähle einen Satz bis 0,9."
)
FEHLER_INKASSO_HOECHSTSATZ = (
    "Bei einer Inkassodienstleistung über eine unbestrittene Forderung beträgt die Geschäftsgebühr höchstens 1,3, "
    "auch wenn sie besonders umfangreich oder besonders schwierig war (Anm. Abs. 2 Satz 3 zu Nr. 2300 VV RVG; "
    "angegeben: {satz})."
)
HINWEIS_INKASSO_EINFACH = (
    "Inkasso, unbestrittene Forderung: In einfachen Fällen darf nur eine Geschäftsgebühr von 0,5 gefordert werden; "
    "ein einfacher Fall liegt in der Regel vor, wenn die Forderung innerhalb von zwei Wochen nach der ersten "
    "Zahlungsaufforderung beglichen wird (Anm. Abs. 2 Satz 2 zu Nr. 2300 VV RVG). Gerechnet mit {satz}."
)
FEHLER_INKASSO_NUR_2300 = (
    "Die Inkasso-Regeln (Anm. Abs. 2 zu Nr. 2300, § 13 Abs. 2 RVG) gelten nur für Nr. 2300, nicht für Nr. {vv}."
)
FEHLER_INKASSO_DATUM = (
    "Die Inkasso-Regeln (Anm. Abs. 2 zu Nr. 2300, § 13 Abs. 2 RVG) gelten für Aufträge ab dem 01.10.2021 "
    "(Auftragsdatum: {datum})."
)
FEHLER_EINIGUNG_BERUFUNG = (
    "Ist über den Gegenstand ein Berufungs- oder Revisionsverfahren anhängig, beträgt die Einigungsgebühr 1,3 "
    "(Nr. 1004 VV RVG), nicht 1,0 (Nr. 1003). Bitte wähle Nr. 1004."
)
FEHLER_EINIGUNG_ERSTE_INSTANZ = (
    "Nr. 1004 VV RVG (1,3) gilt nur, wenn über den Gegenstand ein Berufungs- oder Revisionsverfahren anhängig ist; "
    "im ersten Rechtszug und im Mahnverfahren beträgt die Einigungsgebühr 1,0 (Nr. 1003)."
)
HINWEIS_HOECHSTWERT = (
    "Der Gegenstandswert {wert} übersteigt den Höchstwert; gerechnet wird mit 30.000.000,00 € (§ 22 Abs. 2 Satz 1 RVG)."
)
HINWEIS_HOECHSTWERT_MEHRERE = (
    "Der Gegenstandswert {wert} übersteigt den Höchstwert; gerechnet wird mit {hoechstwert}: {anzahl} Auftraggeber wegen "
    "verschiedener Gegenstände, je Person höchstens 30.000.000,00 €, insgesamt höchstens 100.000.000,00 € (§ 22 Abs. 2 "
    "Satz 2 RVG)."
)
HINWEIS_HOECHSTWERT_JE_PERSON = (
    "Der Höchstwert von 30.000.000,00 € gilt je Auftraggeber (§ 22 Abs. 2 Satz 2 RVG). Der Rechner kennt nur die Summe "
    "und setzt voraus, dass die Gegenstände keines Auftraggebers mehr als 30.000.000,00 € wert sind. Übersteigt der Wert "
    "für eine Person 30.000.000,00 €, zählt er für sie nur mit 30.000.000,00 €: Gib dann als Gegenstandswert die Summe "
    "der so begrenzten Einzelwerte an, sonst ist die Rechnung zu hoch."
)
FEHLER_AUFTRAGGEBER_GEGENSTAENDE = (
    "Die Zahl der Auftraggeber wegen verschiedener Gegenstände muss mindestens 1 sein (angegeben: {anzahl})."
)
FEHLER_1008_UND_22 = (
    "Mehrere Auftraggeber wegen desselben Gegenstands (Nr. 1008 VV RVG) und mehrere wegen verschiedener Gegenstände "
    "(§ 22 Abs. 2 Satz 2 RVG) zugleich bildet der Rechner nicht ab: Die Erhöhung nach Nr. 1008 richtet sich nur nach "
    "dem Wert, an dem die Auftraggeber gemeinschaftlich beteiligt sind (Anm. Abs. 1 und 2 zu Nr. 1008 VV RVG). Rechne "
    "die Erhöhung gesondert mit diesem Wert."
)
HOECHSTWERT_INSGESAMT = Decimal(100_000_000)  # § 22 Abs. 2 Satz 2 RVG
HINWEIS_EINIGUNG_ANHAENGIG = (
    "Einigungsgebühr 1,5 (Nr. 1000 VV RVG) neben einem gerichtlichen Verfahren: Ist über den Gegenstand ein "
    "gerichtliches Verfahren anhängig (auch ein Mahnverfahren), beträgt sie 1,0 (Nr. 1003), im Berufungs- oder "
    "Revisionsverfahren 1,3 (Nr. 1004). Die 1,5 gilt nur für nicht anhängige Gegenstände (etwa einen Mehrvergleich)."
)
# Fees of one kind that arise at different rates for parts of the Gegenstand in one Angelegenheit
# (e.g. a Mehrvergleich: Nr. 3100 on the pending claim, Nr. 3101 on the rest): together at most the
# fee at the highest rate on the sum of the parts (§ 15 Abs. 3 RVG).
TEILWERT_GRUPPEN: tuple[frozenset[str], ...] = (
    frozenset({"3100", "3101"}),
    frozenset({"3200", "3201"}),
    frozenset({"1000", "1003", "1004"}),
)
FEHLER_TEILWERTE = (
    "Die Nrn. {nummern} VV RVG entstehen in derselben Angelegenheit nur für verschiedene Teile des Gegenstands "
    "(z. B. anhängiger und nicht anhängiger Teil eines Vergleichs). Gib für jede den Wert ihres Teils an; zusammen "
    "begrenzt § 15 Abs. 3 RVG sie auf die Gebühr nach dem höchsten Satz aus der Summe der Werte."
)
FEHLER_TEILWERTE_DOPPELT = (
    "Nr. {vv} VV RVG entsteht in derselben Angelegenheit nur einmal (§ 15 Abs. 2 RVG); die Werte mehrerer "
    "Gegenstände werden zusammengerechnet (§ 22 Abs. 1 RVG). Gib den Gesamtwert an oder für jede Position den Wert "
    "ihres Teils."
)
KUERZUNG_15_3 = "§ 15 Abs. 3"
KUERZUNG_15_3_LABEL = "Kürzung nach § 15 Abs. 3 RVG: Nrn. {nummern} zusammen höchstens {satz} aus {wert} = {hoechstens}"
HINWEIS_15_3 = (
    "§ 15 Abs. 3 RVG: Die Nrn. {nummern} für Teile des Gegenstands sind zusammen auf {hoechstens} begrenzt "
    "(Satz {satz} aus {wert}); gesondert gerechnet wären es {summe}."
)
ZAHLUNGSVEREINBARUNG_SATZ = Decimal("0.7")  # Nr. 1000 Nr. 2 VV RVG
ZAHLUNGSVEREINBARUNG_ANTEIL = Decimal("0.5")  # § 31b RVG: 50 % of the claim
ZAHLUNGSVEREINBARUNG_LABEL = "Einigungsgebühr (Zahlungsvereinbarung)"
FEHLER_ZAHLUNGSVEREINBARUNG_NUR_1000 = (
    "Eine Zahlungsvereinbarung (Nr. 1000 Nr. 2 VV RVG) gibt es nur bei der Einigungsgebühr Nr. 1000, nicht bei Nr. {vv}."
)
FEHLER_ZAHLUNGSVEREINBARUNG_SATZ = (
    "Die Einigungsgebühr für eine Zahlungsvereinbarung beträgt fest 0,7 (Nr. 1000 Nr. 2 VV RVG), angegeben: {satz}."
)
FEHLER_ZAHLUNGSVEREINBARUNG_DATUM = (
    "Die Einigungsgebühr 0,7 aus 50 % für eine Zahlungsvereinbarung gilt für Aufträge ab dem 01.10.2021 (Gesetz zur "
    "Verbesserung des Verbraucherschutzes im Inkassorecht); für den Auftrag vom {datum} gilt Nr. 1000 VV RVG a. F. "
    "(1,5, anhängig 1,0 nach Nr. 1003) aus 20 % des Anspruchs (§ 31b RVG a. F.): gib die Einigungsgebühr ohne "
    "Zahlungsvereinbarung mit diesem Wert an."
)
HINWEIS_ZAHLUNGSVEREINBARUNG = (
    "Einigungsgebühr für eine Zahlungsvereinbarung (Nr. 1000 Nr. 2 VV RVG): 0,7 aus 50 % des Anspruchs (§ 31b RVG), "
    "hier {wert} von {anspruch}. Sie setzt voraus, dass die Erfüllung geregelt und vorläufig auf die gerichtliche "
    "Geltendmachung bzw. auf Vollstreckungsmaßnahmen verzichtet wird; Nrn. 1003 und 1004 ermäßigen sie nicht."
)
HINWEIS_EINIGUNG_NICHT_ANHAENGIG = (
    "Einigungsgebühr 1,5 (Nr. 1000 VV RVG) gerechnet, also für einen Gegenstand, über den kein gerichtliches "
    "Verfahren anhängig ist. Ist er anhängig (auch im Mahnverfahren oder über einen PKH-Antrag), beträgt sie 1,0 "
    "(Nr. 1003), im Berufungs- oder Revisionsverfahren 1,3 (Nr. 1004)."
)
HINWEIS_PKH_ANRECHNUNG = (
    "Prozesskostenhilfe: Die Geschäftsgebühr ist eine Wahlanwaltsgebühr (Tabelle des § 13 RVG) und wird nicht aus "
    "der Staatskasse gezahlt. Auf die Vergütung aus der Staatskasse mindert sie sich nur, soweit der Anwalt durch "
    "Zahlungen auf sie mehr als den Gesamtbetrag nach § 15a Abs. 1 RVG erhielte (§ 58 Abs. 2 RVG); deshalb ist "
    "keine Anrechnung abgezogen. Erhaltene Zahlungen bitte gesondert prüfen."
)
HINWEIS_ANRECHNUNG_LETZTE = (
    "Mehrere Geschäftsgebühren: angerechnet wird nur die zuletzt entstandene (Vorbem. 3 Abs. 4 Satz 3 VV RVG), "
    "hier die letzte angegebene Nr. 2300."
)
HINWEIS_INKASSO_50 = "Inkasso, unbestrittene Forderung, Wert bis 50 €: die 1,0-Gebühr beträgt {betrag} (§ 13 Abs. 2 RVG)."
# § 60 Abs. 1 RVG: each Angelegenheit follows the law on the day of its own unbedingter Auftrag; a
# Rechtsmittel filed after a change follows the new law even where the lawyer was already instructed.
HINWEIS_FASSUNG_ANGELEGENHEIT = "{angelegenheit}: Auftrag vom {datum}, daher berechnet nach dem {fassung} (§ 60 Abs. 1 RVG)."
HINWEIS_FASSUNG_AUSSERGERICHTLICH = (
    "Außergerichtliche Vertretung und gerichtliches Verfahren sind verschiedene Angelegenheiten: Wurde der Auftrag "
    "für die außergerichtliche Vertretung vor dem {ab} erteilt, gilt für sie das bisherige Recht (§ 60 Abs. 1 "
    "Satz 1 RVG): {fassung}. Dann bitte das Datum dieses Auftrags angeben."
)
HINWEIS_FASSUNG_RECHTSMITTEL = (
    "{angelegenheit}: berechnet nach dem Auftragsdatum {datum}: {fassung}. Wurde das Rechtsmittel ab dem {ab} "
    "eingelegt, gilt dafür das neue Recht (§ 60 Abs. 1 Satz 2 RVG): {neu}. Dann bitte das Datum der Einlegung "
    "angeben."
)
INKASSO_AB = date(2021, 10, 1)

FEHLER_ANRECHNUNG_ZIEL = (
    "Die Geschäftsgebühr kann nur auf eine Verfahrensgebühr des gerichtlichen Verfahrens angerechnet werden "
    "(Nr. 3100, 3305 oder 3307 VV RVG); keine dieser Positionen ist angegeben."
)


class RvgError(ValueError):
    """Invalid input for an RVG calculation; the message is German and shown to the user."""


class Angelegenheit(StrEnum):
    """Gebührenrechtliche Angelegenheit (§§ 15–17 RVG); Nr. 7002 is charged once per Angelegenheit."""

    AUSSERGERICHTLICH = "aussergerichtlich"
    MAHNVERFAHREN = "mahnverfahren"
    ERSTER_RECHTSZUG = "erster_rechtszug"
    BERUFUNG = "berufung"
    REVISION = "revision"
    ERFOLGSAUSSICHT = "erfolgsaussicht"
    ZWANGSVOLLSTRECKUNG = "zwangsvollstreckung"
    PKH_VERFAHREN = "pkh_verfahren"
    EINZELTAETIGKEIT = "einzeltaetigkeit"

    @property
    def label(self) -> str:
        return _ANGELEGENHEIT_LABELS[self]


_ANGELEGENHEIT_LABELS = {
    Angelegenheit.AUSSERGERICHTLICH: "Außergerichtliche Vertretung",
    Angelegenheit.MAHNVERFAHREN: "Mahnverfahren",
    Angelegenheit.ERSTER_RECHTSZUG: "Erster Rechtszug",
    Angelegenheit.BERUFUNG: "Berufungsverfahren",
    Angelegenheit.REVISION: "Revisionsverfahren",
    Angelegenheit.ERFOLGSAUSSICHT: "Prüfung der Erfolgsaussicht eines Rechtsmittels",
    Angelegenheit.ZWANGSVOLLSTRECKUNG: "Zwangsvollstreckung",
    Angelegenheit.PKH_VERFAHREN: "Verfahren über die Prozesskostenhilfe",
    Angelegenheit.EINZELTAETIGKEIT: "Einzeltätigkeit",
}
# Court Angelegenheiten in procedural order: an Einigung belongs to the most advanced one.
_GERICHTLICH = (Angelegenheit.MAHNVERFAHREN, Angelegenheit.ERSTER_RECHTSZUG, Angelegenheit.BERUFUNG, Angelegenheit.REVISION)
_RECHTSMITTEL = (Angelegenheit.BERUFUNG, Angelegenheit.REVISION)


@dataclass(frozen=True)
class PkhTabelle:
    """§ 49 RVG: fee rows paid by the Staatskasse for values above ``ab_wert``."""

    bezeichnung: str
    ab_wert: Decimal
    zeilen: tuple[tuple[Decimal, Decimal], ...]
    hoechstgebuehr: Decimal

    def einfache_gebuehr(self, wert: Decimal) -> Decimal | None:
        """The 1.0 fee, or None when the value is not above ``ab_wert`` (then § 13 applies)."""
        if wert <= self.ab_wert:
            return None
        for bis, gebuehr in self.zeilen:
            if wert <= bis:
                return gebuehr
        return self.hoechstgebuehr


INKASSO_GRENZE = Decimal(50)  # § 13 Abs. 2 RVG


def _pkh_zeilen(*zeilen: tuple[int, str]) -> tuple[tuple[Decimal, Decimal], ...]:
    return tuple((Decimal(bis), Decimal(gebuehr)) for bis, gebuehr in zeilen)


@dataclass(frozen=True)
class RvgVersion:
    """One version of the RVG amounts, applicable to mandates given from ``gueltig_ab``."""

    key: str
    label: str
    gueltig_ab: date
    tabelle: Wertgebuehrentabelle
    pkh: PkhTabelle
    km_satz: Decimal
    abwesenheitsgeld: tuple[Decimal, Decimal, Decimal]  # up to 4 h, more than 4 up to 8 h, more than 8 h
    pauschale_anteil: Decimal
    pauschale_hoechstbetrag: Decimal
    inkasso_bis_50: Decimal  # § 13 Abs. 2 RVG: 1.0 fee of an undisputed Inkasso claim up to 50 EUR

    def einfache_gebuehr(
        self, wert: Decimal, *, pkh: bool = False, inkasso: bool = False, hoechstwert: Decimal | None = None
    ) -> Decimal:
        """The 1.0 fee; values above ``hoechstwert`` (default 30 million EUR, § 22 Abs. 2 RVG) count as ``hoechstwert``."""
        if inkasso and wert <= INKASSO_GRENZE:
            return self.inkasso_bis_50
        if pkh:
            pkh_gebuehr = self.pkh.einfache_gebuehr(wert)
            if pkh_gebuehr is not None:
                return pkh_gebuehr
        return self.tabelle.einfache_gebuehr(wert, hoechstwert=hoechstwert)

    def gebuehr(
        self, wert: Decimal, satz: Decimal, *, pkh: bool = False, inkasso: bool = False, hoechstwert: Decimal | None = None
    ) -> Decimal:
        """``satz`` times the 1.0 fee, rounded to cents, at least the minimum fee of § 13 Abs. 3 RVG."""
        return satzgebuehr(
            self.einfache_gebuehr(wert, pkh=pkh, inkasso=inkasso, hoechstwert=hoechstwert), satz, self.tabelle.mindestgebuehr
        )

    def tabellenname(self, wert: Decimal, *, pkh: bool) -> str:
        if pkh and wert > self.pkh.ab_wert:
            return self.pkh.bezeichnung
        return self.tabelle.bezeichnung


RVG_2021 = RvgVersion(
    key="RVG_2021",
    label="RVG i. d. F. des KostRÄG 2021 (Aufträge vom 01.01.2021 bis 31.05.2025)",
    gueltig_ab=date(2021, 1, 1),
    tabelle=Wertgebuehrentabelle(
        bezeichnung="Anlage 2 zu § 13 RVG (KostRÄG 2021)",
        gueltig_ab=date(2021, 1, 1),
        grundgebuehr=Decimal("49.00"),
        stufen=stufen("39.00", "56.00", "52.00", "81.00", "94.00", "132.00", "165.00"),
        mindestgebuehr=Decimal("15.00"),
    ),
    pkh=PkhTabelle(
        bezeichnung="§ 49 RVG (KostRÄG 2021)",
        ab_wert=Decimal(4_000),
        zeilen=_pkh_zeilen(
            (5_000, "284"),
            (6_000, "295"),
            (7_000, "306"),
            (8_000, "317"),
            (9_000, "328"),
            (10_000, "339"),
            (13_000, "354"),
            (16_000, "369"),
            (19_000, "384"),
            (22_000, "399"),
            (25_000, "414"),
            (30_000, "453"),
            (35_000, "492"),
            (40_000, "531"),
            (45_000, "570"),
            (50_000, "609"),
        ),
        hoechstgebuehr=Decimal("659"),
    ),
    km_satz=Decimal("0.42"),
    abwesenheitsgeld=(Decimal("30.00"), Decimal("50.00"), Decimal("80.00")),
    pauschale_anteil=Decimal("0.20"),
    pauschale_hoechstbetrag=Decimal("20.00"),
    inkasso_bis_50=Decimal("30.00"),
)

RVG_2025 = RvgVersion(
    key="RVG_2025",
    label="RVG i. d. F. des KostBRÄG 2025 (Aufträge ab 01.06.2025)",
    gueltig_ab=date(2025, 6, 1),
    tabelle=Wertgebuehrentabelle(
        bezeichnung="Anlage 2 zu § 13 RVG (KostBRÄG 2025)",
        gueltig_ab=date(2025, 6, 1),
        grundgebuehr=Decimal("51.50"),
        stufen=stufen("41.50", "59.50", "55.00", "86.00", "99.50", "140.00", "175.00"),
        mindestgebuehr=Decimal("15.00"),
    ),
    pkh=PkhTabelle(
        bezeichnung="§ 49 RVG (KostBRÄG 2025)",
        ab_wert=Decimal(4_000),
        zeilen=_pkh_zeilen(
            (5_000, "319"),
            (6_000, "330"),
            (7_000, "341"),
            (8_000, "352"),
            (9_000, "363"),
            (10_000, "374"),
            (13_000, "389"),
            (16_000, "404"),
            (19_000, "419"),
            (22_000, "434"),
            (25_000, "449"),
            (30_000, "488"),
            (35_000, "527"),
            (40_000, "566"),
            (45_000, "605"),
            (50_000, "644"),
            (65_000, "692"),
            (80_000, "739"),
        ),
        hoechstgebuehr=Decimal("786"),
    ),
    km_satz=Decimal("0.42"),
    abwesenheitsgeld=(Decimal("30.00"), Decimal("50.00"), Decimal("80.00")),
    pauschale_anteil=Decimal("0.20"),
    pauschale_hoechstbetrag=Decimal("20.00"),
    inkasso_bis_50=Decimal("31.50"),
)

VERSIONS = (RVG_2021, RVG_2025)


def version_for(auftragsdatum: date) -> RvgVersion:
    """The RVG version for a mandate given on ``auftragsdatum`` (§ 60 Abs. 1 RVG).

    Raises RvgError for mandates before 2021-01-01.
    """
    passende = [version for version in VERSIONS if version.gueltig_ab <= auftragsdatum]
    if not passende:
        raise RvgError(FEHLER_DATUM.format(datum=f"{auftragsdatum:%d.%m.%Y}"))
    return passende[-1]


@dataclass(frozen=True)
class VvNummer:
    """A value-based fee of the Vergütungsverzeichnis with its rate frame."""

    vv: str
    label: str
    satz_von: Decimal
    satz_bis: Decimal
    regelsatz: Decimal
    angelegenheit: Angelegenheit | None  # None: Teil 1 fees arise in the Angelegenheit they belong to
    schwelle: Decimal | None = None  # Nr. 2300: more than this only if umfangreich oder schwierig

    @property
    def erhoehungsfaehig(self) -> bool:
        return erhoehungsfaehig(self.label)


def erhoehungsfaehig(label: str) -> bool:
    """Nr. 1008 VV RVG raises "die Verfahrens- oder Geschäftsgebühr" (value-based and frame fees alike,
    rechner/rahmen.py): told by the fee's label, which names its kind first."""
    return label.startswith(("Verfahrensgebühr", "Geschäftsgebühr"))


def _fest(vv: str, label: str, satz: str, angelegenheit: Angelegenheit | None) -> VvNummer:
    return VvNummer(vv, label, Decimal(satz), Decimal(satz), Decimal(satz), angelegenheit)


VV: dict[str, VvNummer] = {
    nummer.vv: nummer
    for nummer in (
        _fest("1000", "Einigungsgebühr", "1.5", None),
        _fest("1003", "Einigungsgebühr (gerichtliches Verfahren anhängig)", "1.0", None),
        _fest("1004", "Einigungsgebühr (Berufungs- oder Revisionsverfahren anhängig)", "1.3", None),
        VvNummer(
            "2300",
            "Geschäftsgebühr",
            satz_von=Decimal("0.5"),
            satz_bis=Decimal("2.5"),
            regelsatz=Decimal("1.3"),
            angelegenheit=Angelegenheit.AUSSERGERICHTLICH,
            schwelle=Decimal("1.3"),
        ),
        _fest("1010", "Zusatzgebühr für besonders umfangreiche Beweisaufnahmen", "0.3", None),
        VvNummer(
            "2100",
            "Prüfung der Erfolgsaussicht eines Rechtsmittels",
            satz_von=Decimal("0.5"),
            satz_bis=Decimal("1.0"),
            regelsatz=Decimal("0.75"),
            angelegenheit=Angelegenheit.ERFOLGSAUSSICHT,
        ),
        _fest("2101", "Prüfung der Erfolgsaussicht mit schriftlichem Gutachten", "1.3", Angelegenheit.ERFOLGSAUSSICHT),
        _fest("3100", "Verfahrensgebühr", "1.3", Angelegenheit.ERSTER_RECHTSZUG),
        _fest(
            "3101",
            "Verfahrensgebühr bei vorzeitiger Beendigung oder Protokollierung",
            "0.8",
            Angelegenheit.ERSTER_RECHTSZUG,
        ),
        _fest("3104", "Terminsgebühr", "1.2", Angelegenheit.ERSTER_RECHTSZUG),
        _fest(
            "3105", "Terminsgebühr bei Säumnis (nur Versäumnisurteil oder Prozessleitung)", "0.5", Angelegenheit.ERSTER_RECHTSZUG
        ),
        _fest("3200", "Verfahrensgebühr Berufung", "1.6", Angelegenheit.BERUFUNG),
        _fest(
            "3201",
            "Verfahrensgebühr Berufung bei vorzeitiger Beendigung",
            "1.1",
            Angelegenheit.BERUFUNG,
        ),
        _fest("3202", "Terminsgebühr Berufung", "1.2", Angelegenheit.BERUFUNG),
        _fest("3203", "Terminsgebühr Berufung bei Säumnis", "0.5", Angelegenheit.BERUFUNG),
        _fest("3206", "Verfahrensgebühr Revision", "1.6", Angelegenheit.REVISION),
        _fest(
            "3207",
            "Verfahrensgebühr Revision bei vorzeitiger Beendigung",
            "1.1",
            Angelegenheit.REVISION,
        ),
        _fest(
            "3208",
            "Verfahrensgebühr Revision (nur BGH-Anwalt zugelassen)",
            "2.3",
            Angelegenheit.REVISION,
        ),
        _fest("3210", "Terminsgebühr Revision", "1.5", Angelegenheit.REVISION),
        _fest(
            "3305",
            "Verfahrensgebühr Mahnverfahren (Antragsteller)",
            "1.0",
            Angelegenheit.MAHNVERFAHREN,
        ),
        _fest(
            "3307",
            "Verfahrensgebühr Mahnverfahren (Antragsgegner, Widerspruch)",
            "0.5",
            Angelegenheit.MAHNVERFAHREN,
        ),
        _fest("3309", "Verfahrensgebühr Zwangsvollstreckung", "0.3", Angelegenheit.ZWANGSVOLLSTRECKUNG),
        _fest("3310", "Terminsgebühr Zwangsvollstreckung", "0.3", Angelegenheit.ZWANGSVOLLSTRECKUNG),
        VvNummer(
            "3335",
            "Verfahrensgebühr für das Verfahren über die Prozesskostenhilfe (wie die Hauptsache, höchstens 1,0)",
            satz_von=Decimal("0.3"),
            satz_bis=Decimal("1.0"),
            regelsatz=Decimal("1.0"),
            angelegenheit=Angelegenheit.PKH_VERFAHREN,
        ),
        _fest(
            "3403",
            "Verfahrensgebühr für sonstige Einzeltätigkeiten",
            "0.8",
            Angelegenheit.EINZELTAETIGKEIT,
        ),
    )
}

ERHOEHUNG_JE_AUFTRAGGEBER = Decimal("0.3")  # Nr. 1008 VV RVG
ERHOEHUNG_HOECHSTENS = Decimal("2.0")  # Anm. Abs. 3 zu Nr. 1008 VV RVG
ANRECHNUNG_HOECHSTENS = Decimal("0.75")  # Vorbem. 3 Abs. 4 Satz 1 VV RVG
INKASSO_SCHWELLE = Decimal("0.9")  # Anm. Abs. 2 Satz 1 zu Nr. 2300 VV RVG
INKASSO_HOECHSTSATZ = Decimal("1.3")  # Anm. Abs. 2 Satz 3 zu Nr. 2300 VV RVG
UST_REGELSATZ = Decimal("0.19")  # § 12 Abs. 1 UStG, Nr. 7008 VV RVG

# Anrechnung targets in procedural order: the Geschäftsgebühr is credited against the first
# Verfahrensgebühr of the court proceedings; the Mahnverfahren fee against that of the Rechtsstreit.
_GERICHTLICHE_VERFAHRENSGEBUEHREN = ("3305", "3307", "3100", "3101")
# the Verfahrensgebühr of the Rechtsstreit that follows a Mahnverfahren, in full or reduced form
_MAHNVERFAHREN_ZIELE = ("3100", "3101")
# Nr. 2100/2101 is credited against a fee of the Rechtsmittelverfahren (Anm. zu Nr. 2100 VV RVG)
_RECHTSMITTEL_VERFAHRENSGEBUEHREN = ("3200", "3201", "3206", "3207", "3208")
# The Verfahrensgebühren of the court proceedings a PKH procedure can be for (§ 16 Nr. 2 RVG)
_VERFAHRENSGEBUEHREN_JE_RECHTSZUG = {
    Angelegenheit.ERSTER_RECHTSZUG: ("3100", "3101"),
    Angelegenheit.BERUFUNG: ("3200", "3201"),
    Angelegenheit.REVISION: ("3206", "3207", "3208"),
}
_EINIGUNG = ("1000", "1003", "1004")


@dataclass(frozen=True)
class PositionRequest:
    """A fee position to calculate.

    ``rate`` defaults to the usual rate (Nr. 2300: 1.3); ``value`` defaults to the calculation's
    Gegenstandswert; ``angelegenheit`` is only needed to override where an Einigungsgebühr belongs.
    ``zahlungsvereinbarung`` (Nr. 1000 only): 0.7 from half the claim.
    """

    vv: str
    rate: Decimal | None = None
    value: Decimal | None = None
    umfangreich_oder_schwierig: bool = False
    angelegenheit: Angelegenheit | None = None
    inkasso_unbestritten: bool = False  # Nr. 2300 only: Anm. Abs. 2 zu Nr. 2300, § 13 Abs. 2 RVG
    # Nr. 1000 only: an Einigung that settles how a claim is paid (Nr. 1000 Nr. 2 VV RVG): 0.7 from
    # 50 % of the claim (§ 31b RVG); ``value`` is then the claim, default the Gegenstandswert.
    zahlungsvereinbarung: bool = False


@dataclass(frozen=True)
class AnrechnungRequest:
    """An earlier Geschäftsgebühr (Nr. 2300, billed separately) to credit against this court case.

    ``rate`` is that fee's rate including any Nr. 1008 increase; ``value`` is the value of the part of
    the matter that went into the court case (default: value of the Verfahrensgebühr);
    ``auftragsdatum`` is the date of the earlier mandate (default: this calculation's Auftragsdatum).
    """

    rate: Decimal
    value: Decimal | None = None
    auftragsdatum: date | None = None


@dataclass(frozen=True)
class AuslagenRequest:
    """Auslagen besides Nr. 7002/7003/7005: Nr. 7000 (pages in black and white / colour, files),
    Nr. 7004 (other means of transport, in full), Nr. 7006 (other travel costs, in full)."""

    seiten_sw: int = 0
    seiten_farbe: int = 0
    dateien: int = 0
    fahrtkosten: Decimal | None = None
    reiseauslagen: Decimal | None = None


@dataclass(frozen=True)
class Position:
    """One line of the calculation; Anrechnung lines carry negative amounts."""

    vv: str
    label: str
    amount: Decimal
    rate: Decimal | None = None
    value: Decimal | None = None
    angelegenheit: Angelegenheit | None = None


@dataclass(frozen=True)
class Calculation:
    """Result of ``calculate``: fee lines, Anrechnungen, Auslagen and totals in EUR."""

    version: str
    version_label: str
    table: str
    auftragsdatum: date
    positions: tuple[Position, ...]
    anrechnungen: tuple[Position, ...]
    auslagen: tuple[Position, ...]
    fees: Decimal
    anrechnung: Decimal
    auslagenpauschale: Decimal
    auslagen_total: Decimal
    net: Decimal
    ust_rate: Decimal
    ust: Decimal
    gross: Decimal
    hinweise: tuple[str, ...] = ()
    # Angelegenheiten whose own Auftrag (or Rechtsmittel) date differs from ``auftragsdatum``: their
    # label, that date and the label of the RVG version they were calculated with (§ 60 Abs. 1 RVG)
    abweichende_fassungen: tuple[tuple[str, date, str], ...] = ()

    @property
    def erster_auftrag(self) -> date:
        """The earliest Auftrag of the note (the start of its Leistungszeitraum)."""
        return min([self.auftragsdatum, *(datum for _, datum, _ in self.abweichende_fassungen)])


@dataclass(frozen=True, eq=False)
class _Gebuehr:
    """A calculated fee including its Nr. 1008 increase, kept for Anrechnung and Nr. 7002.

    Compared by identity so that two equal fees stay separate Anrechnung targets."""

    vv: str
    rate: Decimal
    value: Decimal
    amount: Decimal
    angelegenheit: Angelegenheit


def _decimal(wert: object, feld: str) -> Decimal:
    try:
        return als_decimal(wert, feld=feld)
    except ValueError as fehler:
        raise RvgError(str(fehler)) from None


def _wert(wert: object) -> Decimal:
    ergebnis = _decimal(wert, "Gegenstandswert")
    if ergebnis <= 0:
        raise RvgError(FEHLER_WERT.format(wert=format_euro(ergebnis)))
    return ergebnis


def _satz(satz: object) -> Decimal:
    ergebnis = _decimal(satz, "Gebührensatz")
    if ergebnis <= 0:
        raise RvgError(FEHLER_SATZ.format(satz=format_zahl(ergebnis)))
    return ergebnis


def einfache_gebuehr(value: Decimal, *, on: date, pkh: bool = False) -> Decimal:
    """The 1.0 fee for ``value`` under the version in force on ``on`` (§ 13 or, with ``pkh``, § 49 RVG)."""
    return version_for(on).einfache_gebuehr(_wert(value), pkh=pkh)


def gebuehr(value: Decimal, rate: Decimal, *, on: date, pkh: bool = False) -> Decimal:
    """``rate`` times the 1.0 fee for ``value``, rounded to cents, at least 15 EUR.

    Example: ``gebuehr(Decimal(5000), Decimal("1.3"), on=date(2025, 6, 1))`` → ``Decimal("460.85")``.
    Raises RvgError for values or rates ≤ 0 and mandates before 2021.
    """
    return version_for(on).gebuehr(_wert(value), _satz(rate), pkh=pkh)


def validate_rate(
    vv: str, rate: Decimal | None = None, *, umfangreich_oder_schwierig: bool = False, inkasso_unbestritten: bool = False
) -> Decimal:
    """The rate to use for Nr. ``vv``: the usual rate if none is given, else the checked rate.

    Raises RvgError for unknown numbers, out-of-frame rates and a Geschäftsgebühr above 1.3 that
    is not marked as umfangreich oder schwierig (above 0.9 for an undisputed Inkasso claim, which
    must then be besonders umfangreich oder schwierig).
    """
    if vv == "1008":
        raise RvgError(FEHLER_1008)
    nummer = VV.get(vv)
    if nummer is None:
        raise RvgError(FEHLER_UNBEKANNT.format(vv=vv, verfuegbar=", ".join(VV)))
    if inkasso_unbestritten and vv != "2300":
        raise RvgError(FEHLER_INKASSO_NUR_2300.format(vv=vv))
    if rate is None:
        return INKASSO_SCHWELLE if inkasso_unbestritten else nummer.regelsatz
    satz = _satz(rate)
    if nummer.satz_von == nummer.satz_bis and satz != nummer.satz_von:
        raise RvgError(
            FEHLER_FESTER_SATZ.format(
                vv=vv, bezeichnung=nummer.label, satz=format_zahl(nummer.satz_von), angegeben=format_zahl(satz)
            )
        )
    if not nummer.satz_von <= satz <= nummer.satz_bis:
        raise RvgError(
            FEHLER_RAHMEN.format(
                angegeben=format_zahl(satz),
                vv=vv,
                bezeichnung=nummer.label,
                von=format_zahl(nummer.satz_von),
                bis=format_zahl(nummer.satz_bis),
            )
        )
    if inkasso_unbestritten and satz > INKASSO_HOECHSTSATZ:
        raise RvgError(FEHLER_INKASSO_HOECHSTSATZ.format(satz=format_zahl(satz)))
    if inkasso_unbestritten and satz > INKASSO_SCHWELLE and not umfangreich_oder_schwierig:
        raise RvgError(FEHLER_SCHWELLE_INKASSO)
    if nummer.schwelle is not None and satz > nummer.schwelle and not umfangreich_oder_schwierig:
        raise RvgError(FEHLER_SCHWELLE.format(schwelle=format_zahl(nummer.schwelle)))
    return satz


def hoechstwert(auftraggeber_verschiedene_gegenstaende: int) -> Decimal:
    """The value cap of § 22 Abs. 2 RVG: 30 million EUR; with several clients for different
    Gegenstände 30 million EUR per client, at most 100 million EUR (Satz 2)."""
    anzahl = auftraggeber_verschiedene_gegenstaende
    if isinstance(anzahl, bool) or not isinstance(anzahl, int) or anzahl < 1:
        raise RvgError(FEHLER_AUFTRAGGEBER_GEGENSTAENDE.format(anzahl=anzahl))
    return min(HOECHSTWERT * anzahl, HOECHSTWERT_INSGESAMT)


def erhoehung(auftraggeber: int) -> Decimal:
    """The Nr. 1008 increase for ``auftraggeber`` clients: 0.3 per additional client, at most 2.0."""
    if isinstance(auftraggeber, bool) or not isinstance(auftraggeber, int) or auftraggeber < 1:
        raise RvgError(FEHLER_AUFTRAGGEBER.format(anzahl=auftraggeber))
    return min(ERHOEHUNG_JE_AUFTRAGGEBER * (auftraggeber - 1), ERHOEHUNG_HOECHSTENS)


def _angelegenheit(request: PositionRequest, nummer: VvNummer, requests: Sequence[PositionRequest]) -> Angelegenheit:
    if request.angelegenheit is not None:
        return request.angelegenheit
    vorhanden = {VV[r.vv].angelegenheit for r in requests if r.vv in VV}
    if nummer.vv == "3335":
        # § 16 Nr. 2 RVG: the PKH procedure and the proceedings it is for are one Angelegenheit (one
        # Nr. 7002; its fee is credited against theirs, see _anrechnungen); the first instance first
        rechtszug = [a for a in _VERFAHRENSGEBUEHREN_JE_RECHTSZUG if a in vorhanden]
        return rechtszug[0] if rechtszug else Angelegenheit.PKH_VERFAHREN
    if nummer.angelegenheit is not None:
        return nummer.angelegenheit
    if nummer.vv == "1000" and Angelegenheit.AUSSERGERICHTLICH in vorhanden:
        return Angelegenheit.AUSSERGERICHTLICH
    gerichtlich = [angelegenheit for angelegenheit in _GERICHTLICH if angelegenheit in vorhanden]
    if gerichtlich:
        return gerichtlich[-1]
    if nummer.vv == "1003" and Angelegenheit.AUSSERGERICHTLICH in vorhanden:
        # An Einigung over a pending matter that the lawyer reaches out of court, with no court fee
        # of his own: it belongs to his one Angelegenheit, not to a second one (Nr. 7002).
        return Angelegenheit.AUSSERGERICHTLICH
    return Angelegenheit.AUSSERGERICHTLICH if nummer.vv == "1000" else Angelegenheit.ERSTER_RECHTSZUG


def _einigung_pruefen(vv: str, angelegenheit: Angelegenheit) -> None:
    """Nr. 1003 (1.0) and Nr. 1004 (1.3) depend on the instance in which the matter is pending."""
    if vv == "1003" and angelegenheit in _RECHTSMITTEL:
        raise RvgError(FEHLER_EINIGUNG_BERUFUNG)
    if vv == "1004" and angelegenheit not in _RECHTSMITTEL:
        raise RvgError(FEHLER_EINIGUNG_ERSTE_INSTANZ)


def _zahlungsvereinbarung(request: PositionRequest, requests: Sequence[PositionRequest], *, wert: Decimal) -> _Angaben:
    """Nr. 1000 Nr. 2 VV RVG: a fixed 0.7 (Nrn. 1003/1004 reduce only Nr. 1) from 50 % of the claim
    (§ 31b RVG; the claim is ``request.value``, default ``wert``)."""
    if request.vv != "1000":
        raise RvgError(FEHLER_ZAHLUNGSVEREINBARUNG_NUR_1000.format(vv=request.vv))
    if request.rate is not None and _satz(request.rate) != ZAHLUNGSVEREINBARUNG_SATZ:
        raise RvgError(FEHLER_ZAHLUNGSVEREINBARUNG_SATZ.format(satz=format_zahl(_satz(request.rate))))
    anspruch = wert if request.value is None else _wert(request.value)
    nummer = replace(
        VV["1000"],
        label=ZAHLUNGSVEREINBARUNG_LABEL,
        satz_von=ZAHLUNGSVEREINBARUNG_SATZ,
        satz_bis=ZAHLUNGSVEREINBARUNG_SATZ,
        regelsatz=ZAHLUNGSVEREINBARUNG_SATZ,
    )
    positionswert = (anspruch * ZAHLUNGSVEREINBARUNG_ANTEIL).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    angelegenheit = _angelegenheit(request, VV["1000"], requests)
    return _Angaben(nummer, ZAHLUNGSVEREINBARUNG_SATZ, positionswert, angelegenheit, False, anspruch)


def _abwesenheitsgeld(version: RvgVersion, stunden: Decimal) -> Decimal:
    bis_4, bis_8, ueber_8 = version.abwesenheitsgeld
    if stunden <= 4:
        return bis_4
    if stunden <= 8:
        return bis_8
    return ueber_8


class _Angaben(NamedTuple):
    """A fee position's checked input: its number, rate, value and Angelegenheit."""

    nummer: VvNummer
    satz: Decimal
    wert: Decimal
    angelegenheit: Angelegenheit
    inkasso: bool
    # a Zahlungsvereinbarung's claim (its fee's value is half of it, § 31b RVG); else None
    anspruch: Decimal | None = None


def _ust_satz(ust_rate: object) -> Decimal:
    """The USt rate (Nr. 7008 VV RVG) as a Decimal from 0 up to below 1; raises RvgError otherwise."""
    ust_satz = _decimal(ust_rate, "Umsatzsteuersatz")
    if not 0 <= ust_satz < 1:
        raise RvgError(FEHLER_UST.format(satz=format_zahl(ust_satz)))
    return ust_satz


def _angaben(request: PositionRequest, requests: Sequence[PositionRequest], *, wert: Decimal, auftragsdatum: date) -> _Angaben:
    """Check one fee position: rate frame, value (default ``wert``), the Einigung's instance and the
    Inkasso rules' start date. Raises RvgError for invalid input."""
    if request.zahlungsvereinbarung:
        if auftragsdatum < INKASSO_AB:
            raise RvgError(FEHLER_ZAHLUNGSVEREINBARUNG_DATUM.format(datum=f"{auftragsdatum:%d.%m.%Y}"))
        return _zahlungsvereinbarung(request, requests, wert=wert)
    satz = validate_rate(
        request.vv,
        request.rate,
        umfangreich_oder_schwierig=request.umfangreich_oder_schwierig,
        inkasso_unbestritten=request.inkasso_unbestritten,
    )
    nummer = VV[request.vv]
    positionswert = wert if request.value is None else _wert(request.value)
    angelegenheit = _angelegenheit(request, nummer, requests)
    _einigung_pruefen(nummer.vv, angelegenheit)
    if request.inkasso_unbestritten and auftragsdatum < INKASSO_AB:
        raise RvgError(FEHLER_INKASSO_DATUM.format(datum=f"{auftragsdatum:%d.%m.%Y}"))
    return _Angaben(nummer, satz, positionswert, angelegenheit, request.inkasso_unbestritten)


def _hinweise_ergaenzen(hinweise: list[str], version: RvgVersion, angaben: _Angaben, *, personen: int, gerichtlich: bool) -> None:
    """Add the notes for one position: the Inkasso fee up to 50 EUR (§ 13 Abs. 2 RVG), once, and the
    0.5 of simple Inkasso cases; a value above the maximum (§ 22 Abs. 2 RVG; with ``personen`` clients
    for different Gegenstände the assumption that no client's share exceeds 30 million EUR); and for
    every Einigungsgebühr of 1.5 what it assumes: next to a court case (``gerichtlich``: a court
    fee is among the positions) that the settled claims were not pending (else Nr. 1003 or 1004),
    without one that no court case is pending."""
    if angaben.anspruch is not None:
        hinweise.append(
            HINWEIS_ZAHLUNGSVEREINBARUNG.format(wert=format_euro(angaben.wert), anspruch=format_euro(angaben.anspruch))
        )
    elif angaben.nummer.vv == "1000":
        # 1.5 holds only for a Gegenstand that is not pending in court; the calculator cannot know.
        neben_gericht = gerichtlich or angaben.angelegenheit is not Angelegenheit.AUSSERGERICHTLICH
        hinweis = HINWEIS_EINIGUNG_ANHAENGIG if neben_gericht else HINWEIS_EINIGUNG_NICHT_ANHAENGIG
        if hinweis not in hinweise:
            hinweise.append(hinweis)
    einfach = HINWEIS_INKASSO_EINFACH.format(satz=format_zahl(angaben.satz))
    if angaben.inkasso and angaben.satz > Decimal("0.5") and einfach not in hinweise:
        hinweise.append(einfach)
    if angaben.inkasso and angaben.wert <= INKASSO_GRENZE:
        hinweise.append(HINWEIS_INKASSO_50.format(betrag=format_euro(version.inkasso_bis_50)))
    neu: list[str] = []
    grenze = hoechstwert(personen)
    if personen == 1 and angaben.wert > grenze:
        neu.append(HINWEIS_HOECHSTWERT.format(wert=format_euro(angaben.wert)))
    elif personen > 1 and angaben.wert > HOECHSTWERT:
        if angaben.wert > grenze:
            neu.append(
                HINWEIS_HOECHSTWERT_MEHRERE.format(
                    wert=format_euro(angaben.wert), hoechstwert=format_euro(grenze), anzahl=personen
                )
            )
        neu.append(HINWEIS_HOECHSTWERT_JE_PERSON)
    hinweise.extend(hinweis for hinweis in neu if hinweis not in hinweise)


def _gebuehrenposition(
    version: RvgVersion, angaben: _Angaben, *, zuschlag: Decimal, auftraggeber: int, pkh: bool, grenze: Decimal
) -> tuple[list[Position], _Gebuehr]:
    """The fee line and, for a Geschäfts- or Verfahrensgebühr with several clients, the Nr. 1008 line
    (the fee at the raised rate minus the fee at the plain rate); with the fee in total for Anrechnung
    and Nr. 7002. Values above ``grenze`` count as ``grenze`` (§ 22 Abs. 2 RVG)."""
    nummer, satz, wert, angelegenheit = angaben.nummer, angaben.satz, angaben.wert, angaben.angelegenheit
    # The Staatskasse pays for the court proceedings only (§ 45 Abs. 1 RVG): the fees of Teil 2 VV
    # (Geschäftsgebühr, Prüfung der Erfolgsaussicht) and an Einigung reached out of court follow the
    # table of § 13 RVG.
    ausserhalb = nummer.vv.startswith("2") or (nummer.vv in _EINIGUNG and angelegenheit is Angelegenheit.AUSSERGERICHTLICH)
    pkh = pkh and not ausserhalb
    betrag = version.gebuehr(wert, satz, pkh=pkh, inkasso=angaben.inkasso, hoechstwert=grenze)
    zeilen = [Position(nummer.vv, nummer.label, betrag, satz, wert, angelegenheit)]
    if not (nummer.erhoehungsfaehig and zuschlag > 0):
        return zeilen, _Gebuehr(nummer.vv, satz, wert, betrag, angelegenheit)
    gesamtsatz = satz + zuschlag
    gesamtbetrag = version.gebuehr(wert, gesamtsatz, pkh=pkh, inkasso=angaben.inkasso, hoechstwert=grenze)
    weitere = auftraggeber - 1
    zeilen.append(
        Position(
            "1008",
            f"Erhöhung für {weitere} weitere{'n' if weitere == 1 else ''} Auftraggeber zu Nr. {nummer.vv}",
            gesamtbetrag - betrag,
            zuschlag,
            wert,
            angelegenheit,
        )
    )
    return zeilen, _Gebuehr(nummer.vv, gesamtsatz, wert, gesamtbetrag, angelegenheit)


def _summe(zeilen: Sequence[Position]) -> Decimal:
    return sum((zeile.amount for zeile in zeilen), Decimal("0.00"))


def _kostenrechnung(
    version: RvgVersion,
    auftragsdatum: date,
    *,
    zeilen: list[Position],
    anrechnungen: list[Position],
    auslagen: list[Position],
    tabelle: str,
    ust_satz: Decimal,
    hinweise: list[str],
    abweichende_fassungen: tuple[tuple[str, date, str], ...] = (),
) -> Calculation:
    """The totals: fees, Anrechnung (negative), Auslagen, the net sum, the USt on it (Nr. 7008 VV RVG,
    rounded to cents) and the gross sum."""
    netto = _summe(zeilen) + _summe(anrechnungen) + _summe(auslagen)
    ust = runde_cent(netto * ust_satz)
    return Calculation(
        version=version.key,
        version_label=version.label,
        table=tabelle,
        auftragsdatum=auftragsdatum,
        positions=tuple(zeilen),
        anrechnungen=tuple(anrechnungen),
        auslagen=tuple(auslagen),
        fees=_summe(zeilen),
        anrechnung=_summe(anrechnungen),
        auslagenpauschale=_summe([zeile for zeile in auslagen if zeile.vv == "7002"]),
        auslagen_total=_summe(auslagen),
        net=netto,
        ust_rate=ust_satz,
        ust=ust,
        gross=netto + ust,
        hinweise=tuple(hinweise),
        abweichende_fassungen=abweichende_fassungen,
    )


def calculate(
    *,
    gegenstandswert: Decimal,
    auftragsdatum: date,
    positions: Sequence[PositionRequest],
    auftraggeber: int = 1,
    auftraggeber_verschiedene_gegenstaende: int = 1,
    anrechnung: bool | AnrechnungRequest = True,
    pkh: bool = False,
    auslagenpauschale: bool = True,
    km: Decimal | None = None,
    abwesenheit_stunden: Sequence[Decimal] = (),
    ust_rate: Decimal = UST_REGELSATZ,
    weitere_auslagen: AuslagenRequest | None = None,
    auftragsdaten: Mapping[Angelegenheit, date] | None = None,
) -> Calculation:
    """Calculate a lawyer's fee note (Kostenrechnung) under the RVG.

    - ``positions``: value-based fees (Nrn. 1000, 1003, 2300, 3100, 3104, 3200, 3202, 3305, 3307).
    - ``auftraggeber`` > 1 (clients in the same Gegenstand) adds the Nr. 1008 increase to each
      Geschäfts- and Verfahrensgebühr.
    - ``auftraggeber_verschiedene_gegenstaende`` > 1 (clients for different Gegenstände) raises the
      value cap to 30 million EUR per client, at most 100 million EUR (§ 22 Abs. 2 Satz 2 RVG); it
      cannot be combined with ``auftraggeber`` > 1.
    - ``anrechnung``: True credits a Geschäftsgebühr among ``positions`` against the first court
      Verfahrensgebühr (half its rate, at most 0.75, on the value that went into court) and a
      Mahnverfahren fee fully against Nr. 3100; an ``AnrechnungRequest`` credits an earlier,
      separately billed Geschäftsgebühr instead; False credits nothing.
    - ``pkh``: fees from the Staatskasse (§ 49 RVG table above 4,000 EUR).
    - Nr. 7002 is charged once per Angelegenheit (20 % of its fees before Anrechnung, at most 20 EUR);
      ``km`` adds Nr. 7003, each entry of ``abwesenheit_stunden`` (one per day) adds Nr. 7005.
    - ``ust_rate`` (Nr. 7008) applies to the net total; use 0 if no USt is charged.
    - ``auftragsdaten``: the date of an Angelegenheit's own unbedingter Auftrag where it differs from
      ``auftragsdatum`` (§ 60 Abs. 1 Satz 1 RVG; e.g. the earlier out-of-court mandate), for a
      Rechtsmittel the day it was filed (Satz 2): that Angelegenheit's fees, its Nr. 7002 and the
      Anrechnung of its fees follow the version of that day. Without one, a note says when a
      Geschäftsgebühr next to a court case or a Rechtsmittel may fall under another version.

    Raises RvgError with a German message for invalid input.
    """
    version = version_for(auftragsdatum)
    daten = dict(auftragsdaten or {})
    fassungen = {angelegenheit: version_for(datum) for angelegenheit, datum in daten.items()}

    def version_von(angelegenheit: Angelegenheit) -> RvgVersion:
        return fassungen.get(angelegenheit, version)

    def datum_fuer(request: PositionRequest) -> date:
        nummer = VV.get(request.vv)
        if not daten or nummer is None:
            return auftragsdatum
        return daten.get(_angelegenheit(request, nummer, positions), auftragsdatum)

    wert = _wert(gegenstandswert)
    if not positions:
        raise RvgError(FEHLER_KEINE_POSITIONEN)
    zuschlag = erhoehung(auftraggeber)
    grenze = hoechstwert(auftraggeber_verschiedene_gegenstaende)
    if auftraggeber > 1 and auftraggeber_verschiedene_gegenstaende > 1:
        raise RvgError(FEHLER_1008_UND_22)
    ust_satz = _ust_satz(ust_rate)

    zeilen: list[Position] = []
    gebuehren: list[_Gebuehr] = []
    hinweise: list[str] = []
    gerichtlich = any(VV[r.vv].angelegenheit in _GERICHTLICH for r in positions if r.vv in VV)
    alle_angaben = [_angaben(request, positions, wert=wert, auftragsdatum=datum_fuer(request)) for request in positions]
    teile = _teilwerte_pruefen(positions, alle_angaben)
    for angaben in alle_angaben:
        fassung = version_von(angaben.angelegenheit)
        _hinweise_ergaenzen(hinweise, fassung, angaben, personen=auftraggeber_verschiedene_gegenstaende, gerichtlich=gerichtlich)
        position_zeilen, gebuehr_ = _gebuehrenposition(
            fassung, angaben, zuschlag=zuschlag, auftraggeber=auftraggeber, pkh=pkh, grenze=grenze
        )
        zeilen.extend(position_zeilen)
        gebuehren.append(gebuehr_)
    for gruppe in teile:
        teil_gebuehren = [gebuehren[i] for i in gruppe]
        fassung = version_von(teil_gebuehren[0].angelegenheit)
        _teilwerte_kappen(fassung, teil_gebuehren, zeilen, gebuehren, hinweise, pkh=pkh, grenze=grenze)

    anrechnungen = _anrechnungen(version_von, gebuehren, anrechnung, pkh=pkh, grenze=grenze) if anrechnung is not False else []
    geschaeftsgebuehren = [g for g in gebuehren if g.vv == "2300"]
    if anrechnung is True and geschaeftsgebuehren and any(g.vv in _GERICHTLICHE_VERFAHRENSGEBUEHREN for g in gebuehren):
        if pkh:
            hinweise.append(HINWEIS_PKH_ANRECHNUNG)
        elif len(geschaeftsgebuehren) > 1:
            hinweise.append(HINWEIS_ANRECHNUNG_LETZTE)
    auslagen = _auslagen(
        version, gebuehren, auslagenpauschale=auslagenpauschale, km=km, stunden=abwesenheit_stunden, version_von=version_von
    )
    auslagen.extend(weitere_auslagen_positionen(weitere_auslagen or AuslagenRequest()))
    return _kostenrechnung(
        version,
        auftragsdatum,
        zeilen=zeilen,
        anrechnungen=anrechnungen,
        auslagen=auslagen,
        tabelle=version.tabellenname(max(g.value for g in gebuehren), pkh=pkh),
        ust_satz=ust_satz,
        hinweise=hinweise,
        abweichende_fassungen=_fassungen_je_angelegenheit(version, auftragsdatum, daten, version_von, gebuehren, hinweise),
    )


def _fassungen_je_angelegenheit(
    version: RvgVersion,
    auftragsdatum: date,
    daten: dict[Angelegenheit, date],
    version_von: Callable[[Angelegenheit], RvgVersion],
    gebuehren: list[_Gebuehr],
    hinweise: list[str],
) -> tuple[tuple[str, date, str], ...]:
    """§ 60 Abs. 1 RVG per Angelegenheit: the Angelegenheiten calculated from a date of their own
    (with a note where that changed the version), and a note where one without its own date may
    fall under another version: a Geschäftsgebühr next to a court case (its Auftrag is usually the
    earlier one) and a Rechtsmittel (filed after a change, it follows the new law, Satz 2)."""
    vorhanden = list(dict.fromkeys(g.angelegenheit for g in gebuehren))
    index = VERSIONS.index(version)
    vorige = VERSIONS[index - 1] if index > 0 else None
    naechste = VERSIONS[index + 1] if index + 1 < len(VERSIONS) else None
    abweichend: list[tuple[str, date, str]] = []
    for angelegenheit in vorhanden:
        datum = daten.get(angelegenheit)
        if datum is not None and datum != auftragsdatum:
            fassung = version_von(angelegenheit)
            abweichend.append((angelegenheit.label, datum, fassung.label))
            if fassung is not version:
                hinweise.append(
                    HINWEIS_FASSUNG_ANGELEGENHEIT.format(
                        angelegenheit=angelegenheit.label, fassung=fassung.label, datum=f"{datum:%d.%m.%Y}"
                    )
                )
        elif datum is None and angelegenheit is Angelegenheit.AUSSERGERICHTLICH and vorige is not None:
            if any(a in _GERICHTLICH for a in vorhanden):
                hinweise.append(
                    HINWEIS_FASSUNG_AUSSERGERICHTLICH.format(ab=f"{version.gueltig_ab:%d.%m.%Y}", fassung=vorige.label)
                )
        elif datum is None and angelegenheit in _RECHTSMITTEL and naechste is not None:
            hinweise.append(
                HINWEIS_FASSUNG_RECHTSMITTEL.format(
                    angelegenheit=angelegenheit.label,
                    fassung=version.label,
                    datum=f"{auftragsdatum:%d.%m.%Y}",
                    ab=f"{naechste.gueltig_ab:%d.%m.%Y}",
                    neu=naechste.label,
                )
            )
    return tuple(abweichend)


def _teilwerte_pruefen(requests: Sequence[PositionRequest], angaben: list[_Angaben]) -> list[list[int]]:
    """The positions (indices) that are fees of one kind for parts of the Gegenstand in one
    Angelegenheit (``TEILWERT_GRUPPEN``), for ``_teilwerte_kappen``. Raises RvgError when two of them
    have no value of their own: they cannot both arise on the whole Gegenstand."""
    gruppen: dict[tuple[frozenset[str], Angelegenheit], list[int]] = {}
    for index, item in enumerate(angaben):
        for gruppe in TEILWERT_GRUPPEN:
            if item.nummer.vv in gruppe:
                gruppen.setdefault((gruppe, item.angelegenheit), []).append(index)
    teile = [indices for indices in gruppen.values() if len(indices) > 1]
    for indices in teile:
        ohne_wert = [angaben[i].nummer.vv for i in indices if requests[i].value is None]
        if len(ohne_wert) > 1:
            doppelt = next((vv for vv in ohne_wert if ohne_wert.count(vv) > 1), None)
            if doppelt is not None:
                raise RvgError(FEHLER_TEILWERTE_DOPPELT.format(vv=doppelt))
            raise RvgError(FEHLER_TEILWERTE.format(nummern=" und ".join(dict.fromkeys(ohne_wert))))
    return teile


def _teilwerte_kappen(
    version: RvgVersion,
    teile: list[_Gebuehr],
    zeilen: list[Position],
    gebuehren: list[_Gebuehr],
    hinweise: list[str],
    *,
    pkh: bool,
    grenze: Decimal,
) -> None:
    """§ 15 Abs. 3 RVG: fees of one kind for parts of the Gegenstand together at most the fee at the
    highest rate on the sum of the parts; the excess is a negative line (also for Nr. 7002). With
    several clients the fees and rates compared include their Nr. 1008 increase."""
    satz = max(teil.rate for teil in teile)
    wert = sum((teil.value for teil in teile), Decimal("0"))
    summe = sum((teil.amount for teil in teile), Decimal("0"))
    ausserhalb = teile[0].angelegenheit is Angelegenheit.AUSSERGERICHTLICH
    hoechstens = version.gebuehr(wert, satz, pkh=pkh and not ausserhalb, hoechstwert=grenze)
    if summe <= hoechstens:
        return
    nummern = " und ".join(teil.vv for teil in teile)
    angaben = {"nummern": nummern, "satz": format_zahl(satz), "wert": format_euro(wert), "hoechstens": format_euro(hoechstens)}
    angelegenheit = teile[0].angelegenheit
    zeilen.append(Position(KUERZUNG_15_3, KUERZUNG_15_3_LABEL.format(**angaben), hoechstens - summe, angelegenheit=angelegenheit))
    gebuehren.append(_Gebuehr(KUERZUNG_15_3, satz, wert, hoechstens - summe, angelegenheit))
    hinweise.append(HINWEIS_15_3.format(**angaben, summe=format_euro(summe)))


def _anrechnungen(
    version_von: Callable[[Angelegenheit], RvgVersion],
    gebuehren: list[_Gebuehr],
    anrechnung: bool | AnrechnungRequest,
    *,
    pkh: bool,
    grenze: Decimal,
) -> list[Position]:
    """The Anrechnung lines; a fee is credited as it arose, by the version of its own Angelegenheit."""
    verbleibend = {gebuehr_: gebuehr_.amount for gebuehr_ in gebuehren}
    zeilen: list[Position] = []

    def anrechnen(ziel: _Gebuehr, satz: Decimal, wert: Decimal, anrechnungsversion: RvgVersion, vv: str, label: str) -> None:
        betrag = min(runde_cent(anrechnungsversion.einfache_gebuehr(wert, pkh=pkh, hoechstwert=grenze) * satz), verbleibend[ziel])
        verbleibend[ziel] -= betrag
        zeilen.append(Position(vv, label, -betrag, satz, wert, ziel.angelegenheit))

    gerichtlich = [g for vv in _GERICHTLICHE_VERFAHRENSGEBUEHREN for g in gebuehren if g.vv == vv]
    ziel = gerichtlich[0] if gerichtlich else None
    if isinstance(anrechnung, AnrechnungRequest):
        if ziel is None:
            raise RvgError(FEHLER_ANRECHNUNG_ZIEL)
        geschaeftsgebuehr_satz = _satz(anrechnung.rate)
        wert = ziel.value if anrechnung.value is None else _wert(anrechnung.value)
        fruehere_version = (
            version_von(Angelegenheit.AUSSERGERICHTLICH)
            if anrechnung.auftragsdatum is None
            else version_for(anrechnung.auftragsdatum)
        )
        satz = min(geschaeftsgebuehr_satz / 2, ANRECHNUNG_HOECHSTENS)
        anrechnen(ziel, satz, wert, fruehere_version, "Vorbem. 3 Abs. 4", _anrechnungslabel(geschaeftsgebuehr_satz, ziel))
    elif ziel is not None and not pkh:
        # Only the Geschäftsgebühr that arose last is credited (Vorbem. 3 Abs. 4 Satz 3 VV RVG); under
        # PKH none is deducted here (§ 58 Abs. 2 RVG, see HINWEIS_PKH_ANRECHNUNG).
        for quelle in [g for g in gebuehren if g.vv == "2300"][-1:]:
            satz = min(quelle.rate / 2, ANRECHNUNG_HOECHSTENS)
            wert = min(quelle.value, ziel.value)
            anrechnen(
                ziel, satz, wert, version_von(quelle.angelegenheit), "Vorbem. 3 Abs. 4", _anrechnungslabel(quelle.rate, ziel)
            )

    def erste(nummern: Sequence[str]) -> _Gebuehr | None:
        return next((g for vv in nummern for g in gebuehren if g.vv == vv), None)

    def voll_anrechnen(quelle: _Gebuehr, ziel: _Gebuehr | None, vv: str, label: str) -> None:
        """`quelle` credited at its full rate against `ziel`, on the value both share; `label` names
        the target as {ziel}."""
        if ziel is not None:
            wert = min(quelle.value, ziel.value)
            anrechnen(ziel, quelle.rate, wert, version_von(quelle.angelegenheit), vv, label.format(ziel=ziel.vv))

    for quelle in (g for g in gebuehren if g.vv in ("3305", "3307")):
        label = f"Anrechnung der Verfahrensgebühr Nr. {quelle.vv} auf Nr. {{ziel}} (Anm. zu Nr. {quelle.vv} VV RVG)"
        voll_anrechnen(quelle, erste(_MAHNVERFAHREN_ZIELE), f"Anm. zu {quelle.vv}", label)
    for quelle in (g for g in gebuehren if g.vv in ("2100", "2101")):
        label = f"Anrechnung der Gebühr Nr. {quelle.vv} (Prüfung der Erfolgsaussicht) auf Nr. {{ziel}} (Anm. zu Nr. 2100 VV RVG)"
        voll_anrechnen(quelle, erste(_RECHTSMITTEL_VERFAHRENSGEBUEHREN), "Anm. zu 2100", label)
    for quelle in (g for g in gebuehren if g.vv == "3335"):
        label = (
            "Nr. 3335 neben Nr. {ziel}: Verfahren über die Prozesskostenhilfe und Hauptsache sind dieselbe Angelegenheit, "
            "die Verfahrensgebühr entsteht nur einmal (§ 16 Nr. 2, § 15 Abs. 2 RVG)"
        )
        voll_anrechnen(quelle, erste(_VERFAHRENSGEBUEHREN_JE_RECHTSZUG.get(quelle.angelegenheit, ())), "§ 16 Nr. 2 RVG", label)
    return zeilen


def _anrechnungslabel(geschaeftsgebuehr_satz: Decimal, ziel: _Gebuehr) -> str:
    return (
        f"Anrechnung der Geschäftsgebühr ({format_zahl(geschaeftsgebuehr_satz)}) zur Hälfte, höchstens 0,75, "
        f"auf Nr. {ziel.vv} (Vorbem. 3 Abs. 4 VV RVG)"
    )


def _auslagen(
    version: RvgVersion,
    gebuehren: list[_Gebuehr],
    *,
    auslagenpauschale: bool,
    km: Decimal | None,
    stunden: Sequence[Decimal],
    version_von: Callable[[Angelegenheit], RvgVersion],
) -> list[Position]:
    """Nr. 7002 per Angelegenheit (by its own version), Nrn. 7003 and 7005 by ``version``."""
    zeilen: list[Position] = []
    if auslagenpauschale:
        summen: dict[Angelegenheit, Decimal] = {}
        for gebuehr_ in gebuehren:
            summen[gebuehr_.angelegenheit] = summen.get(gebuehr_.angelegenheit, Decimal("0.00")) + gebuehr_.amount
        for angelegenheit, summe in summen.items():
            fassung = version_von(angelegenheit)
            betrag = min(runde_cent(summe * fassung.pauschale_anteil), fassung.pauschale_hoechstbetrag)
            zeilen.append(
                Position(
                    "7002",
                    f"Pauschale für Post- und Telekommunikationsentgelte – {angelegenheit.label}",
                    betrag,
                    angelegenheit=angelegenheit,
                )
            )
    if km is not None:
        kilometer = _decimal(km, "Kilometer")
        if kilometer < 0:
            raise RvgError(FEHLER_KM.format(km=format_zahl(kilometer)))
        if kilometer > 0:
            zeilen.append(
                Position(
                    "7003",
                    f"Fahrtkosten eigenes Kfz: {format_zahl(kilometer)} km × {format_euro(version.km_satz)}",
                    runde_cent(kilometer * version.km_satz),
                )
            )
    for eintrag in stunden:
        dauer = _decimal(eintrag, "Abwesenheitsdauer")
        if dauer <= 0:
            raise RvgError(FEHLER_STUNDEN.format(stunden=format_zahl(dauer)))
        zeilen.append(
            Position(
                "7005",
                f"Tage- und Abwesenheitsgeld ({format_zahl(dauer)} Stunden)",
                _abwesenheitsgeld(version, dauer),
            )
        )
    return zeilen


# Nr. 7000 VV RVG (unchanged by the KostBRÄG 2025): per page for the first 50 pages / each further page.
SEITE_SW = (Decimal("0.50"), Decimal("0.15"))
SEITE_FARBE = (Decimal("1.00"), Decimal("0.30"))
JE_DATEI = Decimal("1.50")
DATEIEN_HOECHSTENS = Decimal("5.00")
FEHLER_ANZAHL = "{was}: bitte eine ganze Zahl ab 0 angeben (angegeben: {wert})."
FEHLER_BETRAG_NEGATIV = "{was} darf nicht negativ sein (angegeben: {wert})."


def _seiten(anzahl: int, saetze: tuple[Decimal, Decimal]) -> Decimal:
    erste, weitere = saetze
    return min(anzahl, 50) * erste + max(anzahl - 50, 0) * weitere


def weitere_auslagen_positionen(request: AuslagenRequest) -> list[Position]:
    """Positions of Nrn. 7000, 7004 and 7006 VV RVG. Raises RvgError for negative input."""
    zeilen: list[Position] = []
    for was, anzahl in (("Seiten s/w", request.seiten_sw), ("Seiten Farbe", request.seiten_farbe), ("Dateien", request.dateien)):
        if isinstance(anzahl, bool) or not isinstance(anzahl, int) or anzahl < 0:
            raise RvgError(FEHLER_ANZAHL.format(was=was, wert=anzahl))
    if request.seiten_sw or request.seiten_farbe:
        betrag = _seiten(request.seiten_sw, SEITE_SW) + _seiten(request.seiten_farbe, SEITE_FARBE)
        zeilen.append(
            Position(
                "7000",
                f"Dokumentenpauschale: {request.seiten_sw} Seiten s/w, {request.seiten_farbe} Seiten Farbe "
                "(je 0,50 € / 1,00 € für die ersten 50, danach 0,15 € / 0,30 €)",
                betrag,
            )
        )
    if request.dateien:
        zeilen.append(
            Position(
                "7000",
                f"Dokumentenpauschale: {request.dateien} Dateien zu je 1,50 €, höchstens 5,00 € je Arbeitsgang",
                min(request.dateien * JE_DATEI, DATEIEN_HOECHSTENS),
            )
        )
    voll: tuple[tuple[str, str, Decimal | None], ...] = (
        ("7004", "Fahrtkosten mit anderen Verkehrsmitteln (in voller Höhe)", request.fahrtkosten),
        ("7006", "Sonstige Auslagen der Geschäftsreise (in voller Höhe)", request.reiseauslagen),
    )
    for vv, was, angabe in voll:
        if angabe is None:
            continue
        wert = _decimal(angabe, was)
        if wert < 0:
            raise RvgError(FEHLER_BETRAG_NEGATIV.format(was=was, wert=format_euro(wert)))
        if wert > 0:
            zeilen.append(Position(vv, was, runde_cent(wert)))
    return zeilen


def describe(calculation: Calculation) -> str:
    """A plain German fee note for display and for the assistant."""
    zeilen = [f"Kostenberechnung nach {calculation.version_label}, Tabelle: {calculation.table}"]
    for position in (*calculation.positions, *calculation.anrechnungen, *calculation.auslagen):
        satz = f"{format_satz(position.rate)} " if position.rate is not None else ""
        wert = f" (Wert {format_euro(position.value)})" if position.value is not None else ""
        kennung = f"Nr. {position.vv}" if position.vv[0].isdigit() else position.vv
        zeilen.append(f"{kennung}: {satz}{position.label}{wert}: {format_euro(position.amount)}")
    zeilen.append(f"Zwischensumme netto: {format_euro(calculation.net)}")
    zeilen.append(f"Umsatzsteuer {format_zahl(calculation.ust_rate * 100)} % (Nr. 7008): {format_euro(calculation.ust)}")
    zeilen.append(f"Gesamtbetrag: {format_euro(calculation.gross)}")
    zeilen.append(f"Auftragsdatum: {format_datum(calculation.auftragsdatum)}")
    zeilen.extend(
        f"Auftragsdatum {angelegenheit}: {format_datum(datum)} ({fassung})"
        for angelegenheit, datum, fassung in calculation.abweichende_fassungen
    )
    zeilen.extend(f"Hinweis: {hinweis}" for hinweis in calculation.hinweise)
    return "\n".join(zeilen)
