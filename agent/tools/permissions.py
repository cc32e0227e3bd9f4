"""The role × tool matrix: which role may use which tool.

ToolPermission rows (a missing row means "not allowed") are seeded lazily with the defaults of
`default_allowed` for every (role, tool) pair that has no row yet, and after `migrate`. A MANDANT
never gets a `cross_akte` tool, whatever the matrix says (`role_may_ever_use`). The admin grid
changes the matrix through `tool_matrix_update`, which records every change.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import PermissionDenied
from django.db import transaction

from agent.models import ConfigChange, ToolPermission
from agent.tools.base import Tool
from agent.tools.discovery import all_tools
from akten.models import Role, User

ERR_MATRIX_FORBIDDEN = "Nur die Administration darf die Werkzeugrechte ändern."


# --- role × tool matrix ------------------------------------------------------------------------


def default_allowed(role: str, tool: Tool) -> bool:
    """The seeded default: ADMIN and ANWALT everything; SACHBEARBEITER everything but update_akte;
    SEKRETARIAT reads and create_notiz; PRAKTIKANT and MANDANT reads (MANDANT no cross-Akte search)."""
    if role in (Role.ADMIN, Role.ANWALT):
        return True
    if role == Role.SACHBEARBEITER:
        return tool.name != "update_akte"
    if role == Role.SEKRETARIAT:
        return not tool.writes or tool.name == "create_notiz"
    if role == Role.PRAKTIKANT:
        return not tool.writes
    if role == Role.MANDANT:
        return not tool.writes and not tool.cross_akte
    return False


def role_may_ever_use(role: str, tool: Tool) -> bool:
    """Hard limits above the matrix: a MANDANT never searches across Akten or firm documents."""
    return not (role == Role.MANDANT and tool.cross_akte)


def tool_matrix_ensure_defaults(*, using: str = "default") -> int:
    """Create the missing (role, tool) rows with their defaults; existing rows are kept. Returns how many."""
    tools = all_tools()
    existing = set(ToolPermission.objects.using(using).values_list("role", "tool"))
    missing = [
        ToolPermission(role=role, tool=tool.name, allowed=default_allowed(role, tool))
        for tool in tools.values()
        for role in Role.values
        if (role, tool.name) not in existing
    ]
    ToolPermission.objects.using(using).bulk_create(missing, ignore_conflicts=True)
    return len(missing)


def tool_matrix() -> dict[str, dict[str, bool]]:
    """{tool: {role: allowed}} for every discovered tool and role (defaults seeded first)."""
    tool_matrix_ensure_defaults()
    tools = all_tools()
    grid = {name: dict.fromkeys(Role.values, False) for name in sorted(tools)}
    for role, name, allowed in ToolPermission.objects.filter(tool__in=tools).values_list("role", "tool", "allowed"):
        if role in grid[name]:
            grid[name][role] = allowed and role_may_ever_use(role, tools[name])
    return grid


@transaction.atomic
def tool_matrix_update(*, by: User, allowed: Iterable[tuple[str, str]]) -> list[ConfigChange]:
    """Set the matrix to exactly `allowed` ((role, tool) pairs) and record each change with its actor.

    Locks the matrix rows (pk order). Raises PermissionDenied unless `by` is ADMIN or superuser.
    Pairs a role may never have (MANDANT × cross-Akte tools) and unknown tools are ignored.
    """
    if not (by.is_active and by.is_admin_role):
        raise PermissionDenied(ERR_MATRIX_FORBIDDEN)
    tool_matrix_ensure_defaults()
    tools = all_tools()
    wanted = {(role, name) for role, name in allowed if name in tools and role_may_ever_use(role, tools[name])}
    changes: list[ConfigChange] = []
    for row in ToolPermission.objects.select_for_update().filter(tool__in=tools).order_by("pk"):
        new = (row.role, row.tool) in wanted
        if row.allowed == new:
            continue
        changes.append(
            ConfigChange.of(
                user=by,
                obj=row,
                object_repr=f"{row.get_role_display()} × {row.tool}",
                before={"role": row.role, "tool": row.tool, "allowed": row.allowed},
                after={"role": row.role, "tool": row.tool, "allowed": new},
            )
        )
        row.allowed = new
        row.save(update_fields=["allowed"])
    ConfigChange.objects.bulk_create(changes)
    return changes


def tools_for_user(user: User) -> dict[str, Tool]:
    """The tools the matrix allows `user`'s role and that are available right now (search_web)."""
    if not user.is_active:
        return {}
    tool_matrix_ensure_defaults()
    tools = all_tools()
    names = set(ToolPermission.objects.filter(role=user.role, allowed=True).values_list("tool", flat=True))
    return {
        name: tool
        for name, tool in sorted(tools.items())
        if name in names and role_may_ever_use(user.role, tool) and tool.available()
    }


def tool_permitted(user: User, tool: Tool) -> bool:
    """The execution-time check of the matrix, read again from the database."""
    return (
        user.is_active
        and role_may_ever_use(user.role, tool)
        and tool.available()
        and ToolPermission.objects.filter(role=user.role, tool=tool.name, allowed=True).exists()
    )
