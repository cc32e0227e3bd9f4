"""Page action: „Als Kostennote-Entwurf in die Akte“ from the RVG calculator."""

from __future__ import annotations

import datetime
from decimal import Decimal

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.urls import reverse
from django.views.decorators.http import require_POST

from akten.models import STAFF_ROLES, Akte
from drafts.models import HelenaDraft
from drafts.services import DraftError, draft_create
from rechner import rvg
from rechner.forms import FEHLER_AUSWAHL, FEHLER_DATUM, FEHLER_LAENGE, FEHLER_PFLICHT, GermanDecimalField, RvgForm, fehler_texte

from .kostennote import ART_KOSTENNOTE, ART_VORSCHUSS, kostennote_payload

ERR_AKTE = "Akte {az} nicht gefunden."
ERR_ROLLE = "Du darfst keine Kostennoten anlegen."
ERR_BERECHNUNG = "Die Berechnung ist unvollständig: {fehler}"
ERR_OHNE_BERECHNUNG = "Bitte berechne zuerst die Gebühren."
ERFOLG = "Der Entwurf „{titel}“ liegt in der Akte zur Prüfung bereit; die Rechnungsnummer wird bei der Übernahme vergeben."


def _datum(label: str) -> forms.DateField:
    return forms.DateField(label=label, error_messages={"required": FEHLER_PFLICHT, "invalid": FEHLER_DATUM})


class KostennoteForm(forms.Form):
    """The labels are those of the page's form: its errors name the fields by them (fehler_texte)."""

    aktenzeichen = forms.CharField(
        label="Aktenzeichen", max_length=30, error_messages={"required": FEHLER_PFLICHT, "max_length": FEHLER_LAENGE}
    )
    art = forms.ChoiceField(
        label="Art",
        choices=[(ART_KOSTENNOTE, "Kostennote"), (ART_VORSCHUSS, "Vorschussrechnung")],
        error_messages={"required": FEHLER_PFLICHT, "invalid_choice": FEHLER_AUSWAHL},
    )
    leistungszeitraum_von = _datum("Leistungszeitraum von")
    leistungszeitraum_bis = _datum("Leistungszeitraum bis")
    # bounded like the draft's amounts (drafts.schemas.KostennotePayload), so its service never refuses one
    vorschuesse = GermanDecimalField(
        label="Bereits gezahlte Vorschüsse", min_value=Decimal(0), max_value=Decimal(1_000_000_000), required=False
    )
    anfrage = forms.CharField(
        label="Berechnung", max_length=4000, error_messages={"required": ERR_OHNE_BERECHNUNG, "max_length": FEHLER_LAENGE}
    )


def _zurueck(anfrage: str) -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse("rechner-rvg") + ("?" + anfrage if anfrage else ""))


@login_required
@require_POST
def kostennote_entwurf(request: HttpRequest) -> HttpResponse:
    user = request.user
    form = KostennoteForm(request.POST)
    anfrage = request.POST.get("anfrage", "")
    if not (getattr(user, "is_admin_role", False) or getattr(user, "role", None) in STAFF_ROLES):
        messages.error(request, ERR_ROLLE)
        return _zurueck(anfrage)
    if not form.is_valid():
        for fehler in fehler_texte(form):
            messages.error(request, fehler)
        return _zurueck(anfrage)
    daten = form.cleaned_data
    akte = Akte.objects.visible_to(user).filter(aktenzeichen=daten["aktenzeichen"].strip()).first()
    if akte is None:
        messages.error(request, ERR_AKTE.format(az=daten["aktenzeichen"]))
        return _zurueck(anfrage)
    rvg_form = RvgForm.aus_anfrage(QueryDict(anfrage))
    if not rvg_form.is_valid():
        messages.error(request, ERR_BERECHNUNG.format(fehler=" ".join(fehler_texte(rvg_form))))
        return _zurueck(anfrage)
    werte = rvg_form.cleaned_data
    vorschuesse: Decimal = daten["vorschuesse"] or Decimal("0.00")
    try:
        berechnung = rvg_form.berechne()
    except rvg.RvgError as fehler:
        messages.error(request, str(fehler))
        return _zurueck(anfrage)
    von: datetime.date = daten["leistungszeitraum_von"]
    bis: datetime.date = daten["leistungszeitraum_bis"]
    payload = kostennote_payload(
        berechnung=berechnung,
        art=daten["art"],
        gegenstandswert=werte["gegenstandswert"],
        leistungszeitraum_von=von,
        leistungszeitraum_bis=bis,
        vorschuesse=vorschuesse.quantize(Decimal("0.01")),
        kurzrubrum=akte.kurzrubrum,
    )
    try:
        draft = draft_create(typ=HelenaDraft.Typ.KOSTENNOTE, akte=akte, requested_by=user, payload=payload)  # type: ignore[arg-type]
    except DraftError as fehler:
        messages.error(request, fehler.message)
        return _zurueck(anfrage)
    messages.success(request, ERFOLG.format(titel=draft.titel))
    return HttpResponseRedirect(reverse("akte-detail", args=[akte.pk]) + "#dr-h")
