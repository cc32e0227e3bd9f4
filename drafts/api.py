"""Drafts and alerts API. Every action goes through drafts.services."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from helena.api import WriteRateLimitMixin, request_user

from . import selectors, services
from .models import HelenaAlert, HelenaDraft
from .serializers import (
    AlertSerializer,
    DraftDetailSerializer,
    DraftEditSerializer,
    DraftRejectSerializer,
    DraftSerializer,
)


@extend_schema(parameters=[OpenApiParameter("status", str, enum=HelenaDraft.Status.values), OpenApiParameter("akte", int)])
class DraftListApi(generics.ListAPIView):
    serializer_class = DraftSerializer

    def get_queryset(self) -> Any:
        params = self.request.query_params
        akte = params.get("akte", "")
        return selectors.draft_list(
            user=request_user(self.request), status=params.get("status", ""), akte_id=int(akte) if akte.isdigit() else None
        )


class DraftDetailApi(WriteRateLimitMixin, generics.RetrieveAPIView):
    serializer_class = DraftDetailSerializer

    def get_queryset(self) -> Any:
        return HelenaDraft.objects.visible_to(self.request.user).select_related("akte", "reviewer")

    @extend_schema(request=DraftEditSerializer, responses=DraftDetailSerializer)
    def patch(self, request: Request, pk: int) -> Response:
        serializer = DraftEditSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        draft = services.draft_edit(draft_id=pk, by=request_user(request), payload=serializer.validated_data["payload"])
        return Response(DraftDetailSerializer(draft).data)


class DraftAcceptApi(WriteRateLimitMixin, APIView):
    @extend_schema(request=None, responses=DraftSerializer)
    def post(self, request: Request, pk: int) -> Response:
        return Response(DraftSerializer(services.draft_accept(draft_id=pk, by=request_user(request))).data)


class DraftRejectApi(WriteRateLimitMixin, APIView):
    @extend_schema(request=DraftRejectSerializer, responses=DraftSerializer)
    def post(self, request: Request, pk: int) -> Response:
        serializer = DraftRejectSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        draft = services.draft_reject(draft_id=pk, by=request_user(request), **serializer.validated_data)
        return Response(DraftSerializer(draft).data)


class DraftUndoApi(WriteRateLimitMixin, APIView):
    @extend_schema(request=None, responses=DraftSerializer)
    def post(self, request: Request, pk: int) -> Response:
        return Response(DraftSerializer(services.draft_undo(draft_id=pk, by=request_user(request))).data)


@extend_schema(parameters=[OpenApiParameter("aktiv", bool)])
class AlertListApi(generics.ListAPIView):
    serializer_class = AlertSerializer

    def get_queryset(self) -> Any:
        active_only = self.request.query_params.get("aktiv", "").lower() in ("1", "true", "ja")
        return selectors.alert_list(user=request_user(self.request), active_only=active_only)


class AlertDetailApi(generics.RetrieveAPIView):
    serializer_class = AlertSerializer

    def get_queryset(self) -> Any:
        return selectors.alert_list(user=request_user(self.request))


class AlertActionApi(WriteRateLimitMixin, generics.GenericAPIView):
    serializer_class = AlertSerializer
    alert_action: str = ""

    def get_queryset(self) -> Any:
        return HelenaAlert.objects.visible_to(self.request.user)

    @extend_schema(request=None, responses=AlertSerializer)
    def post(self, request: Request, pk: int) -> Response:
        alert = self.get_object()
        if self.alert_action == "read":
            alert = services.alert_mark_read(alert=alert, by=request_user(request))
        else:
            alert = services.alert_dismiss(alert=alert, by=request_user(request))
        return Response(AlertSerializer(alert).data)
