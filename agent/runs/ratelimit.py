"""Runs per user per hour.

The limit of a user's role comes from a `RateLimit` row (admin) or else `DEFAULT_RUNS_PER_HOUR`.
Counting is a fixed window per clock hour, in Django's cache so every process shares it: an
atomic `incr` in Redis (production) and in the local-memory cache (tests); with the database cache
of the embedded default, `incr` is a read and a write, so it runs under a PostgreSQL advisory
lock per counter key, which makes it atomic across processes.

When the counter store is unavailable (Redis down, database cache table missing):
- cloud tiers fail closed: the run may not use a cloud tier (`RateDecision.cloud_allowed` False),
- local tiers fail open: the run is allowed and a warning is logged. A local model costs nothing
  per call and never sends data out of the firm, and refusing every chat because the counter is
  down would turn a monitoring problem into an outage.
"""

from __future__ import annotations

import datetime
import hashlib
import logging
from dataclasses import dataclass

from django.core.cache import cache, caches
from django.core.cache.backends.db import DatabaseCache
from django.db import connection, transaction
from django.utils import timezone

from akten.models import Role, User

logger = logging.getLogger(__name__)

DEFAULT_RUNS_PER_HOUR: dict[str, int] = {
    Role.ADMIN: 120,
    Role.ANWALT: 60,
    Role.SACHBEARBEITER: 60,
    Role.SEKRETARIAT: 40,
    Role.PRAKTIKANT: 20,
    Role.MANDANT: 10,
}
FALLBACK_RUNS_PER_HOUR = 10
ERR_LIMIT = "Du hast dein Limit von {limit} Helena-Aufträgen pro Stunde erreicht. Ab {reset} Uhr geht es weiter."


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    limit: int
    count: int
    reset_at: datetime.datetime
    # False when the counter store is unavailable: the run may use local tiers only
    cloud_allowed: bool = True
    message: str = ""


def runs_per_hour(role: str) -> int:
    from agent.models import RateLimit

    row = RateLimit.objects.filter(role=role).values_list("runs_per_hour", flat=True).first()
    if row is not None:
        return int(row)
    return DEFAULT_RUNS_PER_HOUR.get(role, FALLBACK_RUNS_PER_HOUR)


def _window(now: datetime.datetime) -> tuple[str, datetime.datetime]:
    start = now.replace(minute=0, second=0, microsecond=0)
    return start.strftime("%Y%m%d%H"), start + datetime.timedelta(hours=1)


def _key(user_id: int, bucket: str) -> str:
    return f"helena:runs:{user_id}:{bucket}"


def _incr(key: str, ttl: int) -> int:
    if isinstance(caches["default"], DatabaseCache):
        lock_id = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big", signed=True)
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [lock_id])
            value = int(cache.get(key, 0)) + 1
            cache.set(key, value, ttl)
            return value
    cache.add(key, 0, ttl)
    return int(cache.incr(key))


def ratelimit_hit(*, user: User, now: datetime.datetime | None = None) -> RateDecision:
    """Count one run of `user` in the current hour and decide. Counted even when refused."""
    now = now or timezone.now()
    bucket, reset_at = _window(now)
    limit = runs_per_hour(str(user.role))
    try:
        count = _incr(_key(user.pk, bucket), ttl=int((reset_at - now).total_seconds()) + 60)
    except Exception:
        logger.warning("Zähler für Anfragelimits nicht erreichbar; nur lokale Modelle erlaubt", exc_info=True)
        return RateDecision(allowed=True, limit=limit, count=0, reset_at=reset_at, cloud_allowed=False)
    if count > limit:
        reset_local = timezone.localtime(reset_at)
        return RateDecision(
            allowed=False,
            limit=limit,
            count=count,
            reset_at=reset_at,
            message=ERR_LIMIT.format(limit=limit, reset=f"{reset_local:%H:%M}"),
        )
    return RateDecision(allowed=True, limit=limit, count=count, reset_at=reset_at)


def counter_available() -> bool:
    """Whether the counter store answers (checked again before a run reaches a cloud tier)."""
    try:
        cache.get("helena:runs:probe")
    except Exception:
        return False
    return True
