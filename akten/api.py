"""Kanzlei API. Views validate input, call one selector or service and render the result."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpResponse
from django.utils.http import content_disposition_header
from drf_spectacular.utils import OpenApiParameter, extend_schema_view
from rest_framework import generics, parsers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from helena.api import WriteRateLimitMixin, request_user
from helena.api_docs import AKTE_FILTER, api_doc, path_id

from . import selectors, services
from .extraction import download_content_type
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


def _akte_param(request: Request) -> int | None:
    raw = request.query_params.get("akte")
    if raw in (None, ""):
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValidationError({"akte": "Ungültige Akten-ID."}) from None


@api_doc(
    summary="Akten auflisten",
    description="Die Akten, die du sehen darfst (als Zuständige, über dein Dezernat oder eine laufende Vertretung; "
    "als Mandantin deine eigenen), zuletzt geänderte zuerst.",
    parameters=[
        OpenApiParameter("q", str, description="Suche in Aktenzeichen, Kurzrubrum, „wegen“ und den Namen der Beteiligten."),
        OpenApiParameter("status", str, enum=Akte.Status.values, description="Nur Akten mit diesem Status."),
        OpenApiParameter("sachgebiet", str, enum=Sachgebiet.values, description="Nur Akten dieses Sachgebiets."),
    ],
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


@api_doc(
    summary="Akte abrufen",
    description="Eine Akte mit ihren Beteiligten. Welche Felder du erhältst, hängt von deiner Rolle ab "
    "(eine Mandantin erhält zum Beispiel keinen Sachstand und keine internen Notizen).",
    parameters=[path_id("der Akte", "id")],
)
class AkteDetailApi(generics.RetrieveAPIView):
    serializer_class = AkteDetailSerializer

    def get_object(self) -> Any:
        return selectors.akte_get(user=request_user(self.request), pk=self.kwargs["pk"])


@extend_schema_view(
    get=api_doc(
        summary="Dokumente auflisten",
        description="Die Dokumente der Akten, die du sehen darfst, mit dem Stand der Texterkennung; "
        "als Mandantin nur die für dich freigegebenen.",
        parameters=[AKTE_FILTER],
    )
)
class DokumentListApi(WriteRateLimitMixin, generics.ListAPIView):
    serializer_class = DokumentSerializer
    parser_classes = [parsers.MultiPartParser, parsers.FormParser]

    def get_queryset(self) -> Any:
        return selectors.dokument_list(user=request_user(self.request), akte_id=_akte_param(self.request))

    @api_doc(
        summary="Dokument hochladen",
        description="Lädt eine Datei zu einer Akte hoch: "
        + services.ERLAUBTE_DATEIARTEN
        + ". Andere Dateien und solche, deren Inhalt nicht zu Endung oder Dateityp passt, lehnt Helena mit 400 "
        "und einer Meldung ab. Für die Mandantschaft freigegeben (`mandant_sichtbar`) nur mit einem eigenen Titel "
        "(`name`), nicht dem Dateinamen (sonst 400). Der Text wird im Hintergrund erkannt, ein Fehler dabei steht am "
        "Dokument. Nur für "
        "Mitarbeitende der Kanzlei; die Akte muss für dich sichtbar sein (sonst 404).",
        request=DokumentUploadSerializer,
        responses={201: DokumentDetailSerializer},
    )
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
        except services.FreigabeTitelFehler as exc:  # released under the file's name (or without a title)
            raise ValidationError({"name": str(exc)}) from exc
        except ValueError as exc:
            raise ValidationError({"datei": str(exc)}) from exc
        return Response(DokumentDetailSerializer(dokument).data, status=status.HTTP_201_CREATED)


@api_doc(
    summary="Dokument abrufen",
    description="Ein Dokument mit seinen Angaben und dem erkannten Text.",
    parameters=[path_id("des Dokuments")],
)
class DokumentDetailApi(generics.RetrieveAPIView):
    serializer_class = DokumentDetailSerializer

    def get_queryset(self) -> Any:
        return selectors.dokument_list(user=request_user(self.request))


class DokumentDownloadApi(APIView):
    @api_doc(
        summary="Dokument herunterladen",
        description="Die gespeicherte Datei des Dokuments, so wie sie hochgeladen oder übernommen wurde; als "
        "Mandantin ohne Kommentare, Änderungsverfolgung und Angaben über ihre Entstehung.",
        parameters=[path_id("des Dokuments")],
        responses={(200, "application/octet-stream"): bytes},
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        user = request_user(request)
        dokument = selectors.dokument_list(user=user).filter(pk=pk).first()
        if dokument is None:
            raise Http404
        inhalt = selectors.dokument_inhalt(user=user, dokument=dokument)
        response = HttpResponse(inhalt, content_type=download_content_type(inhalt, dokument.mime_type))
        response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=dokument.download_name)
        return response


@api_doc(
    summary="Fristen, Termine und Wiedervorlagen auflisten",
    description="Die Kalendereinträge der Akten, die du sehen darfst; als Mandantin nur die Termine.",
    parameters=[
        AKTE_FILTER,
        OpenApiParameter("typ", str, enum=["FRIST", "TERMIN", "WIEDERVORLAGE"], description="Nur Einträge dieser Art."),
        OpenApiParameter("offen", bool, description="true: nur offene Einträge, false: nur erledigte; ohne: alle."),
    ],
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


@api_doc(
    summary="Frist, Termin oder Wiedervorlage abrufen",
    description="Ein Kalendereintrag mit Datum, Art und Erledigung.",
    parameters=[path_id("des Kalendereintrags")],
)
class KalenderDetailApi(generics.RetrieveAPIView):
    serializer_class = KalenderEintragSerializer

    def get_queryset(self) -> Any:
        return selectors.kalender_list(user=request_user(self.request))


@api_doc(
    summary="Zeiterfassungen auflisten",
    description="Die erfassten Zeiten der Akten, die du sehen darfst (nicht für Mandanten).",
    parameters=[AKTE_FILTER],
)
class ZeiterfassungListApi(generics.ListAPIView):
    serializer_class = ZeiterfassungSerializer

    def get_queryset(self) -> Any:
        return selectors.zeiterfassung_list(user=request_user(self.request), akte_id=_akte_param(self.request))


@api_doc(
    summary="Zeiterfassung abrufen",
    description="Ein Eintrag der Zeiterfassung mit Dauer, Tätigkeit und Person.",
    parameters=[path_id("der Zeiterfassung")],
)
class ZeiterfassungDetailApi(generics.RetrieveAPIView):
    serializer_class = ZeiterfassungSerializer

    def get_queryset(self) -> Any:
        return selectors.zeiterfassung_list(user=request_user(self.request))


@api_doc(
    summary="Notizen auflisten",
    description="Die Notizen der Akten, die du sehen darfst, und deine eigenen allgemeinen Notizen (nicht für Mandanten).",
    parameters=[AKTE_FILTER],
)
class NotizListApi(generics.ListAPIView):
    serializer_class = NotizSerializer

    def get_queryset(self) -> Any:
        return selectors.notiz_list(user=request_user(self.request), akte_id=_akte_param(self.request))


@api_doc(
    summary="Notiz abrufen",
    description="Eine Notiz mit Text, Autorin oder Autor und Zeitpunkt.",
    parameters=[path_id("der Notiz")],
)
class NotizDetailApi(generics.RetrieveAPIView):
    serializer_class = NotizSerializer

    def get_queryset(self) -> Any:
        return selectors.notiz_list(user=request_user(self.request))
