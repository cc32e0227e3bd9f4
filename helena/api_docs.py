"""The API documentation (/api/schema/, /api/docs/) in German, for the people who use the API.

Every operation states a German summary and description (`api_doc`); the developers' docstrings
never reach the schema (DISABLE_DOCSTRING_DESCRIPTIONS). `HelenaAutoSchema` adds to every operation
the error answers it can give, each with the one JSON shape of Helena's errors:

- 400 always: every request passes the input check (helena/request_input.py), and views validate;
- 403 always: not signed in, CSRF token missing on a write, or the role may not do it;
- 404 when the path names an object: missing and "you may not see it" are the same answer;
- 429 on writes of views with the write rate limit (helena.api.WriteRateLimitMixin).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema

from .api import NOT_FOUND_MESSAGE, RATE_LIMITED_MESSAGE, UNSAFE_METHODS, WriteRateLimitMixin
from .errors import CSRF_FAILED_MESSAGE

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Ein Fehler der API, immer als JSON.",
    "properties": {
        "detail": {"type": "string", "description": "Was nicht geklappt hat, auf Deutsch."},
        "field": {
            "type": "string",
            "nullable": True,
            "description": "Bei einer beanstandeten Eingabe: der Name des Parameters oder Feldes.",
        },
    },
}
VALIDATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": (
        "Entweder `detail` (und `field`) wie bei allen Fehlern oder, wenn Felder des Anfrage-Inhalts "
        "nicht passen, je Feld eine Liste deutscher Meldungen."
    ),
    "properties": ERROR_SCHEMA["properties"],
    "additionalProperties": {"type": "array", "items": {"type": "string"}},
}

ERROR_REF = {"$ref": "#/components/schemas/Fehler"}
ERROR_ANSWERS: dict[str, tuple[str, dict[str, Any], list[OpenApiExample]]] = {
    "400": (
        "Ungültige Eingabe: ein Parameter hat einen unerlaubten Wert (falscher Typ, unbekannter Wert, "
        "Steuerzeichen, zu lang) oder ein Feld des Inhalts fehlt oder passt nicht. Die Antwort nennt das Feld.",
        {"$ref": "#/components/schemas/Eingabefehler"},
        [
            OpenApiExample(
                "Parameter",
                value={"detail": "Der Parameter „akte“ muss eine ganze Zahl sein.", "field": "akte"},
                status_codes=["400"],
                response_only=True,
            ),
            OpenApiExample(
                "Feld des Inhalts",
                value={"datei": ["Es wurde keine Datei übermittelt."]},
                status_codes=["400"],
                response_only=True,
            ),
        ],
    ),
    "403": (
        "Nicht erlaubt: du bist nicht angemeldet, bei einer schreibenden Anfrage fehlt das CSRF-Token "
        "(Header `X-CSRFToken`), oder deine Rolle darf das nicht.",
        ERROR_REF,
        [
            OpenApiExample("CSRF", value={"detail": CSRF_FAILED_MESSAGE}, status_codes=["403"], response_only=True),
        ],
    ),
    "404": (
        "Nicht gefunden: Den Eintrag gibt es nicht, oder du darfst ihn nicht sehen – beides bekommt "
        "absichtlich dieselbe Antwort.",
        ERROR_REF,
        [OpenApiExample("Nicht gefunden", value={"detail": NOT_FOUND_MESSAGE}, status_codes=["404"], response_only=True)],
    ),
    "409": (
        "Konflikt: Der Entwurf ist nicht mehr in dem Zustand, den die Aktion verlangt (zum Beispiel "
        "schon übernommen oder abgelehnt, auch durch eine gleichzeitige Anfrage).",
        ERROR_REF,
        [],
    ),
    "429": (
        "Zu viele schreibende Anfragen in kurzer Zeit (Grenze je Benutzer: HELENA_RATELIMIT_WRITE). "
        "Warte einen Moment und versuch es dann erneut.",
        ERROR_REF,
        [OpenApiExample("Zu viele Anfragen", value={"detail": RATE_LIMITED_MESSAGE}, status_codes=["429"], response_only=True)],
    ),
}
SUCCESS_DESCRIPTIONS = {"200": "Erfolgreich.", "201": "Angelegt.", "204": "Erledigt, ohne Inhalt."}

# Operations are grouped by the first part of their path, shown under German names.
TAGS = {
    "akten": "Akten",
    "dokumente": "Dokumente",
    "fristen": "Fristen, Termine, Wiedervorlagen",
    "zeiterfassung": "Zeiterfassung",
    "notizen": "Notizen",
    "drafts": "Entwürfe",
    "antworten": "Entwürfe",
    "alerts": "Hinweise",
    "recherche": "Recherche",
    "auftraege": "Aufträge",
}
TAG_DESCRIPTIONS = [
    {"name": "Akten", "description": "Die Akten, die du sehen darfst, mit Suche und Filtern."},
    {"name": "Dokumente", "description": "Dokumente einer Akte: Liste, Upload mit Texterkennung, Download, Versionen."},
    {"name": "Fristen, Termine, Wiedervorlagen", "description": "Die Kalendereinträge der Akten."},
    {"name": "Zeiterfassung", "description": "Erfasste Zeiten der Akten."},
    {"name": "Notizen", "description": "Notizen der Akten und deine allgemeinen Notizen."},
    {
        "name": "Entwürfe",
        "description": "Was Helena vorschlägt: prüfen, bearbeiten, übernehmen, ablehnen, rückgängig machen (Endkontrolle).",
    },
    {"name": "Hinweise", "description": "Hinweise an dich, etwa auf nahe Fristen oder Nachrichten von Mandanten."},
    {"name": "Recherche", "description": "Suche in Gesetzen, Entscheidungen, Mustern und den Dokumenten deiner Akten."},
    {"name": "Aufträge", "description": "Deine Aufträge an Helena („Meine Aufträge“) mit Zustand und Warteschlange."},
]
API_DESCRIPTION = """Die Schnittstelle von Helena für Akten, Dokumente, Fristen, Zeiterfassung, Notizen, \
Entwürfe, Hinweise und Recherche.

