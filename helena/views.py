from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.db.models import Case, When
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.decorators import method_decorator
from django_ratelimit.decorators import ratelimit

from akten import selectors as akten_selectors
from akten.models import STAFF_ROLES, Akte, AktenActivity, Beteiligter, Dezernat, KalenderEintrag, User
from akten.policy import MANDANT_MESSAGE_MAX_CHARS, is_mandant
from drafts import selectors as drafts_selectors

from .api import RATE_LIMITED_MESSAGE, request_user


def ratelimited(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """RATELIMIT_VIEW: the German 429 answer for pages and API alike."""
    if request.path.startswith("/api/") or "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"detail": RATE_LIMITED_MESSAGE}, status=429)
    return render(request, "429.html", {"message": RATE_LIMITED_MESSAGE}, status=429)


def _login_rate(group: str, request: HttpRequest) -> str:
    return settings.HELENA_RATELIMIT_LOGIN


@method_decorator(ratelimit(key="ip", rate=_login_rate, method="POST", block=True), name="post")
class LoginView(auth_views.LoginView):
    template_name = "registration/login.html"
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"title": "Anmelden"}


login_view = LoginView.as_view()


# -- pages that show several apps at once (the Kanzlei's and the Mandant's) -------------------------


@login_required
def start(request: HttpRequest) -> HttpResponse:
    user = request_user(request)
    if is_mandant(user):
        return _mandant_start(request)
    q = request.GET.get("q", "").strip()
    inactive = [Akte.Status.ARCHIVIERT, Akte.Status.GESCHLOSSEN]
    akten = akten_selectors.akte_list(user=user, q=q).order_by(
        Case(When(status__in=inactive, then=1), default=0), "-changed_at", "aktenzeichen"
    )
    person_id, dezernat_id = _int_param(request, "person"), _int_param(request, "dezernat")
    pending = drafts_selectors.drafts_pending(user=user)[:10]
    context = {
        "akten": akten,
        "q": q,
        "kontrolle": akten_selectors.fristenkontrolle(user=user, person_id=person_id, dezernat_id=dezernat_id),
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
def akte_detail(request: HttpRequest, pk: int) -> HttpResponse:
    user = request_user(request)
    akte = akten_selectors.akte_get(user=user, pk=pk)
    if is_mandant(user):
        return _mandant_akte(request, akte)
    context = {
        "akte": akte,
        "beteiligte": akte.beteiligte.select_related("kontakt"),
        "dokumente": akten_selectors.dokument_list(user=user, akte_id=akte.pk),
        "kalender": akten_selectors.kalender_list(user=user, akte_id=akte.pk),
        "zeiten": akten_selectors.zeiterfassung_list(user=user, akte_id=akte.pk),
        "notizen": akten_selectors.notiz_list(user=user, akte_id=akte.pk),
        "drafts": drafts_selectors.drafts_pending(user=user, akte=akte),
        "verlauf": AktenActivity.objects.visible_to(user).filter(akte=akte).select_related("actor_user")[:30],
    }
    return render(request, "akten/akte_detail.html", context)


# -- the Mandant's own view (akten/policy.py): her Akten, released documents, Termine, a message --


def _mandant_start(request: HttpRequest) -> HttpResponse:
    user = request_user(request)
    today = timezone.localdate()
    context = {
        "akten": akten_selectors.akte_list(user=user).order_by("status", "aktenzeichen"),
        "termine": akten_selectors.kalender_list(user=user, typ=KalenderEintrag.Typ.TERMIN)
        .filter(datum__gte=today)
        .order_by("datum", "uhrzeit", "pk")[:10],
        "dokumente": akten_selectors.dokument_list(user=user).order_by("-created_at", "-pk")[:10],
    }
    return render(request, "akten/mandant_start.html", context)


def _mandant_akte(request: HttpRequest, akte: Akte) -> HttpResponse:
    user = request_user(request)
    context = {
        "akte": akte,
        "beteiligte": Beteiligter.objects.visible_to(user).filter(akte=akte).select_related("kontakt").order_by("rolle", "pk"),
        "dokumente": akten_selectors.dokument_list(user=user, akte_id=akte.pk).order_by("-created_at", "-pk"),
        "termine": akten_selectors.kalender_list(user=user, akte_id=akte.pk, typ=KalenderEintrag.Typ.TERMIN).order_by(
            "datum", "uhrzeit", "pk"
        ),
        "message_max": MANDANT_MESSAGE_MAX_CHARS,
    }
    return render(request, "akten/mandant_akte.html", context)
