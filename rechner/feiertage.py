"""Public holidays at the court's place for § 193 BGB / § 222 Abs. 2 ZPO.

Holidays come from the ``holidays`` package: the Land's public holidays (category PUBLIC) are
certain. Some holidays are kept only in parts of a Land; the package lists them in the CATHOLIC
category (Mariä Himmelfahrt in most Bavarian municipalities, Fronleichnam in some municipalities of
Sachsen and Thüringen) or as the city subdivision "Augsburg" (Augsburger Hohes Friedensfest, also
Mariä Himmelfahrt). Whether such a holiday applies depends on the municipality. The ``ORTE_MIT_*``
lists below name court seats where it certainly applies; anywhere else it is *uncertain*: the
calculator then treats the day as a working day (the earlier, safe deadline) and warns.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import lru_cache

import holidays

# Court seats where the partial holiday is certainly kept (predominantly Catholic municipalities
# listed by the Bayerisches Landesamt für Statistik; Eichsfeld in Thüringen). Deliberately short:
# a missing Ort only costs a warning and the earlier date, a wrong entry would cost a deadline.
ORTE_MIT_MARIAE_HIMMELFAHRT_BY = frozenset(
    {
        "münchen",
        "augsburg",
        "regensburg",
        "würzburg",
        "passau",
        "landshut",
        "ingolstadt",
        "rosenheim",
        "kempten",
        "kempten (allgäu)",
        "traunstein",
        "deggendorf",
        "straubing",
        "bamberg",
        "aschaffenburg",
        "amberg",
        "freising",
        "eichstätt",
    }
)
ORTE_MIT_FRONLEICHNAM_SN = frozenset({"crostwitz", "nebelschütz", "panschwitz-kuckau", "ralbitz-rosenthal", "räckelwitz"})
ORTE_MIT_FRONLEICHNAM_TH = frozenset({"heilbad heiligenstadt", "heiligenstadt", "leinefelde-worbis", "worbis", "dingelstädt"})
AUGSBURG = "augsburg"

_KATHOLISCHE_ORTE: dict[str, frozenset[str]] = {
    "BY": ORTE_MIT_MARIAE_HIMMELFAHRT_BY,
    "SN": ORTE_MIT_FRONLEICHNAM_SN,
    "TH": ORTE_MIT_FRONLEICHNAM_TH,
}
_ALLE_ORTE: frozenset[str] = frozenset().union(*_KATHOLISCHE_ORTE.values())


def ort_schluessel(ort: str | None) -> str:
    """Normalised municipality name for the lookups ("München " → "münchen", "Muenchen" → "münchen")."""
    if not ort:
        return ""
    text = " ".join(ort.split()).casefold()
    for ersatz, umlaut in (("ae", "ä"), ("oe", "ö"), ("ue", "ü")):
        kandidat = text.replace(ersatz, umlaut)
        if kandidat in _ALLE_ORTE:
            return kandidat
    return text


@dataclass(frozen=True)
class Feiertagskalender:
    """The holidays that count for a court in ``bundesland`` at ``ort`` (None: Ort unknown)."""

    bundesland: str
    ort: str | None = None

    def feiertag(self, tag: date) -> str | None:
        """The name of a holiday that certainly applies at the place on ``tag``, or None."""
        return _sichere_feiertage(self.bundesland, ort_schluessel(self.ort), tag.year).get(tag)

    def teilfeiertag(self, tag: date) -> str | None:
        """The name of a holiday kept only in parts of the Land whose application at the place is
        not certain (Ort unknown or not listed), or None."""
        return _unsichere_feiertage(self.bundesland, ort_schluessel(self.ort), tag.year).get(tag)

    def ist_werktag(self, tag: date, *, teilfeiertage_frei: bool = False) -> bool:
        """True unless ``tag`` is a Saturday, Sunday or certain holiday; with ``teilfeiertage_frei`` an
        uncertain partial holiday also counts as free (for the latest possible end and for Vorfristen)."""
        if tag.weekday() >= 5 or self.feiertag(tag) is not None:
            return False
        return not (teilfeiertage_frei and self.teilfeiertag(tag) is not None)

    def hat_teilfeiertage(self) -> bool:
        return self.bundesland in _KATHOLISCHE_ORTE


class BundesweiterKalender(Feiertagskalender):
    """Only the holidays kept in every Land: for a court whose place is not known, the earliest end
    of a period that holds wherever the court is (§ 193 BGB never moves it later than there)."""

    def __init__(self) -> None:
        super().__init__("")

    def feiertag(self, tag: date) -> str | None:
        return bundesweiter_feiertag(tag)

    def teilfeiertag(self, tag: date) -> str | None:
        return None

    def hat_teilfeiertage(self) -> bool:
        return False


def bundesweiter_feiertag(tag: date) -> str | None:
    """The name of a holiday kept in every Land on ``tag`` (for entries whose place is unknown), or None."""
    return _bundesweit(tag.year).get(tag)


@lru_cache(maxsize=64)
def _bundesweit(jahr: int) -> dict[date, str]:
    return dict(holidays.country_holidays("DE", years=jahr, language="de", categories=(holidays.PUBLIC,)))


@lru_cache(maxsize=1024)
def _sichere_feiertage(bundesland: str, ort: str, jahr: int) -> dict[date, str]:
    tage = _kalender(bundesland, jahr, (holidays.PUBLIC,))
    if bundesland == "BY" and ort == AUGSBURG:
        tage.update(_kalender("Augsburg", jahr, (holidays.PUBLIC,)))
    if ort and ort in _KATHOLISCHE_ORTE.get(bundesland, frozenset()):
        tage.update(_kalender(bundesland, jahr, (holidays.CATHOLIC,)))
    return tage


@lru_cache(maxsize=1024)
def _unsichere_feiertage(bundesland: str, ort: str, jahr: int) -> dict[date, str]:
    if bundesland not in _KATHOLISCHE_ORTE:
        return {}
    kandidaten = _kalender(bundesland, jahr, (holidays.CATHOLIC,))
    if bundesland == "BY" and not ort:
        # The Friedensfest is kept in the city of Augsburg only: uncertain only while the Ort is unknown.
        kandidaten.update(_kalender("Augsburg", jahr, (holidays.PUBLIC,)))
    sicher = _sichere_feiertage(bundesland, ort, jahr)
    return {tag: name for tag, name in kandidaten.items() if tag not in sicher}


def _kalender(subdiv: str, jahr: int, kategorien: tuple[str, ...]) -> dict[date, str]:
    return dict(holidays.country_holidays("DE", subdiv=subdiv, years=jahr, language="de", categories=kategorien))
