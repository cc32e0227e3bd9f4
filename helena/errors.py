"""The errors every layer shares: one not-found, the base of the services' refusals, and the
German CSRF page.

`NotFound` is the one answer for "does not exist" and "you may not see it" (deliberately the same).
It is an `Http404`, so a Django view that lets it through answers 404, the API's exception handler
(helena/api.py) answers 404 "Nicht gefunden.", and the websocket consumer sends an error frame with
code `not_found` and the message. Every `*_get` access helper raises it.

`ServiceError` is the base of the German refusals a service raises on purpose (a draft that is no
longer pending, a role that may not approve): the API answers them with their `status_code`.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

ERR_NOT_FOUND = "Nicht gefunden."


class NotFound(Http404):  # noqa: N818 - named for what the user is told, like Http404
    """The object does not exist or the user may not see it (deliberately indistinguishable)."""

    def __init__(self, message: str = ERR_NOT_FOUND) -> None:
        super().__init__(message)
        self.message = message


class ServiceError(Exception):
    """A refusal with a German message for the user and the HTTP status the API answers with."""

    status_code = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


CSRF_FAILED_MESSAGE = "CSRF-Prüfung fehlgeschlagen. Lade die Seite neu und versuch es noch einmal."


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """The CSRF refusal in German, in Du-Form (CSRF_FAILURE_VIEW). `reason` is Django's technical
    text; it is neither shown nor logged with request data."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": CSRF_FAILED_MESSAGE}, status=403)
    return render(request, "403_csrf.html", status=403)
