import datetime
from pathlib import PurePath
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from akten.admin_mixins import (
    AdminOnlyChangesMixin,
    GermanPermissionsMixin,
    StaffUserChoicesAdminMixin,
    VisibleKontaktAdminMixin,
    VisibleKontaktChoicesMixin,
    VisibleToAdminMixin,
    VisibleUserAdminMixin,
)

from .fristen_rules import KalenderRegelFehler, berechnung_einhalten, kalender_eintrag_pruefen, wiedervorlage_hinweis
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
from .services import (
    ERR_VERANTWORTLICH,
    FreigabeTitelFehler,
    activity_record,
    freigabe_titel_pruefen,
    verantwortlich_zulaessig,
    zeiterfassung_pruefen,
)


@admin.register(User)
class UserAdmin(AdminOnlyChangesMixin, GermanPermissionsMixin, VisibleUserAdminMixin, BaseUserAdmin):
    ordering = ["email"]
    list_display = ["email", "first_name", "last_name", "role", "is_active", "is_staff"]
    list_filter = ["role", "is_active", "is_staff", "dezernate"]
    search_fields = ["email", "first_name", "last_name"]
    autocomplete_fields = ["kontakt"]
    fieldsets = (
        (None, {"fields": ("email", "password")}),
        (_("Person"), {"fields": ("first_name", "last_name", "berufsbezeichnung", "role", "kontakt")}),
        (_("Berechtigungen"), {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")}),
        (_("Zeitpunkte"), {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("email", "role", "password1", "password2")}),)


@admin.register(Vertretung)
class VertretungAdmin(AdminOnlyChangesMixin, StaffUserChoicesAdminMixin, admin.ModelAdmin):
    list_display = ["vertreter", "vertretener", "beginn", "ende", "grund"]
    list_filter = ["beginn", "ende"]
    search_fields = ["vertreter__email", "vertretener__email", "vertreter__last_name", "vertretener__last_name"]
    autocomplete_fields = ["vertreter", "vertretener"]


@admin.register(Dezernat)
class DezernatAdmin(AdminOnlyChangesMixin, StaffUserChoicesAdminMixin, admin.ModelAdmin):
    list_display = ["name"]
    search_fields = ["name"]
    filter_horizontal = ["members"]


@admin.register(Kontakt)
class KontaktAdmin(VisibleKontaktAdminMixin, admin.ModelAdmin):
    list_display = ["__str__", "typ", "ort", "email", "telefon"]
    list_filter = ["typ", "land"]
    search_fields = ["nachname", "vorname", "firma", "email", "ort"]


class BeteiligterInline(VisibleKontaktChoicesMixin, admin.TabularInline):
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

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if change and not form.changed_data:
            return
        felder = ", ".join(str(form.fields[name].label or name) for name in form.changed_data)
        activity_record(
            akte=obj,
            typ=AktenActivity.Typ.AKTE_GEAENDERT if change else AktenActivity.Typ.AKTE_ANGELEGT,
            beschreibung=f"Akte in der Verwaltung geändert: {felder}" if change else f"Akte {obj.aktenzeichen} angelegt",
            by=request.user,  # type: ignore[arg-type]
            data={"verwaltung": True, "felder": list(form.changed_data)},
        )


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
        if cleaned.get("mandant_sichtbar") and (not self.initial.get("mandant_sichtbar") or "name" in self.changed_data):
            # A released document's title is what she sees: never the uploaded file's name (as in the API).
            name = cleaned.get("name") or ""
            try:
                freigabe_titel_pruefen(name=name, dateiname=PurePath(self.instance.datei.name or "").name)
            except FreigabeTitelFehler as fehler:
                if name:  # an empty title has the field's own error already
                    self.add_error("name", str(fehler))
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


class KalenderEintragAdminForm(forms.ModelForm):
    """The rules every path applies (README „Jede Regel gilt auf jedem Weg“): § 193 BGB and the
    Vorfrist (`kalender_eintrag_pruefen`, when date or type change: an old Frist's title stays
    editable) and a responsible person who may see the Akte (`verantwortlich_zulaessig`)."""

    class Meta:
        model = KalenderEintrag
        exclude: list[str] = []

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not self.instance.pk or {"typ", "fristablauf", "vorfrist"} & set(self.changed_data):
            try:
                kalender_eintrag_pruefen(
                    typ=cleaned.get("typ") or "", fristablauf=cleaned.get("fristablauf"), vorfrist=cleaned.get("vorfrist")
                )
            except KalenderRegelFehler as fehler:
                self.add_error(None, fehler.message)
        berechnung = self.instance.berechnung if self.instance.pk else None
        if isinstance(berechnung, dict) and berechnung.get("fristablauf"):
            try:
                berechnung_einhalten(
                    typ=cleaned.get("typ") or "",
                    fristablauf=cleaned.get("fristablauf"),
                    notfrist=bool(cleaned.get("notfrist")),
                    berechnet=datetime.date.fromisoformat(berechnung["fristablauf"]),
                    berechnet_notfrist=bool(berechnung.get("notfrist")),
                    rechtsgrundlage=str(berechnung.get("rechtsgrundlage") or ""),
                )
            except KalenderRegelFehler as fehler:
                self.add_error(None, fehler.message)
        verantwortlich = cleaned.get("verantwortlich")
        if verantwortlich is not None and not verantwortlich_zulaessig(akte=cleaned.get("akte"), user=verantwortlich):
            self.add_error("verantwortlich", ERR_VERANTWORTLICH)
        return cleaned


@admin.register(KalenderEintrag)
class KalenderEintragAdmin(AkteBoundAdmin):
    form = KalenderEintragAdminForm
    list_display = ["titel", "akte", "typ", "datum", "fristablauf", "vorfrist", "notfrist", "erledigt", "verantwortlich"]
    list_filter = ["typ", "notfrist", "erledigt", "fristablauf"]
    search_fields = ["titel", "akte__aktenzeichen"]
    date_hierarchy = "datum"
    # Done is marked in the Fristenkontrolle (kalender_eintrag_erledigen: who, when, Aktenverlauf).
    readonly_fields = ["erledigt", "erledigt_at", "erledigt_von", "berechnet"]

    @admin.display(description=_("Berechnet (Fristenrechner)"))
    def berechnet(self, obj: KalenderEintrag) -> str:
        berechnung = obj.berechnung if isinstance(obj.berechnung, dict) else None
        if not berechnung or not berechnung.get("fristablauf"):
            return "–"
        text = f"{datetime.date.fromisoformat(berechnung['fristablauf']):%d.%m.%Y}"
        if berechnung.get("notfrist"):
            text += ", Notfrist"
        if berechnung.get("rechtsgrundlage"):
            text += f" ({berechnung['rechtsgrundlage']})"
        return text + "; ein späterer Fristablauf wird abgelehnt"

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if obj.verantwortlich_id is None:
            obj.verantwortlich = request.user
        super().save_model(request, obj, form, change)
        hinweis = wiedervorlage_hinweis(akte=obj.akte, typ=obj.typ, datum=obj.datum, fristablauf=obj.fristablauf)
        _verlauf(request, obj.akte, KalenderEintrag, obj, change, f"{obj.get_typ_display()} „{obj.titel}“", hinweis)
        if hinweis:
            messages.warning(request, hinweis)


class ZeiterfassungAdminForm(forms.ModelForm):
    class Meta:
        model = Zeiterfassung
        exclude: list[str] = []

    def clean(self) -> dict[str, Any]:
        """The rules of every path to a time record (`akten.services.zeiterfassung_pruefen`): no day
        in the future, a person who may work on the Akte, at most 24 hours of one person's records
        a day (a changed record counted once, with its new minutes)."""
        cleaned = super().clean() or {}
        akte, user, datum, minuten = (cleaned.get(feld) for feld in ("akte", "user", "datum", "minuten"))
        if akte is not None and user is not None and datum is not None and minuten is not None:
            try:
                zeiterfassung_pruefen(akte=akte, user=user, datum=datum, minuten=minuten, zeiterfassung_id=self.instance.pk)
            except ValidationError as fehler:
                # on the form, not on a field: the field keeps its own check (at most 1,440 minutes)
                self.add_error(None, fehler.messages)
        return cleaned


@admin.register(Zeiterfassung)
class ZeiterfassungAdmin(AkteBoundAdmin):
    form = ZeiterfassungAdminForm
    list_display = ["datum", "akte", "user", "minuten", "beschreibung", "abrechenbar"]
    list_filter = ["abrechenbar", "datum", "user"]
    search_fields = ["beschreibung", "akte__aktenzeichen"]
    date_hierarchy = "datum"

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        _verlauf(request, obj.akte, Zeiterfassung, obj, change, f"{obj.minuten} Minuten: {obj.beschreibung[:60]}")


@admin.register(Notiz)
class NotizAdmin(AkteBoundAdmin):
    list_display = ["__str__", "akte", "autor", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["titel", "text", "akte__aktenzeichen"]
    # A note is written in its author's name: the person saving it, never someone chosen here.
    readonly_fields = ["autor"]

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if not change:
            obj.autor = request.user
        super().save_model(request, obj, form, change)
        if obj.akte_id is not None:
            _verlauf(request, obj.akte, Notiz, obj, change, f"Notiz „{obj.titel or obj.text[:40]}“")


_VERLAUF_TYPEN = {
    KalenderEintrag: (AktenActivity.Typ.KALENDER_ANGELEGT, "kalender_eintrag"),
    Zeiterfassung: (AktenActivity.Typ.ZEIT_ERFASST, "zeiterfassung"),
    Notiz: (AktenActivity.Typ.NOTIZ_ANGELEGT, "notiz"),
}


def _verlauf(request: HttpRequest, akte: Akte, model: type[Any], obj: Any, change: bool, was: str, hinweis: str = "") -> None:
    """The Aktenverlauf entry of a record saved in the admin, as the services write it (with the
    hint they add, e.g. a Wiedervorlage on a Sunday)."""
    typ, schluessel = _VERLAUF_TYPEN[model]
    beschreibung = f"{was} in der Verwaltung {'geändert' if change else 'angelegt'}"
    activity_record(
        akte=akte,
        typ=AktenActivity.Typ.AKTE_GEAENDERT if change else typ,
        beschreibung=f"{beschreibung}. {hinweis}" if hinweis else beschreibung,
        by=request.user,  # type: ignore[arg-type]
        data={schluessel: obj.pk, "verwaltung": True, **({"hinweis": hinweis} if hinweis else {})},
    )


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
