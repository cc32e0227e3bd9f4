"""GKG court fees: the fee table of § 34 GKG (Anlage 2) and typical numbers of the Kostenverzeichnis.

Legal basis
- § 34 Abs. 1 GKG with Anlage 2 (step rule), § 34 Abs. 2 GKG (minimum fee 15 EUR; rounding to cents,
  half a cent up, written into Abs. 2 by the KostBRÄG 2025).
- Kostenverzeichnis (Anlage 1 GKG): Nr. 1100 (Mahnverfahren, 0.5, with a minimum amount),
  Nrn. 1210/1211 (erster Rechtszug 3.0, ermäßigt 1.0), Nrn. 1220/1222 (Berufung 4.0, ermäßigt 2.0),
  Nr. 1230 (Revision 5.0), Nrn. 1410-1412 (Arrest, einstweilige Verfügung 1.5 / 1.0 / 3.0),
  Nrn. 8210/8211 (Arbeitsgericht 2.0 / 0.4; a gerichtlicher Vergleich ends it without fee),
  Nrn. 8220-8222 (LAG 3.2 / 0.8 / 1.6). The KV is not part of the statute corpus; these rates
  are not checked against its text by a test.
- § 71 Abs. 1 GKG: fees follow the version in force when the proceedings became pending
  (for an appeal: when it was filed), so the version is chosen by that date.

Versions
- ``GKG_2021``: KostRÄG 2021 (BGBl. I 2020 S. 3229), in force 2021-01-01 to 2025-05-31.
- ``GKG_2025``: KostBRÄG 2025 (BGBl. 2025 I Nr. 109), in force since 2025-06-01.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from rechner.tabellen import Wertgebuehrentabelle, als_decimal, format_euro, format_zahl, stufen

FEHLER_DATUM = "Für Verfahren, die vor dem 01.01.2021 anhängig wurden, ist keine Gebührentabelle hinterlegt ({datum})."
FEHLER_WERT = "Der Streitwert muss größer als 0 Euro sein (angegeben: {wert})."
FEHLER_SATZ = "Der Gebührensatz muss größer als 0 sein (angegeben: {satz})."
FEHLER_UNBEKANNT = "Nr. {kv} KV GKG ist im Rechner nicht hinterlegt. Verfügbar sind die Nrn. {verfuegbar}."
HINWEIS_HOECHSTWERT = "Der Streitwert {wert} übersteigt den Höchstwert; gerechnet wird mit 30.000.000,00 € (§ 39 Abs. 2 GKG)."


class GkgError(ValueError):
    """Invalid input for a court fee calculation; the message is German and shown to the user."""


@dataclass(frozen=True)
class GkgVersion:
    """One version of the GKG amounts, applicable to proceedings pending from ``gueltig_ab``."""

    key: str
    label: str
    gueltig_ab: date
    tabelle: Wertgebuehrentabelle
    mindestbetraege: dict[str, Decimal] = field(default_factory=dict)  # KV numbers with their own minimum


GKG_2021 = GkgVersion(
    key="GKG_2021",
    label="GKG i. d. F. des KostRÄG 2021 (anhängig ab 01.01.2021)",
    gueltig_ab=date(2021, 1, 1),
    tabelle=Wertgebuehrentabelle(
        bezeichnung="Anlage 2 zu § 34 GKG (KostRÄG 2021)",
        gueltig_ab=date(2021, 1, 1),
        grundgebuehr=Decimal("38.00"),
        stufen=stufen("20.00", "21.00", "29.00", "38.00", "132.00", "198.00", "198.00"),
        mindestgebuehr=Decimal("15.00"),
    ),
    mindestbetraege={"1100": Decimal("36.00")},
)

GKG_2025 = GkgVersion(
    key="GKG_2025",
    label="GKG i. d. F. des KostBRÄG 2025 (anhängig ab 01.06.2025)",
    gueltig_ab=date(2025, 6, 1),
    tabelle=Wertgebuehrentabelle(
        bezeichnung="Anlage 2 zu § 34 GKG (KostBRÄG 2025)",
        gueltig_ab=date(2025, 6, 1),
        grundgebuehr=Decimal("40.00"),
        stufen=stufen("21.00", "22.50", "30.50", "40.50", "140.00", "210.00", "210.00"),
        mindestgebuehr=Decimal("15.00"),
    ),
    mindestbetraege={"1100": Decimal("38.00")},
)

VERSIONS = (GKG_2021, GKG_2025)


@dataclass(frozen=True)
class KvNummer:
    kv: str
    label: str
    rate: Decimal


KV: dict[str, KvNummer] = {
    nummer.kv: nummer
    for nummer in (
        KvNummer("1100", "Verfahren über den Antrag auf Erlass eines Mahnbescheids", Decimal("0.5")),
        KvNummer("1210", "Verfahren im Allgemeinen (erster Rechtszug)", Decimal("3.0")),
        KvNummer(
            "1211",
            "Ermäßigte Verfahrensgebühr erster Rechtszug (z. B. Klagerücknahme, Anerkenntnis, Vergleich)",
            Decimal("1.0"),
        ),
        KvNummer("1220", "Verfahren im Allgemeinen (Berufung)", Decimal("4.0")),
        KvNummer("1222", "Ermäßigte Verfahrensgebühr Berufung (z. B. Rücknahme, Vergleich)", Decimal("2.0")),
        KvNummer("1230", "Verfahren im Allgemeinen (Revision)", Decimal("5.0")),
        KvNummer("1410", "Arrest oder einstweilige Verfügung (Verfahren über den Antrag)", Decimal("1.5")),
        KvNummer("1411", "Arrest oder einstweilige Verfügung, ermäßigt (z. B. Rücknahme, Vergleich)", Decimal("1.0")),
        KvNummer("1412", "Arrest oder einstweilige Verfügung, Entscheidung durch Urteil", Decimal("3.0")),
        KvNummer("8210", "Arbeitsgericht, Verfahren im Allgemeinen (erster Rechtszug)", Decimal("2.0")),
        KvNummer("8211", "Arbeitsgericht, ermäßigte Verfahrensgebühr (z. B. Rücknahme, Anerkenntnis)", Decimal("0.4")),
        KvNummer("8220", "Landesarbeitsgericht, Verfahren im Allgemeinen (Berufung)", Decimal("3.2")),
        KvNummer("8221", "Landesarbeitsgericht, Rücknahme vor Eingang der Berufungsbegründung", Decimal("0.8")),
        KvNummer("8222", "Landesarbeitsgericht, ermäßigte Verfahrensgebühr", Decimal("1.6")),
    )
}


# Numbers of one proceeding that replace each other: the reduced fee (or the one for a judgment)
# takes the place of the general one, it is never charged next to it (e.g. Nr. 1211: "Die Gebühr
# 1210 ermäßigt sich auf 1,0"; Nr. 1412: "Die Gebühr 1410 erhöht sich auf 3,0").
EINANDER_AUSSCHLIESSEND: tuple[frozenset[str], ...] = (
    frozenset({"1210", "1211"}),
    frozenset({"1220", "1222"}),
    frozenset({"1410", "1411", "1412"}),
    frozenset({"8210", "8211"}),
    frozenset({"8220", "8221", "8222"}),
)
FEHLER_AUSSCHLIESSEND = (
    "Die Nrn. {nummern} KV GKG werden nicht nebeneinander erhoben: die ermäßigte (bzw. erhöhte) Gebühr tritt an die "
    "Stelle der Gebühr für das Verfahren im Allgemeinen. Gib nur die Nummer an, die im Verfahren anfällt."
)
FEHLER_DOPPELT = "Nr. {kv} KV GKG ist mehrfach angegeben; je Verfahren fällt sie einmal an."


@dataclass(frozen=True)
class KvPosition:
    kv: str
    label: str
    rate: Decimal
    value: Decimal
    amount: Decimal
    version: str
    hinweis: str | None = None


def version_for(anhaengig_seit: date) -> GkgVersion:
    """The GKG version for proceedings pending since ``anhaengig_seit`` (§ 71 Abs. 1 GKG).

    Raises GkgError before 2021-01-01.
    """
    passende = [version for version in VERSIONS if version.gueltig_ab <= anhaengig_seit]
    if not passende:
        raise GkgError(FEHLER_DATUM.format(datum=f"{anhaengig_seit:%d.%m.%Y}"))
    return passende[-1]


def _decimal(wert: object, feld: str) -> Decimal:
    try:
        return als_decimal(wert, feld=feld)
    except ValueError as fehler:
        raise GkgError(str(fehler)) from None


def _streitwert(wert: object) -> Decimal:
    ergebnis = _decimal(wert, "Streitwert")
    if ergebnis <= 0:
        raise GkgError(FEHLER_WERT.format(wert=format_euro(ergebnis)))
    return ergebnis


def _satz(satz: object) -> Decimal:
    ergebnis = _decimal(satz, "Gebührensatz")
    if ergebnis <= 0:
        raise GkgError(FEHLER_SATZ.format(satz=format_zahl(ergebnis)))
    return ergebnis


def einfache_gebuehr(streitwert: Decimal, *, on: date) -> Decimal:
    """The 1.0 court fee for ``streitwert`` under the version in force on ``on``."""
    return version_for(on).tabelle.einfache_gebuehr(_streitwert(streitwert))


def gerichtsgebuehr(streitwert: Decimal, rate: Decimal, *, on: date) -> Decimal:
    """``rate`` times the 1.0 court fee, rounded to cents, at least 15 EUR (§ 34 Abs. 2 GKG).

    Example: ``gerichtsgebuehr(Decimal(5000), Decimal("3.0"), on=date(2025, 6, 1))`` → ``Decimal("511.50")``.
    """
    return version_for(on).tabelle.gebuehr(_streitwert(streitwert), _satz(rate))


def kv_gebuehr(kv: str, streitwert: Decimal, *, on: date) -> KvPosition:
    """The fee of Nr. ``kv`` KV GKG for ``streitwert`` in proceedings pending since ``on``.

    Nr. 1100 is at least 36 EUR (2021) or 38 EUR (2025). Raises GkgError for unknown numbers.
    """
    nummer = KV.get(kv)
    if nummer is None:
        raise GkgError(FEHLER_UNBEKANNT.format(kv=kv, verfuegbar=", ".join(KV)))
    version = version_for(on)
    wert = _streitwert(streitwert)
    betrag = version.tabelle.gebuehr(wert, nummer.rate)
    mindestbetrag = version.mindestbetraege.get(kv)
    if mindestbetrag is not None:
        betrag = max(betrag, mindestbetrag)
    hinweis = HINWEIS_HOECHSTWERT.format(wert=format_euro(wert)) if wert > version.tabelle.hoechstwert else None
    return KvPosition(
        kv=kv, label=nummer.label, rate=nummer.rate, value=wert, amount=betrag, version=version.key, hinweis=hinweis
    )


def kv_gebuehren(kvs: list[str], streitwert: Decimal, *, on: date) -> list[KvPosition]:
    """The fees of the numbers ``kvs`` of one proceeding (``kv_gebuehr`` each).

    Raises GkgError for a number given twice and for numbers that replace each other
    (``EINANDER_AUSSCHLIESSEND``, e.g. 1210 and 1211): summing them would overstate the costs.
    """
    for kv in kvs:
        if kvs.count(kv) > 1:
            raise GkgError(FEHLER_DOPPELT.format(kv=kv))
    for gruppe in EINANDER_AUSSCHLIESSEND:
        genannt = [kv for kv in kvs if kv in gruppe]
        if len(genannt) > 1:
            raise GkgError(FEHLER_AUSSCHLIESSEND.format(nummern=" und ".join(sorted(genannt))))
    return [kv_gebuehr(kv, streitwert, on=on) for kv in kvs]
