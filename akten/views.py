"""Pages of the Kanzlei domain that only it knows: the Fristenkontrolle's "erledigt". The pages
that show several apps (start, Akte) are project views (helena/views.py)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from helena.api import request_user

from . import services


@login_required
@require_POST
def kalender_erledigen(request: HttpRequest, pk: int) -> HttpResponse:
    """ "erledigt" from the Fristenkontrolle: the service records who and when."""
    try:
        eintrag = services.kalender_eintrag_erledigen(eintrag_id=pk, by=request_user(request))
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(
            request, f"„{eintrag.titel}“ ist als erledigt vermerkt. Versehen? Auf der Aktenseite lässt er sich wieder öffnen."
        )
    return _zurueck(request)


@login_required
@require_POST
def kalender_wieder_oeffnen(request: HttpRequest, pk: int) -> HttpResponse:
    """A Frist struck by mistake: open again, from the Akte page."""
    try:
        eintrag = services.kalender_eintrag_wieder_oeffnen(eintrag_id=pk, by=request_user(request))
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, f"„{eintrag.titel}“ ist wieder offen und steht in der Fristenkontrolle.")
    return _zurueck(request)


def _zurueck(request: HttpRequest) -> HttpResponse:
    target = request.POST.get("next", "")
    return redirect(target if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}) else "start")
