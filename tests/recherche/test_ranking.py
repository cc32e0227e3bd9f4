"""Ranking with the larger corpus: ties, annexes, preferences, the relevance floor, HNSW breadth."""

import random

import pytest
from django.db import connection

from recherche import search
from recherche.models import Chunk, Gesetz, LexemStatistik, Norm
from recherche.search import (
    CANDIDATES,
    _vector,
    expand_query,
    preferred_gesetze,
    search_normen,
    unknown_laws,
)
from recherche.services import lexem_statistik_refresh


def _norm(gesetz: Gesetz, nummer: str, text: str, art: str = "§") -> Norm:
    norm = Norm.objects.create(gesetz=gesetz, art=art, nummer=nummer, titel="", text=text, position=int(nummer))
    Chunk.objects.create(kind="NORM", norm=norm, titel=f"{art} {nummer} {gesetz.abkuerzung}", text=text, content_hash=nummer)
    return norm


@pytest.mark.django_db
def test_equal_scores_keep_one_order():
    gesetz = Gesetz.objects.create(abkuerzung="TieG", titel="Gleichstandsgesetz", slug="tieg")
    twins = [_norm(gesetz, str(i), "Die Zurückbehaltung der Mietsache ist unzulässig.") for i in range(1, 7)]
    for i in range(7, 120):
        _norm(gesetz, str(i), f"Sonstige Vorschrift Nummer {i} über andere Dinge.")
    lexem_statistik_refresh(kind="NORM")
    runs = {
        tuple(r["id"] for r in search_normen(query="Zurückbehaltung Mietsache", gesetz="TieG", mode="fulltext").results)
        for _ in range(5)
    }
    assert runs == {tuple(n.pk for n in twins)}  # the same order every time: by id on equal scores


def _physical_order(gesetz: Gesetz) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.id FROM recherche_chunk c JOIN recherche_norm n ON n.id = c.norm_id WHERE n.gesetz_id = %s ORDER BY c.ctid",
            [gesetz.pk],
        )
        return [row[0] for row in cursor.fetchall()]


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["Zurückbehaltung", "Zurückbehaltung der Mietsache"])
def test_full_text_scores_the_same_candidates_whatever_the_physical_order_of_the_rows(monkeypatch, query):
    """More chunks match than full text scores: which ones are scored must not follow the rows'
    places in the table, which an UPDATE, a VACUUM FULL or a restore changes."""
    monkeypatch.setattr(search, "FULLTEXT_CANDIDATES", 10)
    monkeypatch.setattr(search, "COMMON_LEXEM_SHARE", 1.0)
    gesetz = Gesetz.objects.create(abkuerzung="OrdG", titel="Ordnungsgesetz", slug="ordg")
    for i in range(1, 41):
        _norm(gesetz, str(i), "Die Zurückbehaltung der Mietsache. " * (i % 5 + 1) + "Weitere Bestimmungen folgen. " * (i % 7))
    lexem_statistik_refresh(kind="NORM")
    before = [r["id"] for r in search_normen(query=query, gesetz="OrdG", mode="fulltext").results]
    # Delete the first half of the rows and write them again, unchanged: they now lie behind the others.
    chunks = list(Chunk.objects.filter(norm__gesetz=gesetz).order_by("pk")[:20])
    order = _physical_order(gesetz)
    Chunk.objects.filter(pk__in=[c.pk for c in chunks]).delete()
    Chunk.objects.bulk_create(chunks)
    assert _physical_order(gesetz) != order
    after = [r["id"] for r in search_normen(query=query, gesetz="OrdG", mode="fulltext").results]
    assert len(before) == 10
    assert after == before


@pytest.mark.django_db
def test_term_frequency_and_length_count_in_full_text():
    gesetz = Gesetz.objects.create(abkuerzung="TfG", titel="Termgesetz", slug="tfg")
    once = _norm(gesetz, "1", "Die Räumung wird angeordnet. " + "Weitere Bestimmungen folgen hier. " * 30)
    often = _norm(gesetz, "2", "Die Räumung ist anzukündigen; die Räumung erfolgt durch den Gerichtsvollzieher nach Räumung.")
    for i in range(3, 40):
        _norm(gesetz, str(i), f"Allgemeine Vorschrift {i} ohne Bezug.")
    lexem_statistik_refresh(kind="NORM")
    assert [r["id"] for r in search_normen(query="Räumung", gesetz="TfG", mode="fulltext").results][:2] == [often.pk, once.pk]


