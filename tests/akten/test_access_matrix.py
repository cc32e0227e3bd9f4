"""Every role × own / foreign / Dezernat / deputy / expired deputy / Mandant Akte, for every list and
detail endpoint: visible data is listed and readable; everything else is absent and answers 404."""

import datetime
from dataclasses import dataclass

import pytest
from django.utils import timezone

from akten.models import Akte, Beteiligter, Role
from tests.factories import (
    AkteFactory,
    BeteiligterFactory,
    DezernatFactory,
    DokumentFactory,
    HelenaDraftFactory,
    KalenderEintragFactory,
    NotizFactory,
    UserFactory,
    VertretungFactory,
    ZeiterfassungFactory,
)

pytestmark = pytest.mark.django_db

KINDS = ["own", "foreign", "dezernat", "deputy", "expired_deputy", "mandant"]
STAFF = {"own", "dezernat", "deputy"}


@dataclass
class World:
    user: object
    akten: dict[str, Akte]


def build_world(role: str) -> World:
    user = UserFactory(role=role)
    colleague = UserFactory(role=Role.ANWALT)
    away = UserFactory(role=Role.ANWALT)
    dezernat = DezernatFactory()
    dezernat.members.add(user)
    akten = {
        "own": AkteFactory(sachbearbeiter=user),
        "foreign": AkteFactory(),
        "dezernat": AkteFactory(),
        "deputy": AkteFactory(anwalt=colleague),
        "expired_deputy": AkteFactory(anwalt=away),
        "mandant": AkteFactory(),
    }
    akten["dezernat"].dezernate.add(dezernat)
    VertretungFactory(vertreter=user, vertretener=colleague)
    today = timezone.localdate()
    VertretungFactory(
        vertreter=user, vertretener=away, beginn=today - datetime.timedelta(days=30), ende=today - datetime.timedelta(days=1)
    )
    mandant_kontakt = user.kontakt if role == Role.MANDANT else BeteiligterFactory().kontakt
    BeteiligterFactory(akte=akten["mandant"], kontakt=mandant_kontakt, rolle=Beteiligter.Rolle.MANDANT)
    for akte in akten.values():
        DokumentFactory(akte=akte, name=f"Freigabe {akte.aktenzeichen}", mandant_sichtbar=True)
        KalenderEintragFactory(akte=akte)
        ZeiterfassungFactory(akte=akte)
        NotizFactory(akte=akte)
        HelenaDraftFactory(akte=akte)
    return World(user=user, akten=akten)


def expected_kinds(role: str, endpoint: str) -> set[str]:
    if role == Role.ADMIN:
        return set(KINDS)
    if role == Role.MANDANT:
        return {"mandant"} if endpoint in ("akten", "dokumente") else set()
    return STAFF


ENDPOINTS = {
    # name: (list url, detail url pattern, how to find the object of an Akte)
    "akten": ("/api/akten/", "/api/akten/{}/", lambda akte: akte),
    "dokumente": ("/api/dokumente/", "/api/dokumente/{}/", lambda akte: akte.dokumente.get()),
    "dokument_download": (None, "/api/dokumente/{}/download/", lambda akte: akte.dokumente.get()),
    "fristen": ("/api/fristen/", "/api/fristen/{}/", lambda akte: akte.kalender.get()),
    "zeiterfassung": ("/api/zeiterfassung/", "/api/zeiterfassung/{}/", lambda akte: akte.zeiterfassungen.get()),
    "notizen": ("/api/notizen/", "/api/notizen/{}/", lambda akte: akte.notiz_set.get()),
    "drafts": ("/api/drafts/", "/api/drafts/{}/", lambda akte: akte.drafts.get()),
}


@pytest.mark.parametrize("role", Role.values)
@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_access_matrix(api_client, role, endpoint):
    world = build_world(role)
    api_client.force_login(world.user)
    list_url, detail_url, obj_of = ENDPOINTS[endpoint]
    expected = expected_kinds(role, "dokumente" if endpoint == "dokument_download" else endpoint)

    if list_url:
        response = api_client.get(list_url, {"limit": 500})
        assert response.status_code == 200
        listed = {row["id"] for row in response.json()["results"]}
        for kind, akte in world.akten.items():
            assert (obj_of(akte).pk in listed) == (kind in expected), f"{role} {endpoint} list {kind}"

    for kind, akte in world.akten.items():
        response = api_client.get(detail_url.format(obj_of(akte).pk))
        wanted = 200 if kind in expected else 404
        assert response.status_code == wanted, f"{role} {endpoint} detail {kind}: {response.status_code}"


@pytest.mark.parametrize("role", Role.values)
def test_akte_page_matrix(client, role):
    world = build_world(role)
    client.force_login(world.user)
    expected = expected_kinds(role, "akten")
    for kind, akte in world.akten.items():
        response = client.get(f"/akten/{akte.pk}/")
        assert response.status_code == (200 if kind in expected else 404), f"{role} page {kind}"
    start = client.get("/").content.decode()
    for kind, akte in world.akten.items():
        assert (f"/akten/{akte.pk}/" in start) == (kind in expected), f"{role} start page {kind}"


def test_mandant_sees_only_documents_released_to_them(api_client):
    world = build_world(Role.MANDANT)
    hidden = DokumentFactory(akte=world.akten["mandant"], name="Interner Vermerk", mandant_sichtbar=False)
    api_client.force_login(world.user)
    listed = {row["id"] for row in api_client.get("/api/dokumente/").json()["results"]}
    assert hidden.pk not in listed
    assert api_client.get(f"/api/dokumente/{hidden.pk}/").status_code == 404
    assert api_client.get(f"/api/dokumente/{hidden.pk}/download/").status_code == 404


def test_anonymous_gets_nothing(api_client):
    AkteFactory()
    for list_url, _, _ in ENDPOINTS.values():
        if list_url:
            assert api_client.get(list_url).status_code == 403
    assert Akte.objects.visible_to(None).count() == 0


def test_inactive_user_sees_nothing():
    world = build_world(Role.ANWALT)
    world.user.is_active = False
    world.user.save()
    assert Akte.objects.visible_to(world.user).count() == 0


def test_missing_and_forbidden_look_the_same(api_client):
    world = build_world(Role.ANWALT)
    api_client.force_login(world.user)
    forbidden = api_client.get(f"/api/akten/{world.akten['foreign'].pk}/")
    missing = api_client.get("/api/akten/999999/")
    assert forbidden.status_code == missing.status_code == 404
    assert forbidden.json() == missing.json()


def test_list_endpoint_query_count_does_not_grow_with_rows(api_client, django_assert_max_num_queries):
    world = build_world(Role.ADMIN)
    for _ in range(10):
        AkteFactory()
    api_client.force_login(world.user)
    with django_assert_max_num_queries(8):
        assert api_client.get("/api/akten/").status_code == 200
    with django_assert_max_num_queries(8):
        assert api_client.get("/api/dokumente/").status_code == 200
