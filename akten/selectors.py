"""Reads of the Kanzlei domain, always through the access chokepoint."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from helena.errors import NotFound

from .models import Akte, Dokument, KalenderEintrag, Notiz, User, Zeiterfassung

ERR_AKTE_NOT_FOUND = "Akte nicht gefunden."


def akte_list(*, user: User, q: str = "", status: str = "", sachgebiet: str = "") -> QuerySet[Akte]:
    qs = Akte.objects.visible_to(user).select_related("anwalt", "sachbearbeiter")
    if q:
        qs = qs.filter(
            Q(aktenzeichen__icontains=q)
            | Q(kurzrubrum__icontains=q)
            | Q(wegen__icontains=q)
            | Q(
                pk__in=Akte.objects.filter(
                    Q(beteiligte__kontakt__nachname__icontains=q) | Q(beteiligte__kontakt__firma__icontains=q)
                ).values("pk")
            )
        )
    if status:
        qs = qs.filter(status=status)
    if sachgebiet:
        qs = qs.filter(sachgebiet=sachgebiet)
    return qs.prefetch_related("beteiligte__kontakt").order_by("-changed_at", "aktenzeichen")


def akte_get(*, user: User, pk: int | str, lock: bool = False) -> Akte:
    """The Akte if `user` may see it; otherwise NotFound, the same as for a missing Akte. With
    `lock`, the Akte row is locked (`SELECT … FOR UPDATE`): call it inside a transaction."""
    qs = Akte.objects.visible_to(user)
    if lock:
        qs = qs.select_for_update(of=("self",))
    try:
        return qs.get(pk=int(pk))
    except (Akte.DoesNotExist, ValueError, TypeError):
        raise NotFound(ERR_AKTE_NOT_FOUND) from None


def dokument_list(*, user: User, akte_id: int | None = None) -> QuerySet[Dokument]:
    qs = Dokument.objects.visible_to(user).select_related("akte", "erstellt_von")
    return qs.filter(akte_id=akte_id) if akte_id else qs


def kalender_list(
    *, user: User, akte_id: int | None = None, typ: str = "", offen: bool | None = None
) -> QuerySet[KalenderEintrag]:
    qs = KalenderEintrag.objects.visible_to(user).select_related("akte", "verantwortlich")
    if akte_id:
        qs = qs.filter(akte_id=akte_id)
    if typ:
        qs = qs.filter(typ=typ)
    if offen is not None:
        qs = qs.open() if offen else qs.filter(erledigt=True)
    return qs


def zeiterfassung_list(*, user: User, akte_id: int | None = None) -> QuerySet[Zeiterfassung]:
    qs = Zeiterfassung.objects.visible_to(user).select_related("akte", "user")
    return qs.filter(akte_id=akte_id) if akte_id else qs


def notiz_list(*, user: User, akte_id: int | None = None) -> QuerySet[Notiz]:
    qs = Notiz.objects.visible_to(user).select_related("akte", "autor")
    return qs.filter(akte_id=akte_id) if akte_id else qs
