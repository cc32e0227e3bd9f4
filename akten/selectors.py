"""Reads of the Kanzlei domain, always through the access chokepoint."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from helena.errors import NotFound

from .fristen_rules import wiedervorlage_hinweis
from .metadaten import mandant_fassung
from .models import Akte, Dokument, KalenderEintrag, KanzleiProfil, Kontakt, Notiz, Role, User, Vertretung, Zeiterfassung
from .policy import sees_internal

ERR_AKTE_NOT_FOUND = "Akte nicht gefunden."


def akte_list(*, user: User, q: str = "", status: str = "", sachgebiet: str = "") -> QuerySet[Akte]:
    qs = Akte.objects.visible_to(user).select_related("anwalt", "sachbearbeiter")
    if q:
        partei = Q(beteiligte__kontakt__nachname__icontains=q) | Q(beteiligte__kontakt__firma__icontains=q)
        if not sees_internal(user):
            # Only the name she is shown of a party (Kontakt.display_name): a company's contact person
            # or a person's employer must not be found letter by letter.
            partei = Q(beteiligte__kontakt__typ=Kontakt.Typ.NATUERLICH, beteiligte__kontakt__nachname__icontains=q) | Q(
                beteiligte__kontakt__typ=Kontakt.Typ.JURISTISCH, beteiligte__kontakt__firma__icontains=q
            )
        qs = qs.filter(
            Q(aktenzeichen__icontains=q)
            | Q(kurzrubrum__icontains=q)
            | Q(wegen__icontains=q)
            | Q(pk__in=Akte.objects.filter(partei).values("pk"))
        )
    if status:
        qs = qs.filter(status=status)
    if sachgebiet:
        qs = qs.filter(sachgebiet=sachgebiet)
    # a Mandantin's list is not ordered by the last internal change (MANDANT_AKTE_FIELDS)
    ordering = ("-changed_at", "aktenzeichen") if sees_internal(user) else ("-created_at", "aktenzeichen")
    return qs.prefetch_related("beteiligte__kontakt").order_by(*ordering)


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


def dokument_inhalt(*, user: User, dokument: Dokument) -> bytes:
    """The stored file of `dokument` (reached through `dokument_list`) as `user` may receive it:
    staff get the file as uploaded, the Akte's record; a MANDANT the copy without comments,
    tracked changes and metadata (`akten.metadaten.mandant_fassung`; it raises
    NichtBereitstellbar when a released file cannot be cleaned)."""
    with dokument.datei.open("rb") as handle:
        inhalt = handle.read()
    if sees_internal(user):
        return inhalt
    profil = KanzleiProfil.current()
    return mandant_fassung(
        inhalt,
        mime_type=dokument.mime_type,
        titel=dokument.name,
        autor=profil.name if profil else "",
        stand=dokument.created_at,
    )


def kalender_list(
    *, user: User, akte_id: int | None = None, typ: str = "", offen: bool | None = None
) -> QuerySet[KalenderEintrag]:
    """The calendar entries `user` may see; `offen`: not erledigt (True) or erledigt (False), for a
    MANDANT not yet past or past."""
    qs = KalenderEintrag.objects.visible_to(user).select_related("akte", "verantwortlich", "erledigt_von")
    if akte_id:
        qs = qs.filter(akte_id=akte_id)
    if typ:
        qs = qs.filter(typ=typ)
    if offen is not None and not sees_internal(user):
        # Whether the firm marked her Termin erledigt is not hers to see (policy: date, time, title):
        # for her, open means not yet past.
        heute = timezone.localdate()
        qs = qs.filter(datum__gte=heute) if offen else qs.filter(datum__lt=heute)
    elif offen is not None:
        qs = qs.open() if offen else qs.filter(erledigt=True)
    return qs


def zeiterfassung_list(*, user: User, akte_id: int | None = None) -> QuerySet[Zeiterfassung]:
    qs = Zeiterfassung.objects.visible_to(user).select_related("akte", "user")
    return qs.filter(akte_id=akte_id) if akte_id else qs


def notiz_list(*, user: User, akte_id: int | None = None) -> QuerySet[Notiz]:
    qs = Notiz.objects.visible_to(user).select_related("akte", "autor")
    return qs.filter(akte_id=akte_id) if akte_id else qs


@dataclass(frozen=True)
class KontrollZeile:
    """One line of the Fristenkontrolle: a Frist, its Vorfrist, or a Wiedervorlage, due on `datum`."""

    eintrag: KalenderEintrag
    art: str  # "Frist", "Vorfrist", "Wiedervorlage"
    datum: datetime.date
    ueberfaellig: bool
    heute: bool
    hinweis: str = ""  # a Wiedervorlage on a weekend or holiday (fristen_rules.wiedervorlage_hinweis)


KONTROLLE_ROLES_WITH_DEZERNAT = frozenset({Role.ANWALT, Role.SEKRETARIAT, Role.ADMIN})


def fristenkontrolle(
    *, user: Any, person_id: int | None = None, dezernat_id: int | None = None, today: datetime.date | None = None
) -> list[KontrollZeile]:
    """The open Fristen (with their Vorfristen) and Wiedervorlagen a user has to watch, by date.

    Without filters: entries the user is responsible for, or whose Akte they are Anwalt or
    Sachbearbeitung of; for ANWALT, SEKRETARIAT and ADMIN also those of the Akten in their
    Dezernate; the same for every colleague the user stands in for today (Vertretung). `person_id`
    narrows to one person's entries (responsible, Anwalt or Sachbearbeitung),
    `dezernat_id` to one Dezernat's Akten. Always within what `user` may see (`visible_to`).
    Lines of active Akten come before those of archived or closed ones; overdue lines are marked.
    """
    today = today or timezone.localdate()
    heute = timezone.localdate()  # whose Vertretung runs is decided by today, as access is
    qs = kalender_list(user=user, offen=True).filter(typ__in=(KalenderEintrag.Typ.FRIST, KalenderEintrag.Typ.WIEDERVORLAGE))
    if person_id:
        qs = qs.filter(Q(verantwortlich_id=person_id) | Q(akte__anwalt_id=person_id) | Q(akte__sachbearbeiter_id=person_id))
    if dezernat_id:
        qs = qs.filter(akte__dezernate__id=dezernat_id)
    if not person_id and not dezernat_id:
        # the user's own, and during a Vertretung those of the colleagues they stand in for: a deputy
        # who does not see the Fristen of the absent colleague misses them (Vertretung.active: today)
        vertretene = list(
            User.objects.filter(pk__in=Vertretung.objects.active(heute).filter(vertreter_id=user.pk).values("vertretener_id"))
        )
        personen = [user, *vertretene]
        mine = Q(verantwortlich__in=personen) | Q(akte__anwalt__in=personen) | Q(akte__sachbearbeiter__in=personen)
        for person in personen:
            if getattr(person, "role", None) in KONTROLLE_ROLES_WITH_DEZERNAT:
                mine |= Q(akte__dezernate__in=person.dezernate.all())
        qs = qs.filter(mine)
    lines: list[KontrollZeile] = []
    for eintrag in qs.distinct().select_related("akte", "verantwortlich"):
        if eintrag.typ == KalenderEintrag.Typ.FRIST and eintrag.fristablauf is not None:
            lines.append(_zeile(eintrag, "Frist", eintrag.fristablauf, today))
            if eintrag.vorfrist is not None and eintrag.vorfrist < eintrag.fristablauf and eintrag.fristablauf >= today:
                lines.append(_zeile(eintrag, "Vorfrist", eintrag.vorfrist, today))
        else:
            hinweis = wiedervorlage_hinweis(
                akte=eintrag.akte, typ=eintrag.typ, datum=eintrag.datum, fristablauf=eintrag.fristablauf
            )
            lines.append(_zeile(eintrag, "Wiedervorlage", eintrag.fristablauf or eintrag.datum, today, hinweis))
    inactive = {Akte.Status.ARCHIVIERT, Akte.Status.GESCHLOSSEN}
    lines.sort(key=lambda z: (z.eintrag.akte.status in inactive, z.datum, z.art != "Frist", z.eintrag.pk))
    return lines


def _zeile(eintrag: KalenderEintrag, art: str, datum: datetime.date, today: datetime.date, hinweis: str = "") -> KontrollZeile:
    return KontrollZeile(eintrag=eintrag, art=art, datum=datum, ueberfaellig=datum < today, heute=datum == today, hinweis=hinweis)
