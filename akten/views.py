"""Pages of the Kanzlei domain that only it knows: the Fristenkontrolle's "erledigt" and opening it again. The pages
that show several apps (start, Akte) are project views (helena/views.py)."""

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from helena.api import request_user

from . import services
from .models import KalenderEintrag


@login_required
@require_POST
def kalender_erledigen(request: HttpRequest, pk: int) -> HttpResponse:
    """ "erledigt" from the Fristenkontrolle: the service records who and when."""
    return _kalender_wechsel(
        request,
        services.kalender_eintrag_erledigen,
        pk,
        "„{titel}“ ist als erledigt vermerkt. Versehen? Auf der Aktenseite lässt er sich wieder öffnen.",
    )


@login_required
@require_POST
def kalender_wieder_oeffnen(request: HttpRequest, pk: int) -> HttpResponse:
    """A Frist struck by mistake: open again, from the Akte page."""
    return _kalender_wechsel(
        request, services.kalender_eintrag_wieder_oeffnen, pk, "„{titel}“ ist wieder offen und steht in der Fristenkontrolle."
    )


def _kalender_wechsel(request: HttpRequest, dienst: Callable[..., KalenderEintrag], pk: int, erfolg: str) -> HttpResponse:
    try:
        eintrag = dienst(eintrag_id=pk, by=request_user(request))
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, erfolg.format(titel=eintrag.titel))
    return _zurueck(request)


def _zurueck(request: HttpRequest) -> HttpResponse:
    target = request.POST.get("next", "")
    return redirect(target if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}) else "start")
