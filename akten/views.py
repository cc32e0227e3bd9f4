"""Server-rendered pages (German). A MANDANT gets her own pages (`_mandant_*`): what they show is
the field policy of akten/policy.py, never the internal Akte page with parts left empty."""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db.models import Case, When
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from drafts.models import HelenaDraft

from . import selectors, services
from .models import STAFF_ROLES, Akte, AktenActivity, Beteiligter, Dezernat, KalenderEintrag, User
from .policy import MANDANT_MESSAGE_MAX_CHARS, is_mandant


@login_required
def start(request: HttpRequest) -> HttpResponse:
    if is_mandant(request.user):
        return _mandant_start(request)
    user = request.user
    q = request.GET.get("q", "").strip()
    inactive = [Akte.Status.ARCHIVIERT, Akte.Status.GESCHLOSSEN]
    akten = selectors.akte_list(user=user, q=q).order_by(
        Case(When(status__in=inactive, then=1), default=0), "-changed_at", "aktenzeichen"
    )
    person_id, dezernat_id = _int_param(request, "person"), _int_param(request, "dezernat")
    pending = HelenaDraft.objects.visible_to(user).pending().select_related("akte")[:10]
    context = {
        "akten": akten,
        "q": q,
        "kontrolle": selectors.fristenkontrolle(user=user, person_id=person_id, dezernat_id=dezernat_id),
        "kontrolle_personen": User.objects.filter(is_active=True, role__in=STAFF_ROLES).order_by("last_name", "first_name"),
        "kontrolle_dezernate": Dezernat.objects.order_by("name"),
        "person_id": person_id,
        "dezernat_id": dezernat_id,
        "drafts": pending,
    }
    return render(request, "akten/start.html", context)


def _int_param(request: HttpRequest, name: str) -> int | None:
    raw = request.GET.get(name, "")
    return int(raw) if raw.isdigit() and len(raw) < 10 else None


@login_required
@require_POST
def kalender_erledigen(request: HttpRequest, pk: int) -> HttpResponse:
    """ "erledigt" from the Fristenkontrolle: the service records who and when."""
    try:
        eintrag = services.kalender_eintrag_erledigen(eintrag_id=pk, by=request.user)  # type: ignore[arg-type]
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, f"„{eintrag.titel}“ ist als erledigt vermerkt.")
    target = request.POST.get("next", "")
    return redirect(target if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}) else "start")


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
