"""Ingestion and indexing of the knowledge base. Idempotent: unchanged text keeps its embedding."""

from __future__ import annotations

import datetime
import html
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from django.db import transaction

from akten.models import Dokument

from . import sachregister
from .chunking import norm_chunk_pieces, norm_chunk_titel, norm_embed_input, split_text
from .embeddings import EmbeddingBackend, EmbeddingUnavailable, content_hash
from .gesetze_parser import ParsedGesetz, parse_file
from .models import Chunk, Gesetz, LexemStatistik, Muster, Norm, Urteil
from .vector_cache import VectorCache

logger = logging.getLogger(__name__)

# Of decisions, templates and documents the embedding model sees a chunk's title and the start of
# its text; e5-small reads at most 512 tokens anyway, and full-text search covers the whole text.
EMBED_CHARS = 700
# Part of each statute file's hash: raise it when chunking or the embedding input of norms changes,
# so that the next ingestion re-indexes every statute (vectors come from the shipped cache).
# 7: the outline by the kind of heading (recherche.gesetze_parser), the Stand of an unamended
# statute; 6: a section repealed as "(1) (weggefallen)" is aufgehoben; 5: EGBGB article sections
NORM_INDEX_VERSION = "7"


@dataclass
class IngestStats:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    # Sections (norms) of a statute: what changed in the law itself.
    normen_neu: int = 0
    normen_geaendert: int = 0
    normen_entfernt: int = 0

    def __str__(self) -> str:
        return f"{self.created} neu, {self.updated} geändert, {self.unchanged} unverändert, {self.deleted} entfernt"

    @property
    def normen(self) -> str:
        return f"{self.normen_neu} neu, {self.normen_geaendert} geändert, {self.normen_entfernt} entfernt"


def embed_input(chunk: Chunk) -> str:
    """The text the embedding model sees for `chunk` (its content hash keys the vector cache)."""
    if chunk.kind == Chunk.Kind.NORM:
        return norm_embed_input(chunk.titel, chunk.text, chunk.position)
    return f"{chunk.titel}\n{chunk.text[:EMBED_CHARS]}".strip()


def _sync_chunks(
    existing: Iterable[Chunk], wanted: list[Chunk], stats: IngestStats, new_chunks: list[Chunk] | None = None
) -> None:
    """Make the stored chunks of one source equal to `wanted` (matched by position). A chunk whose
    text changed loses its embedding, so only changed text is embedded again. New chunks are saved
    at once, or collected in `new_chunks` for one bulk insert by the caller."""
    by_position = {chunk.position: chunk for chunk in existing}
    for chunk in wanted:
        chunk.content_hash = content_hash(embed_input(chunk))
        old = by_position.pop(chunk.position, None)
        if old is None:
            if new_chunks is None:
                chunk.save()
            else:
                new_chunks.append(chunk)
            stats.created += 1
        elif old.content_hash == chunk.content_hash and old.text == chunk.text and old.titel == chunk.titel:
            stats.unchanged += 1
        else:
            old.titel, old.text = chunk.titel, chunk.text
            if old.content_hash != chunk.content_hash:
                old.content_hash = chunk.content_hash
                old.embedding, old.embedding_model, old.embedding_dim = None, "", None
            old.save()
            stats.updated += 1
    for old in by_position.values():
        old.delete()
        stats.deleted += 1


def gesetz_ingest_file(path: Path) -> tuple[ParsedGesetz | None, IngestStats, str]:
    """Ingest one statute file; a file already ingested unchanged is skipped without parsing.
    Returns the parsed statute (None if skipped), the changes and the statute's abbreviation. The
    Sachregister is part of every file's hash: a changed one re-indexes each statute."""
    source_hash = content_hash(NORM_INDEX_VERSION + sachregister.source() + path.read_text(encoding="utf-8"))
    unchanged = Gesetz.objects.filter(quelle_hash=source_hash).values_list("abkuerzung", flat=True).first()
    if unchanged is not None:
        return None, IngestStats(), unchanged
    parsed = parse_file(path)
    return parsed, gesetz_ingest(parsed, source_hash=source_hash), parsed.abkuerzung


