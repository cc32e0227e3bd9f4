import json

from django.contrib import admin
from django.db.models import Prefetch

from agent.models import AgentRun, AgentStep, AnswerFeedback, ToolCallAudit
from agent.runs.selectors import messages_of, runs_of
from akten.admin_mixins import sees_all
from helena.text import shorten
from recherche.citations import unresolved_in_trace


class AgentStepInline(admin.TabularInline):
    """The run's events (shown only with a run the viewer may see, AgentRunAdmin.get_queryset)."""

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
class AgentRunAdmin(admin.ModelAdmin):
    """Runs with their steps and tool calls, read-only. ADMIN sees all; anyone else only their own
    runs that they may still see in the chat (`runs_of`: not on an Akte gone for them, and not one
    that read such an Akte, whose answer and transcript can repeat what it read)."""

    list_display = [
        "pk", "user", "akte", "mode", "status", "model_name", "steps_used", "zitate_nicht_im_bestand", "created_at",
        "finished_at",
    ]  # fmt: skip
    list_filter = ["status", "mode", "created_at"]
    search_fields = ["user__email", "akte__aktenzeichen"]
    list_select_related = ["user", "akte"]
    exclude = ["transcript"]
    readonly_fields = [
        *(f.name for f in AgentRun._meta.fields if f.name != "transcript"), "verlauf", "zitate_nicht_im_bestand",
    ]  # fmt: skip
    inlines = [AgentStepInline, ToolCallAuditInline]

    def get_queryset(self, request):  # type: ignore[no-untyped-def]
        checks = AgentStep.objects.filter(type="answer.citations").only("run_id", "payload").order_by("seq")
        qs = super().get_queryset(request).prefetch_related(Prefetch("steps", queryset=checks, to_attr="citation_checks"))
        return qs if sees_all(request) else qs.filter(pk__in=runs_of(request.user).values("pk"))

    @admin.display(description=AgentRun._meta.get_field("transcript").verbose_name)
    def verlauf(self, obj: AgentRun) -> str:
        return json.dumps(obj.transcript, ensure_ascii=False)

    @admin.display(description="Zitate nicht im Bestand")
    def zitate_nicht_im_bestand(self, obj: AgentRun) -> str:
        """From the run's `answer.citations` trace event (answer and drafts): "–" where the run
        wrote nothing that was checked, a note where the check itself failed."""
        checks = getattr(obj, "citation_checks", None)
        if checks is None:  # an object not loaded through get_queryset
            checks = list(obj.steps.filter(type="answer.citations"))
        if not checks:
            return "–"
        if any("fehler" in step.payload for step in checks):
            return "Prüfung fehlgeschlagen"
        return str(sum(unresolved_in_trace(step.payload) for step in checks))

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(AnswerFeedback)
class AnswerFeedbackAdmin(admin.ModelAdmin):
    """Users' verdicts on Helena's answers, read-only, for evaluating models and prompts. Like the
    runs: ADMIN sees all; anyone else only verdicts on answers they may still see in their own
    conversations (`messages_of`: an answer quotes what its run read; a view permission opens the
    page, not more rows)."""

    list_display = ["updated_at", "rating", "comment", "user", "answer_excerpt"]
    list_filter = ["rating", "updated_at"]
    list_select_related = ["user", "message"]
    fields = ("message", "user", "rating", "comment", "created_at", "updated_at", "answer_text")
    readonly_fields = fields

    def get_queryset(self, request):  # type: ignore[no-untyped-def]
        qs = super().get_queryset(request)
        if sees_all(request):
            return qs
        return qs.filter(message__in=messages_of(request.user).values("pk"))

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
