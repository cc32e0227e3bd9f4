"""Parser for statutes in the Markdown format of the `bundestag/gesetze` corpus.

A file has a YAML front matter (`Title`, `jurabk`, `amtabk`, `slug`, `bjnr`), then headings: the law's title (`#`),
structure headings (Buch, Abschnitt, Titel, ... at varying depth) and one heading per section
(`§ 573c Überschrift`, `Art 1`, `(XXXX) §§ 3 bis 6 (weggefallen)`, `Anlage 2 (zu § 13 ...)`), each
followed by its text. Empty headings (`##`) occur inside annexes and continue the current section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

NORM_HEADING = re.compile(r"^(?:\(XXXX\)\s*)?(?P<art>§§?|Art\.?|Artikel|Anlage)(?=[\s\d(]|$)\s*(?P<rest>.*)$")
NUMBER = re.compile(r"^(?P<nummer>\d+[a-z]*(?:\s*(?:bis|und|,)\s*\d+[a-z]*)*)\s*(?P<titel>.*)$")
HEADING = re.compile(r"^(?P<hashes>#{1,6})\s*(?P<text>.*?)\s*$")
# The nouns of a statute's outline ("Buch 1", "Erster Teil", "Titel 2", "Unterabschnitt 3"). The
# source's heading levels are not reliable (BGB: "Titel 1" at level 4, "Titel 2" at level 5; Markdown
# has six levels, so "Untertitel" and "Kapitel" share the last): a heading of a kind already in the
# path replaces that entry and what lies below it.
OUTLINE_KIND = re.compile(
    r"^(?:\S+\s+){0,2}?(?P<kind>Buch|Teil|Unterteil|Hauptteil|Kapitel|Unterkapitel|Abschnitt|Unterabschnitt"
    r"|Hauptabschnitt|Hauptstück|Titel|Untertitel|Abteilung|Unterabteilung)(?![\wäöüß])"
)
# Outline headings numbered without a noun: "II. Der Bund und die Länder" (GG), "VIIIa.", "4a.", "a)", "B.".
OUTLINE_NUMBERING = (
    ("I.", re.compile(r"^[IVXL]+\s?[a-z]?\.\s")),
    ("1.", re.compile(r"^\d+[a-z]?\.\s")),
    ("a)", re.compile(r"^[a-z]\)\s")),
    ("A.", re.compile(r"^[A-Z]\.\s")),
)
MAX_HEADING_LEVEL = 6
STAND_KEYS = ("Zuletzt geändert durch", "Neugefasst durch", "Stand")
UNAMENDED = "Ursprüngliche Fassung vom {datum} (keine Änderung vermerkt)"


@dataclass
class ParsedNorm:
    art: str
    nummer: str
    titel: str
    gliederung: str
    text: str
    aufgehoben: bool
    position: int


@dataclass
class ParsedGesetz:
    abkuerzung: str
    titel: str
    slug: str
    stand: str
    normen: list[ParsedNorm] = field(default_factory=list)
    aliase: list[str] = field(default_factory=list)
    bjnr: str = ""


ROMAN = {
    1: "I", 2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI", 7: "VII", 8: "VIII", 9: "IX", 10: "X", 11: "XI", 12: "XII",
    13: "XIII", 14: "XIV",
}  # fmt: skip


def canonical_abkuerzung(raw: str) -> str:
    """The abbreviation lawyers cite: without the corpus' year suffix ("GKG 2004" → "GKG") and with
    the Sozialgesetzbuch's books in roman numerals ("SGB 2" → "SGB II")."""
    abk = re.sub(r"\s+\d{4}$", "", re.sub(r"\s+", " ", raw.strip()))
    book = re.fullmatch(r"SGB (\d{1,2})", abk)
    if book and int(book[1]) in ROMAN:
        return f"SGB {ROMAN[int(book[1])]}"
    return abk


def _aliases(canonical: str, *raw: str) -> list[str]:
    """Other spellings a citation may use: the juris abbreviation ("WoEigG" for the WEG, "TTDSG"
    for the TDDDG), with and without year, the SGB book in arabic numerals ("SGB 2")."""
    found: list[str] = []
    for value in raw:
        value = re.sub(r"\s+", " ", value.strip())
        for candidate in (value, re.sub(r"\s+\d{4}$", "", value)):
            if candidate and candidate != canonical and candidate not in found:
                found.append(candidate)
    return found


def _clean(lines: list[str]) -> str:
    """Join wrapped lines into paragraphs, keep paragraph breaks."""
    paragraphs: list[str] = []
    current: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped:
            if current:
                paragraphs.append(" ".join(current))
                current = []
            continue
        current.append(re.sub(r"\s+", " ", stripped))
    if current:
        paragraphs.append(" ".join(current))
    return "\n\n".join(paragraphs)


def _norm_parts(heading: str) -> tuple[str, str, str] | None:
    match = NORM_HEADING.match(heading)
    if not match:
        return None
    raw_art, rest = match["art"], match["rest"].strip()
    art = {"§": "§", "§§": "§", "Art": "Art.", "Art.": "Art.", "Artikel": "Art.", "Anlage": "Anlage"}[raw_art]
    number = NUMBER.match(rest)
    if number:
        return art, re.sub(r"\s+", " ", number["nummer"]), number["titel"].strip()
    if art == "Anlage":
        return art, "1", rest
    return None


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """The YAML front matter and the rest. It ends at a line `---` or, in files whose exporter
    left that out, at the first heading."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, text
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() == "---" or line.startswith("#"):
            front = yaml.safe_load("".join(lines[1:index])) or {}
            rest = lines[index + 1 :] if line.strip() == "---" else lines[index:]
            return front, "".join(rest)
    return {}, text


# A line of a section that is wholly repealed: "(weggefallen)", also as an Absatz ("(1) (weggefallen)").
_REPEALED_LINE = re.compile(r"(?:\(\d+[a-z]?\)\s*)?\(weggefallen\)")


def _only_repealed(text: str) -> bool:
    """Whether every line of a section's text says it is repealed (§ 847 BGB: "(1) (weggefallen)");
    a section with one repealed Absatz among others stays in force."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return bool(lines) and all(_REPEALED_LINE.fullmatch(line) for line in lines)


