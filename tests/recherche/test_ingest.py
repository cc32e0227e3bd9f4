import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from recherche.chunking import NORM_EMBED_CHARS
from recherche.embeddings import LocalE5Backend
from recherche.models import Chunk, Gesetz, Muster, Norm, Urteil
from recherche.search import hybrid_chunks
from recherche.services import chunks_embed_pending, embed_input, split_text

pytestmark = pytest.mark.django_db
DATA = Path(__file__).resolve().parents[2] / "recherche" / "data"
MINI = Path(__file__).resolve().parent / "data"


def test_ingest_gesetze_is_idempotent_and_reembeds_only_changed_text(tmp_path):
    target = tmp_path / "testg.md"
    target.write_text((MINI / "testg.md").read_text(encoding="utf-8"), encoding="utf-8")
    out = StringIO()
    call_command("ingest_gesetze", str(tmp_path), stdout=out)
    assert "TestG: 6 Normen (6 neu, 0 geändert, 0 entfernt)" in out.getvalue()
    assert "Stand: Zuletzt geändert durch Art. 1 G v. 1.2.2021 I 99" in out.getvalue()
    gesetz = Gesetz.objects.get(abkuerzung="TestG")
    assert gesetz.stand.startswith("Zuletzt geändert durch")
    assert Norm.objects.filter(gesetz=gesetz, aufgehoben=True).count() == 2
    chunks = Chunk.objects.filter(kind="NORM", norm__gesetz=gesetz)
    assert chunks.count() == 4  # repealed norms are not indexed
    assert not chunks.filter(embedding__isnull=True).exists()
    model = LocalE5Backend.name
    assert set(chunks.values_list("embedding_model", flat=True)) == {model}
    before = {c.norm.nummer: (c.pk, c.content_hash) for c in chunks.select_related("norm")}

    again = StringIO()
    call_command("ingest_gesetze", str(tmp_path), stdout=again)
    assert "TestG: unverändert" in again.getvalue()
    assert "1 Dateien, 0 geändert, 1 unverändert." in again.getvalue()
    assert "eingebettet" not in again.getvalue()

    target.write_text(target.read_text(encoding="utf-8").replace("um einen Monat", "um zwei Monate"), encoding="utf-8")
    changed = StringIO()
    call_command("ingest_gesetze", str(tmp_path), stdout=changed)
    assert "TestG: 6 Normen (0 neu, 1 geändert, 0 entfernt)" in changed.getvalue()
    assert "0 neu, 1 geändert, 3 unverändert, 0 entfernt" in changed.getvalue()
    assert "1 Abschnitte eingebettet" in changed.getvalue()
    after = {c.norm.nummer: (c.pk, c.content_hash) for c in chunks.select_related("norm")}
    assert after["1"] == before["1"]
    assert after["1a"][0] == before["1a"][0] and after["1a"][1] != before["1a"][1]
    assert "zwei Monate" in Norm.objects.get(gesetz=gesetz, nummer="1a").text


def test_embedding_uses_the_vector_cache_instead_of_the_model(tmp_path):
    from recherche.services import embed_input
    from recherche.vector_cache import VectorCache

    call_command("ingest_gesetze", str(MINI), "--no-embed", verbosity=0)
    chunk = Chunk.objects.get(kind="NORM", norm__gesetz__abkuerzung="TestG", norm__art="§", norm__nummer="1")
    marker = [0.5] * 384

    class Refusing(LocalE5Backend):
        def embed_passages(self, texts):
            raise AssertionError(f"model called for {texts!r}")

    cache = VectorCache({chunk.content_hash: __import__("numpy").array(marker, dtype="float16")})
    done = chunks_embed_pending(backend=Refusing(), cache=cache, chunk_ids=[chunk.pk])
    chunk.refresh_from_db()
    assert done == 1
    assert list(chunk.embedding) == pytest.approx(marker)
    assert embed_input(chunk).startswith("§ 1 TestG")


def test_norm_embedding_sees_citation_and_heading_but_not_the_outline():
    from recherche.services import embed_input

    call_command("ingest_gesetze", str(MINI), "--no-embed", verbosity=0)
    chunk = Chunk.objects.get(kind="NORM", norm__gesetz__abkuerzung="TestG", norm__art="§", norm__nummer="1")
    assert "›" in chunk.titel  # full text still searches the outline
    heading, text = embed_input(chunk).split("\n", 1)
    assert heading == f"§ 1 TestG {chunk.norm.titel}"
    assert text == chunk.text[:NORM_EMBED_CHARS]


def test_a_new_index_version_reindexes_unchanged_statutes(monkeypatch):
    from recherche import services

    call_command("ingest_gesetze", str(MINI), "--no-embed", verbosity=0)
    monkeypatch.setattr(services, "NORM_INDEX_VERSION", "test")
    out = StringIO()
    call_command("ingest_gesetze", str(MINI), "--no-embed", stdout=out)
    assert "TestG: unverändert" not in out.getvalue()  # parsed again, not skipped
    assert "0 neu, 0 geändert, 4 unverändert, 0 entfernt" in out.getvalue()


