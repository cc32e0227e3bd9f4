"""The one parser for amounts and rates typed by people or passed by the assistant.

German notation is the rule: a dot groups thousands, a comma separates the decimals
("5.000" is five thousand, "5.000,50" is five thousand and fifty cents). A dot that cannot be a
thousands separator ("1.3", "5000.50") is read as a decimal point. Input that two readers could
understand differently ("1,234", "1234.567", "5,000.50") is refused with a German message instead
of being guessed.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

FEHLER_KEINE_ZAHL = "{feld}: „{wert}“ ist keine Zahl. Schreibe z. B. 5.000,50 oder 5000."
FEHLER_MEHRDEUTIG = (
    "{feld}: „{wert}“ ist mehrdeutig. Schreibe Tausender mit Punkt und Nachkommastellen mit Komma, "
    "z. B. 1.234 (eintausendzweihundertvierunddreißig) oder 1,23."
)
FEHLER_ENGLISCH = "{feld}: „{wert}“ ist in englischer Schreibweise. Schreibe deutsch, z. B. 5.000,50."
FEHLER_FLOAT = "{feld}: bitte als Dezimalzahl, Ganzzahl oder Zeichenkette angeben (kein float)."
FEHLER_UNENDLICH = "{feld}: „{wert}“ ist keine endliche Zahl."


class ZahlFehler(ValueError):
    """Input that is no (unambiguous) number; ``code`` says why: keine_zahl, mehrdeutig, englisch, float."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


_LEER = re.compile(r"[\s\u00a0\u202f]|€|eur\b", re.IGNORECASE)
_GANZ = re.compile(r"-?\d+")
_DEUTSCH_GRUPPIERT = re.compile(r"-?[1-9]\d{0,2}(\.\d{3})+(,\d+)?")
_DEUTSCH_KOMMA = re.compile(r"-?\d+,\d+")
_ENGLISCH_GRUPPIERT = re.compile(r"-?[1-9]\d{0,2}(,\d{3})+(\.\d+)?")
_PUNKT = re.compile(r"-?\d+\.\d+")
# "1,234" could be 1.234 (German) or 1234 (English grouping); "1234.567" is no German grouping.
_KOMMA_DREI = re.compile(r"-?\d{1,3},\d{3}")
_PUNKT_DREI = re.compile(r"-?\d+\.\d{3}")


def parse_zahl(wert: object, *, feld: str) -> Decimal:
    """Read ``wert`` (str, int or Decimal) as a Decimal; floats and booleans are refused.

    Raises ZahlFehler (a ValueError) with a German message naming ``feld``; callers re-raise it as their own error.
    Examples: ``"5.000"`` → 5000, ``"5.000,50"`` → 5000.50, ``"1,3"`` / ``"1.3"`` → 1.3, ``"1,234"`` → error.
    """
    if isinstance(wert, bool) or isinstance(wert, float):
        raise ZahlFehler(FEHLER_FLOAT.format(feld=feld), "float")
    if isinstance(wert, Decimal):
        ergebnis = wert
    elif isinstance(wert, int):
        ergebnis = Decimal(wert)
    elif isinstance(wert, str):
        ergebnis = _aus_text(wert, feld=feld)
    else:
        raise ZahlFehler(FEHLER_KEINE_ZAHL.format(feld=feld, wert=wert), "keine_zahl")
    if not ergebnis.is_finite():
        raise ZahlFehler(FEHLER_UNENDLICH.format(feld=feld, wert=wert), "keine_zahl")
    return ergebnis


def _aus_text(text: str, *, feld: str) -> Decimal:
    kompakt = _LEER.sub("", text)
    try:
        if _GANZ.fullmatch(kompakt):
            return Decimal(kompakt)
        if _DEUTSCH_GRUPPIERT.fullmatch(kompakt):
            return Decimal(kompakt.replace(".", "").replace(",", "."))
        if _KOMMA_DREI.fullmatch(kompakt):
            raise ZahlFehler(FEHLER_MEHRDEUTIG.format(feld=feld, wert=text.strip()), "mehrdeutig")
        if _DEUTSCH_KOMMA.fullmatch(kompakt):
            return Decimal(kompakt.replace(",", "."))
        if _ENGLISCH_GRUPPIERT.fullmatch(kompakt):
            raise ZahlFehler(FEHLER_ENGLISCH.format(feld=feld, wert=text.strip()), "englisch")
        if _PUNKT_DREI.fullmatch(kompakt):
            raise ZahlFehler(FEHLER_MEHRDEUTIG.format(feld=feld, wert=text.strip()), "mehrdeutig")
        if _PUNKT.fullmatch(kompakt):
            return Decimal(kompakt)
    except InvalidOperation:
        pass
    raise ZahlFehler(FEHLER_KEINE_ZAHL.format(feld=feld, wert=text.strip()), "keine_zahl")
