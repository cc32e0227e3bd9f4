"""Admin for the tool layer: the read-only audit trail of tool calls and the role × tool matrix,
edited as one grid (tools as rows, roles as columns). Only the ADMIN role or a superuser may
change the matrix; every change is recorded in ConfigChange by agent.tools.permissions.tool_matrix_update."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, Q
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from agent.models import ToolCallAudit, ToolPermission
from agent.runs.selectors import runs_of
from agent.tools import discovery, permissions
from akten.models import Role
from helena.api import request_user

MSG_SAVED = "Werkzeugrechte gespeichert: {count} Änderung(en)."
MSG_UNCHANGED = "Keine Änderung."


def _is_admin(request: HttpRequest) -> bool:
    user = request.user
    return bool(user.is_active and user.is_staff and (user.is_superuser or getattr(user, "is_admin_role", False)))


@admin.register(ToolCallAudit)
class ToolCallAuditAdmin(admin.ModelAdmin):
    list_display = ["created_at", "tool", "user", "akte", "ok", "cached", "duration_ms", "summary", "run"]
    list_filter = [
        "tool",
        "ok",
        "cached",
        "created_at",
        ("user", admin.RelatedOnlyFieldListFilter),
        ("akte", admin.RelatedOnlyFieldListFilter),
    ]
    date_hierarchy = "created_at"
    search_fields = ["tool", "call_id", "user__email", "akte__aktenzeichen"]
    list_select_related = ["user", "akte", "run"]
    readonly_fields = [f.name for f in ToolCallAudit._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return _is_admin(request) or super().has_view_permission(request, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _is_admin(request) or super().has_module_permission(request)

    def get_queryset(self, request: HttpRequest) -> Any:
        qs = super().get_queryset(request)
        if _is_admin(request):
            return qs
        # Other staff see their own calls of runs they may still see (`runs_of`: not of a run that
        # read an Akte gone for them since, whose other calls can repeat it) that showed no such Akte.
        user = request_user(request)
        hidden = ToolCallAudit.objects.showing_hidden_akten(user).filter(pk=OuterRef("pk"))
        mine = qs.filter(Q(run__isnull=True) | Q(run__in=runs_of(user).values("pk")), user=user)
        return mine.exclude(Exists(hidden))


@admin.register(ToolPermission)
class ToolPermissionAdmin(admin.ModelAdmin):
    """The matrix as a grid: the changelist is replaced by one form with a checkbox per role × tool."""

    grid_template = "admin/agent/toolpermission_grid.html"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return _is_admin(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return _is_admin(request) or super().has_view_permission(request, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _is_admin(request) or super().has_module_permission(request)

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None) -> HttpResponse:
        return HttpResponseRedirect(reverse("admin:agent_toolpermission_changelist"))

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        can_change = self.has_change_permission(request)
        if request.method == "POST":
            if not can_change:
                raise PermissionDenied
            allowed = [tuple(key.split("__", 2)[1:]) for key in request.POST if key.startswith("perm__") and key.count("__") == 2]
            changes = permissions.tool_matrix_update(by=request.user, allowed=allowed)  # type: ignore[arg-type]
            self.message_user(request, MSG_SAVED.format(count=len(changes)) if changes else MSG_UNCHANGED, messages.SUCCESS)
            return HttpResponseRedirect(request.path)
        tools = discovery.all_tools()
        grid = permissions.tool_matrix()
        rows = [
            {
                "name": name,
                "title": tools[name].progress_label.rstrip(" …."),
                "kind": "schreibt (Entwurf)" if tools[name].writes else "liest",
                "cross_akte": tools[name].cross_akte,
                "firm_only": tools[name].firm_only,
                "available": tools[name].available(),
                "cells": [
                    {
                        "field": f"perm__{role}__{name}",
                        "role_label": role_label,
                        "checked": grid[name][role],
                        "locked": not permissions.role_may_ever_use(role, tools[name]),
                    }
                    for role, role_label in Role.choices
                ],
            }
            for name in grid
        ]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Rollen × Werkzeuge",
            "roles": [label for _, label in Role.choices],
            "rows": rows,
            "can_change": can_change,
            **(extra_context or {}),
        }
        return TemplateResponse(request, self.grid_template, context)
