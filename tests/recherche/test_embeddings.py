from pathlib import Path

import pytest

from recherche.embeddings import (
    EmbeddingUnavailable,
    LocalE5Backend,
    OllamaBackend,
    OpenAIBackend,
    ServerBackendConfig,
    get_backend,
)


def test_local_backend_gives_normalised_384_vectors_with_e5_prefixes():
    backend = LocalE5Backend()
    query = backend.embed_query("Kündigung wegen Eigenbedarf")
    passages = backend.embed_passages(["Der Vermieter benötigt die Wohnung für sich.", "Die Kaution ist zu verzinsen."])
    assert len(query) == 384 and len(passages) == 2
    assert sum(x * x for x in query) == pytest.approx(1.0, abs=1e-3)
    related = sum(a * b for a, b in zip(query, passages[0], strict=True))
    unrelated = sum(a * b for a, b in zip(query, passages[1], strict=True))
    assert related > unrelated


def test_ollama_backend_speaks_api_embed_over_http(scripted_server):
    scripted_server.routes["/api/embed"] = lambda body: (
        200,
        {"model": body["model"], "embeddings": [[0.1, 0.2, 0.3] for _ in body["input"]]},
    )
    backend = OllamaBackend(
        ServerBackendConfig(
            model="nomic-embed-text",
            dim=3,
            base_url=scripted_server.url,
            query_prefix="search_query: ",
            passage_prefix="search_document: ",
        )
    )
    assert backend.embed_passages(["a", "b"]) == [[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]]
    assert backend.embed_query("frage") == [0.1, 0.2, 0.3]
    assert scripted_server.requests[0].body == {
        "model": "nomic-embed-text",
        "input": ["search_document: a", "search_document: b"],
    }
    assert scripted_server.requests[1].body["input"] == ["search_query: frage"]
    assert backend.name == "ollama:nomic-embed-text"


def test_openai_backend_speaks_v1_embeddings_over_http(scripted_server):
    scripted_server.routes["/v1/embeddings"] = lambda body: (
        200,
        {
            "object": "list",
            "model": body["model"],
            "data": [{"object": "embedding", "index": i, "embedding": [float(i), 1.0]} for i, _ in enumerate(body["input"])],
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        },
    )
    backend = OpenAIBackend(ServerBackendConfig(model="e5", dim=2, base_url=scripted_server.url + "/v1", query_prefix="query: "))
    assert backend.embed_passages(["x", "y"]) == [[0.0, 1.0], [1.0, 1.0]]
    assert backend.embed_query("z") == [0.0, 1.0]
    assert scripted_server.requests[-1].body["input"] == ["query: z"]


def test_server_errors_wrong_dimensions_and_outages_become_embedding_unavailable(scripted_server):
    scripted_server.routes["/api/embed"] = lambda body: (500, {"error": "model not loaded"})
    broken = OllamaBackend(ServerBackendConfig(model="m", dim=3, base_url=scripted_server.url, timeout=5))
    with pytest.raises(EmbeddingUnavailable):
        broken.embed_query("x")
    scripted_server.routes["/api/embed"] = lambda body: (200, {"embeddings": [[1.0, 2.0]]})
    with pytest.raises(EmbeddingUnavailable, match="2 statt 3"):
        broken.embed_query("x")
    down = OpenAIBackend(ServerBackendConfig(model="m", dim=3, base_url="http://127.0.0.1:9/v1", timeout=2))
    with pytest.raises(EmbeddingUnavailable):
        down.embed_query("x")


def test_get_backend_follows_settings(settings):
    assert isinstance(get_backend(), LocalE5Backend)
    settings.HELENA_EMBEDDINGS = {**settings.HELENA_EMBEDDINGS, "BACKEND": "ollama", "MODEL": "bge-m3", "DIM": 1024}
    backend = get_backend()
    assert isinstance(backend, OllamaBackend) and backend.dim == 1024 and backend.name == "ollama:bge-m3"


