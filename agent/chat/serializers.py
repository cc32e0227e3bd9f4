"""Output serializers of the runs API ("Meine Aufträge"): a user's own runs only."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agent.models import AgentRun
from akten.policy import sees_internal


class RunSerializer(serializers.ModelSerializer):
    """`queue_position` (1: the next to start) for a background run waiting for a worker, else
    null (always for a MANDANT); the view passes the positions in the context (`queue_positions`).
    A MANDANT gets `started_at` null (with `created_at` it tells how long her run waited)."""

    status_label = serializers.CharField(source="get_status_display")
    queue_position = serializers.SerializerMethodField()

    class Meta:
        model = AgentRun
        fields = [
            "id",
            "mode",
            "status",
            "status_label",
            "queue_position",
            "task",
            "akte",
            "conversation",
            "steps_used",
            "max_steps",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields

    def to_representation(self, instance: AgentRun) -> dict[str, Any]:
        data: dict[str, Any] = super().to_representation(instance)
        request = self.context.get("request")
        if request is not None and not sees_internal(request.user):
            # created → started is the time her run waited behind others: the firm's workload (akten.policy)
            data["started_at"] = None
        return data

    @extend_schema_field(serializers.IntegerField(allow_null=True, min_value=1))
    def get_queue_position(self, run: AgentRun) -> int | None:
        positions: dict[int, int] = self.context.get("queue_positions", {})
        return positions.get(run.pk)
