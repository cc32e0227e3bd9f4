"""Writes for the calculators: the Basiszinssätze a Kanzlei adds after the shipped history."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import connection, transaction

from rechner.models import Basiszinssatz
from rechner.selectors import basiszinssatz_neuester

if TYPE_CHECKING:
    from akten.models import User

# Additions and deletions take turns (a PostgreSQL advisory lock held to the end of the transaction),
# so two admins cannot both append the same half year, or one append after a rate being deleted.
HISTORY_LOCK = 0x6247_0001

FEHLER_NICHT_NEUESTER = (
    "Nur der neueste erfasste Basiszinssatz lässt sich löschen, sonst entstünde eine Lücke; "
    "lösche zuerst den Satz ab dem {neuester}."
)


@transaction.atomic
def basiszinssatz_create(*, gueltig_ab: date, satz: Decimal, by: User) -> Basiszinssatz:
    """Record the Basiszinssatz of the half year right after the known history, entered by ``by``.

    Raises ValidationError (German) for a day other than 1 January / 1 July, a half year of the shipped
    history, one already entered, or one after a gap. Two admins adding the same half year at once:
    the second waits for the first and then gets the ValidationError of a half year already entered.
    """
    _lock_history()
    eintrag = Basiszinssatz(gueltig_ab=gueltig_ab, satz=satz, created_by=by)
    eintrag.full_clean()
    eintrag.save()
    return eintrag


@transaction.atomic
def basiszinssatz_delete(*, eintrag: Basiszinssatz) -> None:
    """Delete an entry; only the newest, so that the history keeps no gap. Raises ValidationError otherwise."""
    _lock_history()
    neuester = basiszinssatz_neuester()
    if neuester is not None and neuester.pk != eintrag.pk:
        raise ValidationError(FEHLER_NICHT_NEUESTER.format(neuester=f"{neuester.gueltig_ab:%d.%m.%Y}"))
    eintrag.delete()


def _lock_history() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [HISTORY_LOCK])