@pytest.mark.django_db
def test_annexes_rank_only_when_the_question_is_about_them():
    gesetz = Gesetz.objects.create(abkuerzung="AnlG", titel="Anlagengesetz", slug="anlg")
    norm = _norm(gesetz, "1", "Die Verfahrensgebühr entsteht für das Betreiben des Geschäfts.")
    anlage = _norm(gesetz, "2", "[Nr. | Gebührentatbestand; 3100 | Verfahrensgebühr Betreiben Geschäft | 1,3]", art="Anlage")
    for i in range(3, 40):
        _norm(gesetz, str(i), f"Allgemeine Vorschrift {i} ohne Bezug.")
    lexem_statistik_refresh(kind="NORM")
    plain = [r["id"] for r in search_normen(query="Betreiben des Geschäfts", gesetz="AnlG", mode="fulltext").results]
    assert plain.index(norm.pk) < plain.index(anlage.pk)
    about = [
        r["id"]
        for r in search_normen(query="Verfahrensgebühr nach dem Vergütungsverzeichnis", gesetz="AnlG", mode="fulltext").results
    ]
    assert anlage.pk in about[:2]


def test_field_of_law_comes_from_the_akte_or_the_question_else_the_general_laws():
    assert {"ArbGG", "KSchG"} <= preferred_gesetze("Berufungsfrist", "ARBEITSRECHT")
    assert "ArbGG" in preferred_gesetze("Mein Arbeitgeber hat mir gekündigt")
    assert "FamFG" in preferred_gesetze("Frist im Scheidungsverfahren versäumt")
    assert preferred_gesetze("Wiedereinsetzung nach Fristversäumnis") == {"ZPO", "BGB", "GVG"}


@pytest.mark.django_db
def test_twins_across_laws_follow_the_akte_and_default_to_the_general_procedural_law(shipped_gesetze):
    query = "Frist für die Einlegung der Berufung"
    general = [r["zitat"] for r in search_normen(query=query, mode="fulltext", limit=10).results]
    labour = [r["zitat"] for r in search_normen(query=query, mode="fulltext", limit=10, sachgebiet="ARBEITSRECHT").results]
    assert general.index("§ 517 ZPO") < general.index("§ 66 ArbGG")
    assert labour.index("§ 66 ArbGG") < labour.index("§ 517 ZPO")


@pytest.mark.django_db
def test_laws_named_in_the_question_that_are_not_loaded_are_listed(shipped_gesetze):
    from recherche.citations import law_names

    assert unknown_laws("Was sagt die DSGVO zur Auskunft? Und das BayBO?", law_names()) == ["DSGVO", "BayBO"]
    assert unknown_laws("Haftet die GmbH oder die OHG? Der BGH und das OLG sagen …", law_names()) == []
    result = search_normen(query="Auskunftsrecht nach der DSGVO")
    assert result.hinweis.startswith("„DSGVO“ ist nicht im Bestand. Geladen sind: ArbGG, BGB")


def test_everyday_and_latin_wording_maps_to_the_statutes_words():
    assert "Vertragsverhandlungen" in expand_query("Haftung aus culpa in contrahendo")
    assert "Bereicherung" in expand_query("Ich habe aus Versehen auf ein falsches Konto überwiesen")
    assert "Zurückbehaltungsrecht" in expand_query("kein Gehalt – darf ich die Arbeit einstellen?")
    assert "Arbeitsentgelt" in expand_query("kein Gehalt – darf ich die Arbeit einstellen?")
    assert "arglistig" in expand_query("Auto mit verschwiegenem Unfallschaden rückgängig machen")
    assert "Rücktritt" in expand_query("Auto mit verschwiegenem Unfallschaden rückgängig machen")