def _gesetz_for(parsed: ParsedGesetz) -> Gesetz:
    """The stored statute of `parsed`: by abbreviation, else by slug (an abbreviation that changed,
    e.g. "WoEigG" → "WEG"), else a new one."""
    gesetz = Gesetz.objects.filter(abkuerzung=parsed.abkuerzung).first()
    if gesetz is None and parsed.slug:
        gesetz = Gesetz.objects.filter(slug=parsed.slug).order_by("pk").first()
    return gesetz or Gesetz(abkuerzung=parsed.abkuerzung)


@transaction.atomic
def gesetz_ingest(parsed: ParsedGesetz, *, source_hash: str = "") -> IngestStats:
    """Create or update one statute with its norms and their chunks (long norms in several, and a
    norm's Sachregister entry as one more)."""
    stats = IngestStats()
    gesetz = _gesetz_for(parsed)
    gesetz.abkuerzung, gesetz.titel, gesetz.slug = parsed.abkuerzung, parsed.titel[:300], parsed.slug
    gesetz.stand, gesetz.aliase, gesetz.bjnr, gesetz.quelle_hash = parsed.stand[:300], parsed.aliase, parsed.bjnr, source_hash
    gesetz.save()
    norms = {n.position: n for n in Norm.objects.filter(gesetz=gesetz)}
    chunks: dict[int, list[Chunk]] = {}
    for chunk in Chunk.objects.filter(kind=Chunk.Kind.NORM, norm__gesetz=gesetz):
        chunks.setdefault(chunk.norm_id, []).append(chunk)
    # New norms and chunks are inserted in bulk: a first ingestion of the corpus is 16,000 norms.
    current: list[Norm] = []
    created: list[Norm] = []
    for item in parsed.normen:
        fields = {
            "art": item.art,
            "nummer": item.nummer[:40],
            "titel": item.titel[:500],
            "gliederung": item.gliederung[:800],
            "text": item.text,
            "aufgehoben": item.aufgehoben,
        }
        norm = norms.pop(item.position, None)
        if norm is None:
            norm = Norm(gesetz=gesetz, position=item.position, **fields)
            norm.full_clean(validate_unique=False, validate_constraints=False)
            created.append(norm)
            stats.normen_neu += 1
        elif any(getattr(norm, k) != v for k, v in fields.items()):
            for key, value in fields.items():
                setattr(norm, key, value)
            norm.save()
            stats.normen_geaendert += 1
        current.append(norm)
    for stale in norms.values():
        stale.delete()
        stats.normen_entfernt += 1
    Norm.objects.bulk_create(created, batch_size=1000)
    new_chunks: list[Chunk] = []
    register = sachregister.by_norm()
    for item, norm in zip(parsed.normen, current, strict=True):
        titel = norm_chunk_titel(
            art=item.art,
            nummer=item.nummer,
            abkuerzung=gesetz.abkuerzung,
            titel=item.titel,
            gesetz_titel=gesetz.titel,
            gliederung=item.gliederung,
        )
        pieces = norm_chunk_pieces(
            text=item.text,
            titel=item.titel,
            aufgehoben=item.aufgehoben,
            register=register.get((item.art, item.nummer, gesetz.abkuerzung), ""),
        )
        wanted = [Chunk(kind=Chunk.Kind.NORM, norm=norm, position=i, titel=titel, text=piece) for i, piece in pieces]
        _sync_chunks(chunks.get(norm.pk, []), wanted, stats, new_chunks)
    Chunk.objects.bulk_create(new_chunks, batch_size=500)
    return stats


def _html_to_text(raw: str) -> str:
    text = re.sub(r"(?i)<\s*(br|/p|/h\d|/li|/div)\s*/?>", "\n\n", raw)
    text = re.sub(r"<[^>]+>", "", text)
    return re.sub(r"\n{3,}", "\n\n", html.unescape(text)).strip()


