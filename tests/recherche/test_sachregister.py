"""The Sachregister (recherche/data/sachregister.txt): well-formed, one entry per norm, each for a
section of the shipped corpus that is in force."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from recherche import sachregister
from recherche.gesetze_parser import parse_file

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
