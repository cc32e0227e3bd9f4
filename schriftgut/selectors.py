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
        .filter(pk=pk, typ__in=DRUCKBARE_ENTWUERFE, akte__isnull=False)
        .select_related("akte")
        .first()
    )
    if draft is None:
        raise Http404("Entwurf nicht gefunden.")
    return draft


def dokument_get(*, user: Any, pk: int) -> Dokument:
    dokument = Dokument.objects.visible_to(user).filter(pk=pk).select_related("akte").first()
    if dokument is None:
        raise Http404("Dokument nicht gefunden.")
    return dokument


def version_get(*, user: Any, dokument_pk: int, nummer: int) -> DokumentVersion:
    version = DokumentVersion.objects.visible_to(user).filter(dokument_id=dokument_pk, nummer=nummer).first()
    if version is None:
        raise Http404("Version nicht gefunden.")
    return version
