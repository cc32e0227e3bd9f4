import pytest

from akten.models import Role
from recherche.models import Muster, Norm, Urteil
from tests.factories import AkteFactory, DokumentFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def user():
    return UserFactory(role=Role.ANWALT)


def test_search_page_finds_norm_and_links_reader(client, user, shipped_gesetze):
    client.force_login(user)
    html = client.get("/recherche/", {"q": "§ 573c BGB", "art": "normen"}).content.decode()
    norm = Norm.objects.get(gesetz__abkuerzung="BGB", nummer="573c")
    assert f"/recherche/normen/{norm.pk}/" in html
    assert "https://www.gesetze-im-internet.de/bgb/__573c.html" in html
    reader = client.get(f"/recherche/normen/{norm.pk}/").content.decode()
    assert "Fristen der ordentlichen Kündigung" in reader
    assert "spätestens am dritten Werktag" in reader
    assert "§ 573b BGB" in reader and "§ 573d BGB" in reader  # neighbours for paging


def test_urteil_and_muster_readers(client, user):
    from django.core.management import call_command

    from tests.recherche.conftest import DATA

    call_command("ingest_urteile", str(DATA / "urteile"), "--no-embed", verbosity=0)
    call_command("ingest_muster", str(DATA / "muster"), "--no-embed", verbosity=0)
    client.force_login(user)
    urteil = Urteil.objects.first()
    assert "fiktive Entscheidung" in client.get(f"/recherche/urteile/{urteil.pk}/").content.decode()
    muster = Muster.objects.get(slug="klageerwiderung")
    html = client.get(f"/recherche/muster/{muster.pk}/").content.decode()
    assert "Klageerwiderung" in html and "<code>gericht</code>" in html


def test_muster_markdown_is_sanitised(client, user):
    muster = Muster.objects.create(slug="boese", name="Böse", kategorie="Test", text="Hallo <script>alert(1)</script> **fett**")
    client.force_login(user)
    html = client.get(f"/recherche/muster/{muster.pk}/").content.decode()
    assert "<script>alert(1)</script>" not in html and "<strong>fett</strong>" in html


def test_search_api_and_document_search_respects_access(api_client, user, shipped_gesetze):
    api_client.force_login(user)
    body = api_client.get("/api/recherche/normen/", {"q": "§ 4 KSchG"}).json()
    assert body["results"][0]["zitat"] == "§ 4 KSchG" and body["fallback"] is False
    assert api_client.get("/api/recherche/normen/").status_code == 400

    own = DokumentFactory(akte=AkteFactory(anwalt=user), text="Zeugenaussage Nachbar Lärmbelästigung")
    foreign = DokumentFactory(akte=AkteFactory(), text="Zeugenaussage Nachbar Lärmbelästigung geheim")
    from recherche.services import dokument_index

    dokument_index(own)
    dokument_index(foreign)
    ids = [r["id"] for r in api_client.get("/api/recherche/dokumente/", {"q": "Lärmbelästigung Zeugenaussage"}).json()["results"]]
    assert ids == [own.pk]
    assert api_client.get("/api/recherche/dokumente/", {"q": "Lärm", "akte": foreign.akte_id}).json()["results"] == []


def test_search_requires_login(client, api_client):
    assert client.get("/recherche/").status_code == 302
    assert api_client.get("/api/recherche/normen/", {"q": "x"}).status_code == 403
