"""Server-rendered pages (German). A MANDANT gets her own pages (`_mandant_*`): what they show is
the field policy of akten/policy.py, never the internal Akte page with parts left empty."""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from drafts.models import HelenaDraft

from . import selectors
from .models import AktenActivity, Beteiligter, KalenderEintrag
from .policy import MANDANT_MESSAGE_MAX_CHARS, is_mandant


@login_required
def start(request: HttpRequest) -> HttpResponse:
    if is_mandant(request.user):
        return _mandant_start(request)
    q = request.GET.get("q", "").strip()
    akten = selectors.akte_list(user=request.user, q=q)
    fristen = selectors.kalender_list(user=request.user, typ="FRIST", offen=True).order_by("fristablauf")[:10]
    pending = HelenaDraft.objects.visible_to(request.user).pending().select_related("akte")[:10]
    return render(request, "akten/start.html", {"akten": akten, "q": q, "fristen": fristen, "drafts": pending})


@login_required
def akte_detail(request: HttpRequest, pk: int) -> HttpResponse:
    akte = selectors.akte_get(user=request.user, pk=pk)
    user = request.user
    if is_mandant(user):
        return _mandant_akte(request, akte)
    context = {
        "akte": akte,
        "beteiligte": akte.beteiligte.select_related("kontakt"),
        "dokumente": selectors.dokument_list(user=user, akte_id=akte.pk),
        "kalender": selectors.kalender_list(user=user, akte_id=akte.pk),
        "zeiten": selectors.zeiterfassung_list(user=user, akte_id=akte.pk),
        "notizen": selectors.notiz_list(user=user, akte_id=akte.pk),
        "drafts": HelenaDraft.objects.visible_to(user).filter(akte=akte).pending(),
        "verlauf": AktenActivity.objects.visible_to(user).filter(akte=akte).select_related("actor_user")[:30],
    }
    return render(request, "akten/akte_detail.html", context)


# -- the Mandant's own view (akten/policy.py): her Akten, released documents, Termine, a message --


def _mandant_start(request: HttpRequest) -> HttpResponse:
    user = request.user
    today = timezone.localdate()
    context = {
        "akten": selectors.akte_list(user=user).order_by("status", "aktenzeichen"),
        "termine": selectors.kalender_list(user=user, typ=KalenderEintrag.Typ.TERMIN)
        .filter(datum__gte=today)
        .order_by("datum", "uhrzeit", "pk")[:10],
        "dokumente": selectors.dokument_list(user=user).order_by("-created_at", "-pk")[:10],
    }
    return render(request, "akten/mandant_start.html", context)


def _mandant_akte(request: HttpRequest, akte: Any) -> HttpResponse:
    user = request.user
    context = {
        "akte": akte,
        "beteiligte": Beteiligter.objects.visible_to(user).filter(akte=akte).select_related("kontakt").order_by("rolle", "pk"),
        "dokumente": selectors.dokument_list(user=user, akte_id=akte.pk).order_by("-created_at", "-pk"),
        "termine": selectors.kalender_list(user=user, akte_id=akte.pk, typ=KalenderEintrag.Typ.TERMIN).order_by(
            "datum", "uhrzeit", "pk"
        ),
        "message_max": MANDANT_MESSAGE_MAX_CHARS,
    }
    return render(request, "akten/mandant_akte.html", context)
