"""Every GET parameter of every URL, fuzzed with control characters, overlong and odd values, as a
logged-in staff user and as a MANDANT: never a server error.

URLs come from the URL conf (admin: the changelist of every registered model); parameters from
the OpenAPI schema, from the GET forms of the pages as the user sees them, and a few common ones."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from agent.models import AgentRun, Conversation
from akten.models import Role
from helena.request_input import api_parameters
from tests.factories import (
    AkteFactory,
    BeteiligterFactory,
    DokumentFactory,
    HelenaAlertFactory,
    HelenaDraftFactory,
    KalenderEintragFactory,
    NotizFactory,
    UserFactory,
    ZeiterfassungFactory,
)

pytestmark = pytest.mark.django_db

ODD_VALUES = [
    "\x00",
    "Mül\x00ler",
    "\x01\x1b[31m\x1f\x7f",
    "\u0085",
    "x" * 5000,
    "9" * 40,
    "-1",
    "abc",
    "",
    "' OR 1=1 --%_\\",
    "ÄÖÜß😀\u202e",
]
COMMON_PARAMS = {"q", "akte", "status", "page"}
SKIP_ROUTES = {"abmelden/", "admin/", "api/schema/", "api/docs/"}


class _GetFormFields(HTMLParser):
    """Names of the fields of every <form method="get"> on a page."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()
        self._in_get_form = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "form":
            self._in_get_form = (values.get("method") or "get").lower() == "get"
        elif self._in_get_form and tag in ("input", "select", "textarea") and values.get("name"):
            self.names.add(str(values["name"]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in_get_form = False


def _routes(resolver: URLResolver | None = None, prefix: str = "") -> list[str]:
    routes = []
    for entry in (resolver or get_resolver()).url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            if route != "admin/":
                routes.extend(_routes(entry, route))
        elif isinstance(entry, URLPattern) and route not in SKIP_ROUTES:
            routes.append(route)
    return routes


def _schema_params(path: str) -> set[str]:
    for pattern, by_method in api_parameters():
        if pattern.match(path):
            return {p["name"] for p in by_method.get("GET", [])}
    return set()


@pytest.fixture
def world() -> dict[str, Any]:
    anwalt = UserFactory(role=Role.ANWALT, is_staff=True, is_superuser=True)
    mandant = UserFactory(role=Role.MANDANT)
    akte = AkteFactory(anwalt=anwalt)
    BeteiligterFactory(akte=akte, kontakt=mandant.kontakt, rolle="MANDANT")
    ids = [
        akte.pk,
        DokumentFactory(akte=akte, mandant_sichtbar=True).pk,
        KalenderEintragFactory(akte=akte).pk,
        ZeiterfassungFactory(akte=akte).pk,
        NotizFactory(akte=akte).pk,
        HelenaDraftFactory(akte=akte).pk,
        HelenaAlertFactory(akte=akte).pk,
        Conversation.objects.create(user=anwalt, akte=akte).pk,
        AgentRun.objects.create(user=anwalt, akte=akte).pk,
    ]
    return {"anwalt": anwalt, "mandant": mandant, "ids": ids}


def _concrete_urls(client: Client, ids: list[int]) -> list[str]:
    """Every GET route with its int parameters filled by an id that answers 200 if one does."""
    urls = []
    for route in _routes():
        placeholders = re.findall(r"<int:\w+>", route)
        if not placeholders:
            urls.append("/" + route)
            continue
        candidates = ["/" + re.sub(r"<int:\w+>", str(pk), route) for pk in ids]
        urls.append(next((u for u in candidates if client.get(u).status_code == 200), candidates[0]))
    return [u for u in urls if "<" not in u]


def _fuzz(client: Client, urls: list[str]) -> tuple[int, list[str]]:
    failures, requests = [], 0
    for url in urls:
        page = client.get(url)
        assert page.status_code < 500, url
        parser = _GetFormFields()
        if page.get("Content-Type", "").startswith("text/html"):
            parser.feed(page.content.decode())
        for name in sorted(COMMON_PARAMS | _schema_params(url) | parser.names):
            for value in ODD_VALUES:
                response = client.get(url, {name: value})
                requests += 1
                if response.status_code >= 500:
                    failures.append(f"{url}?{name}={value[:20]!r}: {response.status_code}")
    return requests, failures


@pytest.mark.parametrize("role", ["anwalt", "mandant"])
def test_every_get_parameter_of_every_url_never_answers_5xx(world, role):
    client = Client(raise_request_exception=False)
    client.force_login(world[role])
    urls = _concrete_urls(client, world["ids"])
    if role == "anwalt":
        urls += [reverse(f"admin:{m._meta.app_label}_{m._meta.model_name}_changelist") for m in admin.site._registry]
    requests, failures = _fuzz(client, urls)
    assert requests > 500
    assert failures == []
