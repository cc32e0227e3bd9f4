from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.decorators import method_decorator
from django_ratelimit.decorators import ratelimit

from akten import selectors as akten_selectors
from akten.models import AktenActivity
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


# -- pages that show several apps at once ----------------------------------------------------------


@login_required
def start(request: HttpRequest) -> HttpResponse:
    user = request_user(request)
    q = request.GET.get("q", "").strip()
    akten = akten_selectors.akte_list(user=user, q=q)
    fristen = akten_selectors.kalender_list(user=user, typ="FRIST", offen=True).order_by("fristablauf")[:10]
    pending = drafts_selectors.drafts_pending(user=user)[:10]
    return render(request, "akten/start.html", {"akten": akten, "q": q, "fristen": fristen, "drafts": pending})


@login_required
def akte_detail(request: HttpRequest, pk: int) -> HttpResponse:
    user = request_user(request)
    akte = akten_selectors.akte_get(user=user, pk=pk)
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
