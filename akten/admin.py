from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from akten.admin_mixins import (
    GermanPermissionsMixin,
    StaffUserChoicesAdminMixin,
    VisibleKontaktAdminMixin,
    VisibleToAdminMixin,
    VisibleUserAdminMixin,
)

from .metadaten import freigabe_pruefen
from .models import (
    Akte,
    AktenActivity,
    Beteiligter,
    Dezernat,
    Dokument,
    KalenderEintrag,
    KanzleiProfil,
    Kontakt,
    Notiz,
    User,
    Vertretung,
    Zeiterfassung,
)


@admin.register(User)
class UserAdmin(GermanPermissionsMixin, VisibleUserAdminMixin, BaseUserAdmin):
    ordering = ["email"]
    list_display = ["email", "first_name", "last_name", "role", "is_active", "is_staff"]
    list_filter = ["role", "is_active", "is_staff", "dezernate"]
    search_fields = ["email", "first_name", "last_name"]
    autocomplete_fields = ["kontakt"]
    fieldsets = (
        (None, {"fields": ("email", "password")}),
        (_("Person"), {"fields": ("first_name", "last_name", "role", "kontakt")}),
        (_("Berechtigungen"), {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")}),
        (_("Zeitpunkte"), {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("email", "role", "password1", "password2")}),)


@admin.register(Vertretung)
class VertretungAdmin(StaffUserChoicesAdminMixin, admin.ModelAdmin):
    list_display = ["vertreter", "vertretener", "beginn", "ende", "grund"]
    list_filter = ["beginn", "ende"]
    search_fields = ["vertreter__email", "vertretener__email", "vertreter__last_name", "vertretener__last_name"]
    autocomplete_fields = ["vertreter", "vertretener"]


@admin.register(Dezernat)
class DezernatAdmin(StaffUserChoicesAdminMixin, admin.ModelAdmin):
    list_display = ["name"]
    search_fields = ["name"]
    filter_horizontal = ["members"]


@admin.register(Kontakt)
class KontaktAdmin(VisibleKontaktAdminMixin, admin.ModelAdmin):
    list_display = ["__str__", "typ", "ort", "email", "telefon"]
    list_filter = ["typ", "land"]
    search_fields = ["nachname", "vorname", "firma", "email", "ort"]


class BeteiligterInline(admin.TabularInline):
    model = Beteiligter
    extra = 0
    autocomplete_fields = ["kontakt"]


@admin.register(Akte)
class AkteAdmin(VisibleToAdminMixin, admin.ModelAdmin):
    list_display = ["aktenzeichen", "kurzrubrum", "sachgebiet", "status", "anwalt", "sachbearbeiter", "changed_at"]
    list_filter = ["status", "sachgebiet", "dezernate", "anwalt"]
    search_fields = ["aktenzeichen", "kurzrubrum", "wegen", "beteiligte__kontakt__nachname", "beteiligte__kontakt__firma"]
    filter_horizontal = ["dezernate"]
    autocomplete_fields = ["anwalt", "sachbearbeiter"]
    inlines = [BeteiligterInline]
    date_hierarchy = "created_at"


@admin.register(KanzleiProfil)
class KanzleiProfilAdmin(admin.ModelAdmin):
    """One row: the Kanzlei's name and seat (holidays of deadlines when an Akte names no court)."""

    list_display = ["__str__", "sitz_ort", "sitz_bundesland"]
    fields = ["name", "sitz_ort", "sitz_bundesland"]

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return super().has_add_permission(request) and not KanzleiProfil.objects.exists()

    def has_delete_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


class AkteBoundAdmin(VisibleToAdminMixin, admin.ModelAdmin):
    list_select_related = ["akte"]
    autocomplete_fields = ["akte"]


@admin.register(Beteiligter)
class BeteiligterAdmin(AkteBoundAdmin):
    list_display = ["akte", "kontakt", "rolle"]
    list_filter = ["rolle"]
    search_fields = ["akte__aktenzeichen", "kontakt__nachname", "kontakt__firma"]


class DokumentAdminForm(forms.ModelForm):
    class Meta:
        model = Dokument
        fields = ["akte", "name", "status", "erstellt_von", "erstellt_von_helena", "mandant_sichtbar"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        # Releasing here obeys the same rule as the upload (akten.services.dokument_create).
        if cleaned.get("mandant_sichtbar") and not self.initial.get("mandant_sichtbar"):
            with self.instance.datei.open("rb") as handle:
                inhalt = handle.read()
            try:
                freigabe_pruefen(inhalt, mime_type=self.instance.mime_type)
            except ValueError as fehler:
                self.add_error("mandant_sichtbar", str(fehler))
        return cleaned


@admin.register(Dokument)
class DokumentAdmin(AkteBoundAdmin):
    form = DokumentAdminForm
    list_display = ["name", "akte", "status", "text_status", "mime_type", "erstellt_von_helena", "mandant_sichtbar", "created_at"]
    list_filter = ["status", "text_status", "erstellt_von_helena", "mandant_sichtbar", "mime_type"]
    search_fields = ["name", "akte__aktenzeichen"]
    # The file is changed only through the upload and version services (type, text, search index,
    # release check); here it is shown, not replaced.
    readonly_fields = ["datei", "text", "text_status", "text_fehler", "groesse", "mime_type"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(KalenderEintrag)
class KalenderEintragAdmin(AkteBoundAdmin):
    list_display = ["titel", "akte", "typ", "datum", "fristablauf", "vorfrist", "notfrist", "erledigt", "verantwortlich"]
    list_filter = ["typ", "notfrist", "erledigt", "fristablauf"]
    search_fields = ["titel", "akte__aktenzeichen"]
    date_hierarchy = "datum"


@admin.register(Zeiterfassung)
class ZeiterfassungAdmin(AkteBoundAdmin):
    list_display = ["datum", "akte", "user", "minuten", "beschreibung", "abrechenbar"]
    list_filter = ["abrechenbar", "datum", "user"]
    search_fields = ["beschreibung", "akte__aktenzeichen"]
    date_hierarchy = "datum"


@admin.register(Notiz)
class NotizAdmin(AkteBoundAdmin):
    list_display = ["__str__", "akte", "autor", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["titel", "text", "akte__aktenzeichen"]


@admin.register(AktenActivity)
class AktenActivityAdmin(AkteBoundAdmin):
    list_display = ["created_at", "akte", "typ", "beschreibung", "actor_user", "actor_run"]
    list_filter = ["typ", "created_at"]
    search_fields = ["beschreibung", "akte__aktenzeichen"]
    date_hierarchy = "created_at"

    # The timeline is written by services only.
    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False
