"""The API documentation for the people who use it: every operation and every parameter has a
German summary or description, every operation documents its 4xx answers with Helena's JSON error
shape, no developer docstring leaks into the schema, and the documented shapes are what the API
really answers."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.generators import SchemaGenerator
from rest_framework import serializers
from rest_framework.views import APIView

from akten.models import Role
from drafts.models import HelenaDraft
from tests.factories import AkteFactory, HelenaDraftFactory, UserFactory

pytestmark = pytest.mark.django_db

UNSAFE = {"post", "put", "patch", "delete"}
# Words of English prose that German texts do not use; two of them in one text mean English.
ENGLISH = re.compile(
    r"\b(the|and|of|is|are|this|that|with|from|returns?|unique|value|identifying|which|when|should|"
    r"will|response|request|body|results?|page|number|user|not|only|for)\b",
    re.IGNORECASE,
)


def looks_english(text: str) -> bool:
    return len(ENGLISH.findall(text)) >= 2


@pytest.fixture(scope="module")
def schema(django_db_setup: Any, django_db_blocker: Any) -> dict[str, Any]:
    with django_db_blocker.unblock():
        return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            yield path, method, operation


def texts(node: Any) -> Iterator[str]:
    """Every summary and description anywhere in the schema."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("summary", "description") and isinstance(value, str):
                yield value
            else:
                yield from texts(value)
    elif isinstance(node, list):
        for value in node:
            yield from texts(value)


def api_views() -> Iterator[type]:
    def walk(patterns: list[Any]) -> Iterator[type]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns)
            elif isinstance(pattern, URLPattern) and isinstance(getattr(pattern.callback, "cls", None), type):
                if issubclass(pattern.callback.cls, APIView):
                    yield pattern.callback.cls

    yield from walk(get_resolver().url_patterns)


def developer_docstrings() -> set[str]:
    """The docstrings of the API views (their classes, bases and methods) and of all serializers."""
    docs: set[str] = set()
    classes = {cls for view in api_views() for cls in view.__mro__ if cls.__module__.split(".")[0] != "rest_framework"}
    classes |= {cls for cls in _subclasses(serializers.Serializer) if not cls.__module__.startswith("rest_framework")}
    for cls in classes:
        for member in (cls, *vars(cls).values()):
            doc = inspect.getdoc(member) if callable(member) or isinstance(member, type) else None
            if doc:
                docs.add(" ".join(doc.split()))
    return docs


def _subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    for sub in list(found):
        found |= _subclasses(sub)
    return found


def test_the_english_check_can_fail():
    assert looks_english("Limits unsafe requests per user (HELENA_RATELIMIT_WRITE, counted in the shared cache).")
    assert looks_english("A unique integer value identifying this Akte.")
    assert not looks_english("Nur Einträge dieser Akte (ID).")


def test_every_operation_has_a_german_summary_and_description(schema):
    missing = []
    for path, method, operation in operations(schema):
        for key in ("summary", "description"):
            text = operation.get(key, "").strip()
            if not text or looks_english(text):
                missing.append(f"{method.upper()} {path}: {key} {text!r}")
    assert missing == []
    assert len(list(operations(schema))) >= 25


def test_every_parameter_has_a_german_description(schema):
    missing = [
        f"{method.upper()} {path}: {parameter['in']} {parameter['name']}"
        for path, method, operation in operations(schema)
        for parameter in operation.get("parameters", [])
        if not parameter.get("description", "").strip() or looks_english(parameter["description"])
    ]
    assert missing == []


def test_every_operation_documents_its_4xx_answers_with_the_json_error_shape(schema):
    problems = []
    for path, method, operation in operations(schema):
        expected = {"400", "403"}
        if "{" in path:
            expected.add("404")
        if method in UNSAFE:  # every write of the API is rate-limited
            expected.add("429")
        responses = operation["responses"]
        problems += [f"{method.upper()} {path}: no {code}" for code in sorted(expected - set(responses))]
        for code, response in responses.items():
            if not code.startswith("4"):
                continue
            ref = response.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref", "")
            if ref not in ("#/components/schemas/Fehler", "#/components/schemas/Eingabefehler"):
                problems.append(f"{method.upper()} {path}: {code} without the error shape")
            if not response.get("description") or looks_english(response["description"]):
                problems.append(f"{method.upper()} {path}: {code} without a German description")
    assert problems == []


def test_no_developer_docstring_reaches_the_schema(schema):
    docs = developer_docstrings()
    assert any("Limits unsafe requests per user" in doc for doc in docs)  # the collection finds them
    leaked = [text for text in texts(schema) if " ".join(text.split()) in docs]
    english = [text for text in texts(schema) if looks_english(text)]
    assert leaked == [] and english == []


def test_the_groups_have_german_names_and_descriptions(schema):
    names = {tag for _path, _method, operation in operations(schema) for tag in operation["tags"]}
    assert names >= {"Akten", "Dokumente", "Entwürfe", "Hinweise", "Recherche"}
    assert {tag["name"] for tag in schema["tags"]} == names
    assert all(tag["description"] for tag in schema["tags"])


def test_the_documented_error_shapes_are_what_the_api_answers(client, schema, settings):
    """Real answers of each kind, validated against the schema the documentation shows."""
    components = schema["components"]["schemas"]

    def check(response: Any, code: int, shape: str) -> None:
        assert response.status_code == code, response.content
        jsonschema.validate(response.json(), components[shape])

    check(client.get("/api/akten/"), 403, "Fehler")  # not signed in
    lawyer = UserFactory(role=Role.ANWALT)
    client.force_login(lawyer)
    check(client.get("/api/fristen/?akte=x"), 400, "Eingabefehler")
    check(client.post("/api/dokumente/", {}), 400, "Eingabefehler")
    check(client.get("/api/akten/999999/"), 404, "Fehler")
    draft = HelenaDraftFactory(akte=AkteFactory(anwalt=lawyer), typ=HelenaDraft.Typ.NOTIZ)
    assert client.post(f"/api/drafts/{draft.pk}/accept/").status_code == 200
    check(client.post(f"/api/drafts/{draft.pk}/accept/"), 409, "Fehler")  # already accepted
    settings.HELENA_RATELIMIT_WRITE = "1/m"
    client.post(f"/api/drafts/{draft.pk}/accept/")
    check(client.post(f"/api/drafts/{draft.pk}/accept/"), 429, "Fehler")


def test_api_docs_page_names_the_operations_for_a_signed_in_user(client):
    client.force_login(UserFactory(role=Role.ANWALT))
    page = client.get("/api/docs/")
    assert page.status_code == 200
    assert client.options("/api/docs/").status_code == 405  # was a 500 (TemplateDoesNotExist)
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    assert schema["paths"]["/api/akten/"]["get"]["summary"] == "Akten auflisten"
