"""Server-rendered pages (German)."""

from typing import cast

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from drafts.models import HelenaDraft

from . import selectors
from .models import STAFF_ROLES, AktenActivity, User


@login_required
def start(request: HttpRequest) -> HttpResponse:
    q = request.GET.get("q", "").strip()
    akten = selectors.akte_list(user=request.user, q=q)
    fristen = selectors.kalender_list(user=request.user, typ="FRIST", offen=True).order_by("fristablauf")[:10]
    pending = HelenaDraft.objects.visible_to(request.user).pending().select_related("akte")[:10]
    return render(request, "akten/start.html", {"akten": akten, "q": q, "fristen": fristen, "drafts": pending})


@login_required
def akte_detail(request: HttpRequest, pk: int) -> HttpResponse:
    akte = selectors.akte_get(user=request.user, pk=pk)
    user = request.user
    context = {
        "akte": akte,
        "beteiligte": akte.beteiligte.select_related("kontakt"),
        "dokumente": selectors.dokument_list(user=user, akte_id=akte.pk),
        "kalender": selectors.kalender_list(user=user, akte_id=akte.pk),
        "zeiten": selectors.zeiterfassung_list(user=user, akte_id=akte.pk),
        "notizen": selectors.notiz_list(user=user, akte_id=akte.pk),
        "drafts": HelenaDraft.objects.visible_to(user).filter(akte=akte).pending(),
        "verlauf": AktenActivity.objects.visible_to(user).filter(akte=akte).select_related("actor_user")[:30],
        "darf_hochladen": cast(User, user).is_admin_role or cast(User, user).role in STAFF_ROLES,
        "max_upload_mb": settings.HELENA_MAX_UPLOAD_BYTES // (1024 * 1024),
    }
    return render(request, "akten/akte_detail.html", context)
