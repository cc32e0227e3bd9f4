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


def test_norm_reader_and_side_panel_show_stand_and_absatz_anchors(client, user, mini_gesetze):
    norm = Norm.objects.get(gesetz__abkuerzung="TestG", art="§", nummer="1")
    client.force_login(user)
    for url in (f"/recherche/normen/{norm.pk}/", f"/recherche/normen/{norm.pk}/panel/"):
        html = client.get(url).content.decode()
        assert "zuletzt geändert durch Art. 1 G v. 1.2.2021 I 99" in html
        assert '<p id="abs-1">(1) Die Kündigungsfrist beginnt' in html and '<p id="abs-2">' in html
    assert "<html" not in client.get(f"/recherche/normen/{norm.pk}/panel/").content.decode()  # a fragment
    client.logout()
    assert client.get(f"/recherche/normen/{norm.pk}/panel/").status_code == 302


def test_fee_table_entries_get_their_own_anchor():
    from recherche.citations import text_blocks

    blocks = text_blocks(
        "(1) Vorbemerkung.\n\n[Nr. | Gebührentatbestand | Satz; 3100 | Verfahrensgebühr | 1,3; 3104 | Terminsgebühr | 1,2]"
    )
    assert blocks == [
        ("abs-1", "(1) Vorbemerkung."),
        ("", "[Nr. | Gebührentatbestand | Satz"),
        ("nr-3100", "3100 | Verfahrensgebühr | 1,3"),
        ("nr-3104", "3104 | Terminsgebühr | 1,2]"),
    ]


def test_search_page_shows_stand_and_citations_not_in_the_corpus(client, user, mini_gesetze):
    client.force_login(user)
    html = client.get("/recherche/", {"q": "§ 1 TestG", "art": "normen"}).content.decode()
    assert "Stand: Zuletzt geändert durch Art. 1 G v. 1.2.2021 I 99" in html
    html = client.get("/recherche/", {"q": "§ 99 TestG", "art": "normen"}).content.decode()
    assert "nicht im Bestand" in html and "§ 99 TestG gibt es im Bestand nicht." in html


def test_a_mandant_gets_404_for_the_firms_research_and_calculators_but_reads_the_norms_her_answers_cite(
    client, api_client, mini_gesetze
):
    """The Recherche (page, API, the firm's Muster) and the Rechner are the firm's tools: for a
    MANDANT they do not exist (404, as her navigation does not offer them); a norm and a court
    decision, public texts her answers link to, stay readable. Staff reach all of them."""
    from tests.factories import KontaktFactory

    muster = Muster.objects.create(
        slug="intern", name="Internes Muster", kategorie="Miete", kanzlei_eigen=True, text="Hausvorlage"
    )
    urteil = Urteil.objects.create(
        external_id="u-1", gericht="BGH", datum="2024-01-10", aktenzeichen="VIII ZR 1/23", text="Entscheidungstext"
    )
    norm = Norm.objects.filter(aufgehoben=False).first()
    firm_tools = [
        "/recherche/?q=Miete&art=muster",
        f"/recherche/muster/{muster.pk}/",
        "/api/recherche/normen/?q=Miete",
        "/api/recherche/urteile/?q=Miete",
        "/api/recherche/muster/?q=Hausvorlage",
        "/api/recherche/dokumente/?q=Miete",
        "/rechner/",
        "/rechner/rvg/",
        "/rechner/gkg/",
        "/rechner/famgkg/",
        "/rechner/rahmengebuehren/",
        "/rechner/fristen/",
        "/rechner/zinsen/",
        "/rechner/prozesskostenrisiko/",
    ]
    public_texts = [f"/recherche/normen/{norm.pk}/", f"/recherche/normen/{norm.pk}/panel/", f"/recherche/urteile/{urteil.pk}/"]

    mandant = UserFactory(role=Role.MANDANT, kontakt=KontaktFactory())
    client.force_login(mandant)
    api_client.force_login(mandant)
    for url in firm_tools:
        response = (api_client if url.startswith("/api/") else client).get(url)
        assert response.status_code == 404, url
    assert "Hausvorlage" not in client.get(f"/recherche/muster/{muster.pk}/").content.decode()
    for url in public_texts:
        assert client.get(url).status_code == 200, url

    staff = UserFactory(role=Role.SEKRETARIAT)
    client.force_login(staff)
    api_client.force_login(staff)
    for url in firm_tools + public_texts:
        response = (api_client if url.startswith("/api/") else client).get(url)
        assert response.status_code == 200, url


def test_the_reader_shows_the_sources_satz_numbers_as_superscripts_and_escapes_everything_else(client, user):
    """EStG marks its Sätze "<sup>2</sup>"; the reader showed that markup as text."""
    from recherche.models import Gesetz

    gesetz = Gesetz.objects.create(abkuerzung="EStG", titel="Einkommensteuergesetz", slug="estg", stand="Stand X")
    norm = Norm.objects.create(
        gesetz=gesetz, art="§", nummer="2", titel="Umfang", position=1,
        text="(1) <sup>1</sup>Der Einkommensteuer unterliegen Einkünfte. <sup>2</sup>Zu welcher <b>Einkunftsart</b> …",
    )  # fmt: skip
    client.force_login(user)
    html = client.get(f"/recherche/normen/{norm.pk}/").content.decode()
    assert '<p id="abs-1">(1) <sup>1</sup>Der Einkommensteuer unterliegen Einkünfte. <sup>2</sup>Zu welcher' in html
    assert "&lt;b&gt;Einkunftsart&lt;/b&gt;" in html and "&lt;sup&gt;" not in html
