"""Kanzlei API. Views validate input, call one selector or service and render the result."""

from __future__ import annotations

from typing import Any

from django.http import FileResponse, Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, parsers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from helena.api import WriteRateLimitMixin, request_user

from . import selectors, services
from .models import STAFF_ROLES, Akte, Sachgebiet
from .serializers import (
    AkteDetailSerializer,
    AkteSerializer,
    DokumentDetailSerializer,
    DokumentSerializer,
    DokumentUploadSerializer,
    KalenderEintragSerializer,
    NotizSerializer,
    ZeiterfassungSerializer,
)

ERR_UPLOAD_FORBIDDEN = "Du darfst keine Dokumente hochladen."
AKTE_PARAM = OpenApiParameter("akte", int, description="Nur Einträge dieser Akte")


def _akte_param(request: Request) -> int | None:
    raw = request.query_params.get("akte")
    if raw in (None, ""):
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValidationError({"akte": "Ungültige Akten-ID."}) from None


@extend_schema(
    parameters=[
        OpenApiParameter("q", str, description="Suche in Aktenzeichen, Kurzrubrum, wegen und Beteiligten"),
        OpenApiParameter("status", str, enum=Akte.Status.values),
        OpenApiParameter("sachgebiet", str, enum=Sachgebiet.values),
    ]
)
class AkteListApi(generics.ListAPIView):
    serializer_class = AkteSerializer

    def get_queryset(self) -> Any:
        params = self.request.query_params
        return selectors.akte_list(
            user=request_user(self.request),
            q=params.get("q", "").strip(),
            status=params.get("status", ""),
            sachgebiet=params.get("sachgebiet", ""),
        )


class AkteDetailApi(generics.RetrieveAPIView):
    serializer_class = AkteDetailSerializer

    def get_object(self) -> Any:
        return selectors.akte_get(user=request_user(self.request), pk=self.kwargs["pk"])


@extend_schema(parameters=[AKTE_PARAM])
class DokumentListApi(WriteRateLimitMixin, generics.ListAPIView):
    serializer_class = DokumentSerializer
    parser_classes = [parsers.MultiPartParser, parsers.FormParser]

    def get_queryset(self) -> Any:
        return selectors.dokument_list(user=request_user(self.request), akte_id=_akte_param(self.request))

    @extend_schema(request=DokumentUploadSerializer, responses={201: DokumentDetailSerializer})
    def post(self, request: Request) -> Response:
        serializer = DokumentUploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        user = request_user(request)
        akte = selectors.akte_get(user=user, pk=data["akte"])
        if not (user.is_admin_role or user.role in STAFF_ROLES):
            raise PermissionDenied(ERR_UPLOAD_FORBIDDEN)
        upload = data["datei"]
        try:
            dokument = services.dokument_create(
                akte=akte,
                by=user,
                name=data.get("name") or upload.name,
                filename=upload.name,
                content=upload.read(),
                mime_type=upload.content_type,
                mandant_sichtbar=data["mandant_sichtbar"],
            )
        except ValueError as exc:
            raise ValidationError({"datei": str(exc)}) from exc
        return Response(DokumentDetailSerializer(dokument).data, status=status.HTTP_201_CREATED)


class DokumentDetailApi(generics.RetrieveAPIView):
    serializer_class = DokumentDetailSerializer

    def get_queryset(self) -> Any:
        return selectors.dokument_list(user=request_user(self.request))


class DokumentDownloadApi(APIView):
    @extend_schema(responses={(200, "application/octet-stream"): bytes})
    def get(self, request: Request, pk: int) -> FileResponse:
        dokument = selectors.dokument_list(user=request_user(request)).filter(pk=pk).first()
        if dokument is None:
            raise Http404
        return FileResponse(
            dokument.datei.open("rb"),
            as_attachment=True,
            filename=(dokument.datei.name or "dokument").rsplit("/", 1)[-1],
            content_type=dokument.mime_type,
        )


@extend_schema(
    parameters=[
        AKTE_PARAM,
        OpenApiParameter("typ", str, enum=["FRIST", "TERMIN", "WIEDERVORLAGE"]),
        OpenApiParameter("offen", bool),
    ]
)
class KalenderListApi(generics.ListAPIView):
    serializer_class = KalenderEintragSerializer

    def get_queryset(self) -> Any:
        offen_raw = self.request.query_params.get("offen")
        offen = None if offen_raw in (None, "") else offen_raw.lower() in ("1", "true", "ja")
        return selectors.kalender_list(
            user=request_user(self.request),
            akte_id=_akte_param(self.request),
            typ=self.request.query_params.get("typ", ""),
            offen=offen,
        )


class KalenderDetailApi(generics.RetrieveAPIView):
    serializer_class = KalenderEintragSerializer

    def get_queryset(self) -> Any:
        return selectors.kalender_list(user=request_user(self.request))


@extend_schema(parameters=[AKTE_PARAM])
class ZeiterfassungListApi(generics.ListAPIView):
    serializer_class = ZeiterfassungSerializer

    def get_queryset(self) -> Any:
        return selectors.zeiterfassung_list(user=request_user(self.request), akte_id=_akte_param(self.request))


class ZeiterfassungDetailApi(generics.RetrieveAPIView):
    serializer_class = ZeiterfassungSerializer

    def get_queryset(self) -> Any:
        return selectors.zeiterfassung_list(user=request_user(self.request))


@extend_schema(parameters=[AKTE_PARAM])
class NotizListApi(generics.ListAPIView):
    serializer_class = NotizSerializer

    def get_queryset(self) -> Any:
        return selectors.notiz_list(user=request_user(self.request), akte_id=_akte_param(self.request))


class NotizDetailApi(generics.RetrieveAPIView):
    serializer_class = NotizSerializer

    def get_queryset(self) -> Any:
        return selectors.notiz_list(user=request_user(self.request))
