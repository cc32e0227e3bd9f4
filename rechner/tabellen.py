"""Wertgebührentabellen built by the step rule shared by § 13 Abs. 1 RVG and § 34 Abs. 1 GKG.

Both statutes define their table the same way: a base fee for values up to 500 EUR, then a fixed
increase "für jeden angefangenen Betrag von weiteren ... Euro" within seven value ranges
(up to 2,000 / 10,000 / 25,000 / 50,000 / 200,000 / 500,000 EUR and above 500,000 EUR, with steps of
500 / 1,000 / 3,000 / 5,000 / 15,000 / 30,000 / 50,000 EUR). Only the amounts differ between the
statutes and their versions (KostRÄG 2021 in force 2021-01-01, KostBRÄG 2025 in force 2025-06-01);
``rvg`` and ``gkg`` supply them. Rounding follows § 2 Abs. 2 Satz 2 RVG / § 34 Abs. 2 Satz 2 GKG.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal

from rechner.zahlen import parse_zahl

CENT = Decimal("0.01")
# § 22 Abs. 2 Satz 1 RVG, § 39 Abs. 2 GKG, § 33 Abs. 2 FamGKG: the value counts at most 30 million EUR.
HOECHSTWERT = Decimal(30_000_000)

# Upper limits and step sizes of the value ranges; None is the open range above 500,000 EUR.
_BEREICHE: tuple[tuple[int | None, int], ...] = (
    (2_000, 500),
    (10_000, 1_000),
    (25_000, 3_000),
    (50_000, 5_000),
    (200_000, 15_000),
    (500_000, 30_000),
    (None, 50_000),
)

_WOCHENTAGE = ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag")


def runde_cent(betrag: Decimal) -> Decimal:
    """Round to the nearest cent; half a cent is rounded up (ROUND_HALF_UP)."""
    return betrag.quantize(CENT, rounding=ROUND_HALF_UP)


def satzgebuehr(einfache_gebuehr: Decimal, satz: Decimal, mindestgebuehr: Decimal) -> Decimal:
    """``satz`` times the 1.0 fee, rounded to cents, but at least ``mindestgebuehr``."""
    return max(runde_cent(einfache_gebuehr * satz), mindestgebuehr)


def als_decimal(wert: object, *, feld: str) -> Decimal:
    """Convert user input to Decimal with the one amount parser (``rechner.zahlen.parse_zahl``).

    Raises ValueError with a German message; callers re-raise it as their module's error type.
    """
    return parse_zahl(wert, feld=feld)


def format_euro(betrag: Decimal) -> str:
    """German money format: ``Decimal("1234.5")`` → ``"1.234,50 €"``."""
    text = f"{runde_cent(betrag):,.2f}"
    return text.replace(",", "_").replace(".", ",").replace("_", ".") + " €"


def format_zahl(zahl: Decimal) -> str:
    """German decimal format without trailing zeros: ``Decimal("1.30")`` → ``"1,3"``."""
    text = format(zahl.normalize(), "f")
    return text.replace(".", ",")


def format_satz(satz: Decimal) -> str:
    """A fee rate as written in fee notes: ``Decimal("1.30")`` → ``"1,3"``, ``Decimal("1")`` → ``"1,0"``."""
    text = format_zahl(satz)
    return text if "," in text else f"{text},0"


def format_datum(tag: date) -> str:
    """``date(2025, 6, 1)`` → ``"Sonntag, 01.06.2025"``."""
    return f"{_WOCHENTAGE[tag.weekday()]}, {tag:%d.%m.%Y}"


def wochentag(tag: date) -> str:
    return _WOCHENTAGE[tag.weekday()]


@dataclass(frozen=True)
class Stufe:
    """One value range: up to ``bis`` EUR (None = unlimited) the fee rises by ``erhoehung``
    for every started ``schritt`` EUR."""

    bis: Decimal | None
    schritt: Decimal
    erhoehung: Decimal


def stufen(*erhoehungen: str) -> tuple[Stufe, ...]:
    """The seven ranges shared by RVG and GKG, with the given increase per range."""
    if len(erhoehungen) != len(_BEREICHE):
        raise ValueError(f"Es werden {len(_BEREICHE)} Erhöhungsbeträge benötigt.")
    return tuple(
        Stufe(bis=None if bis is None else Decimal(bis), schritt=Decimal(schritt), erhoehung=Decimal(erhoehung))
        for (bis, schritt), erhoehung in zip(_BEREICHE, erhoehungen, strict=True)
    )


@dataclass(frozen=True)
class Wertgebuehrentabelle:
    """A fee table in force from ``gueltig_ab``: the 1.0 fee for a value and the minimum fee."""

    bezeichnung: str
    gueltig_ab: date
    grundgebuehr: Decimal
    stufen: tuple[Stufe, ...]
    mindestgebuehr: Decimal
    grundwert: Decimal = Decimal(500)
    hoechstwert: Decimal = HOECHSTWERT

    def einfache_gebuehr(self, wert: Decimal, *, hoechstwert: Decimal | None = None) -> Decimal:
        """The 1.0 fee for ``wert`` (> 0), as printed in the statute's table; values above
        ``hoechstwert`` (default: the table's, § 22 Abs. 2 Satz 1 RVG, § 39 Abs. 2 GKG, § 33 Abs. 2
        FamGKG) count as ``hoechstwert``. The table's steps continue above 30 million EUR for the
        higher cap of § 22 Abs. 2 Satz 2 RVG."""
        if wert <= 0:
            raise ValueError("Der Wert muss größer als 0 Euro sein.")
        wert = min(wert, self.hoechstwert if hoechstwert is None else hoechstwert)
        gebuehr = self.grundgebuehr
        untergrenze = self.grundwert
        for stufe in self.stufen:
            if wert <= untergrenze:
                break
            obergrenze = wert if stufe.bis is None else min(wert, stufe.bis)
            angefangene = ((obergrenze - untergrenze) / stufe.schritt).to_integral_value(rounding=ROUND_CEILING)
            gebuehr += angefangene * stufe.erhoehung
            if stufe.bis is None:
                break
            untergrenze = stufe.bis
        return gebuehr

    def gebuehr(self, wert: Decimal, satz: Decimal) -> Decimal:
        """``satz`` times the 1.0 fee, rounded to cents, but at least the minimum fee."""
        return satzgebuehr(self.einfache_gebuehr(wert), satz, self.mindestgebuehr)
