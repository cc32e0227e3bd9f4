from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from helena.command_base import GermanBaseCommand
from recherche.embeddings import EmbeddingUnavailable, get_backend
from recherche.models import Chunk, Gesetz
from recherche.services import (
    chunks_embed_pending,
    gesetz_ingest_file,
    lexem_statistik_refresh,
    vector_indexes_drop_for_first_embedding,
    vector_indexes_ensure,
)
from recherche.vector_cache import VectorCache

from ._progress import progress_bar

# Chunks per round of embedding: mostly vectors from the shipped cache, written with one UPDATE.
EMBED_BATCH = 200


def _utf8(file: Path) -> bool:
    try:
        file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return True


class Command(GermanBaseCommand):
    help = (
        "Liest Gesetze im Markdown-Format (eine Datei je Gesetz, Vorspann mit jurabk/amtabk/slug) aus einem "
        "beliebigen Verzeichnis ein, meldet, was sich geändert hat, und bettet geänderte Normen ein."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", metavar="pfad", help="Verzeichnis mit *.md-Dateien oder eine einzelne Datei")
        parser.add_argument(
            "--only", nargs="*", default=None, metavar="DATEI", help="nur diese Dateien (ohne .md), z. B. bgb zpo"
        )
        parser.add_argument("--no-embed", action="store_true", help="nur Volltext; Einbettung später mit embed_chunks")
        parser.add_argument(
            "--prune", action="store_true", help="Gesetze löschen, die nicht (mehr) im Verzeichnis stehen (nur ohne --only)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["path"])
        if not path.exists():
            raise CommandError(f"{path} gibt es nicht.")
        files = sorted(path.glob("*.md")) if path.is_dir() else [path]
        unreadable = [file.name for file in files if not _utf8(file)]
        if unreadable:
            raise CommandError(f"Nicht als UTF-8-Text lesbar: {', '.join(unreadable)}.")
        if options["only"]:
            files = [f for f in files if f.stem in set(options["only"])]
        files = [f for f in files if f.name.lower() != "readme.md"]
        if not files:
            raise CommandError(f"Keine Gesetzesdateien unter {path} gefunden.")
        seen: set[str] = set()
        changed = 0
        with progress_bar(len(files), "Gesetze") as bar:
            for file in files:
                parsed, stats, abkuerzung = gesetz_ingest_file(file)
                seen.add(abkuerzung)
                bar.update(1)
                if parsed is None:
                    self.stdout.write(f"{abkuerzung}: unverändert")
                    continue
                changed += 1
                self.stdout.write(
                    f"{parsed.abkuerzung}: {len(parsed.normen)} Normen ({stats.normen}); Abschnitte {stats}; "
                    f"Stand: {parsed.stand or 'unbekannt'}"
                )
        missing = [] if options["only"] or not path.is_dir() else list(Gesetz.objects.exclude(abkuerzung__in=seen))
        for gesetz in missing:
            if options["prune"]:
                gesetz.delete()
                self.stdout.write(f"{gesetz.abkuerzung}: entfernt (nicht mehr im Verzeichnis)")
            else:
                self.stdout.write(f"{gesetz.abkuerzung}: nicht im Verzeichnis (bleibt; --prune entfernt es)")
        self.stdout.write(f"{len(files)} Dateien, {changed} geändert, {len(files) - changed} unverändert.")
        if changed or (missing and options["prune"]):
            lexem_statistik_refresh(kind=Chunk.Kind.NORM)
        if not options["no_embed"]:
            embed(self, kinds=[Chunk.Kind.NORM])


def embed(command: BaseCommand, *, kinds: list[str] | None = None) -> None:
    """Embed pending chunks with the configured backend, using the shipped vector cache."""
    backend = get_backend()
    pending = Chunk.objects.exclude(embedding_model=backend.name)
    if kinds:
        pending = pending.filter(kind__in=kinds)
    total = pending.count()
    try:
        if total:
            # A first embedding of a kind writes its vectors first; `finally` builds its HNSW index once after.
            vector_indexes_drop_for_first_embedding(model_name=backend.name, kinds=kinds or list(Chunk.Kind.values))
            cache = VectorCache.load(backend.name)
            with progress_bar(total, f"Einbettung ({backend.name})") as bar:
                done = chunks_embed_pending(
                    backend=backend, kinds=kinds, cache=cache, progress=bar.update, batch_size=EMBED_BATCH
                )
            command.stdout.write(f"{done} Abschnitte eingebettet ({backend.name}).")
    except EmbeddingUnavailable as exc:
        command.stderr.write(f"Einbettung nicht möglich ({exc}); die Suche nutzt bis dahin nur den Volltext.")
    finally:
        vector_indexes_ensure(model_name=backend.name, dim=backend.dim)
