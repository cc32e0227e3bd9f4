import numpy as np
import pytest
from django.db import connection

from akten.models import Role
from recherche.models import Chunk
from recherche.search import (
    COMPOUND_PART_WEIGHT,
    _term_weights,
    embedding_query,
    expand_query,
    parse_citations,
    query_words,
    search_dokumente,
    search_muster,
    search_normen,
    search_urteile,
)
from tests.factories import AkteFactory, BeteiligterFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def ollama_down(settings):
    """The configured embedding backend is an Ollama that does not answer."""
    settings.HELENA_EMBEDDINGS = {
        **settings.HELENA_EMBEDDINGS,
        "BACKEND": "ollama",
        "MODEL": "m",
        "DIM": 384,
        "BASE_URL": "http://127.0.0.1:9",
        "TIMEOUT": 2,
    }


def test_citation_parser_variants(shipped_gesetze):
    assert parse_citations("§ 573c BGB") == [("§", "573c", "BGB")]
    assert parse_citations("§§ 187, 188 BGB") == [("§", "187", "BGB"), ("§", "188", "BGB")]
    assert parse_citations("Art. 1 GG und Art 20 GG") == [("Art.", "1", "GG"), ("Art.", "20", "GG")]
    assert parse_citations("573c BGB") == [("§", "573c", "BGB")]
    assert parse_citations("§ 573 Abs. 2 Nr. 2 BGB") == [("§", "573", "BGB")]
    assert parse_citations("§§ 4 bis 6 KSchG") == [("§", "4", "KSchG"), ("§", "5", "KSchG"), ("§", "6", "KSchG")]
    assert parse_citations("§ 12 XYZ") == []  # unknown statute
    assert parse_citations("Kündigung wegen Eigenbedarf") == []


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("§ 573c BGB", ["§ 573c BGB"]),
        ("§§ 187, 188 BGB", ["§ 187 BGB", "§ 188 BGB"]),
        ("Art. 1 GG", ["Art. 1 GG"]),
        ("573c BGB", ["§ 573c BGB"]),
    ],
)
def test_citations_come_first_and_exact(shipped_gesetze, query, expected):
    result = search_normen(query=query, limit=5)
    assert [r["zitat"] for r in result.results[: len(expected)]] == expected
    first = result.results[0]
    assert first["exakt"] and first["url"].startswith("https://www.gesetze-im-internet.de/")
    assert set(first) >= {"gesetz", "nummer", "ueberschrift", "snippet", "score", "url", "reader_url"}


def test_official_urls():
    from recherche.models import Gesetz, Norm

    bgb = Gesetz(abkuerzung="BGB", slug="bgb", titel="BGB")
    gg = Gesetz(abkuerzung="GG", slug="gg", titel="GG")
    assert Norm(gesetz=bgb, art="§", nummer="573c").official_url == "https://www.gesetze-im-internet.de/bgb/__573c.html"
    assert Norm(gesetz=gg, art="Art.", nummer="1").official_url == "https://www.gesetze-im-internet.de/gg/art_1.html"


def test_eigenbedarf_question_and_citation_both_find_573(shipped_gesetze):
    natural = search_normen(query="Kündigung Eigenbedarf", limit=5)
    assert not natural.fallback
    assert "§ 573 BGB" in [r["zitat"] for r in natural.results]
    assert search_normen(query="§ 573 BGB", limit=1).results[0]["zitat"] == "§ 573 BGB"


def test_thesaurus_maps_practitioners_terms_to_statute_wording():
    assert "Familienangehörige" in expand_query("Kündigung Eigenbedarf")
    assert "Familienangehörige" in expand_query("Ist die Eigenbedarfskündigung wirksam?")
    assert "Mietsicherheit" in expand_query("Wie hoch darf die Kaution sein?")
    assert "Mangel" in expand_query("Die Heizung ist kaputt")
    assert "Wiedereinsetzung" in expand_query("Wir haben die Frist versäumt")
    # the longest of overlapping terms counts: a "Scheidungsverfahren" is no question of the grounds
    assert "Ehesache" in expand_query("Braucht man im Scheidungsverfahren einen Anwalt?")
    assert "Trennungsjahr" not in expand_query("Braucht man im Scheidungsverfahren einen Anwalt?")
    assert "Trennungsjahr" in expand_query("Wann ist eine Scheidung möglich?")
    # a term matches at the start of a word only: "bewerben" is no "Erbe"
    assert expand_query("Sie will sich bewerben") == ""


def test_question_framing_words_are_not_searched():
    assert query_words("Wie lange darf der Vermieter warten, bis er kündigt?") == ["der", "Vermieter", "warten", "er", "kündigt"]


