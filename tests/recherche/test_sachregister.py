"""The Sachregister (recherche/data/sachregister.txt): well-formed, one entry per norm, each for a
section of the shipped corpus that is in force, and each a chunk of its norm once ingested."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from django.core.management import call_command

from recherche import sachregister
from recherche.chunking import SACHREGISTER_POSITION, norm_chunk_pieces
from recherche.gesetze_parser import parse_file
from recherche.models import Chunk

GESETZE = Path(__file__).resolve().parents[2] / "recherche" / "data" / "gesetze"


@pytest.fixture(scope="module")
def corpus_normen() -> dict[tuple[str, str, str], bool]:
    """(art, nummer, abbreviation) → repealed, for every section of the shipped corpus."""
    normen = {}
    for path in sorted(GESETZE.glob("*.md")):
        parsed = parse_file(path)
        for item in parsed.normen:
            normen[(item.art, item.nummer, parsed.abkuerzung)] = item.aufgehoben
    return normen


def test_every_line_is_an_entry_a_comment_or_empty():
    entries, malformed = sachregister.parse(sachregister.source())
    assert malformed == []
    assert len(entries) > 300
    assert all(entry.text and not entry.text.endswith(";") for entry in entries)


def test_no_norm_has_two_entries():
    entries, _ = sachregister.parse(sachregister.source())
    assert [zitat for zitat, count in Counter(entry.zitat for entry in entries).items() if count > 1] == []


def test_every_entry_names_a_section_of_the_corpus_that_is_in_force(corpus_normen):
    entries, _ = sachregister.parse(sachregister.source())
    missing = [entry.zitat for entry in entries if entry.key not in corpus_normen]
    repealed = [entry.zitat for entry in entries if corpus_normen.get(entry.key)]
    assert missing == []
    assert repealed == []


def test_parse_reports_malformed_lines():
    entries, malformed = sachregister.parse(
        "# Kommentar\n\n§ 626 BGB = Chef hat mich rausgeworfen\nChef hat mich rausgeworfen\n§ 626 = ohne Gesetz\n"
    )
    assert [(entry.zitat, entry.text, entry.line) for entry in entries] == [("§ 626 BGB", "Chef hat mich rausgeworfen", 3)]
    assert malformed == [4, 5]


def test_an_entry_is_one_more_chunk_of_its_section_but_never_of_a_repealed_one():
    assert norm_chunk_pieces(text="Text", titel="Titel", aufgehoben=False, register="Chef") == [
        (0, "Text"),
        (SACHREGISTER_POSITION, "Chef"),
    ]
    assert norm_chunk_pieces(text="Text", titel="Titel", aufgehoben=False, register="") == [(0, "Text")]
    assert norm_chunk_pieces(text="", titel="Titel", aufgehoben=True, register="Chef") == []


@pytest.mark.django_db
def test_ingestion_stores_the_entries_as_chunks_of_their_norms():
    call_command("ingest_gesetze", str(GESETZE), "--only", "kschg", "--no-embed", verbosity=0)
    chunk = Chunk.objects.get(norm__gesetz__abkuerzung="KSchG", norm__nummer="4", position=SACHREGISTER_POSITION)
    assert chunk.text == sachregister.by_norm()[("§", "4", "KSchG")]
    assert chunk.kind == Chunk.Kind.NORM and chunk.titel.startswith("§ 4 KSchG")
