from django.contrib import admin, messages
from django.http import HttpRequest

from akten.admin_mixins import VisibleToAdminMixin

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
    actions = ["accept_selected", "reject_selected"]
    readonly_fields = [f.name for f in HelenaDraft._meta.fields]

    # Drafts change only through the services (accept/edit/reject/undo), never by a form.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

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

    @admin.action(description="Ausgewählte Entwürfe übernehmen (Endkontrolle)")
    def accept_selected(self, request: HttpRequest, queryset) -> None:  # type: ignore[no-untyped-def]
        self._bulk(request, queryset, services.draft_accept)

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