def _section(text_html: str, name: str) -> str:
    match = re.search(rf"(?is)<h\d[^>]*>\s*{name}\s*</h\d>(.*?)(?=<h\d|$)", text_html)
    return _html_to_text(match.group(1)) if match else ""


@transaction.atomic
def urteil_ingest(record: dict[str, Any]) -> tuple[Urteil, IngestStats]:
    """One decision in the Open Legal Data case format (court, date, file_number, type, content)."""
    court = record.get("court") or {}
    gericht = court.get("name", "") if isinstance(court, dict) else str(court)
    content = record.get("content", "")
    text = _html_to_text(content)
    urteil, _ = Urteil.objects.update_or_create(
        external_id=str(record.get("id") or record.get("slug") or f"{gericht}|{record.get('file_number')}"),
        defaults={
            "gericht": gericht[:300],
            "datum": datetime.date.fromisoformat(record["date"]),
            "aktenzeichen": str(record.get("file_number", ""))[:100],
            "typ": str(record.get("type", ""))[:60],
            "rechtsgebiet": str(record.get("rechtsgebiet", ""))[:100],
            "leitsatz": _section(content, "Leits(?:atz|ätze)"),
            "text": text,
            "source_url": str(record.get("source_url") or record.get("url") or "")[:500],
            "pii_gefiltert": bool(record.get("pii_filtered", False)),
        },
    )
    stats = IngestStats()
    titel = f"{urteil.gericht} {urteil.typ} {urteil.datum:%d.%m.%Y} {urteil.aktenzeichen} {urteil.rechtsgebiet}"
    wanted = [
        Chunk(kind=Chunk.Kind.URTEIL, urteil=urteil, position=i, titel=titel[:800], text=piece)
        for i, piece in enumerate(split_text((urteil.leitsatz + "\n\n" + text).strip()))
    ]
    _sync_chunks(urteil.chunks.all(), wanted, stats)
    return urteil, stats


def parse_front_matter(raw: str) -> tuple[dict[str, Any], str]:
    if raw.startswith("---"):
        _, front, body = raw.split("---", 2)
        return yaml.safe_load(front) or {}, body.strip()
    return {}, raw.strip()


@transaction.atomic
def muster_ingest(path: Path) -> tuple[Muster, IngestStats]:
    front, body = parse_front_matter(path.read_text(encoding="utf-8"))
    muster, _ = Muster.objects.update_or_create(
        slug=path.stem.replace("_", "-"),
        defaults={
            "name": str(front.get("name") or path.stem)[:200],
            "kategorie": str(front.get("kategorie", "Allgemein"))[:100],
            "beschreibung": str(front.get("beschreibung", ""))[:500],
            "kanzlei_eigen": bool(front.get("kanzlei_eigen", False)),
            "text": body,
        },
    )
    stats = IngestStats()
    titel = f"Muster {muster.name} ({muster.kategorie}) {muster.beschreibung}"
    wanted = [
        Chunk(kind=Chunk.Kind.MUSTER, muster=muster, position=i, titel=titel[:800], text=piece)
        for i, piece in enumerate(split_text(body))
    ]
    _sync_chunks(muster.chunks.all(), wanted, stats)
    return muster, stats


@transaction.atomic
def dokument_index(dokument: Dokument) -> IngestStats:
    """(Re-)index a Dokument's extracted text; a document without text has no chunks."""
    stats = IngestStats()
    pieces = split_text(dokument.text) if dokument.text_status == Dokument.TextStatus.OK else []
    wanted = [
        Chunk(
            kind=Chunk.Kind.DOKUMENT,
            dokument=dokument,
            akte_id=dokument.akte_id,
            position=i,
            titel=f"{dokument.name} (Akte {dokument.akte.aktenzeichen})"[:800],
            text=piece,
        )
        for i, piece in enumerate(pieces)
    ]
    _sync_chunks(dokument.chunks.all(), wanted, stats)
    return stats