**Anmeldung:** Die API nutzt die Sitzung der Weboberfläche. Melde dich unter `/anmelden/` an; \
schreibende Anfragen (POST, PATCH) brauchen zusätzlich das CSRF-Token aus dem Cookie `csrftoken` \
im Header `X-CSRFToken`.

**Zugriff:** Du erhältst nur, was du auch in der Oberfläche sehen darfst. Ein Eintrag, den es nicht \
gibt oder den du nicht sehen darfst, antwortet beide Male mit 404.

**Fehler:** Jeder Fehler kommt als JSON mit einer deutschen Meldung in `detail`; bei einer \
beanstandeten Eingabe nennt `field` den Parameter. Listen sind seitenweise (`limit`, `offset`)."""


def path_id(what: str, name: str = "id") -> OpenApiParameter:
    """The numeric id in the path, described for the object it names ("der Akte")."""
    return OpenApiParameter(
        name, OpenApiTypes.INT, OpenApiParameter.PATH, description=f"Die ID {what}. Unbekannt oder nicht sichtbar: 404."
    )


AUSGABE_PARAM = OpenApiParameter(
    "ausgabe", OpenApiTypes.STR, OpenApiParameter.PATH, enum=["docx", "pdf"], description="Das Dateiformat: docx (Word) oder pdf."
)
AKTE_FILTER = OpenApiParameter("akte", OpenApiTypes.INT, description="Nur Einträge dieser Akte (ID).")


def api_doc(*, summary: str, description: str, conflict: bool = False, **kwargs: Any) -> Any:
    """`extend_schema` with the German texts every operation must have; `conflict` documents the
    409 of the draft actions."""
    if conflict:
        responses = kwargs.pop("responses")
        kwargs["responses"] = {**(responses if isinstance(responses, dict) else {"200": responses}), "409": None}
    return extend_schema(summary=summary, description=description, **kwargs)


def schema_texts(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Postprocessing hook: the German introduction, the error shapes the operations refer to and
    the descriptions of the groups."""
    result["info"]["description"] = API_DESCRIPTION
    result.setdefault("components", {}).setdefault("schemas", {}).update(
        {"Fehler": ERROR_SCHEMA, "Eingabefehler": VALIDATION_SCHEMA}
    )
    used = {tag for item in result.get("paths", {}).values() for op in item.values() for tag in op.get("tags", [])}
    result["tags"] = [tag for tag in TAG_DESCRIPTIONS if tag["name"] in used]
    return result


class HelenaAutoSchema(AutoSchema):
    """drf-spectacular's schema with German tags, success descriptions and the documented errors."""

    def get_tags(self) -> list[str]:
        tags = super().get_tags()
        return [TAGS.get(tag, tag) for tag in tags]

    def _error_codes(self) -> list[str]:
        codes = ["400", "403"]
        if "{" in self.path:
            codes.append("404")
        if self.method in UNSAFE_METHODS and isinstance(self.view, WriteRateLimitMixin):
            codes.append("429")
        return codes

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        declared = [code for code in responses if code in ERROR_ANSWERS]
        for code in sorted({*self._error_codes(), *declared}):
            text, schema, examples = ERROR_ANSWERS[code]
            responses[code] = self._get_response_for_code(
                OpenApiResponse(response=schema, description=text, examples=examples), code, direction=direction
            )
        for code, response in responses.items():
            if not response.get("description") and code in SUCCESS_DESCRIPTIONS:
                response["description"] = SUCCESS_DESCRIPTIONS[code]
        return responses
