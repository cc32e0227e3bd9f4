from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_delete, post_migrate, post_save


def _seed_tool_matrix(sender: Any, using: str = "default", **kwargs: Any) -> None:
    """After `migrate`: create the role × tool rows that are missing, with their defaults."""
    from django.db import connections

    from agent.models import ToolPermission
    from agent.tools.permissions import tool_matrix_ensure_defaults

    if ToolPermission._meta.db_table in connections[using].introspection.table_names():
        tool_matrix_ensure_defaults(using=using)


def _tool_matrix_changed(sender: Any, **kwargs: Any) -> None:
    from agent.tools.permissions import tool_matrix_changed

    tool_matrix_changed()


class AgentConfig(AppConfig):
    name = "agent"
    verbose_name = "Helena (Agent)"

    def ready(self) -> None:
        from agent.tools.discovery import all_tools

        # Import every tool module now: a broken tool stops the start-up instead of failing silently later.
        all_tools()
        post_migrate.connect(_seed_tool_matrix, sender=self, dispatch_uid="agent_seed_tool_matrix")
        from agent.models import ToolPermission

        # A matrix row saved or deleted anywhere (the admin's list of rows too) renews the
        # version under which every process keeps the matrix (agent/tools/permissions.py).
        post_save.connect(_tool_matrix_changed, sender=ToolPermission, dispatch_uid="agent_tool_matrix_saved")
        post_delete.connect(_tool_matrix_changed, sender=ToolPermission, dispatch_uid="agent_tool_matrix_deleted")
        from agent.runs.delivery import draft_changed_deliver
        from drafts.events import draft_changed

        # Live draft cards: the draft services announce each change, the open tabs hear of it.
        draft_changed.connect(draft_changed_deliver, dispatch_uid="agent.draft_changed")
        from django.db.backends.signals import connection_created

        from agent.tools.executor import tool_session_limits

        connection_created.connect(tool_session_limits, dispatch_uid="agent.tool_session_limits")
