"""German number, money and date formats of the calculators for the templates."""

from datetime import date
from decimal import Decimal

from django import template

from rechner.fristen import BUNDESLAENDER
from rechner.tabellen import format_datum, format_euro, format_satz, format_zahl

register = template.Library()


@register.filter
def euro(betrag: Decimal | None) -> str:
    """``Decimal("1234.5")`` → ``"1.234,50 €"``; empty for None."""
    return "" if betrag is None else format_euro(betrag)


@register.filter
def satz(wert: Decimal | None) -> str:
    """A fee rate as written in fee notes: ``Decimal("1.30")`` → ``"1,3"``, ``Decimal("1")`` → ``"1,0"``;
    empty for None (Auslagen have no rate)."""
    return "" if wert is None else format_satz(wert)


@register.filter
def prozent(anteil: Decimal) -> str:
    """``Decimal("0.19")`` → ``"19 %"``."""
    return f"{format_zahl(anteil * 100)} %"


@register.filter
def datum(tag: date | None) -> str:
    """``date(2024, 4, 2)`` → ``"Dienstag, 02.04.2024"``; empty for None."""
    return "" if tag is None else format_datum(tag)


@register.filter
def bundesland(code: str) -> str:
    return BUNDESLAENDER.get(code, code)