def chunks_embed_pending(
    *,
    backend: EmbeddingBackend,
    kinds: list[str] | None = None,
    batch_size: int = 32,
    cache: VectorCache | None = None,
    progress: Callable[[int], None] | None = None,
    chunk_ids: list[int] | None = None,
) -> int:
    """Embed every chunk that has no embedding of `backend`'s model. Returns how many were embedded.

    Vectors found in `cache` (same model, same content hash) are used without calling the model.
    Raises EmbeddingUnavailable if the backend is down; chunks embedded so far are kept.
    """
    pending = Chunk.objects.exclude(embedding_model=backend.name)
    if kinds:
        pending = pending.filter(kind__in=kinds)
    if chunk_ids is not None:
        pending = pending.filter(pk__in=chunk_ids)
    ids = list(pending.order_by("pk").values_list("pk", flat=True))
    done = 0
    for start in range(0, len(ids), batch_size):
        batch = list(
            Chunk.objects.filter(pk__in=ids[start : start + batch_size])
            .only("pk", "kind", "titel", "text", "position", "content_hash")
            .order_by("pk")
        )
        vectors: dict[int, list[float]] = {}
        missing = []
        for chunk in batch:
            cached = cache.get(chunk.content_hash) if cache else None
            if cached is not None:
                vectors[chunk.pk] = cached
            else:
                missing.append(chunk)
        if missing:
            for chunk, vector in zip(missing, backend.embed_passages([embed_input(c) for c in missing]), strict=True):
                vectors[chunk.pk] = vector
        _embeddings_write(vectors, backend)
        done += len(batch)
        if progress:
            progress(len(batch))
    return done


def _embeddings_write(vectors: dict[int, list[float]], backend: EmbeddingBackend) -> None:
    """Store the vectors (chunk id → vector) of `backend`'s model in one UPDATE. Django's
    bulk_update builds a CASE expression per row and field: for the corpus's 25,000 chunks that was
    30 s of Python on two cores, half of a first start's embedding step."""
    from django.db import connection

    ids = list(vectors)
    # 9 significant digits restore a float32 exactly (the column's precision)
    literals = ["[" + ",".join(format(x, ".9g") for x in vectors[pk]) + "]" for pk in ids]
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE recherche_chunk c SET embedding = v.embedding::vector, embedding_model = %s, embedding_dim = %s "
            "FROM unnest(%s::bigint[], %s::text[]) AS v(id, embedding) WHERE c.id = v.id",
            [backend.name, backend.dim, ids, literals],
        )


def dokument_index_and_embed(dokument: Dokument, *, backend: EmbeddingBackend) -> None:
    """Index a document and embed its chunks; an unavailable backend leaves them for later."""
    dokument_index(dokument)
    try:
        chunks_embed_pending(backend=backend, chunk_ids=list(dokument.chunks.values_list("pk", flat=True)))
    except EmbeddingUnavailable:
        logger.warning("embedding backend unavailable; document %s is searchable by full text only", dokument.pk)


def _vector_index_name(kind: str, model_name: str) -> str:
    return f"chunk_hnsw_{kind.lower()}_{content_hash(model_name)[:10]}"


# A kind with at least this many chunks to embed and none embedded yet under the model (a first
# start, a new model) gets its HNSW index built once after the vectors are written: inserting
# 25,000 vectors one by one into the graph cost the first start about 20 s, the build takes 5 s.
INDEX_AFTER_EMBEDDING_MIN = 1000


