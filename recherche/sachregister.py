"""The Sachregister (recherche/data/sachregister.txt): for the norms of everyday practice, the
situations they govern in the words a Mandant uses ("Chef hat mich fristlos rausgeworfen" for
§ 626 BGB), as a legal database indexes its norms.

Each entry becomes one more chunk of its norm (chunking.norm_chunk_pieces), searched by full text
and by vector like the norm's own text; a hit on it counts for the norm, which the search shows,
never the entry. Pure functions (no Django), like chunking: the ingestion and the check of the
shipped vectors read the same entries.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

SACHREGISTER_PATH = Path(__file__).parent / "data" / "sachregister.txt"
ENTRY = re.compile(r"^(?P<art>§|Art\.) (?P<nummer>\d+[a-z]*) (?P<gesetz>\S.*?) = (?P<text>\S.*)$")


@dataclass(frozen=True)
class Entry:
    art: str
    nummer: str
    gesetz: str
    text: str
    line: int

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.art, self.nummer, self.gesetz)

    @property
    def zitat(self) -> str:
        return f"{self.art} {self.nummer} {self.gesetz}"


def parse(text: str) -> tuple[list[Entry], list[int]]:
    """The entries of a Sachregister text and the numbers of the lines that are neither an entry,
    a comment nor empty."""
    entries, malformed = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        match = ENTRY.match(line.strip())
        if match is None:
            malformed.append(number)
            continue
        entries.append(Entry(match["art"], match["nummer"], match["gesetz"], match["text"].strip(), number))
    return entries, malformed


@functools.cache
def source() -> str:
    """The file's text: part of each statute's index hash, so an edited Sachregister re-indexes."""
    return SACHREGISTER_PATH.read_text(encoding="utf-8")


@functools.cache
def by_norm() -> dict[tuple[str, str, str], str]:
    """(art, nummer, statute abbreviation) → the entry's text."""
    return {entry.key: entry.text for entry in parse(source())[0]}