def test_rare_compounds_are_searched_by_their_parts(shipped_gesetze, monkeypatch):
    import recherche.search as search_module

    def searched(query):
        """The lexemes the full text searches for `query` (its own words, the parts of its rare
        compounds and its thesaurus expansion), with their weights."""
        with connection.cursor() as cursor:
            return {lex: weight for lex, (weight, _ndoc) in _term_weights(cursor, Chunk.Kind.NORM, query)[0].items()}

    # "Wohnungsmieter" is not in the statutes, "Wohnung" and "Mieter" are: searched as its parts too.
    weights = searched("Wohnungsmieter")
    assert set(weights) == {"wohnungsmiet", "wohnung", "miet"}
    assert weights["wohnung"] == pytest.approx(COMPOUND_PART_WEIGHT * searched("Wohnung")["wohnung"])
    # a compound the statutes use is searched as it is; derived words are no compounds: splitting
    # adds nothing to what the words and their thesaurus expansion search
    query = "Kündigungsfrist automatisch restlichen"
    with_splitting = searched(query)
    monkeypatch.setattr(search_module, "COMPOUND_MIN_CHARS", 99)
    assert searched(query) == with_splitting
    assert set(searched("Wohnungsmieter")) == {"wohnungsmiet"}, "the switch does turn splitting off"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Die Mieterin will die Miete kürzen, weil die Dusche defekt ist", "§ 536 BGB"),
        ("Die Frist ist durch ein Büroversehen versäumt worden", "§ 233 ZPO"),
        ("Ist die Kündigung zugegangen, wenn sie am Sonntag im Briefkasten lag?", "§ 130 BGB"),
        ("Welche Kosten trägt der Kläger, wenn er den Prozess verloren hat?", "§ 91 ZPO"),
    ],
)
def test_fulltext_finds_the_statute_for_colloquial_questions(shipped_gesetze, query, expected):
    # the statutes say "Minderung", "Wiedereinsetzung", "zugeht", "unterliegende Partei"
    assert expected in [r["zitat"] for r in search_normen(query=query, limit=5, mode="fulltext").results]


def test_fulltext_finds_the_norm_whose_wording_differs_from_the_question(shipped_gesetze):
    # § 573 BGB never says "Eigenbedarf"; the thesaurus and IDF weighting bring it to the top.
    result = search_normen(query="Kündigung Eigenbedarf", limit=3, mode="fulltext")
    assert result.results[0]["zitat"] == "§ 573 BGB"


def test_repealed_norms_are_never_returned(shipped_gesetze):
    result = search_normen(query="weggefallen", limit=20, mode="fulltext")
    assert all("weggefallen" not in r["ueberschrift"] for r in result.results)
    repealed = search_normen(query="§ 10 BGB", limit=3)  # § 10 BGB is repealed: said so, nothing else offered
    assert repealed.results == [] and repealed.nicht_im_bestand[0]["grund"] == "§ 10 BGB ist weggefallen (aufgehoben)."
    assert "weggefallen" in repealed.hinweis


def test_filter_by_law(shipped_gesetze):
    result = search_normen(query="Frist Kündigung", gesetz="KSchG", limit=5)
    assert result.results and all(r["gesetz"] == "KSchG" for r in result.results)


def test_backend_down_falls_back_to_full_text_and_says_so(shipped_gesetze, ollama_down):
    result = search_normen(query="Kündigungsfrist Wohnraum", limit=5)
    assert result.fallback
    assert "nur aus der Volltextsuche" in result.hinweis
    assert result.results


def test_urteile_and_muster_search(db):
    from django.core.management import call_command

    from tests.recherche.conftest import DATA

    call_command("ingest_urteile", str(DATA / "urteile"), verbosity=0)
    call_command("ingest_muster", str(DATA / "muster"), verbosity=0)
    urteile = search_urteile(query="Eigenbedarf Kündigung Vermieter", limit=3)
    assert urteile.results and "DEMO" in urteile.results[0]["zitat"]
    assert search_urteile(query="Kündigung", rechtsgebiet="Arbeitsrecht", limit=10).results
    assert all(
        r["rechtsgebiet"] == "Arbeitsrecht" for r in search_urteile(query="Kündigung", rechtsgebiet="Arbeitsrecht").results
    )
    muster = search_muster(query="Mahnung offene Rechnung Zahlungserinnerung", limit=3)
    assert any("Mahn" in r["name"] for r in muster.results)
    assert muster.results[0]["platzhalter"]


def _upload(api_client, akte, text, filename="brief.txt", **extra):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return api_client.post(
        "/api/dokumente/",
        {"akte": akte.pk, "datei": SimpleUploadedFile(filename, text.encode(), content_type="text/plain"), **extra},
        format="multipart",
    )


def test_uploaded_document_is_searchable_for_those_who_see_its_akte_and_nobody_else(
    api_client, django_capture_on_commit_callbacks
):
    owner = UserFactory(role=Role.ANWALT)
    akte = AkteFactory(anwalt=owner)
    api_client.force_login(owner)
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(api_client, akte, "Der Gegner beruft sich auf eine Schimmelbildung im Badezimmer seit März.")
    assert response.status_code == 201
    chunk = Chunk.objects.get(dokument_id=response.json()["id"])
    assert chunk.akte_id == akte.pk and chunk.embedding_model  # indexed and embedded (task ran inline in tests)

    found = search_dokumente(user=owner, query="Schimmel im Bad")
    assert [r["id"] for r in found.results] == [response.json()["id"]]
    assert found.results[0]["aktenzeichen"] == akte.aktenzeichen

    stranger = UserFactory(role=Role.ANWALT)
    assert search_dokumente(user=stranger, query="Schimmel im Bad").results == []
    assert search_dokumente(user=stranger, query="Schimmelbildung Badezimmer", mode="fulltext").results == []
    assert Chunk.objects.visible_to(stranger).filter(kind="DOKUMENT").count() == 0
    admin = UserFactory(role=Role.ADMIN)
    assert search_dokumente(user=admin, query="Schimmel").results


