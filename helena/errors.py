"""Error pages that are not Django's defaults: the CSRF refusal in German, in Du-Form."""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

CSRF_FAILED_MESSAGE = "CSRF-Prüfung fehlgeschlagen. Lade die Seite neu und versuch es noch einmal."


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """`reason` is Django's technical text; it is neither shown nor logged with request data."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": CSRF_FAILED_MESSAGE}, status=403)
    return render(request, "403_csrf.html", status=403)