@pytest.mark.django_db
def test_cache_export_is_compact_and_prune_keeps_only_the_database_s_vectors(tmp_path, monkeypatch):
    import numpy as np
    from django.core.management import call_command

    from recherche import vector_cache
    from recherche.embeddings import LocalE5Backend
    from recherche.models import Chunk, Gesetz, Norm

    monkeypatch.setattr(vector_cache, "CACHE_DIR", tmp_path)
    name = LocalE5Backend.name
    stale = [0.0] * 383 + [1.0]
    vector_cache.VectorCache.save(name, [("ab" * 32, stale)])
    gesetz = Gesetz.objects.create(abkuerzung="CacheG", titel="Cachegesetz", slug="cacheg")
    norm = Norm.objects.create(gesetz=gesetz, art="§", nummer="1", text="x", position=0)
    vector = list(np.random.default_rng(1).standard_normal(384) / 20)
    Chunk.objects.create(
        kind="NORM",
        norm=norm,
        titel="t",
        text="x",
        content_hash="cd" * 32,
        embedding=vector,
        embedding_model=name,
        embedding_dim=384,
    )
    in_database = Chunk.objects.filter(embedding_model=name).exclude(kind="DOKUMENT").values("content_hash").distinct().count()
    call_command("embedding_cache", "export", verbosity=0)
    assert len(vector_cache.VectorCache.load(name)) == in_database + 1  # merged with the file
    call_command("embedding_cache", "export", "--prune", verbosity=0)
    cache = vector_cache.VectorCache.load(name)
    assert len(cache) == in_database and cache.get("ab" * 32) is None
    assert cache.get("cd" * 32) == pytest.approx(vector, abs=0.003)  # int8 with a scale per vector
    with np.load(vector_cache.cache_path(name)) as data:
        assert data["vectors"].dtype == np.int8 and data["keys"].shape == (in_database, 32)


def test_every_chunk_of_the_shipped_statutes_has_its_vector_in_the_shipped_cache():
    """`make run` and the tests never compute statute vectors on two cores: a change of the chunking
    or of what the model sees needs a new cache (`embedding_cache export`)."""
    from recherche import sachregister, vector_cache
    from recherche.chunking import norm_chunk_pieces, norm_chunk_titel, norm_embed_input
    from recherche.embeddings import content_hash
    from recherche.gesetze_parser import parse_file

    cache = vector_cache.VectorCache.load(LocalE5Backend.name)
    register = sachregister.by_norm()
    missing, chunks = [], 0
    for path in sorted((Path(__file__).resolve().parents[2] / "recherche" / "data" / "gesetze").glob("*.md")):
        parsed = parse_file(path)
        for item in parsed.normen:
            titel = norm_chunk_titel(
                art=item.art,
                nummer=item.nummer,
                abkuerzung=parsed.abkuerzung,
                titel=item.titel,
                gesetz_titel=parsed.titel[:300],
                gliederung=item.gliederung,
            )
            pieces = norm_chunk_pieces(
                text=item.text,
                titel=item.titel,
                aufgehoben=item.aufgehoben,
                register=register.get((item.art, item.nummer, parsed.abkuerzung), ""),
            )
            for position, piece in pieces:
                chunks += 1
                if cache.get(content_hash(norm_embed_input(titel, piece, position))) is None:
                    missing.append(f"{item.art} {item.nummer} {parsed.abkuerzung} [{position}]")
    assert chunks > 24_000
    assert missing == []


@pytest.mark.django_db
def test_every_chunk_of_the_shipped_templates_and_decisions_has_its_vector_in_the_shipped_cache():
    """A pruning export from a database without them would drop them (it happened once while the
    statutes' vectors were renewed): a first start would then compute them on two cores."""
    from django.core.management import call_command

    from recherche import vector_cache
    from recherche.models import Chunk

    data = Path(__file__).resolve().parents[2] / "recherche" / "data"
    call_command("ingest_muster", str(data / "muster"), "--no-embed", verbosity=0)
    call_command("ingest_urteile", str(data / "urteile"), "--no-embed", verbosity=0)
    cache = vector_cache.VectorCache.load(LocalE5Backend.name)
    hashes = list(Chunk.objects.filter(kind__in=["MUSTER", "URTEIL"]).values_list("content_hash", flat=True))
    assert len(hashes) > 50
    assert [h for h in hashes if cache.get(h) is None] == []