def test_mandant_finds_only_released_documents(api_client, django_capture_on_commit_callbacks):
    owner = UserFactory(role=Role.ANWALT)
    mandant = UserFactory(role=Role.MANDANT)
    akte = AkteFactory(anwalt=owner)
    BeteiligterFactory(akte=akte, kontakt=mandant.kontakt, rolle="MANDANT")
    api_client.force_login(owner)
    with django_capture_on_commit_callbacks(execute=True):
        internal = _upload(api_client, akte, "Interner Vermerk zur Vergleichsbereitschaft", "vermerk.txt").json()["id"]
        released = _upload(
            api_client,
            akte,
            "Sachstandsbericht zur Vergleichsbereitschaft",
            "bericht.txt",
            mandant_sichtbar=True,
            name="Sachstandsbericht",  # a released document needs its own title (akten.api)
        ).json()["id"]
    found = {r["id"] for r in search_dokumente(user=mandant, query="Vergleichsbereitschaft").results}
    assert found == {released}
    assert internal not in found


def test_document_search_says_which_documents_are_not_embedded_yet_and_applies_the_floor():
    from recherche.services import dokument_index
    from tests.factories import DokumentFactory

    owner = UserFactory(role=Role.ANWALT)
    akte = AkteFactory(anwalt=owner)
    dokument = DokumentFactory(akte=akte, name="Mängelanzeige", text="Seit März Schimmelbildung im Badezimmer der Wohnung.")
    dokument_index(dokument)  # indexed, not embedded (the background task has not run)
    found = search_dokumente(user=owner, query="Schimmelbildung Badezimmer")
    assert [r["id"] for r in found.results] == [dokument.pk]
    assert "1 Dokument(e) noch nicht eingebettet" in found.hinweis
    nothing = search_dokumente(user=owner, query="Quantenchromodynamik")
    assert nothing.results == [] and "Kein passendes Dokument gefunden." in nothing.hinweis


def test_a_filtered_vector_search_finds_the_users_documents_behind_closer_foreign_ones():
    """The HNSW index hands over its nearest candidates before the visibility filter: with 300
    chunks of another Akte closer to the question than anything of the user's, the vector search
    found nothing for the user; it now scans on until it has rows the user may see."""
    from recherche.embeddings import get_backend
    from recherche.services import dokument_index_and_embed
    from tests.factories import DokumentFactory

    backend = get_backend()

    noise = np.random.default_rng(7)

    def chunks(dokument, vector, count):
        """`count` chunks around `vector`, each its own (the index keeps equal vectors as one node)."""
        vectors = np.asarray(vector) + noise.normal(scale=0.002, size=(count, len(vector)))
        Chunk.objects.bulk_create(
            Chunk(
                kind=Chunk.Kind.DOKUMENT,
                dokument=dokument,
                akte=dokument.akte,
                position=i,
                text=f"Anlage {i}",
                content_hash=f"{dokument.pk}-{i}",
                embedding=(v / np.linalg.norm(v)).tolist(),
                embedding_model=backend.name,
                embedding_dim=backend.dim,
            )
            for i, v in enumerate(vectors)
        )

    owner = UserFactory(role=Role.ANWALT)
    akte = AkteFactory(anwalt=owner)
    own = DokumentFactory(akte=akte, name="Mängelanzeige", text="Seit März Schimmel im Badezimmer.")
    dokument_index_and_embed(own, backend=backend)
    # fewer of the user's own rows than the pool (VECTOR_POOL) holds: the scan must go on to the
    # end of what she may see. With 300 here the pool could fill from them before the one nearest
    # row was reached, as the HNSW graph is built at random (a fresh-clone CI run, 2026-12-04).
    chunks(DokumentFactory(akte=akte, name="Kaufvertrag"), backend.embed_query("Kaufpreis für das Fahrzeug"), 50)
    # the 300 nearest to the question are another Akte's
    chunks(DokumentFactory(akte=AkteFactory(), name="Fremd"), backend.embed_query(embedding_query("Schimmel im Bad")), 300)
    with connection.cursor() as cursor:
        # the plan of a firm's table: an ordered HNSW scan (on a test's few rows the planner would
        # rather sort them all, which is exact)
        cursor.execute("ANALYZE recherche_chunk")
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_sort = off")
    found = search_dokumente(user=owner, query="Schimmel im Bad", mode="vector")
    assert [r["id"] for r in found.results][:1] == [own.pk]
    admin = search_dokumente(user=UserFactory(role=Role.ADMIN), query="Schimmel im Bad", mode="vector")
    assert admin.results[0]["titel"] == "Fremd", "control: the foreign chunks are the nearest"