def vector_indexes_drop_for_first_embedding(*, model_name: str, kinds: list[str]) -> list[str]:
    """Drop the HNSW index of each of `kinds` that has no chunk embedded under `model_name` yet and
    at least INDEX_AFTER_EMBEDDING_MIN chunks waiting: no search can use it before the embedding
    anyway. `vector_indexes_ensure` builds it again afterwards (also after an interrupted run: until
    then the vector search scans all vectors: slower, and exact instead of approximate). Outside transactions
    only, like `vector_indexes_ensure`; returns the names of the dropped indexes."""
    from django.db import connection

    if connection.in_atomic_block:
        return []
    dropped = []
    with connection.cursor() as cursor:
        for kind in kinds:
            if Chunk.objects.filter(kind=kind, embedding_model=model_name).exists():
                continue
            if Chunk.objects.filter(kind=kind).count() < INDEX_AFTER_EMBEDDING_MIN:
                continue
            name = _vector_index_name(kind, model_name)
            cursor.execute(f"DROP INDEX IF EXISTS {name}")  # noqa: S608 - the name is ours
            dropped.append(name)
    return dropped


def vector_indexes_ensure(*, model_name: str, dim: int) -> list[str]:
    """One partial HNSW index per chunk kind for `model_name`, so a search of one kind and model
    is an index scan. Idempotent; returns the names of the indexes created now.

    Runs outside transactions only (PostgreSQL refuses CREATE INDEX next to pending deferred
    constraint checks); the indexes of the default model come with the migrations.
    """
    from django.db import connection

    if connection.in_atomic_block:
        return []
    names = []
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'recherche_chunk'")
        existing = {row[0] for row in cursor.fetchall()}
        for kind in Chunk.Kind.values:
            name = _vector_index_name(kind, model_name)
            if name in existing:
                continue
            cursor.execute(
                f"CREATE INDEX IF NOT EXISTS {name} ON recherche_chunk "  # noqa: S608 - name/dim are ours
                f"USING hnsw ((embedding::vector({int(dim)})) vector_cosine_ops) "
                "WHERE embedding_model = %s AND kind = %s",
                [model_name, kind],
            )
            names.append(name)
    return names


@transaction.atomic
def chunk_postings_rebuild() -> int:
    """Empty and refill the full-text postings (recherche_chunk_posting) from the chunks' search
    vectors; the number of postings. The triggers of migration 0006 keep them in step on every
    write; this is for a write that bypassed them (triggers disabled, `pg_restore --data-only` into
    a database that has them), which would leave postings that rank by text that is gone."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE recherche_chunk_posting")
        cursor.execute(
            "INSERT INTO recherche_chunk_posting (chunk_id, lexem, tf, titel, len) "
            "SELECT c.id, u.lexeme, COALESCE(cardinality(u.positions), 1), 'A' = ANY(u.weights), length(c.search_vector) "
            "FROM recherche_chunk c CROSS JOIN LATERAL unnest(c.search_vector) AS u(lexeme, positions, weights)"
        )
        count = cursor.rowcount
        cursor.execute("ANALYZE recherche_chunk_posting")
    return count


# The statistics row that holds the average number of distinct lexemes of a chunk of the kind (for
# the length normalisation of full-text scores); a space never occurs in a lexeme.
AVERAGE_LENGTH_LEXEM = " avg_length"


@transaction.atomic
def lexem_statistik_refresh(*, kind: str) -> int:
    """Recompute the document frequencies of all lexemes of one chunk kind (after ingestion)."""
    from django.db import connection

    LexemStatistik.objects.filter(kind=kind).delete()
    inner = f"SELECT search_vector FROM recherche_chunk WHERE kind = '{Chunk.Kind(kind).value}'"  # noqa: S608 - enum value
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO recherche_lexemstatistik (kind, lexem, ndoc) SELECT %s, word, ndoc FROM ts_stat(%s) "
            "WHERE length(word) <= 200",
            [kind, inner],
        )
        cursor.execute("SELECT count(*), COALESCE(avg(length(search_vector)), 0) FROM recherche_chunk WHERE kind = %s", [kind])
        total, average_length = cursor.fetchone()
        # The planner's picture of the full-text postings after a large ingestion (before autovacuum).
        cursor.execute("ANALYZE recherche_chunk_posting")
    LexemStatistik.objects.create(kind=kind, lexem="", ndoc=total)
    LexemStatistik.objects.create(kind=kind, lexem=AVERAGE_LENGTH_LEXEM, ndoc=max(1, round(average_length)))
    return int(total)
