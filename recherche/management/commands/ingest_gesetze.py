from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from recherche.embeddings import EmbeddingUnavailable, get_backend
from recherche.models import Chunk
from recherche.services import chunks_embed_pending, gesetz_ingest_file, lexem_statistik_refresh, vector_indexes_ensure
from recherche.vector_cache import VectorCache

from ._progress import progress_bar


class Command(BaseCommand):
    help = "Liest Gesetze im Markdown-Format (eine Datei je Gesetz) ein und bettet geänderte Normen ein."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="Verzeichnis mit *.md-Dateien oder eine einzelne Datei")
        parser.add_argument("--only", nargs="*", default=None, help="nur diese Dateien (ohne .md), z. B. bgb zpo")
        parser.add_argument("--no-embed", action="store_true", help="nur Volltext; Einbettung später mit embed_chunks")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["path"])
        files = sorted(path.glob("*.md")) if path.is_dir() else [path]
        if options["only"]:
            files = [f for f in files if f.stem in set(options["only"])]
        files = [f for f in files if f.name.lower() != "readme.md"]
        if not files:
            raise CommandError(f"Keine Gesetzesdateien unter {path} gefunden.")
        with progress_bar(len(files), "Gesetze") as bar:
            for file in files:
                parsed, stats = gesetz_ingest_file(file)
                bar.update(1)
                if parsed is None:
                    self.stdout.write(f"{file.name}: unverändert")
                else:
                    self.stdout.write(f"{parsed.abkuerzung}: {len(parsed.normen)} Normen; Abschnitte {stats}")
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
    cache = VectorCache.load(backend.name)
    try:
        with progress_bar(total, f"Einbettung ({backend.name})") as bar:
            done = chunks_embed_pending(backend=backend, kinds=kinds, cache=cache, progress=bar.update)
    except EmbeddingUnavailable as exc:
        command.stderr.write(f"Einbettung nicht möglich ({exc}); die Suche nutzt bis dahin nur den Volltext.")
        return
    vector_indexes_ensure(model_name=backend.name, dim=backend.dim)
    command.stdout.write(f"{done} Abschnitte eingebettet ({backend.name}).")
