"""Pages of the drafts app: the Mandant's message to the Kanzlei (it arrives as an alert)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from akten import selectors
from akten.policy import is_mandant
from helena.api import request_user

from . import services

MSG_MESSAGE_SENT = "Deine Nachricht ist in der Kanzlei angekommen."


@login_required
@require_POST
def mandant_message_send(request: HttpRequest, pk: int) -> HttpResponse:
    """Only a MANDANT writes here (staff write Notizen); anyone else gets 404, like a foreign Akte."""
    if not is_mandant(request.user):
        raise Http404
    akte = selectors.akte_get(user=request_user(request), pk=pk)
    target = reverse("akte-detail", args=[akte.pk]) + "#msg-h"
    try:
        services.mandant_message_send(akte=akte, by=request_user(request), text=request.POST.get("text", ""))
    except services.DraftInvalid as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, MSG_MESSAGE_SENT)
    return HttpResponseRedirect(target)
