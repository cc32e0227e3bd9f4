"""How statute sections become search chunks, and what the embedding model sees of them.

Pure functions (no Django): the ingestion uses them, and so does the offline precomputation of the
shipped vectors, so both agree on the exact text whose hash keys a vector.
"""

from __future__ import annotations

CHUNK_CHARS = 1500
CHUNK_OVERLAP = 200
# A norm chunk's title is "<citation> <heading> – <statute> › <outline>". Full text searches all of
# it. The embedding model sees the citation and the heading, never the outline (shared by every
# section of a chapter, it made their vectors alike), and of the text: for a section's first chunk
# its start (NORM_EMBED_CHARS: the section's own vector, like a summary of it), for each later
# chunk of a long section all of it, so that what a later Absatz rules is found by meaning too.
NORM_OUTLINE_SEPARATOR = " – "
NORM_EMBED_CHARS = 600
TITLE_CHARS = 800
# A section's Sachregister entry (recherche/sachregister.py) is one more of its chunks, at this
# position: after every chunk of its text (the longest section has a few hundred).
SACHREGISTER_POSITION = 10_000


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


def norm_chunk_titel(*, art: str, nummer: str, abkuerzung: str, titel: str, gesetz_titel: str, gliederung: str) -> str:
    heading = f"{art} {nummer} {abkuerzung} {titel}".strip()
    return f"{heading}{NORM_OUTLINE_SEPARATOR}{gesetz_titel} › {gliederung}"[:TITLE_CHARS]


def norm_chunk_texts(*, text: str, titel: str, aufgehoben: bool) -> list[str]:
    """The chunk texts of one section: none for a repealed one, the heading for an empty one."""
    if aufgehoben:
        return []
    return split_text(text) or ([titel] if titel else [])


def norm_chunk_pieces(*, text: str, titel: str, aufgehoben: bool, register: str) -> list[tuple[int, str]]:
    """(position, text) of every chunk of one section: its text chunks and, if it has one, its
    Sachregister entry `register` (none for a repealed section)."""
    pieces = list(enumerate(norm_chunk_texts(text=text, titel=titel, aufgehoben=aufgehoben)))
    if register and not aufgehoben:
        pieces.append((SACHREGISTER_POSITION, register))
    return pieces


def norm_embed_input(chunk_titel: str, chunk_text: str, position: int) -> str:
    """What the embedding model sees of a chunk of a section: citation and heading, then the start
    of the text (the first chunk) or the whole chunk (a later one, and the Sachregister entry)."""
    text = chunk_text if position else chunk_text[:NORM_EMBED_CHARS]
    return f"{chunk_titel.split(NORM_OUTLINE_SEPARATOR, 1)[0]}\n{text}".strip()
