"""The admin parts that belong to no app: user groups with German permission names, the background
tasks of django-tasks-db under German names, German yes/no icons. Together with the catalogue in
locale/de/ the admin of a Kanzlei shows no English leftovers."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.contrib.admin.options import BaseModelAdmin, IncorrectLookupParameters
from django.contrib.admin.templatetags import admin_list
from django.contrib.admin.views.main import ChangeList
from django.contrib.auth.admin import GroupAdmin as BaseGroupAdmin
from django.contrib.auth.models import Group
from django.templatetags.static import static
from django.utils.html import format_html
from django_tasks_db.admin import DBTaskResultAdmin
from django_tasks_db.models import DBTaskResult

from akten.admin_mixins import AdminOnlyChangesMixin, GermanPermissionsMixin, relation_choices_checked, sees_all
from akten.policy import is_mandant

CODE_FIELDS = {
    "task_path": "task_path_code",
    "args_kwargs": "args_kwargs_code",
    "return_value": "return_value_code",
    "exception_class_path": "exception_class_path_code",
}
BOOLEAN_ALT = {True: "ja", False: "nein", None: "unbekannt"}


_django_has_permission = admin.site.has_permission


def _kanzlei_only(request: Any) -> bool:
    """A MANDANT account never enters the admin, even with is_staff ticked by mistake: the admin
    shows the internal fields that akten/policy.py keeps from her (notes, Sachstand, addresses)."""
    return bool(_django_has_permission(request)) and not is_mandant(request.user)


admin.site.has_permission = _kanzlei_only  # type: ignore[method-assign]

_django_get_filters = ChangeList.get_filters


def _filters_or_refused(self: ChangeList, request: Any) -> Any:
    """A list's date drill-down beyond the calendar (?datum__year=9999 asks for the year 10000) is a
    wrong lookup, which the admin answers with the unfiltered list and "?e=1", not a 500."""
    try:
        return _django_get_filters(self, request)
    except (ValueError, OverflowError) as exc:
        raise IncorrectLookupParameters(str(exc)) from exc


ChangeList.get_filters = _filters_or_refused  # type: ignore[method-assign]

# Every relation field of every admin form and inline: a tampered value ("abc", "1x") is a German
# field error, the same as for a missing or hidden row, not a 500 (akten/admin_mixins.py).
BaseModelAdmin.formfield_for_foreignkey = relation_choices_checked(BaseModelAdmin.formfield_for_foreignkey)  # type: ignore[method-assign]
BaseModelAdmin.formfield_for_manytomany = relation_choices_checked(BaseModelAdmin.formfield_for_manytomany)  # type: ignore[method-assign]

admin.site.unregister(Group)


@admin.register(Group)
class GroupAdmin(AdminOnlyChangesMixin, GermanPermissionsMixin, BaseGroupAdmin):
    """Groups carry permissions: changed only by ADMIN and superusers (AdminOnlyChangesMixin)."""


admin.site.unregister(DBTaskResult)


@admin.register(DBTaskResult)
class TaskResultAdmin(DBTaskResultAdmin):
    """django-tasks-db's admin (read-only) with German column names. Only ADMIN and superusers see
    rows: a task's arguments name runs and documents of any Akte, and a failure's traceback keeps
    its message, which may quote client data (a view permission opens the page, not more rows)."""

    list_display = ("id", "aufgabe", "status", "enqueued_at", "started_at", "finished_at", "priority", "queue_name")

    def get_queryset(self, request: Any) -> Any:
        qs = super().get_queryset(request)
        return qs if sees_all(request) else qs.none()

    @admin.display(description="Aufgabe")
    def aufgabe(self, obj: DBTaskResult) -> str:
        return format_html("<code>{}</code>", obj.task_name)

    def get_readonly_fields(self, request: Any, obj: DBTaskResult | None = None) -> list[str]:
        # technical values (Python paths, arguments) as code, not as text to read
        return [CODE_FIELDS.get(name, name) for name in super().get_readonly_fields(request, obj)]

    @admin.display(description="Aufgabe (Python-Pfad)")
    def task_path_code(self, obj: DBTaskResult) -> str:
        return format_html("<code>{}</code>", obj.task_path)

    @admin.display(description="Argumente")
    def args_kwargs_code(self, obj: DBTaskResult) -> str:
        return format_html("<code>{}</code>", json.dumps(obj.args_kwargs, ensure_ascii=False))

    @admin.display(description="Rückgabewert")
    def return_value_code(self, obj: DBTaskResult) -> str:
        return format_html("<code>{}</code>", json.dumps(obj.return_value, ensure_ascii=False))

    @admin.display(description="Fehlerart (Python-Pfad)")
    def exception_class_path_code(self, obj: DBTaskResult) -> str:
        return format_html("<code>{}</code>", obj.exception_class_path or "–")

    @admin.display(description="Fehlerverlauf")
    def formatted_traceback(self, obj: DBTaskResult) -> str:
        return super().formatted_traceback(obj)

    @admin.display(description="frühestens ausführen ab")
    def display_run_after(self, obj: DBTaskResult) -> Any:
        return super().display_run_after(obj)


def _task_result_str(self: DBTaskResult) -> str:
    return f"Hintergrundaufgabe {self.pk}"


# Titles and breadcrumbs name the row by str(); django-tasks-db leaves Django's English default.
DBTaskResult.__str__ = _task_result_str  # type: ignore[method-assign,assignment]


def _boolean_icon(field_val: bool | None) -> str:
    """Django's yes/no icon with a German text for screen readers (Django writes „True“/„False“)."""
    icon_url = static("admin/img/icon-{}.svg".format({True: "yes", False: "no", None: "unknown"}[field_val]))
    return format_html('<img src="{}" alt="{}">', icon_url, BOOLEAN_ALT[field_val])


admin_list._boolean_icon = _boolean_icon  # type: ignore[attr-defined]
