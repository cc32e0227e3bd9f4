"""Downloads as Word and PDF with letterhead, and document versions. Rendering is synchronous
CPU work; DRF views run in daphne's thread pool, never on the event loop of the websockets."""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

from django.http import Http404, HttpResponse
from django.utils.http import content_disposition_header
from drf_spectacular.utils import OpenApiParameter
from rest_framework import parsers, serializers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from akten import selectors as akten_selectors
from akten.extraction import DOCX_TYPE, MARKDOWN_TYPES, decode_text, download_content_type
from akten.models import STAFF_ROLES, Dokument, DokumentVersion, download_filename
from drafts.models import HelenaDraft
from drafts.schemas import validate_payload
from drafts.serializers import DraftSerializer
from drafts.services import DraftError
from helena.api import WriteRateLimitMixin, request_user
from helena.api_docs import AUSGABE_PARAM, api_doc, path_id

from . import antworten, selectors, services
from .vorlagen import VorlagenFehler

ERR_FORMAT = "Unbekanntes Format {format}; möglich sind docx und pdf."
ERR_PDF_ALS_WORD = "Ein hochgeladenes PDF lässt sich nicht als Word-Datei ausgeben; lade es als PDF herunter."
ERR_NICHT_DRUCKBAR = "Dieser Dateityp lässt sich nicht umwandeln; lade die Originaldatei herunter."
ERR_VERSION_VERBOTEN = "Du darfst keine Dokumente bearbeiten oder anlegen."
ENTWURF_NUMMER = "(wird bei der Übernahme vergeben)"


def _datei(inhalt: bytes, *, name: str, ausgabe: str) -> HttpResponse:
    mime = services.PDF_MIME if ausgabe == "pdf" else services.DOCX_MIME
    response = HttpResponse(inhalt, content_type=mime)
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=download_filename(name, f".{ausgabe}")
    )
    return response


# Python-Markdown's backslash escapes (and "|" of its tables extension).
_MARKDOWN_ZEICHEN = re.compile(r"([\\`*_{}\[\]()>#+\-.!|])")


def text_als_markdown(text: str) -> str:
    """Plain text as Markdown that shows it as written: every line its own line (an address block,
    a list with "*"), no character read as markup, "<…>" kept as text."""
    zeilen = [_MARKDOWN_ZEICHEN.sub(r"\\\1", zeile).replace("&", "&amp;").replace("<", "&lt;") for zeile in text.splitlines()]
    return "  \n".join(zeilen)


def _format(ausgabe: str) -> str:
    # The kwarg is not called "format": DRF reads that name as a renderer suffix.
    if ausgabe not in ("docx", "pdf"):
        raise ValidationError({"ausgabe": ERR_FORMAT.format(format=ausgabe)})
    return ausgabe


def entwurf_rendern(draft: HelenaDraft) -> services.Schriftstueck:
    """The draft as it would be stored on approval (a Kostennote without its number yet)."""
    if draft.akte is None:  # selectors.entwurf_get only returns Akte-bound drafts
        raise ValidationError({"detail": "Dieser Entwurf gehört zu keiner Akte."})
    model: Any = validate_payload(draft.typ, draft.payload)
    if draft.typ == HelenaDraft.Typ.KOSTENNOTE:
        nummer = (draft.undo_data or {}).get("rechnungsnummer") or ENTWURF_NUMMER
        return services.kostennote_rendern(akte=draft.akte, payload=model, nummer=nummer)
    return services.schriftstueck_rendern(
        akte=draft.akte,
        titel=model.titel,
        markdown=model.inhalt_markdown,
        vorlage=model.vorlage.model_dump() if model.vorlage else None,
    )


DATEI = {(200, "application/octet-stream"): bytes}