def test_ingest_muster_ships_at_least_twenty_with_placeholders():
    call_command("ingest_muster", str(DATA / "muster"), "--no-embed", verbosity=0)
    assert Muster.objects.count() >= 20
    assert Muster.objects.filter(kanzlei_eigen=True).exists() and Muster.objects.filter(kanzlei_eigen=False).exists()
    klage = Muster.objects.get(slug="klageerwiderung")
    assert "gericht" in klage.platzhalter
    for name in ("Klageerwiderung", "Mahnschreiben", "Fristverlängerungsantrag", "Deckungsanfrage"):
        assert Muster.objects.filter(name__icontains=name).exists(), name
    assert Chunk.objects.filter(kind="MUSTER").count() >= Muster.objects.count()


def test_ingest_urteile_reads_open_legal_data_format_and_keeps_demo_labels():
    call_command("ingest_urteile", str(DATA / "urteile"), "--no-embed", verbosity=0)
    assert Urteil.objects.count() == 12
    for urteil in Urteil.objects.all():
        assert urteil.gericht.startswith("DEMO – ") and "fiktive Entscheidung" in urteil.gericht
        assert "DEMO" in urteil.aktenzeichen
        assert urteil.text.startswith("Fiktive Demo-Entscheidung")
        assert urteil.leitsatz
    call_command("ingest_urteile", str(DATA / "urteile"), "--no-embed", verbosity=0)
    assert Urteil.objects.count() == 12


def test_ingest_urteile_reports_broken_lines(tmp_path):
    path = tmp_path / "kaputt.jsonl"
    good = {
        "id": 1,
        "court": {"name": "AG Test"},
        "date": "2024-01-02",
        "file_number": "1 C 1/24",
        "type": "Urteil",
        "content": "<p>Text</p>",
    }
    path.write_text(json.dumps(good) + "\n{kein json\n", encoding="utf-8")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("ingest_urteile", str(path), "--no-embed", stderr=err)
    assert "kaputt.jsonl:2" in err.getvalue()
    assert Urteil.objects.filter(aktenzeichen="1 C 1/24").exists()


def test_split_text_respects_size_and_overlap():
    text = " ".join(f"Satz {i} über die Frist." for i in range(400))
    pieces = split_text(text, size=500, overlap=100)
    assert all(len(p) <= 500 for p in pieces)
    assert pieces[0][-50:] in text and len(pieces) > 10
    assert split_text("") == [] and split_text("kurz") == ["kurz"]


def _statute(tmp_path, name, body, **front):
    head = "".join(f"{key}: {value}\n" for key, value in front.items())
    (tmp_path / f"{name}.md").write_text(
        f"---\n{head}# Titel\n\nZuletzt geändert durch\n:   Art. 2 G v. 3.4.2026\n\n{body}", "utf-8"
    )


def test_ingest_reads_the_2026_format_and_reports_what_changed(tmp_path):
    _statute(
        tmp_path,
        "sgb_2",
        "## § 7 Leistungsberechtigte\n\n(1) Text.\n\n## § 8 (weggefallen)\n\n(weggefallen)\n",
        Title="SGB II",
        jurabk="SGB 2",
        amtabk="SGB 2",
        slug="sgb_2",
        bjnr="BJNR295500003",
    )
    _statute(tmp_path, "woeigg", "## § 20 Bauliche Veränderungen\n\nText.\n", jurabk="WoEigG", amtabk="WEG", slug="woeigg")
    out = StringIO()
    call_command("ingest_gesetze", str(tmp_path), "--no-embed", stdout=out)
    sgb = Gesetz.objects.get(abkuerzung="SGB II")  # the official abbreviation, roman as cited
    assert (sgb.aliase, sgb.bjnr, sgb.stand) == (["SGB 2"], "BJNR295500003", "Zuletzt geändert durch Art. 2 G v. 3.4.2026")
    assert Gesetz.objects.get(abkuerzung="WEG").aliase == ["WoEigG"]
    assert Norm.objects.get(gesetz=sgb, nummer="8").aufgehoben

    # an earlier ingestion stored the WEG under its juris abbreviation: found again by its slug
    Gesetz.objects.filter(abkuerzung="WEG").update(abkuerzung="WoEigG", quelle_hash="")
    (tmp_path / "sgb_2.md").unlink()
    again = StringIO()
    call_command("ingest_gesetze", str(tmp_path), "--no-embed", stdout=again)
    assert list(Gesetz.objects.filter(slug="woeigg").values_list("abkuerzung", flat=True)) == ["WEG"]
    assert "SGB II: nicht im Verzeichnis (bleibt; --prune entfernt es)" in again.getvalue()
    pruned = StringIO()
    call_command("ingest_gesetze", str(tmp_path), "--no-embed", "--prune", stdout=pruned)
    assert "SGB II: entfernt" in pruned.getvalue() and not Gesetz.objects.filter(abkuerzung="SGB II").exists()


