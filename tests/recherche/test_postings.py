"""The full-text postings (recherche_chunk_posting) stay in step with the chunks on every path that
writes them: ingestion, a changed statute, a removed section, an edited or deleted chunk. Full-text
search reads its term frequencies from them, so a stale posting would rank by text that is gone."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from recherche import search
from recherche.models import Chunk, Gesetz, Norm
from recherche.search import search_normen
from recherche.services import lexem_statistik_refresh

MINI = Path(__file__).resolve().parent / "data"


@pytest.fixture(autouse=True)
def _few_chunks(db, monkeypatch):
    # A handful of chunks: every lexeme is in more of them than full text would otherwise weigh.
    monkeypatch.setattr(search, "COMMON_LEXEM_SHARE", 1.0)


def _postings() -> set[tuple]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT chunk_id, lexem, tf, titel, len FROM recherche_chunk_posting")
        return set(cursor.fetchall())


def _from_vectors() -> set[tuple]:
    """The postings as the chunks' search vectors state them now."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.id, u.lexeme, cardinality(u.positions), 'A' = ANY(u.weights), length(c.search_vector) "
            "FROM recherche_chunk c CROSS JOIN LATERAL unnest(c.search_vector) AS u(lexeme, positions, weights)"
        )
        return set(cursor.fetchall())


def _fulltext_hits(query: str) -> list[str]:
    lexem_statistik_refresh(kind="NORM")
    return [hit["nummer"] for hit in search_normen(query=query, gesetz="TestG", mode="fulltext").results]


def test_postings_follow_ingestion_changes_and_deletes(tmp_path):
    target = tmp_path / "testg.md"
    target.write_text((MINI / "testg.md").read_text(encoding="utf-8"), encoding="utf-8")
    call_command("ingest_gesetze", str(tmp_path), "--no-embed", verbosity=0)
    assert Chunk.objects.filter(norm__gesetz__abkuerzung="TestG").exists()
    assert _postings() == _from_vectors() != set()
    assert "1a" in _fulltext_hits("Monat verlängert")

    # A changed section: its chunk's postings are those of the new text, not the old one.
    text = target.read_text(encoding="utf-8").replace("um einen Monat", "um zwei Wochen")
    target.write_text(text, encoding="utf-8")
    call_command("ingest_gesetze", str(tmp_path), "--no-embed", verbosity=0)
    assert _postings() == _from_vectors()
    assert "1a" in _fulltext_hits("Wochen")
    assert "1a" not in _fulltext_hits("Monat")

    # A section removed from the statute: its chunks and their postings are gone.
    target.write_text(text.replace("### § 6 Räumung der Wohnung", "### § 6 (weggefallen)"), encoding="utf-8")
    call_command("ingest_gesetze", str(tmp_path), "--no-embed", verbosity=0)
    assert _postings() == _from_vectors()
    assert "6" not in _fulltext_hits("Räumung Wohnung")


def test_postings_follow_an_edited_chunk_a_bulk_update_and_a_cascade():
    gesetz = Gesetz.objects.create(abkuerzung="TestG", titel="Testgesetz", slug="testg")
    norms = []
    for nummer, text in (("1", "Die Zurückbehaltung der Mietsache."), ("2", "Der Hund des Nachbarn bellt.")):
        norm = Norm.objects.create(gesetz=gesetz, art="§", nummer=nummer, titel="", text=text, position=int(nummer))
        Chunk.objects.create(kind="NORM", norm=norm, titel=f"§ {nummer} TestG", text=text, content_hash=nummer)
        norms.append(norm)
    assert _postings() == _from_vectors()
    ids = set(Chunk.objects.filter(norm__gesetz=gesetz).values_list("pk", flat=True))

    chunk = Chunk.objects.get(norm=norms[0])
    chunk.text = "Die Aufrechnung gegen die Mietforderung."
    chunk.save()
    assert _postings() == _from_vectors()
    assert _fulltext_hits("Aufrechnung") == ["1"]
    assert _fulltext_hits("Zurückbehaltung") == []

    Chunk.objects.filter(norm=norms[1]).update(titel="§ 2 TestG Tierhaltung")  # an UPDATE of many rows
    assert _postings() == _from_vectors()
    assert _fulltext_hits("Tierhaltung") == ["2"]

    # An embedding written later leaves the postings as they are (the trigger does not fire).
    before = _postings()
    Chunk.objects.filter(norm=norms[1]).update(content_hash="neu")
    assert _postings() == before

    norms[1].delete()  # the ORM's cascade deletes the chunk
    assert _postings() == _from_vectors()
    gesetz.delete()
    assert _postings() == _from_vectors()
    assert not {chunk_id for chunk_id, *_rest in _postings()} & ids


def _chunk(nummer: str, text: str) -> Chunk:
    gesetz, _ = Gesetz.objects.get_or_create(abkuerzung="TestG", defaults={"titel": "Testgesetz", "slug": "testg"})
    norm = Norm.objects.create(gesetz=gesetz, art="§", nummer=nummer, titel="", text=text, position=int(nummer))
    return Chunk.objects.create(kind="NORM", norm=norm, titel=f"§ {nummer} TestG", text=text, content_hash=nummer)


@pytest.mark.django_db(transaction=True)
def test_a_truncate_of_the_chunks_empties_the_postings():
    _chunk("1", "Die Zurückbehaltung der Mietsache.")
    assert _postings()
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE recherche_chunk CASCADE")
    assert _postings() == set()


def test_rebuild_postings_repairs_a_write_that_bypassed_the_triggers():
    chunk = _chunk("1", "Die Zurückbehaltung der Mietsache.")
    with connection.cursor() as cursor:  # as a data-only restore into a database with the triggers would
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no pending foreign-key checks on the table
        cursor.execute("ALTER TABLE recherche_chunk DISABLE TRIGGER chunk_posting_update")
        cursor.execute("UPDATE recherche_chunk SET text = 'Die Aufrechnung.' WHERE id = %s", [chunk.pk])
        cursor.execute("ALTER TABLE recherche_chunk ENABLE TRIGGER chunk_posting_update")
    assert _postings() != _from_vectors()
    out = StringIO()
    call_command("rebuild_postings", stdout=out)
    assert _postings() == _from_vectors()
    assert f"{len(_from_vectors())} Postings neu aufgebaut." in out.getvalue()
    assert _fulltext_hits("Aufrechnung") == ["1"]