class EntwurfDateiApi(APIView):
    @api_doc(
        summary="Entwurf als Word oder PDF",
        description="Ein Dokument- oder Kostennoten-Entwurf, gesetzt wie bei der Übernahme: auf dem Briefkopf "
        "der Kanzlei, als Word-Datei oder PDF (eine Kostennote noch ohne Rechnungsnummer); der Dateiname beginnt "
        "mit „Entwurf – “, solange niemand ihn geprüft hat.",
        parameters=[path_id("des Entwurfs"), AUSGABE_PARAM],
        responses=DATEI,
    )
    def get(self, request: Request, pk: int, ausgabe: str) -> HttpResponse:
        _format(ausgabe)
        draft = selectors.entwurf_get(user=request.user, pk=pk)
        try:
            schriftstueck = entwurf_rendern(draft)
            inhalt = schriftstueck.pdf() if ausgabe == "pdf" else schriftstueck.docx
        except VorlagenFehler as fehler:
            raise ValidationError({"detail": fehler.message}) from fehler
        # the file says what it is: not yet through the Endkontrolle
        return _datei(inhalt, name=f"Entwurf – {draft.titel}", ausgabe=ausgabe)


class DokumentDateiApi(APIView):
    @api_doc(
        summary="Dokument als Word oder PDF",
        description="Ein Dokument der Akte als Word-Datei oder PDF; Text und Markdown werden auf dem Briefkopf "
        "gesetzt. Ein hochgeladenes PDF gibt es nur als PDF.",
        parameters=[path_id("des Dokuments"), AUSGABE_PARAM],
        responses=DATEI,
    )
    def get(self, request: Request, pk: int, ausgabe: str) -> HttpResponse:
        _format(ausgabe)
        dokument = selectors.dokument_get(user=request.user, pk=pk)
        original = akten_selectors.dokument_inhalt(user=request_user(request), dokument=dokument)
        try:
            if dokument.mime_type == DOCX_TYPE:
                inhalt = services.docx_als_pdf(original, titel=dokument.name) if ausgabe == "pdf" else original
            elif dokument.mime_type == services.PDF_MIME:
                if ausgabe == "docx":
                    raise ValidationError({"detail": ERR_PDF_ALS_WORD})
                inhalt = original
            elif dokument.mime_type in MARKDOWN_TYPES or dokument.mime_type == "text/plain":
                text = decode_text(original)
                if text is None:  # stored before the upload check read texts as it does now
                    raise ValidationError({"detail": ERR_NICHT_DRUCKBAR})
                if dokument.mime_type == "text/plain":
                    text = text_als_markdown(text)
                schriftstueck = services.schriftstueck_rendern(akte=dokument.akte, titel=dokument.name, markdown=text)
                inhalt = schriftstueck.pdf() if ausgabe == "pdf" else schriftstueck.docx
            else:
                raise ValidationError({"detail": ERR_NICHT_DRUCKBAR})
        except VorlagenFehler as fehler:
            raise ValidationError({"detail": fehler.message}) from fehler
        return _datei(inhalt, name=dokument.name, ausgabe=ausgabe)


class VersionSerializer(serializers.Serializer):
    nummer = serializers.IntegerField()
    mime_type = serializers.CharField()
    erstellt_von = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    hat_quelle = serializers.BooleanField()
    download = serializers.CharField()


class NeueVersionSerializer(serializers.Serializer):
    inhalt_markdown = serializers.CharField(required=False, allow_blank=True, max_length=200_000, default="")
    datei = serializers.FileField(required=False)


def _versionen(dokument: Dokument, *, user: Any) -> list[dict[str, Any]]:
    """The versions `user` may see (through the chokepoint: a MANDANT none, see akten/policy.py)."""
    return [
        {
            "nummer": v.nummer,
            "mime_type": v.mime_type,
            "erstellt_von": str(v.erstellt_von) if v.erstellt_von else None,
            "created_at": v.created_at,
            "hat_quelle": bool(v.quelle_markdown),
            "download": f"/api/dokumente/{dokument.pk}/versionen/{v.nummer}/download/",
        }
        for v in DokumentVersion.objects.visible_to(user)
        .filter(dokument=dokument)
        .select_related("erstellt_von")
        .order_by("-nummer")
    ]


