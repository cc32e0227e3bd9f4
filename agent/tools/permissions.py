"""The role × tool matrix: which role may use which tool.

ToolPermission rows (a missing row means "not allowed") are seeded lazily with the defaults of
`default_allowed` for every (role, tool) pair that has no row yet, and after `migrate`. A MANDANT
never gets a `cross_akte` or `firm_only` tool, whatever the matrix says (`role_may_ever_use`). The admin grid
changes the matrix through `tool_matrix_update`, which records every change.

Every tool call checks its (role, tool) row as it is now, inside the one query that also resolves
the user's access (`tool_row_allows`, used by agent/tools/executor.py): no extra round trip.
Building a run's tool list (`tools_for_user`) reads the whole matrix, so each
process keeps it in memory (`_MatrixCache`) under a version token held in Django's cache (Redis
in production, shared by all processes). Every change of the rows puts a new token there
(`tool_matrix_changed`: the matrix update, seeding, saves and deletes through the admin), so the
next reader in every process reads the rows again. When the cache cannot be reached, the rows are
read from the database every time.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db import transaction

from agent.models import ConfigChange, ToolPermission
from agent.tools.base import Tool
from agent.tools.discovery import all_tools
from akten.models import Role, User

logger = logging.getLogger(__name__)

ERR_MATRIX_FORBIDDEN = "Nur die Administration darf die Werkzeugrechte ändern."
MATRIX_VERSION_KEY = "helena:tool-matrix:version"


# --- role × tool matrix ------------------------------------------------------------------------


def default_allowed(role: str, tool: Tool) -> bool:
    """The seeded default: ADMIN and ANWALT everything; SACHBEARBEITER everything but update_akte;
    SEKRETARIAT reads and create_notiz; PRAKTIKANT and MANDANT reads (MANDANT no cross-Akte search
    and none of the firm's own work product)."""
    if role in (Role.ADMIN, Role.ANWALT):
        return True
    if role == Role.SACHBEARBEITER:
        return tool.name != "update_akte"
    if role == Role.SEKRETARIAT:
        return not tool.writes or tool.name == "create_notiz"
    if role == Role.PRAKTIKANT:
        return not tool.writes
    if role == Role.MANDANT:
        return not tool.writes and role_may_ever_use(role, tool)
    return False


def role_may_ever_use(role: str, tool: Tool) -> bool:
    """Hard limits above the matrix: a MANDANT never searches across Akten or firm documents, and
    never reads the firm's own work product (its Muster)."""
    return not (role == Role.MANDANT and (tool.cross_akte or tool.firm_only))


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
    if missing:
        ToolPermission.objects.using(using).bulk_create(missing, ignore_conflicts=True)
        tool_matrix_changed()
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
    if changes:
        tool_matrix_changed()
    return changes


# --- the matrix as the tool calls read it ------------------------------------------------------


def tool_matrix_changed() -> None:
    """Announce a change of the matrix rows to every process: at once (this process and readers
    within the transaction) and again after the commit (a process that read the old rows
    meanwhile cached them under the first token)."""
    _version_renew()
    transaction.on_commit(_version_renew)


def _version_renew() -> None:
    try:
        cache.set(MATRIX_VERSION_KEY, uuid.uuid4().hex, timeout=None)
    except Exception:
        logger.warning("tool matrix version not renewed (cache unavailable)")


def _version() -> str | None:
    """The current version token (created when the cache has none); None when the cache fails."""
    try:
        version = cache.get(MATRIX_VERSION_KEY)
        if version is None:
            cache.add(MATRIX_VERSION_KEY, uuid.uuid4().hex, timeout=None)
            version = cache.get(MATRIX_VERSION_KEY)
        return str(version) if version is not None else None
    except Exception:
        logger.warning("tool matrix version unreadable (cache unavailable)")
        return None


@dataclass(frozen=True)
class _Matrix:
    version: str | None
    allowed: dict[str, frozenset[str]]  # role → names of the tools the rows allow it


class _MatrixCache:
    """One process's copy of the allowed (role, tool) rows, valid while the version holds."""

    def __init__(self) -> None:
        self._matrix: _Matrix | None = None
        self._lock = threading.Lock()

    def allowed(self) -> dict[str, frozenset[str]]:
        # the version is read before the rows: a change committed in between renews it again
        version = _version()
        matrix = self._matrix
        if version is not None and matrix is not None and matrix.version == version:
            return matrix.allowed
        tool_matrix_ensure_defaults()
        allowed: dict[str, set[str]] = {role: set() for role in Role.values}
        for role, name in ToolPermission.objects.filter(allowed=True).values_list("role", "tool"):
            allowed.setdefault(role, set()).add(name)
        fresh = {role: frozenset(names) for role, names in allowed.items()}
        if version is not None:
            with self._lock:
                self._matrix = _Matrix(version=version, allowed=fresh)
        return fresh

    def clear(self) -> None:
        with self._lock:
            self._matrix = None


_matrix_cache = _MatrixCache()


def allowed_tool_names(role: str) -> frozenset[str]:
    """The tools the matrix rows allow `role` (before the hard limits and availability)."""
    return _matrix_cache.allowed().get(role, frozenset())


def tool_usable(user: User, tool: Tool) -> bool:
    """What holds whatever the matrix says: an active account, a tool the role may ever use, and
    the tool available right now (search_web needs its configuration)."""
    return user.is_active and role_may_ever_use(user.role, tool) and tool.available()


def tools_for_user(user: User) -> dict[str, Tool]:
    """The tools the matrix allows `user`'s role and that are available right now (search_web)."""
    if not user.is_active:
        return {}
    tools = all_tools()
    names = allowed_tool_names(user.role)
    return {name: tool for name, tool in sorted(tools.items()) if name in names and tool_usable(user, tool)}


def tool_row_allows(role: str, name: str) -> tuple[str, list[str]]:
    """Whether the matrix row of (role, tool) allows it: an SQL expression and its parameters, for
    the query that resolves the caller's access (akten.models.access_scope_query)."""
    table = ToolPermission._meta.db_table
    return f"EXISTS (SELECT 1 FROM {table} p WHERE p.role = %s AND p.tool = %s AND p.allowed)", [role, name]  # noqa: S608
