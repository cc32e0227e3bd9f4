from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.decorators import method_decorator
from django_ratelimit.decorators import ratelimit

from .api import RATE_LIMITED_MESSAGE


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
