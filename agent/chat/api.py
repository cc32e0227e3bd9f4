"""The runs API: the user's own runs ("Meine Aufträge"), with the queue position of waiting
background runs. Another user's run is not found, like a missing one."""

from __future__ import annotations

from typing import Any

from rest_framework import generics

from agent.chat.serializers import RunSerializer
from agent.runs import selectors
from helena.api import request_user


class _QueuePositions:
    def get_serializer_context(self) -> dict[str, Any]:
        context: dict[str, Any] = super().get_serializer_context()  # type: ignore[misc]
        context["queue_positions"] = selectors.run_queue_positions(user=request_user(self.request))  # type: ignore[attr-defined]
        return context


class RunListApi(_QueuePositions, generics.ListAPIView):
    serializer_class = RunSerializer

    def get_queryset(self) -> Any:
        return selectors.run_list(user=request_user(self.request))


class RunDetailApi(_QueuePositions, generics.RetrieveAPIView):
    serializer_class = RunSerializer

    def get_object(self) -> Any:
        return selectors.run_get(user=request_user(self.request), pk=self.kwargs["pk"])