@pytest.mark.django_db(transaction=True)
def test_vector_search_returns_all_candidates_outside_a_transaction():
    """Tool calls run outside a transaction: ef_search must apply there too (pgvector's default
    of 40 would cut the CANDIDATES=50 asked for)."""
    from recherche.embeddings import LocalE5Backend

    gesetz = Gesetz.objects.create(abkuerzung="VecG", titel="Vektorgesetz", slug="vecg")
    rng = random.Random(3)
    backend = LocalE5Backend()
    for i in range(1, 121):
        norm = Norm.objects.create(gesetz=gesetz, art="§", nummer=str(i), text="x", position=i)
        vector = [rng.gauss(0, 1) for _ in range(384)]
        Chunk.objects.create(
            kind="NORM",
            norm=norm,
            titel="t",
            text="x",
            content_hash=str(i),
            embedding=vector,
            embedding_model=backend.name,
            embedding_dim=384,
        )
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")  # the HNSW index, as on the full corpus
    try:
        assert not connection.in_atomic_block
        found = _vector("NORM", [rng.gauss(0, 1) for _ in range(384)], backend, "norm_id", "", [], CANDIDATES)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET enable_seqscan")
    assert len(found) == CANDIDATES


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    ["Welche Farbe hat der Himmel?", "Wie wird das Wetter am Wochenende?", "Wie lange muss ein Ei kochen, damit es weich ist?"],
)
def test_a_question_about_no_legal_subject_is_answered_with_nothing_found(shipped_gesetze, query):
    """Shared words ("Farbe", "Wochenende") and the nearest vectors are no reason to show norms."""
    result = search_normen(query=query)
    assert result.results == [] and result.hinweis == search.NOTHING_FOUND
    assert not search.about_law(query)


@pytest.mark.django_db
@pytest.mark.parametrize(("query", "stem"), [("Kinder", "kind"), ("Tod", "tod")])
def test_a_search_for_an_everyday_word_keeps_the_sections_that_use_it(shipped_gesetze, query, stem):
    """A keyword search names no legal subject either, but the sections that hold the word are what
    was asked for: they are kept, only hits that share part of a question's words are dropped."""
    assert not search.about_law(query)
    found = search_normen(query=query).results
    assert found and all(stem in Norm.objects.get(pk=r["id"]).text.lower() for r in found[:3])


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "legal"),
    [
        ("Mein Vermieter gibt die Kaution nicht zurück", "Vermieter"),
        ("Fristlose Kündigung wegen Zahlungsverzug", "Zahlungsverzug"),
        ("Haftet der Halter, wenn sein Hund einen Passanten beißt?", "Haftet"),
    ],
)
def test_questions_about_law_keep_their_norms_and_name_a_legal_word(shipped_gesetze, query, legal):
    assert search_normen(query=query).results
    assert legal in search.legal_words(query)


@pytest.mark.django_db
def test_a_long_description_is_about_law_even_in_everyday_words(shipped_gesetze, monkeypatch):
    """Who tells a law firm a story at length has a legal matter; the floor is for short questions.
    (No word counts as a legal word here, so only the length decides.)"""
    monkeypatch.setattr(search, "LEGAL_WORD_MARGIN", 99.0)
    story = (
        "Gestern Abend kam vor der Kneipe einer mit einer abgebrochenen Flasche auf mich los, ich habe "
        "zugeschlagen und ihm die Nase gebrochen, und jetzt zeigt er mich an."
    )
    assert not search.vocabulary_matches(story) and search.legal_words(story) == []
    assert search.about_law(story)
    assert not search.about_law("Kneipe, Flasche, Nase gebrochen")


@pytest.mark.django_db
def test_legal_words_compare_stems_not_inflected_forms(shipped_gesetze):
    """A form like "gesündesten" is rare in general German, its stem "gesund" is not: compared as a stem it is
    no legal word, whereas "Kündigung" is one in any form."""
    assert search.legal_words("Welches Futter ist am gesündesten?") == []
    assert search.legal_words("Der Vermieter kündigte fristlos") == ["Vermieter", "kündigte", "fristlos"]


