"""Reads for downloads, always through the access chokepoint (missing and forbidden: 404)."""

from __future__ import annotations

from typing import Any

from django.http import Http404

from akten.models import Dokument, DokumentVersion
from drafts.models import HelenaDraft

DRUCKBARE_ENTWUERFE = (HelenaDraft.Typ.DOKUMENT, HelenaDraft.Typ.KOSTENNOTE)


def entwurf_get(*, user: Any, pk: int) -> HelenaDraft:
    draft = (
        HelenaDraft.objects.visible_to(user)
        # Only an open draft is rendered: an accepted one's record lies in the Akte as stored (a
        # Kostennote rendered again would carry today's date and the current bank details under
        # the same invoice number).
        .filter(pk=pk, typ__in=DRUCKBARE_ENTWUERFE, akte__isnull=False, status=HelenaDraft.Status.PENDING)
        .select_related("akte")
        .first()
    )
    if draft is None or draft.hides_content:  # its run read an Akte `user` may not see: no file of it
        raise Http404("Entwurf nicht gefunden.")
    return draft


def dokument_get(*, user: Any, pk: int) -> Dokument:
    dokument = Dokument.objects.visible_to(user).filter(pk=pk).select_related("akte").first()
    if dokument is None:
        raise Http404("Dokument nicht gefunden.")
    return dokument


def version_get(*, user: Any, dokument_pk: int, nummer: int) -> DokumentVersion:
    version = (
        DokumentVersion.objects.visible_to(user).filter(dokument_id=dokument_pk, nummer=nummer).select_related("dokument").first()
    )
    if version is None:
        raise Http404("Version nicht gefunden.")
    return version
