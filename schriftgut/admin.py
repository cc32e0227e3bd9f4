"""Admin for the Kanzlei's letterhead data and the firm templates (with preview)."""

from __future__ import annotations

import io
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join

from akten.admin import KanzleiProfilAdmin
from akten.models import DokumentVorlage, KanzleiProfil, RechnungsnummerZaehler

from .briefkopf import briefkopf_anwenden
from .builtin import NACH_SCHLUESSEL, mitgeliefert_inhalt
from .pdf import docx_zu_pdf
from .platzhalter import PLATZHALTER, beispiel_kontext
from .services import DOCX_MIME, PDF_MIME
from .vorlagen import VorlagenFehler, vorlage_rendern

admin.site.unregister(KanzleiProfil)


@admin.register(KanzleiProfil)
class KanzleiProfilBriefkopfAdmin(KanzleiProfilAdmin):
    """The Kanzleiprofil with address, bank details and letterhead; every document uses it."""

    fields = None  # type: ignore[assignment]
    fieldsets = (
        (None, {"fields": ("name", "partner", "kammer")}),
        ("Sitz (für Fristen)", {"fields": ("sitz_ort", "sitz_bundesland")}),
        ("Anschrift und Kontakt", {"fields": ("strasse", "plz", "ort", "telefon", "telefax", "email", "web")}),
        ("Bankverbindung und Steuer", {"fields": ("bank_name", "iban", "bic", "ust_id", "steuernummer")}),
        ("Briefkopf", {"fields": ("logo", "briefkopf_ausrichtung", "briefkopf_schrift", "briefkopf_fusszeile")}),
    )

    def save_model(self, request: HttpRequest, obj: KanzleiProfil, form: Any, change: bool) -> None:
        """Saved as given; a letterhead that reaches into the DIN 5008 address field (it would show in
        the envelope's window) is reported at once, not first in a letter sent."""
        super().save_model(request, obj, form, change)
        brief = vorlage_rendern(mitgeliefert_inhalt(NACH_SCHLUESSEL["BRIEF"].schluessel), beispiel_kontext(obj))
        for hinweis in briefkopf_anwenden(brief.docx, profil=obj, aktenzeichen="1/26"):
            messages.warning(request, hinweis)


class DokumentVorlageForm(forms.ModelForm):
    class Meta:
        model = DokumentVorlage
        fields = ["name", "art", "mandant_partei", "beschreibung", "datei", "aktiv"]
        help_texts = {
            "datei": "Word-Datei (.docx) mit Platzhaltern wie {{ rubrum }} oder {{p freitext }}; "
            "die Liste aller Platzhalter steht unten und in der README."
        }


def _vorschau(vorlage: DokumentVorlage) -> Any:
    with vorlage.datei.open("rb") as datei:
        inhalt = datei.read()
    profil = KanzleiProfil.current()
    gerendert = vorlage_rendern(inhalt, beispiel_kontext(profil))
    briefkopf_anwenden(gerendert.docx, profil=profil, aktenzeichen="1/26")
    return gerendert.docx


@admin.register(DokumentVorlage)
class DokumentVorlageAdmin(admin.ModelAdmin):
    form = DokumentVorlageForm
    list_display = ["name", "art", "aktiv", "created_at", "vorschau_links"]
    list_filter = ["art", "aktiv"]
    search_fields = ["name", "beschreibung"]
    readonly_fields = ["platzhalter_liste", "hochgeladen_von", "created_at"]

    @admin.display(description="Vorschau (Beispieldaten)")
    def vorschau_links(self, obj: DokumentVorlage) -> str:
        return format_html(
            '<a href="{}">PDF</a> · <a href="{}">Word</a>',
            reverse("admin:schriftgut_vorlage_vorschau", args=[obj.pk, "pdf"]),
            reverse("admin:schriftgut_vorlage_vorschau", args=[obj.pk, "docx"]),
        )

    @admin.display(description="Erlaubte Platzhalter")
    def platzhalter_liste(self, obj: DokumentVorlage | None) -> str:
        return format_html("<ul>{}</ul>", format_html_join("", "<li><code>{{{{ {} }}}}</code>: {}</li>", PLATZHALTER.items()))

    def save_model(self, request: HttpRequest, obj: DokumentVorlage, form: Any, change: bool) -> None:
        if not change:
            obj.hochgeladen_von = request.user  # type: ignore[assignment]
        super().save_model(request, obj, form, change)

    def get_urls(self) -> list[URLPattern]:
        eigene = [
            path(
                "<int:pk>/vorschau/<str:format>/",
                self.admin_site.admin_view(self.vorschau_view),
                name="schriftgut_vorlage_vorschau",
            )
        ]
        return eigene + super().get_urls()

    def vorschau_view(self, request: HttpRequest, pk: int, format: str) -> HttpResponse:  # noqa: A002
        if not self.has_view_permission(request):
            return HttpResponse(status=403)
        vorlage = get_object_or_404(DokumentVorlage, pk=pk)
        try:
            docx = _vorschau(vorlage)
        except VorlagenFehler as fehler:
            return HttpResponse(fehler.message, status=400, content_type="text/plain; charset=utf-8")
        if format == "pdf":
            return HttpResponse(docx_zu_pdf(docx), content_type=PDF_MIME)
        buffer = io.BytesIO()
        docx.save(buffer)
        response = HttpResponse(buffer.getvalue(), content_type=DOCX_MIME)
        response["Content-Disposition"] = f'attachment; filename="vorschau-{vorlage.pk}.docx"'
        return response


@admin.register(RechnungsnummerZaehler)
class RechnungsnummerZaehlerAdmin(admin.ModelAdmin):
    """Read-only: numbers are issued only on approval of a Kostennote."""

    list_display = ["jahr", "letzte_nummer"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