@pytest.mark.django_db
def test_without_statistics_every_question_with_words_counts_as_about_law():
    LexemStatistik.objects.all().delete()  # nothing ingested (rolled back after the test)
    assert search.legal_words("Wie backe ich einen Marmorkuchen?") is None
    assert search.about_law("Wie backe ich einen Marmorkuchen?")


class _FixedQuery:
    """A backend whose question vector is given; counts its calls."""

    name = "test:fixed"
    dim = 384

    def __init__(self, vector: list[float]) -> None:
        self.vector, self.calls = vector, 0

    def embed_passages(self, texts: list[str]) -> list[list[float]]:
        return [self.vector for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        self.calls += 1
        return self.vector


def _at(similarity: float, axis: int) -> list[float]:
    """A unit vector with cosine `similarity` to the first axis, the rest on its own `axis`."""
    vector = [0.0] * 384
    vector[0], vector[axis] = similarity, (1 - similarity**2) ** 0.5
    return vector


@pytest.mark.django_db
def test_hits_in_the_outline_area_closest_to_the_question_rank_higher(monkeypatch):
    """A section of the area whose sections lie close to the question outranks a slightly closer
    section that stands alone in its area; the question is embedded once for both."""
    gesetz = Gesetz.objects.create(abkuerzung="AreaG", titel="Bereichsgesetz", slug="areag")
    sections = {  # nummer: (outline area, cosine similarity to the question)
        "1": ("Titel 1 Bereicherung", 0.93),
        "2": ("Titel 1 Bereicherung", 0.92),
        "3": ("Titel 1 Bereicherung", 0.92),
        "4": ("Titel 2 Sonstiges", 0.95),
        "5": ("Titel 2 Sonstiges", 0.0),
        "6": ("Titel 2 Sonstiges", 0.0),
    }
    backend = _FixedQuery(_at(1.0, 1))
    for axis, (nummer, (area, similarity)) in enumerate(sections.items(), start=2):
        norm = Norm.objects.create(gesetz=gesetz, art="§", nummer=nummer, gliederung=area, text="Text", position=int(nummer))
        Chunk.objects.create(
            kind="NORM",
            norm=norm,
            titel=f"§ {nummer} AreaG",
            text="Text",
            content_hash=nummer,
            embedding=_at(similarity, axis),
            embedding_model=backend.name,
            embedding_dim=384,
        )
    monkeypatch.setattr(search, "get_backend", lambda: backend)
    monkeypatch.setattr(search, "AREA_COUNT", 1)
    found = [r["nummer"] for r in search_normen(query="Quaxelwort", gesetz="AreaG", mode="vector").results]
    assert found[:2] == ["1", "4"]
    assert backend.calls == 1
    monkeypatch.setattr(search, "AREA_BOOST", 0.0)
    assert [r["nummer"] for r in search_normen(query="Quaxelwort", gesetz="AreaG", mode="vector").results][:2] == ["4", "1"]


@pytest.mark.django_db
@pytest.mark.parametrize("candidates", [1000, 7])
def test_both_ways_of_reading_the_candidates_postings_rank_alike(shipped_gesetze, monkeypatch, candidates):
    """PostgreSQL 17+ reads the candidates' postings with one B-tree scan over two arrays, older
    servers filter the lexemes' posting lists by a hash join: the same chunks, scores and order,
    also when more chunks match than are scored."""
    monkeypatch.setattr(search, "FULLTEXT_CANDIDATES", candidates)
    queries = ["Kündigung wegen Eigenbedarf", "Mangel der Kaufsache Rücktritt", "Frist für die Berufung", "Schadensersatz"]
    monkeypatch.setattr(search, "POSTING_PROBE_MIN_SERVER", 0)  # both ways are correct on any server
    probed = {q: search._fulltext("NORM", q, "norm_id", "", [], CANDIDATES) for q in queries}
    monkeypatch.setattr(search, "POSTING_PROBE_MIN_SERVER", 10**9)
    joined = {q: search._fulltext("NORM", q, "norm_id", "", [], CANDIDATES) for q in queries}
    assert all(probed[q] for q in queries)
    assert probed == joined


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "not_claimed"),
    [
        ("Regelbedarf nach § 20 SGB II", "„SGB“"),
        ("Rücknahme nach § 44 SGB X", "„SGB“"),
        ("Verfahrensgebühr Nr. 3100 VV RVG", "„VV“"),
        ("Gebühr nach KV 1210 GKG", "„KV“"),
        ("Was regelt das SGB zum Bürgergeld?", "„SGB“"),
    ],
)
def test_parts_of_a_resolved_citation_are_never_reported_as_laws_not_loaded(shipped_gesetze, query, not_claimed):
    """ "SGB II", "VV RVG" and "KV GKG" are loaded; their first word is no statute of its own and was
    reported as "„SGB“ ist nicht im Bestand" next to the resolved norm."""
    result = search_normen(query=query)
    assert not_claimed not in result.hinweis
    assert "nicht im Bestand" not in result.hinweis


