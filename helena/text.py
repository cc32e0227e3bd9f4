"""Small text helpers for what people read: titles shortened at a word boundary."""

from __future__ import annotations

ELLIPSIS = "…"


def shorten(text: str, width: int) -> str:
    """`text` on one line, at most `width` characters, cut after a whole word with "…" when too long.

    A single word longer than `width` is cut inside (there is no boundary to cut at)."""
    line = " ".join((text or "").split())
    if len(line) <= width:
        return line
    room = line[: width - len(ELLIPSIS) + 1]
    head = room.rsplit(" ", 1)[0] if " " in room else room[: width - len(ELLIPSIS)]
    return head.rstrip(" ,;:.-–") + ELLIPSIS


def as_id(raw: object) -> int | None:
    """A primary key from user input, or None: ASCII digits only (`str.isdigit` also accepts "²",
    which `int` refuses with a 500), at most 18 of them (within PostgreSQL's bigint)."""
    text = str(raw).strip() if raw is not None else ""
    if not (text.isascii() and text.isdigit() and len(text) <= 18):
        return None
    return int(text)


def zahl(value: int) -> str:
    """A whole number as Germans write it: 13.447, 339.510."""
    return f"{value:,}".replace(",", ".")


# One word's spellings with and without its umlauts and ß: "Weißmüller", "Weissmueller", "Weissmuller".
UMLAUT_FOLDINGS: tuple[tuple[tuple[str, str], ...], ...] = (
    (("ß", "ss"), ("ä", "ae"), ("ö", "oe"), ("ü", "ue")),
    (("ß", "ss"), ("ä", "a"), ("ö", "o"), ("ü", "u")),
)


def umlaut_folded(text: str, folding: tuple[tuple[str, str], ...] = UMLAUT_FOLDINGS[0]) -> str:
    """`text` in one spelling (`folding`): single spaces, case folded, umlauts and ß written out."""
    text = " ".join(text.split()).casefold()
    for letter, spelled in folding:
        text = text.replace(letter, spelled)
    return text