class VersionenApi(WriteRateLimitMixin, APIView):
    parser_classes = [parsers.JSONParser, parsers.MultiPartParser, parsers.FormParser]

    @api_doc(
        summary="Versionen eines Dokuments auflisten",
        description="Alle Fassungen eines Dokuments, neueste zuerst, mit Person, Zeitpunkt und Download-Adresse. "
        "Eine Mandantin erhält keine früheren Versionen.",
        parameters=[path_id("des Dokuments")],
        responses=VersionSerializer(many=True),
    )
    def get(self, request: Request, pk: int) -> Response:
        dokument = selectors.dokument_get(user=request.user, pk=pk)
        return Response(VersionSerializer(_versionen(dokument, user=request.user), many=True).data)

    @api_doc(
        summary="Neue Version eines Dokuments anlegen",
        description="Legt eine neue Fassung an, aus Markdown (inhalt_markdown) oder einer Datei (datei). "
        "Nur für Mitarbeitende der Kanzlei. Antwortet mit allen Versionen.",
        parameters=[path_id("des Dokuments")],
        request=NeueVersionSerializer,
        responses={201: VersionSerializer(many=True)},
    )
    def post(self, request: Request, pk: int) -> Response:
        serializer = NeueVersionSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = request_user(request)
        dokument = selectors.dokument_get(user=user, pk=pk)
        if not (user.is_admin_role or user.role in STAFF_ROLES):
            raise PermissionDenied(ERR_VERSION_VERBOTEN)
        upload = serializer.validated_data.get("datei")
        try:
            services.dokument_version_anlegen(
                dokument=dokument,
                by=user,
                markdown=serializer.validated_data["inhalt_markdown"],
                datei=upload.read() if upload else None,
                dateiname=upload.name if upload else "",
                mime_type=upload.content_type if upload else None,
            )
        except ValueError as fehler:
            raise ValidationError({"detail": str(fehler)}) from fehler
        return Response(VersionSerializer(_versionen(dokument, user=user), many=True).data, status=status.HTTP_201_CREATED)


class VersionDownloadApi(APIView):
    @api_doc(
        summary="Version eines Dokuments herunterladen",
        description="Die Datei einer bestimmten Fassung des Dokuments.",
        parameters=[
            path_id("des Dokuments"),
            OpenApiParameter(
                "nummer",
                int,
                OpenApiParameter.PATH,
                description="Die Nummer der Version (1 ist die erste Fassung). Unbekannt oder nicht sichtbar: 404.",
            ),
        ],
        responses=DATEI,
    )
    def get(self, request: Request, pk: int, nummer: int) -> HttpResponse:
        version = selectors.version_get(user=request.user, dokument_pk=pk, nummer=nummer)
        with version.datei.open("rb") as handle:
            inhalt = handle.read()
        response = HttpResponse(inhalt, content_type=download_content_type(inhalt, version.mime_type))
        # the document's title with the version, as the main download names it (not the stored or
        # uploaded file's name: "kundigung-muller-gro.docx", "Entwurf_intern_v3.docx")
        endung = PurePath(version.datei.name or "").suffix.lower()
        name = download_filename(f"{version.dokument.name} (Version {version.nummer})", endung)
        response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=name)
        return response


class AntwortAlsDokumentSerializer(serializers.Serializer):
    titel = serializers.CharField(required=False, allow_blank=True, max_length=200, default="")


class AntwortAlsDokumentApi(WriteRateLimitMixin, APIView):
    """„Als Word speichern“ under a chat answer: a document draft of the run's Akte."""

    @api_doc(
        summary="Antwort von Helena als Dokument-Entwurf",
        description="„Als Word speichern“ unter einer Antwort im Chat: legt aus der Antwort eines Laufs einen "
        "Dokument-Entwurf in dessen Akte an (zur Prüfung, nichts wird endgültig gespeichert). "
        "Nur für Mitarbeitende der Kanzlei.",
        parameters=[path_id("des Helena-Laufs, dessen Antwort gespeichert wird", "run_id")],
        request=AntwortAlsDokumentSerializer,
        responses={201: DraftSerializer},
    )
    def post(self, request: Request, run_id: int) -> Response:
        serializer = AntwortAlsDokumentSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = request_user(request)
        if not (user.is_admin_role or user.role in STAFF_ROLES):
            raise PermissionDenied(ERR_VERSION_VERBOTEN)
        try:
            draft = antworten.antwort_als_entwurf(run_id=run_id, by=user, titel=serializer.validated_data["titel"])
        except LookupError as fehler:
            raise Http404(str(fehler)) from None
        except (ValueError, DraftError) as fehler:
            raise ValidationError({"detail": getattr(fehler, "message", str(fehler))}) from fehler
        return Response(DraftSerializer(draft).data, status=status.HTTP_201_CREATED)
