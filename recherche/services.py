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

from .embeddings import EmbeddingBackend, EmbeddingUnavailable, content_hash
from .gesetze_parser import ParsedGesetz, parse_file
from .models import Chunk, Gesetz, LexemStatistik, Muster, Norm, Urteil
from .vector_cache import VectorCache

logger = logging.getLogger(__name__)

# Of decisions, templates and documents the embedding model sees a chunk's title and the start of
# its text; e5-small reads at most 512 tokens anyway, and full-text search covers the whole text.
EMBED_CHARS = 700
CHUNK_CHARS = 1500
CHUNK_OVERLAP = 200
# A norm chunk's title is "<citation> <heading> – <statute> › <outline>". Full text searches all of
# it; the embedding sees the citation, the heading and the whole chunk (at most CHUNK_CHARS, within
# the model's 512 tokens), not the outline: shared by every section of a chapter, it made their
# vectors alike, and text past EMBED_CHARS went unseen (both measured in bench/retrieval.py).
NORM_OUTLINE_SEPARATOR = " – "
# Part of each statute file's hash: raise it when chunking or the embedding input of norms changes,
# so that the next ingestion re-indexes every statute (vectors come from the shipped cache).
NORM_INDEX_VERSION = "2"


@dataclass
class IngestStats:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0

    def __str__(self) -> str:
        return f"{self.created} neu, {self.updated} geändert, {self.unchanged} unverändert, {self.deleted} entfernt"


def embed_input(chunk: Chunk) -> str:
    """The text the embedding model sees for `chunk` (its content hash keys the vector cache)."""
    if chunk.kind == Chunk.Kind.NORM:
        return f"{chunk.titel.split(NORM_OUTLINE_SEPARATOR, 1)[0]}\n{chunk.text}".strip()
    return f"{chunk.titel}\n{chunk.text[:EMBED_CHARS]}".strip()


def _sync_chunks(existing: Iterable[Chunk], wanted: list[Chunk], stats: IngestStats) -> None:
    """Make the stored chunks of one source equal to `wanted` (matched by position). A chunk whose
    text changed loses its embedding, so only changed text is embedded again."""
    by_position = {chunk.position: chunk for chunk in existing}
    for chunk in wanted:
        chunk.content_hash = content_hash(embed_input(chunk))
        old = by_position.pop(chunk.position, None)
        if old is None:
            chunk.save()
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


def split_text(text: str, size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP) -> list[str]:
    """Split at paragraph boundaries into pieces of about `size` characters, with overlap."""
    text = text.strip()
    if len(text) <= size:
        return [text] if text else []
    pieces, start = [], 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = max(text.rfind("\n\n", start + size // 2, end), text.rfind(". ", start + size // 2, end))
            if cut > start:
                end = cut + 1
        pieces.append(text[start:end].strip())
        if end >= len(text):
            break
        start = max(end - overlap, start + 1)
    return [p for p in pieces if p]


def gesetz_ingest_file(path: Path) -> tuple[ParsedGesetz | None, IngestStats]:
    """Ingest one statute file; a file already ingested unchanged is skipped without parsing."""
    source_hash = content_hash(NORM_INDEX_VERSION + path.read_text(encoding="utf-8"))
    if Gesetz.objects.filter(quelle_hash=source_hash).exists():
        return None, IngestStats()
    parsed = parse_file(path)
    return parsed, gesetz_ingest(parsed, source_hash=source_hash)


@transaction.atomic
def gesetz_ingest(parsed: ParsedGesetz, *, source_hash: str = "") -> IngestStats:
    """Create or update one statute with its norms and their chunks (one chunk per norm)."""
    stats = IngestStats()
    gesetz, _ = Gesetz.objects.update_or_create(
        abkuerzung=parsed.abkuerzung,
        defaults={"titel": parsed.titel, "slug": parsed.slug, "stand": parsed.stand, "quelle_hash": source_hash},
    )
    norms = {n.position: n for n in Norm.objects.filter(gesetz=gesetz)}
    chunks: dict[int, list[Chunk]] = {}
    for chunk in Chunk.objects.filter(kind=Chunk.Kind.NORM, norm__gesetz=gesetz):
        chunks.setdefault(chunk.norm_id, []).append(chunk)
    for item in parsed.normen:
        fields = {
            "art": item.art,
            "nummer": item.nummer,
            "titel": item.titel[:500],
            "gliederung": item.gliederung[:800],
            "text": item.text,
            "aufgehoben": item.aufgehoben,
        }
        norm = norms.pop(item.position, None)
        if norm is None:
            norm = Norm.objects.create(gesetz=gesetz, position=item.position, **fields)
        elif any(getattr(norm, k) != v for k, v in fields.items()):
            for key, value in fields.items():
                setattr(norm, key, value)
            norm.save()
        heading = f"{item.art} {item.nummer} {gesetz.abkuerzung} {item.titel}"
        titel = f"{heading}{NORM_OUTLINE_SEPARATOR}{gesetz.titel} › {item.gliederung}"[:800]
        pieces = [] if norm.aufgehoben else (split_text(item.text) or [item.titel])
        wanted = [Chunk(kind=Chunk.Kind.NORM, norm=norm, position=i, titel=titel, text=piece) for i, piece in enumerate(pieces)]
        _sync_chunks(chunks.get(norm.pk, []), wanted, stats)
    for stale in norms.values():
        stale.delete()
        stats.deleted += 1
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
        batch = list(Chunk.objects.filter(pk__in=ids[start : start + batch_size]).order_by("pk"))
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
        for chunk in batch:
            chunk.embedding = vectors[chunk.pk]
            chunk.embedding_model = backend.name
            chunk.embedding_dim = backend.dim
        Chunk.objects.bulk_update(batch, ["embedding", "embedding_model", "embedding_dim"])
        done += len(batch)
        if progress:
            progress(len(batch))
    return done


def dokument_index_and_embed(dokument: Dokument, *, backend: EmbeddingBackend) -> None:
    """Index a document and embed its chunks; an unavailable backend leaves them for later."""
    dokument_index(dokument)
    try:
        chunks_embed_pending(backend=backend, chunk_ids=list(dokument.chunks.values_list("pk", flat=True)))
    except EmbeddingUnavailable:
        logger.warning("embedding backend unavailable; document %s is searchable by full text only", dokument.pk)


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
    model_key = content_hash(model_name)[:10]
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'recherche_chunk'")
        existing = {row[0] for row in cursor.fetchall()}
        for kind in Chunk.Kind.values:
            name = f"chunk_hnsw_{kind.lower()}_{model_key}"
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
    total = Chunk.objects.filter(kind=kind).count()
    LexemStatistik.objects.create(kind=kind, lexem="", ndoc=total)
    return total