def parse_gesetz(text: str, *, fallback_slug: str = "") -> ParsedGesetz:
    front, body = split_front_matter(text)
    jurabk = str(front.get("jurabk") or fallback_slug)
    amtabk = str(front.get("amtabk") or "")
    abkuerzung = canonical_abkuerzung(amtabk or jurabk)
    gesetz = ParsedGesetz(
        abkuerzung=abkuerzung,
        titel=str(front.get("Title") or abkuerzung).strip(),
        slug=str(front.get("slug") or fallback_slug).strip(),
        stand="",
        aliase=_aliases(abkuerzung, amtabk, jurabk),
        bjnr=str(front.get("bjnr") or "").strip(),
    )
    # the outline above the next section: (kind or "", heading level, heading)
    structure: list[tuple[str, int, str]] = []
    preamble: list[str] = []
    current: ParsedNorm | None = None
    current_lines: list[str] = []
    seen_title = False
    # The last article heading (level, number, heading): in the EGBGB an article holds sections
    # ("Art 246a" with "§ 1", "§ 2", ...) cited as "Art. 246a § 1 EGBGB"; they become norms of that
    # number, not "§ 1" of the statute (which would collide across articles).
    article: tuple[int, str, str] | None = None

    def finish() -> None:
        nonlocal current, current_lines
        if current is not None:
            current.text = _clean(current_lines)
            if current.text.strip("- ") == "" or "(weggefallen)" in current.titel or _only_repealed(current.text):
                current.aufgehoben = True
            gesetz.normen.append(current)
        current, current_lines = None, []

    for line in body.splitlines():
        heading = HEADING.match(line)
        if not heading:
            if current is not None:
                current_lines.append(line)
            elif not structure:
                preamble.append(line)
            continue
        level, heading_text = len(heading["hashes"]), heading["text"]
        if not heading_text:  # empty heading inside an annex: the section continues
            continue
        if not seen_title and level == 1:
            seen_title = True
            continue
        parts = _norm_parts(heading_text)
        if parts is None:
            finish()
            structure = _outline_push(structure, heading_text, level)
            if article is not None and level <= article[0]:
                article = None
            continue
        art, nummer, titel = parts
        outline = [text for _, _, text in structure]
        inside = article is not None and level > article[0]
        if art == "Art." and inside and article is not None and nummer == article[1]:
            continue  # the article's number repeated as a heading of its own ("Art 248" under "Art 248 …")
        finish()
        if art == "§" and inside and article is not None:
            art, nummer = "Art.", f"{article[1]} § {nummer}"
            outline.append(article[2])
        elif art == "Art.":
            article = (level, nummer, heading_text)
        else:
            article = None
        gliederung = " › ".join(outline)
        current = ParsedNorm(
            art=art,
            nummer=nummer,
            titel=titel,
            gliederung=gliederung,
            text="",
            aufgehoben=False,
            position=len(gesetz.normen),
        )
    finish()
    gesetz.stand = _stand(preamble)
    return gesetz


def _outline_push(structure: list[tuple[str, int, str]], heading: str, level: int) -> list[tuple[str, int, str]]:
    """The outline after `heading` (at Markdown `level`): a kind already in it ("Titel 2" after
    "Titel 1") replaces that entry and everything below; otherwise the levels decide, where the
    last level holds several kinds ("Untertitel", then "Kapitel" inside it)."""
    match = OUTLINE_KIND.match(heading)
    kind = match["kind"] if match else next((style for style, pattern in OUTLINE_NUMBERING if pattern.match(heading)), "")
    kinds = [entry[0] for entry in structure]
    if kind and kind in kinds:
        kept = structure[: kinds.index(kind)]
    else:
        kept = [e for e in structure if e[1] < level or (e[1] == level == MAX_HEADING_LEVEL and e[0] and kind)]
    return [*kept, (kind, level, heading)]


def _stand(preamble: list[str]) -> str:
    """The version line ("Zuletzt geändert durch Art. 2 G v. 14.6.2021 I 1762") from the preamble."""
    for index, line in enumerate(preamble):
        if line.strip() in STAND_KEYS:
            for value in preamble[index + 1 :]:
                if value.strip().startswith(":"):
                    return f"{line.strip()} {value.strip().lstrip(':').strip()}"
    # Never amended (WoFlV of 2003): the source names no change, only the Ausfertigung.
    for index, line in enumerate(preamble):
        if line.strip() == "Ausfertigungsdatum":
            for value in preamble[index + 1 :]:
                match = re.fullmatch(r":\s*(\d{4})-(\d{2})-(\d{2})", value.strip())
                if match:
                    return UNAMENDED.format(datum=f"{int(match[3])}.{int(match[2])}.{match[1]}")
                if value.strip():
                    break
    return ""


def parse_file(path: Path) -> ParsedGesetz:
    return parse_gesetz(path.read_text(encoding="utf-8"), fallback_slug=path.stem)
