"""Reads for the calculators that need the database."""

from __future__ import annotations

from rechner.models import Basiszinssatz
from rechner.zinsen import Zinshistorie


def basiszins_historie() -> Zinshistorie:
    """The shipped Basiszinssätze continued by the Kanzlei's entries.

    Read from the database on every call (one query on a table of a few rows): the web and worker
    processes see an entry added or deleted in the admin at once, without a cache to invalidate.
    """
    return Basiszinssatz.objects.historie()


def basiszinssatz_neuester() -> Basiszinssatz | None:
    """The Kanzlei's newest entry: the only one that may be deleted without leaving a gap."""
    return Basiszinssatz.objects.order_by("-gueltig_ab").first()