@pytest.mark.django_db
def test_a_hyphenated_statute_not_loaded_is_named_whole(shipped_gesetze):
    from recherche.citations import law_names

    assert unknown_laws("Auskunft nach der DS-GVO", law_names()) == ["DS-GVO"]
    assert unknown_laws("Was kostet ein DSGVO-Verstoß?", law_names()) == ["DSGVO"]
    assert unknown_laws("Kosten nach dem GKG-KV und dem RVG-VV", law_names()) == []
    assert unknown_laws("Was zahlt Hartz-IV?", law_names()) == []
    assert search_normen(query="Auskunft nach der DS-GVO").hinweis.startswith("„DS-GVO“ ist nicht im Bestand.")


@pytest.mark.django_db
def test_a_section_the_best_hits_refer_to_is_found_though_it_shares_no_word_of_the_question():
    gesetz = Gesetz.objects.create(abkuerzung="RefG", titel="Verweisungsgesetz", slug="refg")
    _norm(gesetz, "1", "Bei Bestellungen im Fernabsatz steht dem Käufer ein Widerruf gemäß § 5 zu.")
    _norm(gesetz, "2", "Die Frist für den Widerruf bei Bestellungen beginnt nach § 5 Absatz 2 mit Erhalt der Ware.")
    _norm(
        gesetz,
        "3",
        "Für Bestellungen gilt § 6 des Ersten Buches Sozialgesetzbuch entsprechend; § 7 ist anzuwenden; "
        "Artikel 2 § 8 gilt; ebenso §§ 9, 10 des Zweiten Buches, § 11 und § 12 des Kündigungsschutzgesetzes "
        "und § 13 des KSchG.",
    )
    _norm(gesetz, "5", "Das Recht ist binnen vierzehn Tagen in Textform zu erklären.")
    _norm(gesetz, "6", "Eine Vorschrift desselben Gesetzes, die nur ein anderes Gesetz zitiert.")
    weggefallen = _norm(gesetz, "7", "(weggefallen)")
    Norm.objects.filter(pk=weggefallen.pk).update(aufgehoben=True)
    for i in range(8, 14):
        _norm(gesetz, str(i), f"Vorschrift {i}, auf die nur ein anderes Gesetz verweist.")
    for i in range(14, 60):
        _norm(gesetz, str(i), f"Sonstige Vorschrift Nummer {i} über andere Dinge.")
    lexem_statistik_refresh(kind="NORM")

    found = [r["zitat"] for r in search_normen(query="Widerruf von Bestellungen", gesetz="RefG", mode="fulltext").results]

    assert found[:2] == ["§ 2 RefG", "§ 1 RefG"] or found[:2] == ["§ 1 RefG", "§ 2 RefG"]
    assert "§ 5 RefG" in found  # cited by both best hits, shares no word with the question
    assert "§ 6 RefG" not in found  # "§ 6 des Ersten Buches …" is another statute's section
    assert "§ 7 RefG" not in found  # repealed sections never appear
    assert not {"§ 8 RefG", "§ 9 RefG", "§ 10 RefG"} & set(found)  # an article's section, another Buch's sections
    # the statute named after an enumeration of sections is that of each of them; "des KSchG" too
    assert not {"§ 11 RefG", "§ 12 RefG", "§ 13 RefG"} & set(found)
