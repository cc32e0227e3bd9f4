"""German documentation of API views whose apps do not document them themselves, attached from
outside with drf-spectacular's view extensions: the search API (recherche/api.py; the schema shows
each search with the parameters it reads) and the runs API (agent/chat/api.py). Registered when the
project app is ready (helena/apps.py). A target that does not exist (yet) is skipped."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiViewExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from .api_docs import AKTE_FILTER, api_doc, path_id


class SuchergebnisSerializer(serializers.Serializer):
    results = serializers.ListField(
        child=serializers.DictField(),
        help_text="Die Treffer, bestplatzierte zuerst, je mit Quelle und Textausschnitt.",
    )
    fallback = serializers.BooleanField(help_text="true: Die Suche lief nur über den Volltext (ohne Bedeutungssuche).")
    hinweis = serializers.CharField(help_text="Ein Hinweis zur Suche, z. B. warum nur im Volltext gesucht wurde.")
    query = serializers.CharField(help_text="Die Suchanfrage, wie sie gesucht wurde.")
    nicht_im_bestand = serializers.ListField(
        child=serializers.DictField(),
        help_text="Zitierte Vorschriften, die es im Bestand nicht gibt (mit Grund); sie werden nicht durch andere ersetzt.",
    )


Q = OpenApiParameter(
    "q", str, required=True, description="Die Suchanfrage (höchstens 500 Zeichen); Zitate wie „§ 573 BGB“ werden erkannt."
)
LIMIT = OpenApiParameter("limit", OpenApiTypes.INT, description="Höchstzahl der Treffer, 1 bis 50 (ohne Angabe: 10).")
DOCUMENTED: dict[str, dict[str, Any]] = {
    "recherche.api.NormSearchApi": {
        "summary": "Gesetze durchsuchen",
        "description": "Vorschriften zur Anfrage: zitierte Paragrafen genau und zuerst, dann passende Normen. "
        "Aufgehobene Vorschriften erscheinen nie.",
        "parameters": [Q, OpenApiParameter("gesetz", str, description="Nur in diesem Gesetz (Abkürzung, z. B. BGB)."), LIMIT],
    },
    "recherche.api.UrteilSearchApi": {
        "summary": "Entscheidungen durchsuchen",
        "description": "Gerichtsentscheidungen zur Anfrage, auf Wunsch nach Gericht, Rechtsgebiet und Zeitraum gefiltert.",
        "parameters": [
            Q,
            OpenApiParameter("gericht", str, description="Nur Entscheidungen dieses Gerichts (Teil des Namens genügt)."),
            OpenApiParameter("rechtsgebiet", str, description="Nur Entscheidungen dieses Rechtsgebiets."),
            OpenApiParameter("von", OpenApiTypes.DATE, description="Nur Entscheidungen ab diesem Tag (JJJJ-MM-TT)."),
            OpenApiParameter("bis", OpenApiTypes.DATE, description="Nur Entscheidungen bis zu diesem Tag (JJJJ-MM-TT)."),
            LIMIT,
        ],
    },
    "recherche.api.MusterSearchApi": {
        "summary": "Muster durchsuchen",
        "description": "Vorlagen und Muster zur Anfrage; eigene Muster der Kanzlei zuerst, wenn sie gleich gut passen.",
        "parameters": [
            Q,
            OpenApiParameter("kategorie", str, description="Nur Muster dieser Kategorie (Teil des Namens genügt)."),
            LIMIT,
        ],
    },
    "recherche.api.DokumentSearchApi": {
        "summary": "Dokumente der Akten durchsuchen",
        "description": "Die Texte der Dokumente, die du sehen darfst (als Mandantin nur die für dich freigegebenen).",
        "parameters": [Q, AKTE_FILTER, LIMIT],
    },
    "agent.chat.api.RunListApi": {
        "summary": "Meine Aufträge auflisten",
        "description": "Deine eigenen Aufträge an Helena, neueste zuerst, mit Zustand und Schritten; ein "
        "Hintergrundauftrag, der auf einen Worker wartet, nennt seinen Platz in der Warteschlange (als "
        "Mandantin nicht: dort bleibt `queue_position` leer, der Zustand sagt „wartet“).",
    },
    "agent.chat.api.RunDetailApi": {
        "summary": "Auftrag abrufen",
        "description": "Einer deiner Aufträge an Helena mit Zustand, Schritten und Platz in der Warteschlange. "
        "Aufträge anderer Personen gibt es für dich nicht (404).",
        "parameters": [path_id("des Auftrags")],
    },
}
SEARCH_RESULT: dict[str, Any] = {"responses": SuchergebnisSerializer}


def _documented(view: Any, texts: dict[str, Any]) -> Any:
    extra = SEARCH_RESULT if view.__module__ == "recherche.api" else {}

    class Documented(view):  # type: ignore[misc,valid-type]
        @api_doc(**texts, **extra)
        def get(self, request: Any, *args: Any, **kwargs: Any) -> Any:
            return super().get(request, *args, **kwargs)

    return Documented


def _extension(target: str) -> type[OpenApiViewExtension]:
    def view_replacement(self: OpenApiViewExtension) -> Any:
        return _documented(self.target_class, DOCUMENTED[target])

    return type(
        f"Docs{target.rsplit('.', 1)[-1]}",
        (OpenApiViewExtension,),
        {"target_class": target, "view_replacement": view_replacement, "optional": True},
    )


EXTENSIONS = [_extension(target) for target in DOCUMENTED]