def test_every_chunk_of_a_long_section_gets_a_vector_and_a_later_absatz_is_found_by_meaning(tmp_path):
    filler = "\n\n".join(f"({i}) " + "Der Schuldner hat die Leistung zu bewirken. " * 20 for i in range(1, 5))
    last = "(5) Der Halter eines Hundes hat dafür zu sorgen, dass das Tier zur Nachtzeit die Nachbarn nicht durch Bellen stört."
    _statute(tmp_path, "lang", f"## § 1 Lange Vorschrift\n\n{filler}\n\n{last}\n", jurabk="LangG", slug="lang")
    call_command("ingest_gesetze", str(tmp_path), verbosity=0)
    chunks = list(Chunk.objects.filter(norm__gesetz__abkuerzung="LangG").order_by("position"))
    assert len(chunks) > 1
    assert all(chunk.embedding is not None for chunk in chunks)
    # a later chunk: citation and heading, then all of its text (the first: only its start)
    assert embed_input(chunks[-1]) == f"§ 1 LangG Lange Vorschrift\n{chunks[-1].text}"
    assert embed_input(chunks[0]) == f"§ 1 LangG Lange Vorschrift\n{chunks[0].text[:NORM_EMBED_CHARS]}"
    # Only this statute: the shipped sections of the session (BGB) have Sachregister entries about
    # barking dogs and noisy neighbours. The HNSW index hands over its nearest candidates before the
    # statute filter applies, and those entries fill them: an exact scan for this check.
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_indexscan = off")
    hits, fallback = hybrid_chunks(
        kind=Chunk.Kind.NORM,
        query="Der Hund des Nachbarn bellt jede Nacht",
        source="norm_id",
        where="AND c.norm_id IN (SELECT n.id FROM recherche_norm n JOIN recherche_gesetz g ON g.id = n.gesetz_id "
        "WHERE g.abkuerzung = %s)",
        params=["LangG"],
        mode="vector",
    )
    assert not fallback
    assert hits[0].object_id == chunks[0].norm_id
    assert "Bellen" in hits[0].chunk_text  # the section was found through the vector of its last chunk


@pytest.mark.django_db(transaction=True)
def test_a_first_embedding_builds_the_hnsw_index_after_the_vectors_also_when_the_model_fails(monkeypatch):
    """A kind with no vectors of the model yet (first start, new model): its HNSW index is dropped,
    the vectors are written, and the index is built once after, also when the model gives up."""
    from recherche import services
    from recherche.embeddings import EmbeddingUnavailable
    from recherche.management.commands import ingest_gesetze

    index = services._vector_index_name("NORM", "test:bulk-index")
    seen_index: list[bool] = []

    def index_exists() -> bool:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [index])
            return cursor.fetchone() is not None

    class Model(LocalE5Backend):
        name = "test:bulk-index"
        fail = False

        def embed_passages(self, texts):
            seen_index.append(index_exists())
            if self.fail:
                raise EmbeddingUnavailable("Modell nicht erreichbar")
            return [[(i % 7 + 1) / 3.0] + [0.1] * 383 for i, _ in enumerate(texts)]

    model = Model()
    monkeypatch.setattr(ingest_gesetze, "get_backend", lambda: model)
    monkeypatch.setattr(services, "INDEX_AFTER_EMBEDDING_MIN", 1)
    try:
        Gesetz.objects.all().delete()  # the session's statutes would be embedded too (the test flushes anyway)
        call_command("ingest_gesetze", str(MINI), "--no-embed", verbosity=0)
        services.vector_indexes_ensure(model_name=model.name, dim=384)
        assert index_exists()

        model.fail = True
        err = StringIO()
        call_command("embed_chunks", "--kind", "NORM", stdout=StringIO(), stderr=err)
        assert "Einbettung nicht möglich" in err.getvalue()
        assert seen_index == [False]  # dropped while the vectors were to be written …
        assert index_exists()  # … and built again although the model failed

        model.fail = False
        call_command("embed_chunks", "--kind", "NORM", stdout=StringIO())
        assert seen_index == [False, False]
        assert index_exists()
        chunks = Chunk.objects.filter(kind="NORM", norm__gesetz__abkuerzung="TestG")
        assert chunks.exists() and set(chunks.values_list("embedding_model", flat=True)) == {model.name}
        # written exactly (float32), in one UPDATE instead of the ORM's bulk_update
        assert list(chunks.order_by("pk").first().embedding) == pytest.approx([1 / 3.0] + [0.1] * 383, abs=1e-7)

        seen_index.clear()
        Chunk.objects.filter(pk=chunks.order_by("pk").first().pk).update(embedding=None, embedding_model="", embedding_dim=None)
        call_command("embed_chunks", "--kind", "NORM", stdout=StringIO())
        assert seen_index == [True]  # a kind that has vectors keeps its index: searches go on using it
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP INDEX IF EXISTS {index}")
