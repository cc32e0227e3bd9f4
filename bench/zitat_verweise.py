"""False alarms of the Satz and Nummer check, measured on the law's own references.

    .venv/bin/python bench/zitat_verweise.py [DIR]

The statutes cite their own sections thousands of times ("nach § 573 Absatz 2 Nummer 2", "§ 626
Absatz 2 Satz 1"). Such a reference is almost always valid in the current text, so every one that
`recherche.citations` would flag (no such Nummer, more Sätze than the Absatz has) is a candidate
false alarm. References to other statutes ("§ 115 Absatz 1 des Zehnten Buches …") and to earlier
versions ("in der bis zum … geltenden Fassung") are left out as far as the words after them show;
what remains flagged has to be read one by one (the README lists the result of that reading).

Prints the figures and each flagged reference; saves them to bench/results/zitat_verweise.json.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "zitat_verweise.json"
CORPUS = ROOT / "recherche" / "data" / "gesetze"

# "§ 573 Absatz 2 Nummer 4", "§ 626 Abs. 2 Satz 1", "§ 15 Absatz 1 Satz 1 Nummer 2"; not "Artikel 3 § 2".
REFERENCE_RE = re.compile(
    r"(?<!Artikel )(?<!Art\. )§ (?P<section>\d{1,4}[a-z]?)(?: (?:Absatz|Abs\.) (?P<absatz>\d{1,3}[a-z]?))?"
    r"(?: (?:Satz|S\.) (?P<satz>\d{1,3})(?![\wäöüß]))?(?: (?:Nummer|Nr\.) (?P<nummer>\d{1,3}[a-z]?)(?![\wäöüß]))?"
    r"(?P<after>[^§]{0,90})"
)
# The words after a reference that make it one to another statute or to another version.
ELSEWHERE_RE = re.compile(
    r"\b(?:des|der|dem)\s+(?:\S+\s+){0,3}?\S*(?:[Gg]esetz|Buch|[Oo]rdnung|[Vv]ertrag|[Aa]bkommen)"
    r"|Fassung|in der (?:bis|vor|am|ab)\b|[A-Z][A-Za-z]*G\b"
)


@dataclass(frozen=True)
class Flagged:
    gesetz: str
    in_section: str
    reference: str
    grund: str


def check_internal_references(paths: list[Path]) -> tuple[dict[str, int], list[Flagged]]:
    """Every internal reference with a Satz or a Nummer in `paths` (corpus Markdown files), checked
    like a citation in an answer; returns the counts and the flagged references."""
    from recherche.citations import Ziel, _subdivision_missing
    from recherche.gesetze_parser import parse_file

    counts = {"verweise": 0, "nummer_geprueft": 0, "satz_geprueft": 0, "gemeldet": 0}
    flagged: list[Flagged] = []
    for path in paths:
        gesetz = parse_file(path)
        texts: dict[str, str] = {}
        for norm in gesetz.normen:
            if norm.art == "§" and not norm.aufgehoben:
                texts.setdefault(norm.nummer, norm.text)
        for norm, match in _references(gesetz.normen):
            text = texts.get(match["section"])
            if text is None:
                continue
            detail = " ".join(
                part
                for part in (f"S. {match['satz']}" if match["satz"] else "", f"Nr. {match['nummer']}" if match["nummer"] else "")
                if part
            )
            target = Ziel("§", match["section"], gesetz.abkuerzung, absatz=match["absatz"] or "", detail=detail)
            counts["verweise"] += 1
            counts["nummer_geprueft" if match["nummer"] else "satz_geprueft"] += 1
            grund = _subdivision_missing(target, text, gesetz=gesetz.abkuerzung)
            if grund:
                counts["gemeldet"] += 1
                flagged.append(Flagged(gesetz.abkuerzung, norm.nummer, match.group(0)[:90].strip(), grund))
    return counts, flagged


def _references(normen: list) -> Iterator[tuple[object, re.Match[str]]]:
    for norm in normen:
        for match in REFERENCE_RE.finditer(norm.text):
            if (match["satz"] or match["nummer"]) and not ELSEWHERE_RE.search(match["after"]):
                yield norm, match


def main() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "helena.settings.dev")
    import django

    django.setup()
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS
    counts, flagged = check_internal_references(sorted(corpus.glob("*.md")))
    for item in flagged:
        print(f"{item.gesetz} § {item.in_section}: {item.reference!r} → {item.grund}")
    print(json.dumps(counts, ensure_ascii=False))
    RESULTS.write_text(
        json.dumps(
            {
                "corpus": str(corpus.relative_to(ROOT)) if corpus.is_relative_to(ROOT) else str(corpus),
                **counts,
                "gemeldet_im_einzelnen": [vars(item) for item in flagged],
            },
            ensure_ascii=False,
            indent=1,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
