"""Dates for tests that go through services checking against the real today: a Frist must never
lie in the past, so fixed dates would break the suite once the calendar passes them."""

from __future__ import annotations

import datetime

from django.utils import timezone

from rechner.fristen import feiertag, ist_werktag


def next_workday(days_ahead: int = 30, *, bundesland: str = "NW") -> datetime.date:
    """A working day in `bundesland` `days_ahead` or a little more days from today."""
    day = timezone.localdate() + datetime.timedelta(days=days_ahead)
    while not ist_werktag(day, bundesland):
        day += datetime.timedelta(days=1)
    return day


def next_sunday(days_ahead: int = 30) -> datetime.date:
    day = timezone.localdate() + datetime.timedelta(days=days_ahead)
    return day + datetime.timedelta(days=(6 - day.weekday()) % 7)


def next_holiday(name: str, *, bundesland: str, ort: str | None = None, days_ahead: int = 1) -> datetime.date:
    """The next weekday (Monday to Friday) from `days_ahead` days on that is the holiday `name` in
    `bundesland` (at `ort`, where the holiday depends on the place)."""
    day = timezone.localdate() + datetime.timedelta(days=days_ahead)
    for _ in range(366 * 8):
        if day.weekday() < 5 and name in (feiertag(day, bundesland, ort) or ""):
            return day
        day += datetime.timedelta(days=1)
    raise LookupError(f"no weekday {name} in {bundesland} within eight years")
