"""Admin for the Basiszinssätze a Kanzlei adds after the shipped history (Verwaltung → Rechner).

Entries are added through the service (validation, who entered them), never changed afterwards, and
only the newest may be deleted: a wrong rate is corrected by deleting it and entering it again. The
shipped history is shown read-only above the list.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from rechner.models import Basiszinssatz, satz_text
from rechner.selectors import basiszins_historie, basiszinssatz_neuester
from rechner.services import basiszinssatz_create, basiszinssatz_delete
from rechner.zinsen import basiszinssaetze

HILFE_GUELTIG_AB = (
    "Als Nächstes fehlt der Basiszinssatz ab dem {naechstes:%d.%m.%Y}. Die Deutsche Bundesbank gibt ihn kurz vor dem "
    "1. Januar und dem 1. Juli im Bundesanzeiger bekannt (§ 247 Abs. 2 BGB; bundesbank.de, Stichwort Basiszinssatz)."
)


class BasiszinssatzForm(forms.ModelForm):
    class Meta:
        model = Basiszinssatz
        fields = ["gueltig_ab", "satz"]
        localized_fields = ["satz"]  # „1,27“ as the Bundesbank writes it


@admin.register(Basiszinssatz)
class BasiszinssatzAdmin(admin.ModelAdmin):
    form = BasiszinssatzForm
    list_display = ["ab", "bis", "satz_prozent", "created_by", "created_at"]
    readonly_fields = ["created_by", "created_at"]

    @admin.display(description="gültig ab", ordering="gueltig_ab")
    def ab(self, obj: Basiszinssatz) -> str:
        return f"{obj.gueltig_ab:%d.%m.%Y}"

    @admin.display(description="gültig bis")
    def bis(self, obj: Basiszinssatz) -> str:
        return f"{obj.gueltig_bis:%d.%m.%Y}"

    @admin.display(description="Basiszinssatz", ordering="satz")
    def satz_prozent(self, obj: Basiszinssatz) -> str:
        return f"{satz_text(obj.satz)} %"

    def get_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("gueltig_ab", "satz") if obj is None else ("gueltig_ab", "satz", "created_by", "created_at")

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is None and "gueltig_ab" in form.base_fields:
            form.base_fields["gueltig_ab"].help_text = HILFE_GUELTIG_AB.format(naechstes=self._naechstes())
        return form

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        return {"gueltig_ab": self._naechstes(), **super().get_changeform_initial_data(request)}

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        ausgeliefert = basiszinssaetze()
        context = {
            "ausgeliefert": [(w.gueltig_ab, satz_text(w.satz)) for w in reversed(ausgeliefert.werte)],
            "ausgeliefert_bis": ausgeliefert.gueltig_bis,
            "naechstes": self._naechstes(),
            **(extra_context or {}),
        }
        return super().changelist_view(request, extra_context=context)

    # A recorded rate is never edited: delete the newest and enter it again.
    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if not super().has_delete_permission(request, obj):
            return False
        neuester = basiszinssatz_neuester()
        return obj is None or (neuester is not None and neuester.pk == obj.pk)

    def get_actions(self, request: HttpRequest) -> Any:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # deleting several at once could leave a gap
        return actions

    def save_model(self, request: HttpRequest, obj: Basiszinssatz, form: Any, change: bool) -> None:
        """Through the service; the admin goes on with ``obj`` (change log, redirect)."""
        gespeichert = basiszinssatz_create(gueltig_ab=obj.gueltig_ab, satz=obj.satz, by=request.user)  # type: ignore[arg-type]
        obj.pk, obj.created_by, obj.created_at = gespeichert.pk, gespeichert.created_by, gespeichert.created_at
        obj._state.adding = False

    def delete_model(self, request: HttpRequest, obj: Basiszinssatz) -> None:
        basiszinssatz_delete(eintrag=obj)

    @staticmethod
    def _naechstes() -> date:
        return basiszins_historie().gueltig_bis + timedelta(days=1)
