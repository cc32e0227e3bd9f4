"""Drafts and alerts API. Every action goes through drafts.services."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema_view
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from helena.api import WriteRateLimitMixin, request_user
from helena.api_docs import AKTE_FILTER, api_doc, path_id
from helena.text import as_id

from . import selectors, services
from .models import HelenaAlert, HelenaDraft
from .serializers import (
    AlertSerializer,
    DraftAcceptSerializer,
    DraftDetailSerializer,
    DraftEditSerializer,
    DraftRejectSerializer,
    DraftSerializer,
)

DRAFT_ID = path_id("des Entwurfs")
ALERT_ID = path_id("des Hinweises")


@api_doc(
    summary="Entwürfe auflisten",
    description="Die Entwürfe von Helena zu den Akten, die du sehen darfst, und deine allgemeinen Entwürfe "
    "(nicht für Mandanten).",
    parameters=[
        OpenApiParameter(
            "status", str, enum=HelenaDraft.Status.values, description="Nur Entwürfe in diesem Zustand, z. B. PENDING (offen)."
        ),
        AKTE_FILTER,
    ],
)
class DraftListApi(generics.ListAPIView):
    serializer_class = DraftSerializer

    def get_queryset(self) -> Any:
        params = self.request.query_params
        akte = params.get("akte", "")
        return selectors.draft_list(user=request_user(self.request), status=params.get("status", ""), akte_id=as_id(akte))


@extend_schema_view(
    get=api_doc(
        summary="Entwurf abrufen",
        description="Ein Entwurf mit Inhalt, Zustand, Prüfung und allen Bearbeitungsständen.",
        parameters=[DRAFT_ID],
    )
)
class DraftDetailApi(WriteRateLimitMixin, generics.RetrieveAPIView):
    serializer_class = DraftDetailSerializer

    def get_queryset(self) -> Any:
        return HelenaDraft.objects.visible_to(self.request.user).select_related("akte", "reviewer")

    @api_doc(
        summary="Entwurf bearbeiten",
        description="Ersetzt den Inhalt eines offenen Entwurfs; der vorige Stand bleibt als Bearbeitungsstand "
        "erhalten. Der Inhalt wird je Entwurfsart geprüft. Nur für Rollen, die Entwürfe übernehmen dürfen.",
        parameters=[DRAFT_ID],
        request=DraftEditSerializer,
        responses=DraftDetailSerializer,
        conflict=True,
    )
    def patch(self, request: Request, pk: int) -> Response:
        serializer = DraftEditSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        draft = services.draft_edit(draft_id=pk, by=request_user(request), payload=serializer.validated_data["payload"])
        return Response(DraftDetailSerializer(draft).data)


class DraftAcceptApi(WriteRateLimitMixin, APIView):
    @api_doc(
        summary="Entwurf übernehmen",
        description="Legt genau den Datensatz an, den der Entwurf beschreibt (Dokument, Frist, Notiz, "
        "Zeiterfassung, Änderung der Akte oder Kostennote), und hält dich als Prüfer fest. Nur für Rollen, "
        "die übernehmen dürfen (HELENA_APPROVER_ROLES). Mit `version` (der geprüften Fassung) nur, wenn der "
        "Entwurf seitdem nicht geändert wurde (sonst 409).",
        parameters=[DRAFT_ID],
        request=DraftAcceptSerializer,
        responses=DraftSerializer,
        conflict=True,
    )
    def post(self, request: Request, pk: int) -> Response:
        serializer = DraftAcceptSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        version = serializer.validated_data.get("version")
        return Response(DraftSerializer(services.draft_accept(draft_id=pk, by=request_user(request), version=version)).data)


class DraftRejectApi(WriteRateLimitMixin, APIView):
    @api_doc(
        summary="Entwurf ablehnen",
        description="Lehnt einen offenen Entwurf ab; nötig ist ein Grund oder mindestens eine Kategorie. "
        "Es wird nichts angelegt.",
        parameters=[DRAFT_ID],
        request=DraftRejectSerializer,
        responses=DraftSerializer,
        conflict=True,
    )
    def post(self, request: Request, pk: int) -> Response:
        serializer = DraftRejectSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        draft = services.draft_reject(draft_id=pk, by=request_user(request), **serializer.validated_data)
        return Response(DraftSerializer(draft).data)


class DraftUndoApi(WriteRateLimitMixin, APIView):
    @api_doc(
        summary="Übernahme rückgängig machen",
        description="Löscht den Datensatz, den die Übernahme angelegt hat, und macht den Entwurf wieder offen. "
        "Nur wer übernommen hat oder ein Administrator (Rolle ADMIN), solange die eigene Rolle Entwürfe "
        "übernehmen darf (HELENA_APPROVER_ROLES), und nur innerhalb von HELENA_DRAFT_UNDO_SECONDS Sekunden.",
        parameters=[DRAFT_ID],
        request=None,
        responses=DraftSerializer,
        conflict=True,
    )
    def post(self, request: Request, pk: int) -> Response:
        return Response(DraftSerializer(services.draft_undo(draft_id=pk, by=request_user(request))).data)


@api_doc(
    summary="Hinweise auflisten",
    description="Deine Hinweise (etwa auf nahe Fristen oder Nachrichten von Mandanten), nur zu Akten, die du sehen darfst.",
    parameters=[OpenApiParameter("aktiv", bool, description="true: nur Hinweise, die du noch nicht verworfen hast.")],
)
class AlertListApi(generics.ListAPIView):
    serializer_class = AlertSerializer

    def get_queryset(self) -> Any:
        active_only = self.request.query_params.get("aktiv", "").lower() in ("1", "true", "ja")
        return selectors.alert_list(user=request_user(self.request), active_only=active_only)


@api_doc(summary="Hinweis abrufen", description="Ein Hinweis an dich.", parameters=[ALERT_ID])
class AlertDetailApi(generics.RetrieveAPIView):
    serializer_class = AlertSerializer

    def get_queryset(self) -> Any:
        return selectors.alert_list(user=request_user(self.request))


class AlertActionApi(WriteRateLimitMixin, generics.GenericAPIView):
    serializer_class = AlertSerializer
    alert_action: str = ""

    def get_queryset(self) -> Any:
        return HelenaAlert.objects.visible_to(self.request.user)

    def post(self, request: Request, pk: int) -> Response:
        alert = self.get_object()
        if self.alert_action == "read":
            alert = services.alert_mark_read(alert=alert, by=request_user(request))
        else:
            alert = services.alert_dismiss(alert=alert, by=request_user(request))
        return Response(AlertSerializer(alert).data)


@extend_schema_view(
    post=api_doc(
        summary="Hinweis als gelesen markieren",
        description="Markiert den Hinweis als gelesen; er bleibt in der Liste.",
        parameters=[ALERT_ID],
        request=None,
        responses=AlertSerializer,
    )
)
class AlertReadApi(AlertActionApi):
    alert_action = "read"


@extend_schema_view(
    post=api_doc(
        summary="Hinweis verwerfen",
        description="Verwirft den Hinweis; unter aktiv=true erscheint er nicht mehr.",
        parameters=[ALERT_ID],
        request=None,
        responses=AlertSerializer,
    )
)
class AlertDismissApi(AlertActionApi):
    alert_action = "dismiss"
