from django.contrib import admin

from .models import AgentRun, AgentStep


class AgentStepInline(admin.TabularInline):
    model = AgentStep
    extra = 0
    can_delete = False
    readonly_fields = ["seq", "type", "payload", "created_at"]


@admin.register(AgentRun)
class AgentRunAdmin(admin.ModelAdmin):
    list_display = ["pk", "user", "akte", "mode", "status", "model_name", "created_at", "finished_at"]
    list_filter = ["status", "mode", "created_at"]
    search_fields = ["user__email", "akte__aktenzeichen"]
    readonly_fields = [f.name for f in AgentRun._meta.fields]
    inlines = [AgentStepInline]

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False

    def get_queryset(self, request):  # type: ignore[no-untyped-def]
        qs = super().get_queryset(request)
        return qs if request.user.is_superuser or request.user.is_admin_role else qs.filter(user=request.user)
