from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.views.decorators.http import require_POST

from akten.admin_mixins import VisibleToAdminMixin
from helena.text import as_id

from . import services
from .models import DraftRevision, HelenaAlert, HelenaDraft


class DraftRevisionInline(admin.TabularInline):
    model = DraftRevision
    extra = 0
    can_delete = False
    readonly_fields = ["number", "titel", "payload", "edited_by", "edited_at"]

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(HelenaDraft)
class HelenaDraftAdmin(VisibleToAdminMixin, admin.ModelAdmin):
    list_display = ["titel", "typ", "status", "akte", "requested_by", "untrusted_input", "reviewer", "created_at"]
    list_filter = ["status", "typ", "untrusted_input", "created_at"]
    search_fields = ["titel", "akte__aktenzeichen"]
    list_select_related = ["akte", "requested_by", "reviewer"]
    inlines = [DraftRevisionInline]
    # Endkontrolle means a person reviewed this one draft: approval only from its change view, one
    # at a time, through drafts.services. Rejecting (also in bulk) is the way to discard; no deleting.
    actions = ["reject_selected"]
    change_form_template = "admin/drafts/helenadraft/change_form.html"
    # the record an approval created, by name and with its link, instead of a content type and an id
    readonly_fields = [
        *(f.name for f in HelenaDraft._meta.fields if f.name not in ("result_content_type", "result_object_id")),
        "angelegter_datensatz",
    ]
    exclude = ["result_content_type", "result_object_id"]

    def get_queryset(self, request: HttpRequest) -> Any:
        """Through `visible_to`, without the drafts whose run read an Akte the user may not see
        (`content_hidden`): the list, search and change view would show their title and content,
        which the app withholds from them (an ADMIN sees every Akte, so every draft; a superuser's
        list does not go through `visible_to`)."""
        qs = super().get_queryset(request)
        return qs if request.user.is_superuser else qs.filter(content_hidden=False)

    def render_change_form(
        self, request: HttpRequest, context: Any, add: bool = False, change: bool = False, form_url: str = "", obj: Any = None
    ) -> Any:
        """The approve button sends the version shown (services.draft_version)."""
        if obj is not None:
            context["version"] = services.draft_version(obj)
        return super().render_change_form(request, context, add=add, change=change, form_url=form_url, obj=obj)

    # Drafts change only through the services (accept/edit/reject/undo), never by a form.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    @admin.display(description="Angelegter Datensatz")
    def angelegter_datensatz(self, obj: HelenaDraft) -> str:
        if obj.result_content_type is None:
            return "–"
        model = obj.result_content_type.model_class()
        label = model._meta.verbose_name if model else obj.result_content_type.model
        return f"{label} Nr. {obj.result_object_id}"

    def get_urls(self) -> list[Any]:
        accept = self.admin_site.admin_view(require_POST(self.accept_view))
        return [path("<int:object_id>/uebernehmen/", accept, name="drafts_helenadraft_accept"), *super().get_urls()]

    def accept_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        draft = get_object_or_404(self.get_queryset(request), pk=object_id)
        try:
            version = request.POST.get("version", "")
            services.draft_accept(
                draft_id=draft.pk,
                by=request.user,  # type: ignore[arg-type]
                version=as_id(version),
            )
        except services.DraftError as exc:
            self.message_user(request, exc.message, messages.ERROR)
        else:
            self.message_user(request, f"Entwurf „{draft.titel}“ übernommen (Endkontrolle).", messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:drafts_helenadraft_change", args=[draft.pk]))

    def _bulk(self, request: HttpRequest, queryset, action) -> None:  # type: ignore[no-untyped-def]
        done, failed = 0, []
        for draft in queryset:
            try:
                action(draft_id=draft.pk, by=request.user)
                done += 1
            except services.DraftError as exc:
                failed.append(f"{draft.titel}: {exc.message}")
        if done:
            self.message_user(request, f"{done} Entwürfe bearbeitet.", messages.SUCCESS)
        for message in failed:
            self.message_user(request, message, messages.ERROR)

    @admin.action(description="Ausgewählte Entwürfe ablehnen (sonstiges)")
    def reject_selected(self, request: HttpRequest, queryset) -> None:  # type: ignore[no-untyped-def]
        def reject(*, draft_id: int, by) -> None:  # type: ignore[no-untyped-def]
            services.draft_reject(draft_id=draft_id, by=by, reason="In der Verwaltung abgelehnt.", categories=["SONSTIGES"])

        self._bulk(request, queryset, reject)


@admin.register(HelenaAlert)
class HelenaAlertAdmin(VisibleToAdminMixin, admin.ModelAdmin):
    list_display = ["titel", "typ", "severity", "akte", "recipient", "read_at", "dismissed_at", "created_at"]
    list_filter = ["typ", "severity", "created_at"]
    search_fields = ["titel", "text", "akte__aktenzeichen", "recipient__email"]
    list_select_related = ["akte", "recipient"]
    # A notice names its run; the run's choice list would show every run of the firm.
    readonly_fields = ["origin_run"]
