from django.contrib import admin

from agent.models import AgentRun, AgentStep, AnswerFeedback, ToolCallAudit
from akten.admin_mixins import OwnVisibleRunsAdminMixin
from helena.text import shorten


class AgentStepInline(admin.TabularInline):
    model = AgentStep
    extra = 0
    can_delete = False
    readonly_fields = ["seq", "type", "payload", "created_at"]

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


class ToolCallAuditInline(admin.TabularInline):
    model = ToolCallAudit
    extra = 0
    can_delete = False
    fields = ("created_at", "tool", "call_id", "arguments", "ok", "cached", "summary", "duration_ms")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(AgentRun)
class AgentRunAdmin(OwnVisibleRunsAdminMixin, admin.ModelAdmin):
    """Runs with their steps and tool calls, read-only."""

    list_display = ["pk", "user", "akte", "mode", "status", "model_name", "steps_used", "created_at", "finished_at"]
    list_filter = ["status", "mode", "created_at"]
    search_fields = ["user__email", "akte__aktenzeichen"]
    list_select_related = ["user", "akte"]
    readonly_fields = [f.name for f in AgentRun._meta.fields]
    inlines = [AgentStepInline, ToolCallAuditInline]

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(AnswerFeedback)
class AnswerFeedbackAdmin(admin.ModelAdmin):
    """Users' verdicts on Helena's answers, read-only, for evaluating models and prompts."""

    list_display = ["updated_at", "rating", "comment", "user", "answer_excerpt"]
    list_filter = ["rating", "updated_at"]
    list_select_related = ["user", "message"]
    fields = ("message", "user", "rating", "comment", "created_at", "updated_at", "answer_text")
    readonly_fields = fields

    @admin.display(description="Antwort (Auszug)")
    def answer_excerpt(self, obj: AnswerFeedback) -> str:
        return shorten(obj.message.text, 80)

    @admin.display(description="Antwort")
    def answer_text(self, obj: AnswerFeedback) -> str:
        return obj.message.text

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False
