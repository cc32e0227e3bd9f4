from typing import Any

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.db.models import Case, When
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.views import defaults
from django_ratelimit.decorators import ratelimit

from akten import selectors as akten_selectors
from akten.models import STAFF_ROLES, Akte, AktenActivity, Beteiligter, Dezernat, KalenderEintrag, User, Vertretung
from akten.policy import MANDANT_MESSAGE_MAX_CHARS, is_mandant
from drafts import selectors as drafts_selectors
from helena.text import as_id

from .api import NOT_FOUND_MESSAGE, RATE_LIMITED_MESSAGE, request_user

BAD_REQUEST_MESSAGE = "Die Anfrage enthält ungültige Angaben."
FORBIDDEN_MESSAGE = "Du hast keine Berechtigung dafür."
SERVER_ERROR_MESSAGE = (
    "Es ist ein interner Fehler aufgetreten. Bitte versuche es später erneut; "
    "wenn das Problem bleibt, wende dich an die Administration."
)


def is_api(request: HttpRequest) -> bool:
    """Requests under /api/ always get JSON, errors included."""
    return request.path_info.startswith("/api/")


def bad_request(request: HttpRequest, message: str, *, field: str | None = None) -> HttpResponse:
    """The German 400 for input Helena refuses: JSON with the field under /api/, a page elsewhere."""
    if is_api(request):
        return JsonResponse({"detail": message, "field": field}, status=400)
    return render(request, "400.html", {"message": message, "field": field}, status=400)


# Error handlers (helena/urls.py): JSON under /api/, German pages elsewhere. None of them shows
# the exception: its text may carry internals or client data.
def error_400(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return bad_request(request, BAD_REQUEST_MESSAGE)


def error_403(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        return JsonResponse({"detail": FORBIDDEN_MESSAGE}, status=403)
    return render(request, "403.html", {"message": FORBIDDEN_MESSAGE}, status=403)


def error_404(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        return JsonResponse({"detail": NOT_FOUND_MESSAGE}, status=404)
    return defaults.page_not_found(request, exception or Exception())


def error_500(request: HttpRequest) -> HttpResponse:
    if is_api(request):
        return JsonResponse({"detail": SERVER_ERROR_MESSAGE}, status=500)
    # Like Django's own handler: no request context, the page must render whatever broke.
    return HttpResponse(loader.get_template("500.html").render(), status=500)


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

ADMIN_ONLY_STAFF_MESSAGE = "Die Verwaltung ist nur für Mitarbeitende mit Verwaltungszugang."


def admin_login(request: HttpRequest) -> HttpResponseBase:
    """/admin/login/: our login page; a logged-in user without admin access gets a German 403
    instead (the admin would send them back to its login page, which sends them on: a loop)."""
    if request.user.is_authenticated and not admin.site.has_permission(request):
        return render(request, "403.html", {"message": ADMIN_ONLY_STAFF_MESSAGE}, status=403)
    return login_view(request)


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
    offen = drafts_selectors.drafts_pending(user=user)
    pending = offen[:10]
    context = {
        "akten": akten,
        "q": q,
        "kontrolle": akten_selectors.fristenkontrolle(user=user, person_id=person_id, dezernat_id=dezernat_id),
        "kontrolle_personen": User.objects.filter(is_active=True, role__in=STAFF_ROLES).order_by("last_name", "first_name"),
        "kontrolle_dezernate": Dezernat.objects.order_by("name"),
        "person_id": person_id,
        "dezernat_id": dezernat_id,
        "drafts": pending,
        # the list shows the newest ten; the total says whether there are more
        "drafts_total": offen.count(),
        # what the default choice of the Fristenkontrolle holds (akten.selectors.fristenkontrolle)
        "kontrolle_dezernat_rollen": akten_selectors.KONTROLLE_ROLES_WITH_DEZERNAT,
        "vertretungen": Vertretung.objects.active().filter(vertreter=user).exists(),
    }
    return render(request, "akten/start.html", context)


def _int_param(request: HttpRequest, name: str) -> int | None:
    raw = request.GET.get(name, "")
    return as_id(raw)


@login_required
def akte_detail(request: HttpRequest, pk: int) -> HttpResponse:
    user = request_user(request)
    akte = akten_selectors.akte_get(user=user, pk=pk)
    if is_mandant(user):
        return _mandant_akte(request, akte)
    context = {
        "akte": akte,
        "beteiligte": akte.beteiligte.select_related("kontakt"),
        "dokumente": akten_selectors.dokument_list(user=user, akte_id=akte.pk).prefetch_related("versionen__erstellt_von"),
        # by the day that counts (a Termin's or Wiedervorlage's date, a Frist's end), open ones first
        "kalender": akten_selectors.kalender_list(user=user, akte_id=akte.pk).order_by(
            "erledigt", Coalesce("fristablauf", "datum"), "uhrzeit", "pk"
        ),
        "zeiten": akten_selectors.zeiterfassung_list(user=user, akte_id=akte.pk),
        "notizen": akten_selectors.notiz_list(user=user, akte_id=akte.pk),
        "drafts": drafts_selectors.drafts_pending(user=user, akte=akte),
        "verlauf": AktenActivity.objects.visible_to(user).filter(akte=akte).select_related("actor_user")[:30],
        "darf_hochladen": user.is_admin_role or user.role in STAFF_ROLES,
        "max_upload_mb": settings.HELENA_MAX_UPLOAD_BYTES // (1024 * 1024),
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
