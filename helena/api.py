"""API plumbing shared by all apps: error mapping and the write rate limit."""

from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.http import Http404
from django_ratelimit.core import is_ratelimited
from django_ratelimit.exceptions import Ratelimited
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from helena.errors import ServiceError

from .errors import CSRF_FAILED_MESSAGE
from .request_input import MSG_JSON

if TYPE_CHECKING:
    from akten.models import User

RATE_LIMITED_MESSAGE = "Zu viele Anfragen. Bitte warte einen Moment und versuche es dann erneut."
NOT_FOUND_MESSAGE = "Nicht gefunden."
UNSAFE_METHODS = ["POST", "PUT", "PATCH", "DELETE"]


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, Ratelimited):
        return Response({"detail": RATE_LIMITED_MESSAGE}, status=status.HTTP_429_TOO_MANY_REQUESTS)
    if isinstance(exc, ServiceError):
        return Response({"detail": exc.message}, status=exc.status_code)
    if isinstance(exc, Http404):
        return Response({"detail": NOT_FOUND_MESSAGE}, status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, exceptions.ParseError):
        # DRF's message quotes the JSON parser's English reason ("Out of range float values …")
        return Response({"detail": MSG_JSON}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, exceptions.PermissionDenied) and str(exc.detail).startswith("CSRF Failed"):
        # DRF's session authentication writes this one in English, with the technical reason
        return Response({"detail": CSRF_FAILED_MESSAGE}, status=status.HTTP_403_FORBIDDEN)
    return drf_exception_handler(exc, context)


def request_user(request: Any) -> "User":
    """The authenticated user of an API request (every API view requires authentication)."""
    return cast("User", request.user)


class WriteRateLimitMixin:
    """Limits unsafe requests per user (HELENA_RATELIMIT_WRITE, counted in the shared cache)."""

    def initial(self, request: Any, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # type: ignore[misc]
        if request.method in UNSAFE_METHODS and is_ratelimited(
            request,
            group="api-write",
            key="user_or_ip",
            rate=settings.HELENA_RATELIMIT_WRITE,
            method=UNSAFE_METHODS,
            increment=True,
        ):
            raise Ratelimited()
