"""Norm and decision citations in free text: find them, resolve them against the corpus.

Lawyers cite in many forms: "§ 253 II BGB", "Art. 20 III GG", "BGB § 433", "§ 433 bgb",
"§§ 305 ff. BGB", "§ 823 Abs. 1 S. 1 BGB", "§ 280 I, III, § 281 BGB", "§ 626 Abs. 2 BGB i. V. m.
§ 174 BGB", "Paragraf 626 BGB", "§ 3 Abs. 2 Nr. 1 lit. a Hs. 2 Alt. 1 StVO", "Nr. 3100 VV RVG",
"KV 1210 GKG", "§ 7 SGB II", "§ 573 c BGB", "§ 433 des Bürgerlichen Gesetzbuchs", "§ 1 des
Kündigungsschutzgesetzes". `extract` finds each cited target with its span; `resolve` looks every
target up in the corpus and says which section (and Absatz anchor) it is, or that it is not in the
corpus: unknown law, a section that does not exist, a repealed one, an Absatz the section lacks.

The PyPI libraries of the field were evaluated first (issue 13): `legal-reference-extraction`
0.5.5 (openlegaldata) misses "BGB § 433", "§ 433 bgb", "Paragraf", VV/KV numbers, drops § 280 in
"§ 280 I, III, § 281 BGB" and turns "§§ 305 ff." into a section "305f"; `bundesrecht` 0.1.4 parses
one reference string at a time (no extraction from running text) and loses roman Absätze. Neither
resolves exactly, so this module extends the project's own parser.

Pure extraction (`extract`) needs only the known abbreviations; `resolve` and `check_text` read the
database.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from django.db import connection

from .gesetze_parser import canonical_abkuerzung

if TYPE_CHECKING:
    from .models import Urteil

logger = logging.getLogger(__name__)

# Other names lawyers use for statutes of the corpus (the corpus' own aliases come from the files).
EXTRA_ALIASES = {
    "EGBGB": "BGBEG",
    "EGZPO": "ZPOEG",
    "EGGVG": "GVGEG",
    "WoEigG": "WEG",
    "TTDSG": "TDDDG",
    "EFZG": "EntgFG",
    "UVG": "UhVorschG",
    "HeizKV": "HeizkostenV",
}
# Names under which statutes are cited besides their official title (the title of the KSchG is
# "Kündigungsschutzgesetz"; the RVG is cited as "Rechtsanwaltsvergütungsgesetz", not by its title).
EVERYDAY_NAMES_PATH = Path(__file__).parent / "data" / "gesetzesnamen.txt"
# VV = Vergütungsverzeichnis (RVG Anlage 1), KV = Kostenverzeichnis (GKG / FamGKG / GNotKG Anlage 1).
VERZEICHNIS_ANLAGE = {"VV": "1", "KV": "1"}
ROMAN_VALUES = {"I": 1, "V": 5, "X": 10}

# "abs." and "abs" too: lower case is common in e-mails, as is "ABS." in capitals
ABSATZ_KW = r"(?:[Aa]bs\.|ABS\.|[Aa]bs\b|ABS\b|Absatz|Absätze|Absätzen)"
SATZ_KW = r"(?:S\.|Satz|Sätze|Sätzen)"
NR_KW = r"(?:[Nn]r\.|Nrn\.|Nummer|Nummern)"
HS_KW = r"(?:Hs\.?|Halbs\.|Halbsatz|HS)"
ALT_KW = r"(?:Alt\.|Alternative|Var\.|Variante)"
LIT_KW = r"(?:lit\.|lit(?=\s)|Buchst\.|Buchstabe)"  # "lit f" without its dot too
PARA_KW = r"(?:§§|§|Art\.|(?<![\wäöüß])art\.|Art\b|Artt\.|Artikel|Paragraf(?:en)?\b|Paragraph(?:en)?\b)"
NUM = r"\d{1,4}[a-z]?(?![\wäöüß])"
# A section or Nummer may carry its letter written apart: "§ 573 c BGB" is § 573c, "Nr. 1 a" is
# Nr. 1a. Only a single lower-case letter followed by a space, a comma, a semicolon or the end
# counts, never "f." (folgende), "i. V. m.", "i V m", "u." or a roman Absatz ("§ 823 I 1 BGB").
LETTER = r"(?:[a-z]|\s(?!i\s[Vv]\sm(?![\wäöüß]))[a-z](?=[\s,;]|$))?"
ROMAN = r"(?:(?=[IVX])X?(?:IX|IV|V?I{0,3}))(?![\wäöüß])"
# A section may run into its roman Absatz: "§823I BGB", "§ 573cI BGB" (§ 823 Abs. 1, § 573c Abs. 1).
SECTION_NUM = rf"\d{{1,4}}(?:{LETTER}(?:(?![\wäöüß])|(?={ROMAN}))|(?=ff\.?(?![\wäöüß])))"  # also "280ff." (following)
# An Absatz number, its letter also written apart: "Abs. 2 a" is Abs. 2a; or a roman one: "Abs. I".
ABSATZ_NUM = rf"\d{{1,4}}{LETTER}(?![\wäöüß])"
ABSATZ_ROMAN_OR_NUM = rf"(?:{ABSATZ_NUM}|{ROMAN})"
# A law abbreviation as written: a capital, then letters (at least two capitals in all, e.g. "BGB",
# "StGB", "TzBfG", "DS-GVO"), or "SGB" with its book.
LAW_TOKEN = r"(?:SGB\s+(?:[IVX]{1,4}|\d{1,2})(?![\wäöüß])|[A-ZÄÖÜ][A-Za-zÄÖÜäöüß]*(?:-[A-Za-zÄÖÜäöüß]+)?)"  # noqa: S105
# A Nummer may carry a letter with a parenthesis, as the statute prints it: "Nr. 3 a)", "Nr. 3a)".
NR_NUM = rf"\d{{1,4}}(?:\s?[a-z]\)|{LETTER}(?![\wäöüß]))"
SATZ_NUM = r"\d{1,3}(?![\wäöüß.])"  # never an ordinal "2. Alt."
# Parts finer than a Nummer, which the check keeps in the citation but does not look into: "Hs. 2",
# "2. Alt.", "Var. 4", "Fall 2", "Gr. 1", "UAbs. 1" (EU law), "letzter Hs.", "a. E." (am Ende), a
# letter "lit. b", "lit. b aa", "b)", "aa)", "Doppelbuchst. aa".
PART_KW = rf"(?:{HS_KW}|{ALT_KW}|Fall|Gr\.|Gruppe|UAbs\.|Unterabs\.|Unterabsatz|Spiegelstrich)"
ORDINAL_PART = rf"\d{{1,2}}\.\s*{PART_KW}"
PART = (
    rf"(?:{PART_KW}\s*\d{{1,2}}|{ORDINAL_PART}|(?:erster|letzter)\s+(?:{PART_KW}|{SATZ_KW})|a\.\s?E\.|aE"
    rf"|{LIT_KW}\s*[a-z]{{1,2}}\)?(?:\s+[a-z]{{2}}\)?)?|Doppelbuchst(?:\.|abe)\s*[a-z]{{2}}|\(?[a-z]{{1,2}}\))"
)
# Lists of Absätze, Sätze and Nummern: "Abs. 1 und 2", "S. 1, 2", "Nr. 1 bis 3", "Nr. 2 oder 3", unless
# the number opens a new section ("§§ 280 Abs. 1, 241 Abs. 2 BGB", "§§ 987 Abs. 1, 990 ff. BGB" – a
# number followed by its own Absatz, or, after a Satz or Nummer, by any subdivision). Where a list and
# a chain share numbers ("§§ 823 Abs. 1, 826 BGB"), `_split_list` decides.
LIST_SEP = r"(?:,|und|u\.|oder|bzw\.|resp\.|bis|–|-)"
OPENS_SECTION = rf"(?!\s*(?:{ABSATZ_KW}|{SATZ_KW}|{NR_KW}|ff\.|f\.))"
# After an Absatz a number with a Satz or Nummer is the next Absatz under one "§" ("§ 626 Abs. 1 und 2
# S. 3 BGB": Abs. 2 S. 3); under "§§" `_split_list` makes it a section.
OPENS_SECTION_AFTER_ABSATZ = rf"(?!\s*(?:{ABSATZ_KW}|ff\.|f\.))"
NOT_ORDINAL = rf"(?!\.\s*{PART_KW})"  # "Abs. 1, 1. Alt.": the first alternative, no Absatz 1
# "Abs. I, II", also mixed: "Abs. I und 2" is Abs. 1 and 2 (never a § 2); "(1)", as the statute numbers
# its Absätze, stands alone.
ABSATZ_LIST = (
    rf"{ABSATZ_KW}\s*{ABSATZ_ROMAN_OR_NUM}"
    rf"(?:\s*{LIST_SEP}\s*(?:{ABSATZ_NUM}{OPENS_SECTION_AFTER_ABSATZ}|{ROMAN}){NOT_ORDINAL})*|\(\d{{1,3}}[a-z]?\)"
)
SATZ_LIST = rf"{SATZ_KW}\s*{SATZ_NUM}(?:\s*{LIST_SEP}\s*{SATZ_NUM}{OPENS_SECTION})*"
NR_LIST = rf"{NR_KW}\s*{NR_NUM}(?:\s*{LIST_SEP}\s*{NR_NUM}{OPENS_SECTION}{NOT_ORDINAL})*"
# A roman Absatz may carry its Satz as a bare number: "§ 823 I 1 BGB" is § 823 Abs. 1 S. 1 BGB.
# "I 1", "I 1, 2, 3", "I 1 und 2" (Sätze), "I 1, II Nr. 1", "I 1, 281 I 1": a further Satz after a
# comma is a small number (at most 12) that no "S."/"Abs."/"Nr." or roman Absatz follows; anything
# else there is the chain's next section ("§§ 1 I 1, 4 S. 2 KSchG", "§§ 280 I 1, 31 BGB").
ROMAN_SATZ_MORE = rf"\s*{LIST_SEP}\s*(?:1[0-2]|[1-9])(?![\wäöüß.])(?!\s*(?:S\.|Satz|Abs|Nr|[IVX]+(?![\wäöüß])))"
# A lone letter after it is its Buchstabe: "Art. 6 I f DSGVO" (never "i" or "u", as in "i V m", "u. a.").
ROMAN_SATZ = (
    rf"(?P<roman>{ROMAN})(?:\s+(?P<roman_satz>\d{{1,2}}(?![\wäöüß.])(?:{ROMAN_SATZ_MORE})*))?"
    r"(?:\s+(?P<roman_lit>[a-hj-tv-z])(?![\wäöüß.)]))?"
)
# One subdivision of a section, each kind in a group of its own for `_groups`.
SUB = rf"(?:(?P<absatz>{ABSATZ_LIST})|(?P<detail>{SATZ_LIST}|{NR_LIST}|{PART}|ff\.?|f\.)|{ROMAN_SATZ})"
# Between two subdivisions: "Abs. 1 S. 1, Abs. 2 Nr. 1", "Abs. 1 und Abs. 3", "Nr. 2 oder Nr. 3".
SUB_SEP = r"\s*(?:(?:,|und|u\.|oder|bzw\.|resp\.|sowie)\s*)?"
LINK = r"(?:,|;|/|und|u\.|sowie|oder|bzw\.|resp\.|bis|–|-)"  # "§§ 823/826 BGB"
# Between a citation chain and the statute it names: "§ 433 des BGB", "§ 20 im Grundgesetz".
LAW_ARTICLE = r"(?:des|der|dem|im)\s+"
# How a word of a statute's name may end when inflected ("Bürgerliches" → "Bürgerlichen",
# "Gesetzbuch" → "Gesetzbuchs", "Gesetzbuches", "Gesetzbuche").
INFLECTION_ENDING = r"(?:es|en|er|em|e|s)"
# "i. V. m.", "i.V.m" (no final dot), "iVm.", "i.Vm.", "i V m" (no dots), "i. V. mit", "in Verbindung mit"
IVM = r"(?:i\.\s?V\.?\s?m(?:\.|(?![\wäöüß]))|i\s(?:V|v)\sm(?![\wäöüß])|i\.\s?V\.\s?mit|iVm\.?|in Verbindung mit)"
# What follows a citation of an earlier version: "§ 434 BGB a. F.", "aF", "(a. F.)", "in der alten Fassung",
# "in der bis zum 31.12.2021 geltenden Fassung", "idF bis 31.12.2001" (never "in der ab … geltenden Fassung").
DATUM = r"(?:\d{1,2}\.\s?\d{1,2}\.\s?(?:\d{4}|\d{2})|\d{1,2}\.\s?[A-ZÄÖÜ][a-zäöü]+\s+\d{4})(?![\wäöüß])"
BIS_DATUM = rf"(?:bis\s+(?:zum\s+)?|vor\s+dem\s+){DATUM}"
ALTE_FASSUNG = (
    r"(?:a\.\s?F\.|aF(?![\wäöüß])|(?:in\s+der\s+)?alte[nr]?\s+Fassung"
    rf"|in\s+der\s+{BIS_DATUM}\s+geltenden\s+Fassung|(?:in\s+der\s+Fassung|i\.\s?d\.\s?F\.|idF)\s+{BIS_DATUM})"
)
ALTE_FASSUNG_RE = re.compile(rf"\s*(?:,\s*)?(?:\(\s*{ALTE_FASSUNG}\s*\)|{ALTE_FASSUNG})")

# "Anlage 2 zu § 13 RVG", "Anl. 1 (zu § 3 Abs. 2) GKG": an annex, with the section it belongs to.
ANLAGE_KW = r"(?<![\wäöüß])(?:Anlage|Anl\.)"
ANLAGE_ZU = rf"\s*\(?\s*zu[mr]?\s+(?:§|Art\.)\s*{NUM}(?:\s*{ABSATZ_KW}\s*\d{{1,3}})?(?:\s*{SATZ_KW}\s*\d{{1,3}})?\s*\)?"

# Entries of a fee table: "3100", "3100, 3104", "3100 und Nr. 3104"; the GNotKG's have five digits ("21100"),
# never read as the last four of them.
FEE_NUMBER = r"(?<!\d)\d{4,5}"
FIVE_DIGIT_FEE_LAW = "GNotKG"
ENTRIES = rf"{FEE_NUMBER}(?:\s*(?:,|und|u\.|sowie|oder|bzw\.)\s*(?:Nr\.\s*)?{FEE_NUMBER})*(?![\wäöüß])"
# The forms of a fee table's entries: "Nr. 3100 VV RVG", "Nr. 3100 des VV RVG", "3100 VV-RVG", "VV RVG Nr.
# 3100", "KV 1210 GKG", "GKG-KV Nr. 1210", "Nr. 3100 RVG-VV", "Nr. 3100 des Vergütungsverzeichnisses zum RVG",
# "Nr. 3100 der Anlage 1 zum RVG", with a note of the entry ("Nr. 1008 Anm. Abs. 1 VV RVG"). Each names the
# entries (`num`), the table (`vv`; `_table_kind`) and the statute (`law`).
FEE_ENTRIES = rf"(?:{NR_KW}\s*)?(?P<num>{ENTRIES})"
FEE_NOTE = rf"(?:\s*Anm(?:\.|erkung)(?:\s*{ABSATZ_KW}\s*\d{{1,2}})?(?:\s*{SATZ_KW}\s*\d{{1,2}})?)?"
FEE_TABLE = r"(?P<vv>VV|KV|Vergütungsverzeichnis(?:ses|s)?|Kostenverzeichnis(?:ses|s)?)"
# The statutes whose Anlage 1 is their fee table, and its kind: "Nr. 3100 der Anlage 1 zum RVG" is Nr. 3100 VV
# RVG, "Nr. 1210 der Anlage 1 zum GKG" KV 1210 GKG (the JVEG's Anlage 1 is a table of fee groups, no such list).
ANLAGE_1_TABLES = {"RVG": "VV", "GKG": "KV", "FamGKG": "KV", "GNotKG": "KV"}
FEE_ANLAGE_1 = (
    rf"(?:{FEE_TABLE}\s+(?:der\s+)?)?{ANLAGE_KW}\s*1(?![\wäöüß])(?:{ANLAGE_ZU})?\s+(?:zu[mr]?\s+)?"
    rf"(?P<law>(?:{'|'.join(ANLAGE_1_TABLES)})(?![\wäöüß-]))"
)
# A statute's abbreviation has two capitals at least: "Nr. 3100 VV Die Gebühr …" names no statute "Die".
FEE_LAW = rf"(?:zu[mr]\s+)?(?P<law>(?=[A-ZÄÖÜ][A-Za-zÄÖÜäöüß-]*[A-ZÄÖÜ]){LAW_TOKEN})"
FEE_LAW_JOINED = r"(?P<law>[A-ZÄÖÜ][A-Za-zÄÖÜäöüß]*)-(?P<vv>VV|KV)(?![\wäöüß-])"  # "GKG-KV", "RVG-VV"
FEE_FORMS = [
    re.compile(rf"{FEE_ENTRIES}{FEE_NOTE}\s+(?:(?:des|der)\s+)?{FEE_TABLE}[\s-]+{FEE_LAW}"),
    re.compile(rf"{FEE_TABLE}[\s-]+{FEE_LAW}\s+{FEE_ENTRIES}"),
    re.compile(rf"{FEE_TABLE}[\s-]+{FEE_ENTRIES}\s+{FEE_LAW}"),
    re.compile(rf"{FEE_LAW_JOINED}\s+{FEE_ENTRIES}"),
    re.compile(rf"{FEE_ENTRIES}{FEE_NOTE}\s+{FEE_LAW_JOINED}"),
    re.compile(rf"{FEE_ENTRIES}{FEE_NOTE}\s+(?:(?:des|der)\s+)?{FEE_ANLAGE_1}"),
    # "Nr. 3100 VV", "VV Nr. 3100": the Vergütungsverzeichnis is the RVG's alone (`_fee_targets`). A
    # Kostenverzeichnis without its statute ("Nr. 1210 KV") may be the GKG's, the FamGKG's or the GNotKG's,
    # and the corpus holds the entries of none of them, so the number cannot decide: it is no target,
    # linked to no statute (a guess) and not marked either (the statute is usually clear from the context).
    re.compile(rf"{NR_KW}\s*(?P<num>{ENTRIES}){FEE_NOTE}\s+(?:(?:des|der)\s+)?(?P<vv>VV)(?![\wäöüß-])"),
    re.compile(rf"(?P<vv>VV)\s+{NR_KW}\s*(?P<num>{ENTRIES})"),
]
VV_LAW = "RVG"
# "Vorbem. 3 Abs. 4 S. 1 VV RVG", "Vorb. 3 Abs. 4 VV RVG", "Vorbem. 3 Abs. 4 VV": a preliminary remark of a fee table.
VORBEMERKUNG = (
    rf"(?:Vorbem(?:\.|erkung)|Vorb\.)\s*\d(?:\.\d){{0,3}}(?:\s*{ABSATZ_KW}\s*\d{{1,2}})?(?:\s*{SATZ_KW}\s*\d{{1,2}})?"
    rf"\s+(?:(?:des|der)\s+)?(?:{FEE_TABLE}[\s-]+{FEE_LAW}|(?P<vv_alone>VV)(?![\wäöüß-]))"
)
VORBEMERKUNG_RE = re.compile(VORBEMERKUNG)


def _unnamed(pattern: str) -> str:
    """`pattern` with its named groups unnamed: several forms naming the same groups in one alternation."""
    return re.sub(r"\(\?P<\w+>", "(?:", pattern)


# After a statute, a chain of the same kind without its own "§": "§ 823 II BGB iVm 263 I StGB", and
# after "§§" also "§§ 7, 18 StVG, 115 VVG".
IVM_TAIL_RE = re.compile(rf"\s*(?:jeweils\s+)?{IVM}\s*(?={SECTION_NUM})")
LIST_TAIL_RE = re.compile(rf"\s*(?:,|und|sowie)\s*(?={SECTION_NUM})")


# One item: a number with its subdivisions ("823 Abs. 1 S. 1", "280 I, III").
# SUB_SEP is "\s*(?:,\s*)?", not "\s*,?\s*": two free runs of spaces around an optional comma split a
# long run of spaces in quadratically many ways (a "§ 1" before 20,000 spaces took a minute).
ITEM_RE = re.compile(rf"(?P<num>{SECTION_NUM})(?P<subs>(?:{SUB_SEP}{SUB}(?![\wäöüß]))*)")
SUB_RE = re.compile(rf"{SUB}(?![\wäöüß])")
LAW_ARTICLE_RE = re.compile(LAW_ARTICLE)
LAW_TOKEN_RE = re.compile(LAW_TOKEN)
# "VIII ZR 123/20", "2 AZR 12/23", "1 BvR 123/22", an Amtsgericht's "432 C 1234/19", the social courts'
# "B 4 AS 12/23 R", "L 7 AS 123/24 B ER"; a letter or two after the year may also be the next word.
# The European courts' "C-311/18", "T-612/17" (also with the non-breaking hyphen of EUR-Lex).
AKTENZEICHEN_RE = re.compile(
    r"(?<![\w/])(?P<az>(?P<core>(?:[BLS]\s)?(?:[IVX]{1,5}|\d{1,3})\s?[A-Z][A-Za-z]{0,4}(?:\s?\([A-Za-z]+\))?\s\d{1,5}/\d{2}"
    r"|[CT][-\u2011]\d{1,4}/\d{2})"
    r"(?:\s?[A-Z]{1,2}(?:\s[A-Z]{1,2})?)?)(?![\w/])"
)


@dataclass(frozen=True)
class Ziel:
    """One cited target: "§ 823 Abs. 1 S. 1 BGB" → art "§", nummer "823", gesetz "BGB", absatz "1"."""

    art: str  # "§", "Art.", "Anlage"
    nummer: str
    gesetz: str  # the abbreviation as written (normalised spacing)
    absatz: str = ""
    detail: str = ""  # "S. 1", "Nr. 3100", "ff." as written
    eintrag: str = ""  # a VV/KV number inside an Anlage ("3100")
    alte_fassung: bool = False  # "§ 434 BGB a. F.": a version the corpus does not hold
    # "§ 280 Abs. 1 und 3 S. 2 BGB": the Satz or Nummer in `detail` may belong to either Absatz;
    # "§ 626 Abs. 1 und 2 S. 3 BGB", read as "§ 2 S. 3": the section itself is a guess
    unterteilung_unsicher: bool = False
    # "§ 2229 Abs. 2 bis 4 BGB": Abs. 3, named only by the range, which is checked through its ends (the
    # Absätze inside may be repealed or left out by the source)
    im_bereich: bool = False
    start: int = 0
    end: int = 0
    # "§§ 7 Abs. 1, 17, 18 StVG": 17 read as § 7 Abs. 17 (this target) may be the section § 17 instead;
    # `resolve` takes that reading where the subdivision is not there and the section is
    lesart_abschnitt: Ziel | None = None

    @property
    def text(self) -> str:
        if self.eintrag:  # the detail of a fee number is its table: "Nr. 3100 VV RVG", "Nr. 1210 KV GKG"
            return f"Nr. {self.eintrag} {self.detail} {self.gesetz}"
        parts = [f"{self.art} {self.nummer}"]
        if self.absatz:
            parts.append(f"Abs. {self.absatz}")
        if self.detail:
            parts.append(self.detail)
        parts.append(self.gesetz)
        return " ".join(parts)


@dataclass
class Aufloesung:
    """The result for one target: the norm it names, or why it is not in the corpus."""

    ziel: Ziel
    norm_id: int | None = None
    zitat: str = ""
    anker: str = ""
    stand: str = ""
    reader_url: str = ""
    grund: str = ""  # empty when resolved
    hinweis: str = ""  # resolved, but the corpus lacks the text (an annex published as an image)
    # the statute is there, but not the text that would show the number exists (GKG-KV, FamGKG, GNotKG)
    nicht_pruefbar: bool = False

    @property
    def ok(self) -> bool:
        return self.norm_id is not None and not self.grund

    def as_dict(self) -> dict[str, Any]:
        return {
            "zitiert": self.ziel.text,
            "start": self.ziel.start,
            "end": self.ziel.end,
            "ok": self.ok,
            "norm_id": self.norm_id,
            "zitat": self.zitat,
            "anker": self.anker,
            "stand": self.stand,
            "url": self.reader_url,
            "grund": self.grund,
            "hinweis": self.hinweis,
            "nicht_pruefbar": self.nicht_pruefbar,
        }


@dataclass
class Pruefbericht:
    """All norm and decision citations of one text, resolved."""

    normen: list[Aufloesung] = field(default_factory=list)
    urteile: list[dict[str, Any]] = field(default_factory=list)

    @property
    def nicht_im_bestand(self) -> int:
        return sum(not a.ok for a in self.normen) + sum(not u["ok"] for u in self.urteile)

    def offen(self) -> list[dict[str, str]]:
        """The citations that did not resolve: what was cited and why it is marked."""
        return [{"zitiert": a.ziel.text, "grund": a.grund} for a in self.normen if not a.ok] + [
            {"zitiert": u["zitiert"], "grund": u["grund"]} for u in self.urteile if not u["ok"]
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            "geprueft": len(self.normen) + len(self.urteile),
            "nicht_im_bestand": self.nicht_im_bestand,
            "nicht_pruefbar": sum(a.ok and a.nicht_pruefbar for a in self.normen),
            "normen": [a.as_dict() for a in self.normen],
            "urteile": self.urteile,
        }


NICHT_IM_BESTAND = "nicht im Bestand – bitte prüfen"
GRUND_GESETZ = "Gesetz „{gesetz}“ ist nicht im Bestand."
GRUND_NORM = "{zitat} gibt es im Bestand nicht."
# A number the statute's text in the corpus skips: below its first section (the shipped EGBGB starts at
# Art. 219), or in a gap of its numbers (§§ 3 to 6 BGB, repealed and left out by the source).
GRUND_NORM_VOR_BESTAND = "{zitat} ist im Bestand nicht enthalten (Text des Gesetzes im Bestand lückenhaft)."
GRUND_NORM_LUECKE = "{zitat} ist im Bestand nicht enthalten (weggefallen oder Text im Bestand lückenhaft)."
GRUND_AUFGEHOBEN = "{zitat} ist weggefallen (aufgehoben)."
GRUND_ABSATZ = "{zitat} hat keinen Absatz {absatz}."
GRUND_SATZ = "{stelle} hat keinen Satz {satz}."
GRUND_NUMMER = "{stelle} hat keine Nummer {nummer}."
GRUND_EINTRAG = "Nr. {eintrag} steht nicht im {verzeichnis} des {gesetz}."
HINWEIS_ALTE_FASSUNG = (
    "Zitiert ist eine alte Fassung (a. F.); im Bestand ist nur die geltende Fassung ({stand}). "
    "Den Wortlaut zur maßgeblichen Zeit bitte in der amtlichen Fassung prüfen."
)
HINWEIS_ALTE_FASSUNG_WEGGEFALLEN = (
    "Zitiert ist eine alte Fassung (a. F.); in der geltenden Fassung ({stand}) ist {zitat} weggefallen. "
    "Den Wortlaut zur maßgeblichen Zeit bitte in der amtlichen Fassung prüfen."
)
GRUND_ALTE_FASSUNG_FEHLT = "{zitat} a. F. ist im Bestand nicht enthalten; die geltende Fassung hat keinen {zitat}."
GELTENDE_FASSUNG = "a. F. – verlinkt ist die geltende Fassung"
# A number of a cost schedule whose text the corpus lacks: the law is there, the number unchecked.
NICHT_PRUEFBAR = "Nummer nicht prüfbar – Text nicht im Bestand"
HINWEIS_OHNE_TEXT = (
    "Der Text von {zitat} ist im Korpus nicht enthalten (nur die Fundstelle); maßgeblich ist die amtliche Fassung."
)
GRUND_URTEIL = "Entscheidung {az} ist nicht in der Entscheidungssammlung."


def _roman(value: str) -> int:
    total, previous = 0, 0
    for char in reversed(value):
        number = ROMAN_VALUES[char]
        total = total - number if number < previous else total + number
        previous = max(previous, number)
    return total


@functools.cache
def everyday_law_names() -> list[tuple[str, str]]:
    """(name, abbreviation) of recherche/data/gesetzesnamen.txt: the names in the nominative."""
    entries = []
    for line in EVERYDAY_NAMES_PATH.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, abkuerzung = line.partition("=")
            entries.append((" ".join(name.split()), " ".join(abkuerzung.split())))
    return entries


def _word_pattern(word: str) -> str:
    """One word of a statute's name with its inflected forms: a word that ends in an inflection
    ending is taken as its stem plus any ending, "ß" and "ss" stand for each other
    ("Strafprozeßordnung"), and a hyphen inside a word may be left out ("Straßenverkehrs-Ordnung")."""
    comma = word.endswith(",")
    word = word.rstrip(",")
    if word.endswith("-") or (word.islower() and len(word) <= 4):  # "Teilzeit- und", "über", "die"
        pattern = re.escape(word)
    else:
        *joined, last = word.split("-")
        stem = re.sub(r"(?:(?<!s)s|es|en|er|em|e)$", "", last) if len(last) > 5 else last
        pattern = "-?".join([*map(re.escape, joined), f"{re.escape(stem)}{INFLECTION_ENDING}?"])
    return re.sub("ß|ss", "(?:ß|ss)", pattern) + (",?" if comma else "")


def _name_pattern(name: str) -> str:
    """A statute's name ("Bürgerliches Gesetzbuch", "Gesetz über das Wohnungseigentum und das
    Dauerwohnrecht") as a pattern for the forms it takes in a citation. Asides of an official title,
    parenthesised or between dashes ("Sozialgesetzbuch (SGB) Zweites Buch (II) - Bürgergeld, … -"),
    may be left out."""
    pattern = ""
    for token in re.findall(r"\([^)]*\)|\s-\s.*?\s-(?=\s|$)|\S+", name):
        if token[0] == "(" or token[0].isspace():
            aside = re.escape(token.strip()).replace(r"\ ", r"\s+")
            pattern += rf"(?:\s*{aside})?"
        else:
            pattern += (r"\s+" if pattern else "") + _word_pattern(token)
    return pattern


SGB_BOOK_JOINED_RE = re.compile(r"^SGB-?(?=(?:[IVX]{1,4}|\d{1,2})$)", re.IGNORECASE)


class LawNames:
    """The abbreviations of the corpus (with aliases), the statutes' titles and everyday names, and
    how to recognise one in text."""

    def __init__(self, names: dict[str, str], titles: dict[str, str] | None = None) -> None:
        # spelling (lower case, single spaces) → canonical abbreviation
        self.canonical = {re.sub(r"\s+", " ", k).lower(): v for k, v in names.items()}
        for alias, target in EXTRA_ALIASES.items():
            if target in names.values():
                self.canonical.setdefault(alias.lower(), target)
        self.canonical_names = set(names.values())
        spellings = sorted(self.canonical, key=len, reverse=True)
        known = "|".join(re.escape(s).replace(r"\ ", r"\s+") for s in spellings) or "(?!x)x"
        self.known_re = re.compile(rf"(?<![\wäöüß])(?:{known})(?![\wäöüß])", re.IGNORECASE)
        # name → canonical abbreviation: the official titles, then the everyday names of the
        # statutes loaded; a title that is only an abbreviation ("EGBGB") is one already.
        by_name = {t: a for t, a in (titles or {}).items() if a in self.canonical_names and not self.lookup(t)}
        for name, abkuerzung in everyday_law_names():
            canonical = self.lookup(abkuerzung)
            if canonical is not None:
                by_name.setdefault(name, canonical)
        # Longer names first: an alternation takes the first name that matches, not the longest.
        ordered = sorted(by_name.items(), key=lambda item: len(item[0]), reverse=True)
        self.title_targets = [abkuerzung for _, abkuerzung in ordered]
        alternatives = "|".join(f"({_name_pattern(name)})" for name, _ in ordered) or "(?!x)x"
        self.title_re = re.compile(rf"(?:{LAW_ARTICLE})?(?:{alternatives})(?![\wäöüß-])", re.IGNORECASE)

    def lookup(self, written: str) -> str | None:
        # "SGB-II" is written for "SGB II" as often as not, and "SGBII", "SGBX" in haste
        spaced = re.sub(r"\s+", " ", written)
        return self.canonical.get(SGB_BOOK_JOINED_RE.sub("SGB ", spaced).lower())

    def law_at(self, text: str, pos: int, *, art: str = "§") -> tuple[str, int] | None:
        """The statute named right at `pos` (after a citation chain of `art`), as canonical
        abbreviation and end: "BGB", "des BGB", "des Bürgerlichen Gesetzbuchs",
        "Kündigungsschutzgesetz", or one the corpus does not hold, named as written: an abbreviation
        that looks like one ("DSGVO"), a Land's ("PolG NRW", also "VwVfG NRW"), European law
        ("Rom I-VO", "Richtlinie 93/13/EWG")."""
        european = EU_ACT_RE.match(text, pos)
        if european:
            return " ".join(european["name"].split()), european.end()
        titled = self.title_re.match(text, pos)
        if titled and titled.lastindex:
            return self.title_targets[titled.lastindex - 1], titled.end()
        article = LAW_ARTICLE_RE.match(text, pos)
        known = (article and self.known_re.match(text, article.end())) or self.known_re.match(text, pos)
        after = known or LAW_TOKEN_RE.match(text, pos)
        land = LAND_RE.match(text, after.end()) if after else None
        if after and land and (known or _looks_like_law(after.group(0), art)):
            return f"{' '.join(after.group(0).split())} {land['land']}", land.end()
        if known:
            return self.lookup(known.group(0)) or known.group(0), known.end()
        if after and _looks_like_law(after.group(0), art):
            return self.lookup(after.group(0)) or re.sub(r"\s+", " ", after.group(0)), after.end()
        book = SOZIALGESETZBUCH_RE.match(text, pos)
        if book:  # "§ 45 Sozialgesetzbuch X", "§ 31 des Sozialgesetzbuchs (SGB) II", "Sozialgesetzbuch 2"
            sgb = canonical_abkuerzung(f"SGB {book['book']}")
            return self.lookup(sgb) or sgb, book.end()
        written = UNKNOWN_TITLE_RE.match(text, pos)
        if written and _names_a_statute(written["name"]):
            # a statute written out that the corpus does not hold ("§ 3 des Gewaltschutzgesetzes"):
            # named, so that it is reported as not in the corpus instead of being dropped
            return re.sub(r"(gesetz|gesetzbuch)(?:es|s|e)$", r"\1", written["name"]), written.end()
        return None


# European law as it is cited: "Rom I-VO", "Rom II", "Brüssel Ia-VO", "Verordnung (EU) 2016/679",
# "Richtlinie 93/13/EWG", "RL 93/13/EWG", "VO (EG) Nr. 593/2008".
EU_ACT_RE = re.compile(
    rf"(?:{LAW_ARTICLE})?(?P<name>(?:Rom|Brüssel)\s+(?:I{{1,3}}|I{{1,2}}[ab])(?:-VO|-Verordnung)?"
    r"|(?:Verordnung|VO|Richtlinie|RL)\s*(?:\((?:EU|EG|EWG|Euratom)\)\s*)?(?:Nr\.\s*)?\d{1,4}/\d{1,4}(?:/(?:EU|EG|EWG))?)"
    r"(?![\wäöüß/-])"
)
# A Land's statute: its abbreviation followed by the Land's ("PolG NRW", "BauO Bln", "VwVfG NRW" is not
# the federal VwVfG).
LAND_RE = re.compile(
    r"\s+(?P<land>NRW|NW|BW|Bln|Bbg|Brem|HB|HH|Hmb|MV|M-V|LSA|RP|RLP|SH|Saar|Bay|BY|Nds|Hess|Sachs|SN|Thür|TH)(?![\wäöüß-])"
)
# A statute's written-out name ending like one ("Gewaltschutzgesetz", "Finanzgerichtsordnung",
# "Fahrerlaubnis-Verordnung"), the corpus's own titles being matched before.
UNKNOWN_TITLE_RE = re.compile(
    r"(?:(?:des|der|dem|im)\s+)?(?P<name>[A-ZÄÖÜ][a-zäöüß]{2,}(?:-[A-Za-zÄÖÜäöüß][a-zäöüß]+)*?"
    r"-?(?:[Gg]esetz|[Gg]esetzbuch|[Oo]rdnung|[Vv]erordnung)(?:es|s|e)?)(?![\wäöüß-])"
)
# Words of that shape that name no particular statute ("nach § 3 der Verordnung" points back).
GENERIC_LAW_WORDS = frozenset(
    f"{word}{ending}"
    for word in (
        "Verordnung", "Rechtsverordnung", "Bundesgesetz", "Landesgesetz", "Bundesverordnung", "Landesverordnung",
        "Einführungsgesetz", "Änderungsgesetz", "Ausführungsgesetz", "Artikelgesetz", "Begleitgesetz",
        "Haushaltsgesetz", "Vertragsgesetz", "Zustimmungsgesetz", "Mantelgesetz", "Rahmengesetz",
    )
    for ending in ("", "es", "s", "e")
)  # fmt: skip
# An "-ordnung" is a statute only in these kinds ("Finanzgerichtsordnung", "Handwerksordnung"); most
# are rules of a house, a club, a university or a tariff ("Hausordnung", "Beitragsordnung",
# "Prüfungsordnung"), which, like contract terms, are nothing to check against the corpus. Every
# "-verordnung" is an ordinance.
STATUTE_ORDNUNG = re.compile(
    r"(?:prozess|gerichts|abgaben|insolvenz|gewerbe|handwerks|grundbuch|anwalts|notar|verkehrs|zulassungs|approbations"
    r"|gebühren|kosten|vergabe|wahl|verfahrens)ordnung$"
)
# "Sozialgesetzbuch" is the name of twelve books: with its book it is one of them, alone none.
SOZIALGESETZBUCH_RE = re.compile(
    r"(?:(?:des|dem|im)\s+)?Sozialgesetzbuch(?:es|s)?\s+(?:\(SGB\)\s+)?(?P<book>XIV|XIII|XII|XI|X|IX|VIII|VII|VI|V|IV|III|II|I|1[0-4]|[1-9])(?![\wäöüß])"
)


def _names_a_statute(name: str) -> bool:
    if name in GENERIC_LAW_WORDS or name.startswith("Sozialgesetzbuch"):
        return False
    stem = name.lower().replace("-", "")
    if stem.endswith("ordnung") and not stem.endswith("verordnung"):
        return STATUTE_ORDNUNG.search(stem) is not None
    return True


# Characters that are invisible in the text but split a citation ("§\u200b823 BGB"): read as spaces. A soft
# hyphen inside a word or a number is taken out (`_without_soft_hyphens`), elsewhere it is a space too
# ("§ 823\u00adBGB").
SOFT_HYPHEN_INSIDE_RE = re.compile(r"(?:(?<=\d)\u00ad+(?=\d)|(?<=[^\W\d_])\u00ad+(?=[^\W\d_]))")
ZERO_WIDTH_AS_SPACE = str.maketrans({"\u200b": " ", "\u200c": " ", "\u200d": " ", "\u2060": " ", "\ufeff": " ", "\u00ad": " "})

# Abbreviations of contract terms, not statutes: "§ 3 AGB der Beklagten", "§ 6 Abs. 2 MV" (Mietvertrag),
# "§ 2 ARB 2010" cite a clause of a contract, which is no citation to check against the corpus; so do the
# agreements of employers and employees: "§ 5 BV" (Betriebsvereinbarung; GBV, KBV: of the Gesamt- and
# Konzernbetriebsrat), "§ 4 DV" (Dienstvereinbarung), "§ 6 TV", "§ 12 MTV" (Manteltarifvertrag), "§ 34
# TVöD", "§ 8 TV-L".
CONTRACT_TERMS = frozenset(
    {"AGB", "ARB", "AVB", "AKB", "AUB", "VGB", "VHB", "MV", "AV", "GV", "BV", "GBV", "KBV", "DV", "TV", "MTV", "TVöD", "TV-L"}
)
# Cited by article, "BV" is the Bavarian constitution ("Art. 118 BV"), a law the corpus does not hold.
CONSTITUTIONS_CITED_BY_ARTICLE = frozenset({"BV"})


def _looks_like_law(token: str, art: str = "§") -> bool:
    """An unknown abbreviation is taken for a law only if it looks like one ("DSGVO", "BayBO",
    "SGB IX"), never an ordinary word ("Die", "Satz") or a contract's terms ("AGB", "MV", "BV")."""
    if re.fullmatch(r"SGB\s+\S+", token):
        return True
    if token in CONTRACT_TERMS:
        return art == "Art." and token in CONSTITUTIONS_CITED_BY_ARTICLE
    letters = token.replace("-", "")
    return 2 <= len(letters) <= 12 and sum(ch.isupper() for ch in letters) >= 2 and not re.fullmatch(ROMAN, token)


class Gruppe(NamedTuple):
    """An item's subdivisions by Absatz: the Absätze, the Satz, Nummer and finer parts that go with
    them, and the Absätze that only a range names ("Abs. 2 bis 5": 3 and 4)."""

    absaetze: list[str]
    detail: str
    im_bereich: frozenset[str] = frozenset()


@dataclass
class _Item:
    nummer: str
    gruppen: list[Gruppe]
    start: int
    end: int
    art: str
    # named with its own "§" or "Art." (or first of its chain): "§§ 626 Abs. 1 und 2 S. 3" may be
    # read as "§ 2 S. 3", and such a guess must not raise an alarm about Sätze or Nummern
    own_keyword: bool = True
    # "§§ 7 Abs. 1, 17 StVG": the number 17 read as a subdivision of the section before it (§ 7 Abs. 17);
    # the item itself is the other reading, the section § 17 (see `Ziel.lesart_abschnitt`)
    lesart_unterteilung: tuple[str, list[Gruppe]] | None = None
    # "§ 249 f BGB": the section § 249f, or § 249 f. (and the following one) without the dot
    lesart_folgende: bool = False


# No section of the corpus has more Absätze (54: § 52 EStG) or Nummern (72: § 3 EStG) than this: a larger
# number after a list of them is the chain's next section ("§§ 823 Abs. 1, 826 BGB").
MAX_SUBDIVISION = 99
# A range names the numbers inside it ("§§ 4 bis 6", "Abs. 1 bis 3"), if it spans no more than this.
MAX_RANGE = 30
# The head of a list; only an Absatz is numbered in roman ("Abs. I, 2").
LIST_HEAD_RE = re.compile(rf"(?<![\wäöüß])(?:{ABSATZ_KW}\s*(?P<absatz>{NR_NUM}|{ROMAN})|(?:{SATZ_KW}|{NR_KW})\s*(?P<n>{NR_NUM}))")
# A further number of a list; never an ordinal ("S. 1, 1. Alt.": the first alternative of Satz 1).
LIST_MORE_RE = re.compile(rf"\s*(?P<sep>{LIST_SEP})\s*(?P<n>{NR_NUM}){NOT_ORDINAL}")
LIST_MORE_ABSATZ_RE = re.compile(rf"\s*(?P<sep>{LIST_SEP})\s*(?P<n>{NR_NUM}|{ROMAN}){NOT_ORDINAL}")
RANGE_SEPS = ("bis", "–", "-")
SATZ_OR_NR_FOLLOWS = re.compile(rf"\s*(?:{SATZ_KW}|{NR_KW})")
CHAIN_GOES_ON = rf"\s*(?:{LINK})\s*(?:{PARA_KW}\s*)?(?={NUM})"


def _subdivision_key(number: str) -> tuple[int, str]:
    """The order of Absätze, Sätze and Nummern: "2", "2a", "3 a)", "II" → (2, ""), (2, "a"), (3, "a"), (2, "")."""
    if re.fullmatch(ROMAN, number):
        return _roman(number), ""
    match = re.match(r"(\d+)\s?([a-z]?)", number)
    return (int(match[1]), match[2]) if match else (0, "")


@dataclass
class _ListSplit:
    cut: int | None  # the offset of the separator before the chain's next section
    head_number: int = 0  # where the number of the last list's head starts ("Nr. 1, 31a": at "1")
    ambiguous: list[re.Match[str]] = field(default_factory=list)


def _split_list(subs: str, *, plural: bool, alone: bool) -> _ListSplit:
    """Where a list of Absätze, Sätze or Nummern in an item's subdivisions runs into the chain's next
    section. A further Absatz, Satz or Nummer follows the one before it ("Abs. 1, 3"); a number that
    goes back or is larger than any subdivision is a section ("§§ 280 Abs. 1, 3, 283 BGB", "§§ 823
    Abs. 1, 826 BGB"), and under "§§" so is a number after an Absatz with a Satz or Nummer of its own
    ("§§ 626 Abs. 1, 2 S. 3"). A chain written with "§§" names at least two sections: when its only
    section ends in a list, the list's last number is the second section ("§§ 1 Abs. 1, 2 KSchG": § 1
    Abs. 1 and § 2).

    Under "§§" the further numbers that end the list may be subdivisions or sections ("§§ 7 Abs. 1,
    17, 18 StVG": § 17; "§§ 280 Abs. 1, 3, 283 BGB": Abs. 3): they are returned as `ambiguous`, for
    `resolve` to decide against the corpus."""
    cut = last = None
    for head in LIST_HEAD_RE.finditer(subs):
        previous, pos = _subdivision_key(head["absatz"] or head["n"]), head.end()
        while more := (LIST_MORE_ABSATZ_RE if head["absatz"] else LIST_MORE_RE).match(subs, pos):
            number = _subdivision_key(more["n"])
            absatz_with_details = plural and head["absatz"] and SATZ_OR_NR_FOLLOWS.match(subs, more.end())
            # a number that goes back is the chain's next section; a roman one cannot be a section, so
            # it stays an Absatz of this list ("§ 5 Abs. II und I", "Abs. 3, I")
            goes_back = number <= previous and more["n"][0].isdigit()
            if goes_back or number[0] > MAX_SUBDIVISION or absatz_with_details:
                cut = more.start()
                break
            section = more["sep"] not in RANGE_SEPS and more["n"][0].isdigit()  # a roman number is no section
            last = more.start() if section and not subs[more.end() :].strip() else None
            previous, pos = number, more.end()
        if cut is not None:
            break
    if cut is None and alone:
        cut = last
    split = _ListSplit(cut)
    body = subs if cut is None else subs[:cut]
    heads = list(LIST_HEAD_RE.finditer(body)) if plural else []
    if heads:
        run, pos, head = [], heads[-1].end(), heads[-1]
        while more := (LIST_MORE_ABSATZ_RE if head["absatz"] else LIST_MORE_RE).match(body, pos):
            if more["sep"] not in RANGE_SEPS and re.fullmatch(NUM, more["n"]):
                run.append(more)
            pos = more.end()
        if not body[pos:].strip():
            split.head_number, split.ambiguous = head.start("absatz" if head["absatz"] else "n"), run
    return split


def _parse_items(text: str, pos: int, art: str, *, plural: bool = False) -> tuple[list[_Item], int]:
    """Items of a chain starting at `pos` (just after a § / Art. keyword; `plural` for "§§", "Artt."):
    "280 I, III, § 281", "187, 188", "4 bis 6", "305 ff.", "280 I i. V. m. 241 II". Returns the items
    and the end of the chain."""
    items: list[_Item] = []
    current_art = art
    item_start: int | None = None
    named = True  # the item has its own keyword, or follows an "i. V. m."
    while True:
        ws = re.match(r"\s*", text[pos:])
        item = ITEM_RE.match(text, pos + (ws.end() if ws else 0))
        if not item:
            break
        subs = item["subs"] or ""
        end = item.end()
        alone = plural and not items and not re.match(CHAIN_GOES_ON, text[end:])
        split = _split_list(subs, plural=plural, alone=alone)
        if split.cut is not None:
            subs, end = subs[: split.cut], item.start("subs") + split.cut
        nummer = re.sub(r"\s+", "", item["num"])
        # "Art. 246a § 1 Abs. 2 EGBGB": a section inside an article is the norm "Art. 246a § 1"
        # (recherche.gesetze_parser), with its own subdivisions.
        para = re.match(r"\s*§\s*", text[end:]) if current_art == "Art." else None
        inner = ITEM_RE.match(text, end + para.end()) if para else None
        if inner:
            nummer = nummer + " § " + re.sub(r"\s+", "", inner["num"])
            subs, end = inner["subs"] or "", inner.end()
        start = item.start() if item_start is None else item_start
        own_keyword = not items or named
        if split.ambiguous and not inner:
            # "§§ 7 Abs. 1, 17, 18 StVG": the item up to its list's last numbers, then each of them as a
            # section of its own that may be a subdivision of this one instead
            offset, main_end = item.start("subs"), split.ambiguous[0].start()
            items.append(_Item(nummer, _groups(subs[:main_end]), start, offset + main_end, current_art, own_keyword))
            for more in split.ambiguous:
                reading = (nummer, _groups(subs[: split.head_number] + more["n"]))
                span = (offset + more.start("n"), offset + more.end("n"))
                items.append(_Item(more["n"], _groups(""), *span, current_art, own_keyword=False, lesart_unterteilung=reading))
        else:
            folgende = not inner and not subs.strip() and re.fullmatch(r"\d+\s+f", item["num"]) is not None
            items.append(_Item(nummer, _groups(subs), start, end, current_art, own_keyword, lesart_folgende=folgende))
        pos, item_start = end, None
        link = re.match(rf"\s*(?:{LINK}|(?P<ivm>{IVM}))\s*(?:(?P<para>{PARA_KW})\s*)?(?={NUM})", text[pos:])
        if not link:
            break
        if re.match(r"\s*(?:bis|–|-)", text[pos:]) and not link["para"]:
            upper = ITEM_RE.match(text, pos + link.end())
            if upper and items[-1].nummer.isdigit() and upper["num"].isdigit():
                low, high = int(items[-1].nummer), int(upper["num"])
                if 0 < high - low <= MAX_RANGE:
                    for number in range(low + 1, high):
                        items.append(_Item(str(number), _groups(""), items[-1].start, upper.end(), current_art))
        if link["para"]:
            current_art = "Art." if link["para"].lower().startswith("art") else "§"
            item_start = pos + link.start("para")
        named = bool(link["para"] or link["ivm"])
        pos += link.end()
    return items, pos


def _groups(subs: str) -> list[Gruppe]:
    """An item's subdivisions by Absatz, each Absatz with its own Satz and Nummer: "Abs. 1 S. 1, Abs. 2
    Nr. 7" → (["1"], "S. 1"), (["2"], "Nr. 7"); "II 4" → (["2"], "S. 4"); "Abs. 1 und 2 S. 3" →
    (["1", "2"], "S. 3"); "S. 2" → ([""], "S. 2"); "Abs. II" → (["2"], ""); "I f" → (["1"], "lit. f");
    "Abs. 1 bis 3" → (["1", "2", "3"], "", {"2"}); "" → ([""], "")."""
    groups: list[tuple[list[str], list[str], set[str]]] = []
    for sub in SUB_RE.finditer(subs):
        if sub["absatz"]:
            numbers, inside = _absatz_list(sub["absatz"])
            groups.append((numbers, [], inside))
        elif sub["roman"]:
            details = [f"S. {' '.join(sub['roman_satz'].split())}"] if sub["roman_satz"] else []
            groups.append(
                ([str(_roman(sub["roman"]))], details + ([f"lit. {sub['roman_lit']}"] if sub["roman_lit"] else []), set())
            )
        else:
            if not groups:
                groups.append(([""], [], set()))
            groups[-1][1].append(" ".join(sub["detail"].split()))
    return [Gruppe(absaetze, " ".join(details), frozenset(inside)) for absaetze, details, inside in groups] or [Gruppe([""], "")]


_ABSATZ_IN_LIST_RE = re.compile(rf"(?:(?P<sep>{LIST_SEP})\s*)?(?P<n>{ABSATZ_ROMAN_OR_NUM})")


def _absatz_list(written: str) -> tuple[list[str], set[str]]:
    """The Absätze of a list as written ("Abs. 1, 3", "Abs. I und 2", "(2)"), a range with those inside
    it ("Abs. 1 bis 3", "Abs. IV-VI"); and which of them only the range names."""
    numbers: list[str] = []
    inside: set[str] = set()
    for part in _ABSATZ_IN_LIST_RE.finditer(re.sub(rf"^{ABSATZ_KW}", "", written)):
        number = str(_roman(part["n"])) if part["n"][0] in ROMAN_VALUES else re.sub(r"\s+", "", part["n"])
        if part["sep"] in RANGE_SEPS and numbers and numbers[-1].isdigit() and number.isdigit():
            if 0 < int(number) - int(numbers[-1]) <= MAX_RANGE:
                between = [str(n) for n in range(int(numbers[-1]) + 1, int(number))]
                numbers += between
                inside.update(between)
        numbers.append(number)
    return numbers, inside


def extract(text: str, names: LawNames, *, bare_numbers: bool = False) -> list[Ziel]:
    """Every cited target in `text`, in order. A chain without its own law takes the next law that
    follows it ("§ 626 Abs. 2 i. V. m. § 174 BGB"); a law written before the § applies to it
    ("BGB § 433"). With `bare_numbers`, "573c BGB" (a search query) counts as "§ 573c BGB"."""
    # Soft hyphens inside a word or number go; the other invisible characters become spaces, which keeps
    # the text's length. `offsets` maps the spans back to the text given.
    text, offsets = _without_soft_hyphens(text)
    text = text.translate(ZERO_WIDTH_AS_SPACE)
    targets: list[Ziel] = []
    pending: list[_Item] = []
    pos = 0
    # "§ 823 II BGB iVm 263 I StGB": a chain after "i. V. m." without its own "§" (the keyword, where it starts)
    continuation: tuple[str, int] | None = None
    pattern = re.compile(
        rf"(?P<anl>{ANLAGE_KW}\s*(?P<anum>\d{{1,2}}[a-z]?)(?:{ANLAGE_ZU})?\s+(?:(?:zu[mr]?|des|der)\s+)?(?P<alaw>{LAW_TOKEN}))"
        rf"|(?P<vorbem>{_unnamed(VORBEMERKUNG)})"
        rf"|(?P<verz>{'|'.join(_unnamed(form.pattern) for form in FEE_FORMS)})"
        rf"|(?P<para>{PARA_KW})"
        rf"|(?P<prelaw>(?<![\wäöüß§.])(?P<plaw>{LAW_TOKEN})\s+(?={PARA_KW}))"
        + (rf"|(?P<bare>(?<![\wäöüß§.,/-])(?={SECTION_NUM}\s+{LAW_TOKEN}))" if bare_numbers else "")
    )
    while True:
        match = None if continuation else pattern.search(text, pos)
        if continuation:
            art_kw, chain_start = continuation
            items_from, prelaw, skip_to, continuation = chain_start, None, chain_start + 1, None
        elif not match:
            break
        elif match["anl"]:
            # "Anlage 2 zu § 13 RVG", "Anlage 1 zum GKG": the annex itself, never "§ 2 RVG"
            canonical = names.lookup(match["alaw"])
            if canonical is not None or _looks_like_law(match["alaw"]):
                targets.append(Ziel("Anlage", match["anum"], canonical or match["alaw"], start=match.start(), end=match.end()))
            pos = match.end()
            continue
        elif match["vorbem"]:
            # "Vorbem. 3 Abs. 4 VV RVG": a preliminary remark of the schedule, which is its Anlage
            if vorbem := VORBEMERKUNG_RE.match(text, match.start()):
                written = vorbem["law"] or VV_LAW  # "Vorbem. 3 Abs. 4 VV": the RVG's
                canonical = names.lookup(written) or written
                kind = _table_kind(vorbem["vv"] or vorbem["vv_alone"], canonical)
                targets.append(
                    Ziel("Anlage", VERZEICHNIS_ANLAGE[kind], canonical, detail=kind, start=match.start(), end=match.end())
                )
            pos = match.end()
            continue
        elif match["verz"]:
            targets += _fee_targets(text, match.start(), names)
            pos = match.end()
            continue
        else:
            prelaw = None
            if match["prelaw"]:
                prelaw = match["plaw"]
                if names.lookup(prelaw) is None and not _looks_like_law(prelaw):
                    pos = match.end()
                    continue
                para = re.match(PARA_KW, text[match.end() :])
                art_kw = para.group(0) if para else "§"
                chain_start, items_from = match.start(), match.end() + (para.end() if para else 0)
            elif match["para"]:
                art_kw, chain_start, items_from = match["para"], match.start(), match.end()
            else:
                art_kw, chain_start, items_from = "§", match.start(), match.start()
            skip_to = match.end()
        art = "Art." if art_kw.lower().startswith("art") else "§"
        items, end = _parse_items(text, items_from, art, plural=art_kw in ("§§", "Artt."))
        if not items:
            pos = max(skip_to, pos + 1)
            continue
        items[0].start = chain_start
        if prelaw:
            law: tuple[str, int] | None = (names.lookup(prelaw) or re.sub(r"\s+", " ", prelaw), end)
        else:
            law = names.law_at(text, _skip_space(text, end), art=items[-1].art)
        # "§ 434 a. F. BGB": the old version named before the law.
        fassung_first = ALTE_FASSUNG_RE.match(text, end) if law is None and not prelaw else None
        if fassung_first is not None:
            law = names.law_at(text, _skip_space(text, fassung_first.end()), art=items[-1].art)
        if law is None:
            # "§ 626 Abs. 2 i. V. m. § 174 BGB": the chain takes the law of the chain that follows.
            ivm = re.match(rf"\s*(?:(?:jeweils\s+)?{IVM}|{LINK})\s*(?={PARA_KW})", text[end:])
            if ivm:
                pending += items
            else:
                pending = []
            pos = end if end > pos else pos + 1
            continue
        canonical, law_end = law
        if prelaw is None:
            items[-1].end = law_end
            if after_law := _subdivisions_after_law(text, law_end, items):
                items[0].gruppen, items[0].end = after_law
                law_end = items[0].end
        fassung = ALTE_FASSUNG_RE.match(text, max(law_end, end))
        old_version = fassung is not None or fassung_first is not None
        if fassung is not None:
            items[-1].end = law_end = fassung.end()
        for item in [*pending, *items]:
            targets += _item_targets(item, canonical, alte_fassung=old_version)
        pending = []
        pos = law_end
        if prelaw is None and (tail := IVM_TAIL_RE.match(text, law_end)):
            continuation = (items[-1].art, tail.end())
        elif prelaw is None and art_kw in ("§§", "Artt.") and (tail := LIST_TAIL_RE.match(text, law_end)):
            continuation = (art_kw, tail.end())
    targets = _dedupe(targets)
    return [_span_in(target, offsets) for target in targets] if offsets else targets


# "§ 823 BGB Abs. 1": the Absatz after the statute, with what follows it ("§ 626 BGB Abs. 2 S. 1").
AFTER_LAW_RE = re.compile(rf"\s+(?={ABSATZ_KW})(?P<subs>(?:{SUB_SEP}{SUB}(?![\wäöüß]))+)")


def _subdivisions_after_law(text: str, pos: int, items: list[_Item]) -> tuple[list[Gruppe], int] | None:
    """The subdivisions written after the statute that ends at `pos`, starting with an Absatz ("§ 823
    BGB Abs. 1", "Art. 20 GG Abs. 3"), and their end; only for a chain of one section that has none of
    its own (in "§§ 823, 826 BGB Abs. 1" the Absatz may be either's)."""
    if len(items) != 1 or items[0].gruppen != [Gruppe([""], "")] or items[0].lesart_folgende:
        return None
    after = AFTER_LAW_RE.match(text, pos)
    if after is None:
        return None
    subs = after["subs"]
    split = _split_list(subs, plural=False, alone=False)  # "§ 280 BGB Abs. 1, 281 BGB": § 281 is a section
    if split.cut is not None:
        subs = subs[: split.cut]
    return _groups(subs), after.start("subs") + len(subs)


def _item_targets(item: _Item, gesetz: str, *, alte_fassung: bool) -> list[Ziel]:
    """The targets of one item of a chain: one per Absatz, each with the Satz and Nummer of its group."""
    nummer, gruppen = item.lesart_unterteilung or (item.nummer, item.gruppen)
    abschnitt = None
    if item.lesart_unterteilung is not None:
        abschnitt = Ziel(item.art, item.nummer, gesetz, alte_fassung=alte_fassung, start=item.start, end=item.end)
    elif item.lesart_folgende:  # `resolve` takes § 249 f. where the statute has no § 249f
        abschnitt = Ziel(item.art, nummer[:-1], gesetz, detail="f.", alte_fassung=alte_fassung, start=item.start, end=item.end)
    guess = not item.own_keyword and item.lesart_unterteilung is None
    return [
        Ziel(
            item.art,
            nummer,
            gesetz,
            absatz=absatz,
            detail=detail,
            alte_fassung=alte_fassung,
            unterteilung_unsicher=len(absaetze) > 1 or guess,
            im_bereich=absatz in im_bereich,
            start=item.start,
            end=item.end,
            lesart_abschnitt=abschnitt,
        )
        for absaetze, detail, im_bereich in gruppen
        for absatz in absaetze
    ]


def _fee_targets(text: str, pos: int, names: LawNames) -> list[Ziel]:
    """The entries of a fee table cited at `pos` ("Nr. 3100, 3104 VV RVG", "GKG-KV Nr. 1210"): each
    entry its own target; the first span starts with the citation, the last ends with it."""
    fee = next(m for form in FEE_FORMS if (m := form.match(text, pos)))
    law = fee.groupdict().get("law") or VV_LAW  # "Nr. 3100 VV": the RVG's
    canonical = names.lookup(law) or law
    entries = list(re.finditer(FEE_NUMBER, fee["num"]))
    end_of_citation = fee.end()
    if canonical != FIVE_DIGIT_FEE_LAW and len(entries[0][0]) == 4:
        # only the GNotKG numbers its entries with five digits: in another table's list a five-digit
        # number is what follows the list ("VV RVG Nr. 3100 und 10000 EUR"), not an entry
        cut = next((index for index, entry in enumerate(entries) if len(entry[0]) == 5), None)
        if cut is not None:
            entries = entries[:cut]
            end_of_citation = fee.start("num") + entries[-1].end()
    kind = _table_kind(fee["vv"], canonical)
    targets = []
    for index, entry in enumerate(entries):
        start = fee.start() if index == 0 else fee.start("num") + entry.start()
        end = end_of_citation if index == len(entries) - 1 else fee.start("num") + entry.end()
        targets.append(Ziel("Anlage", VERZEICHNIS_ANLAGE[kind], canonical, eintrag=entry[0], detail=kind, start=start, end=end))
    return targets


def _table_kind(written: str | None, gesetz: str) -> str:
    """ "VV" or "KV": the table as written ("VV", "Kostenverzeichnisses"), or else the statute's Anlage 1."""
    if written:
        return "VV" if written.startswith("V") else "KV"
    return ANLAGE_1_TABLES[gesetz]


def _without_soft_hyphens(text: str) -> tuple[str, list[int] | None]:
    """`text` without the soft hyphens inside a word or a number ("Gesetz\u00adbuchs", "82\u00ad3"), and the
    offset in `text` of each character left (None if nothing was taken out)."""
    dropped = {index for match in SOFT_HYPHEN_INSIDE_RE.finditer(text) for index in range(*match.span())}
    if not dropped:
        return text, None
    offsets = [index for index in range(len(text)) if index not in dropped]
    return "".join(text[index] for index in offsets), offsets


def _span_in(target: Ziel, offsets: list[int]) -> Ziel:
    """`target` with its span in the text given before the soft hyphens were taken out."""
    other = _span_in(target.lesart_abschnitt, offsets) if target.lesart_abschnitt else None
    return replace(target, start=offsets[target.start], end=offsets[target.end - 1] + 1, lesart_abschnitt=other)


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _dedupe(targets: list[Ziel]) -> list[Ziel]:
    seen: set[tuple[str, str, str, str, str, str, int]] = set()
    unique = []
    for target in targets:
        key = (target.art, target.nummer, target.gesetz, target.absatz, target.detail, target.eintrag, target.start)
        if key not in seen:
            seen.add(key)
            unique.append(target)
    return unique


# -- resolution against the corpus ---------------------------------------------------------------


# The fingerprint of the statutes' names: changes whenever a statute is added, removed or renamed,
# or its aliases or title change.
LAW_NAMES_FINGERPRINT = (
    "SELECT count(*), COALESCE(md5(string_agg(abkuerzung || '|' || COALESCE(aliase::text, '') || '|' || titel, "
    "E'\\n' ORDER BY abkuerzung)), '') FROM recherche_gesetz"
)
# The names with the fingerprint they were read with, in one statement (one snapshot): a change
# committed between two statements could not file newer names under an older fingerprint.
LAW_NAMES_WITH_FINGERPRINT = (
    f"WITH f(n, digest) AS ({LAW_NAMES_FINGERPRINT}) "  # noqa: S608 - constant SQL
    "SELECT f.n, f.digest, g.abkuerzung, g.aliase::text, g.titel FROM f "
    "LEFT JOIN recherche_gesetz g ON true ORDER BY g.abkuerzung"
)
_law_names_by_fingerprint: dict[tuple[int, str], LawNames] = {}


def law_names() -> LawNames:
    """The abbreviations and titles of the statutes in the database: one query for their
    fingerprint; the names themselves are read and parsed once per fingerprint."""
    with connection.cursor() as cursor:
        cursor.execute(LAW_NAMES_FINGERPRINT)
        count, digest = cursor.fetchone()
        known = _law_names_by_fingerprint.get((int(count), digest))
        if known is not None:
            return known
        cursor.execute(LAW_NAMES_WITH_FINGERPRINT)
        rows = cursor.fetchall()
    names: dict[str, str] = {}
    titles: dict[str, str] = {}
    for _count, _digest, abkuerzung, aliase, titel in rows:
        if abkuerzung is None:  # no statute at all
            continue
        names[abkuerzung] = abkuerzung
        for alias in json.loads(aliase) or []:
            names.setdefault(alias, abkuerzung)
        if titel:
            titles[titel] = abkuerzung
    parsed = LawNames(names, titles)
    if len(_law_names_by_fingerprint) >= 4:  # an old corpus's names are not needed again
        _law_names_by_fingerprint.clear()
    _law_names_by_fingerprint[(int(rows[0][0]), rows[0][1])] = parsed
    return parsed


_ABSATZ_START = re.compile(r"(?m)(?:^|(?<=[.;:]\s))\((\d+[a-z]?)\)\s")


def _absatz_starts(text: str) -> list[tuple[str, int]]:
    """The numbered Absätze of a section's text ("(1)", "(2)", "(2a)") and where each starts: at the
    start of a line, or - where the source prints an Absatz inside the one before ("… besteht. (5)
    Die Absätze …", § 127 MarkenG) - after a sentence, if it continues the count."""
    found: list[tuple[str, int]] = []
    for match in _ABSATZ_START.finditer(text):
        at_line_start = match.start() == 0 or text[match.start() - 1] == "\n"
        if at_line_start or (found and _subdivision_key(match[1]) > _subdivision_key(found[-1][0])):
            found.append((match[1], match.start()))
    return found


def absatz_numbers(text: str) -> list[str]:
    """The numbered Absätze of a section's text in order (see _absatz_starts)."""
    return [number for number, _ in _absatz_starts(text)]


def absatz_text(text: str, absatz: str) -> str | None:
    """The text of Absatz `absatz` of a section, up to the next Absatz (None if it has none such)."""
    starts = _absatz_starts(text)
    numbers = [number for number, _ in starts]
    if absatz not in numbers:
        return None
    index = numbers.index(absatz)
    return text[starts[index][1] : starts[index + 1][1] if index + 1 < len(starts) else len(text)]


# A numbered item inside running text: "… wenn 1. der Mieter …, 2. der Vermieter …"; "8a. Renten …".
_NUMMER_ITEM_RE = re.compile(r"(?:(?<=[\s:;,])|^)(\d{1,3}[a-z]?)\.\s+(?=\S)")
_NUMMER_RANGE_RE = re.compile(r"(?:(?<=[\s:;,])|^)(\d{1,3})\.\s*bis\s*(\d{1,3})\.\s")
# A Satz marked by the source (EStG): "<sup>2</sup>Knüpfen …".
_SATZ_MARK_RE = re.compile(r"<sup>(\d{1,3})</sup>")
# Where a Satz may end. It counts more ends than there are (abbreviations such as "z. B. der", numbered
# items "1. der …"), never fewer: too many Sätze cost a missed alarm, too few a false one. Only a dot
# before a number is no end: that of "Abs. 2", "Nr. 3", "S. 1" (a sentence begins with a word or a
# "§"). Numbered items still count: taking them out too ("§ 1 Abs. 2 S. 5 KSchG", four Sätze) flags
# references to other statutes among the statutes' own (bench/zitat_verweise.py), as long as that
# bench cannot tell them apart.
_SATZ_END_RE = re.compile(r"[.!?][\"“”)\]]*\s+(?=[^\s\d])")


def has_nummer(block: str, nummer: str) -> bool | None:
    """Whether a section's or an Absatz's text has the numbered item `nummer` ("4", "8a"); None
    when the text has no numbered list (items "1." and "2." in this order), so nothing can be said.
    "Nr. 3b" is also written for Nummer 3 Buchstabe b (§ 275 Abs. 1 Nr. 3b SGB V): an item with a
    letter counts as there if its Nummer is."""
    items = [match[1] for match in _NUMMER_ITEM_RE.finditer(block)]
    if "1" not in items or "2" not in items[items.index("1") :]:
        return None
    # repealed together: "3. bis 5. (weggefallen)" (§ 145 Abs. 2 GewO) holds Nr. 4 as well
    for low, high in _NUMMER_RANGE_RE.findall(block):
        items += [str(n) for n in range(int(low) + 1, min(int(high), int(low) + 50))]
    return nummer in items or nummer.rstrip("abcdefghijklmnopqrstuvwxyz") in items


def satz_count(block: str) -> int:
    """How many Sätze a section's or an Absatz's text may have at most: every possible sentence end
    (see _SATZ_END_RE), or the source's highest Satz mark if that is more."""
    body = re.sub(r"^\(\d+[a-z]?\)\s*", "", block.strip())
    # the marks alone are not enough: some sources mark only a few of the Sätze (§ 25 Abs. 4a AufenthG)
    return max([1 + len(_SATZ_END_RE.findall(body)), *(int(n) for n in _SATZ_MARK_RE.findall(block))])


TABLE_ENTRY = re.compile(r"(?:(?<=\[)|(?<=; ))(?P<nr>\d{4})\s*\|")


def text_blocks(text: str) -> list[tuple[str, str]]:
    """A section's text as (anchor, paragraph) blocks for the reader: "(2) …" → "abs-2"; in a
    flattened fee table every entry ("3100 | Verfahrensgebühr …") is its own block "nr-3100"."""
    blocks: list[tuple[str, str]] = []
    for paragraph in text.split("\n\n"):
        absatz = re.match(r"\((\d+[a-z]?)\)\s", paragraph)
        entries = list(TABLE_ENTRY.finditer(paragraph))
        if len(entries) < 2:
            blocks.append((f"abs-{absatz[1]}" if absatz else "", paragraph))
            continue
        if entries[0].start() > 0:
            blocks.append(("", paragraph[: entries[0].start()].rstrip("; ")))
        for entry, following in zip(entries, [*entries[1:], None], strict=True):
            end = following.start() if following else len(paragraph)
            blocks.append((f"nr-{entry['nr']}", paragraph[entry.start() : end].rstrip("; ")))
    return blocks


def anlage_entry(text: str, eintrag: str) -> bool:
    """Whether a flattened fee table (RVG Anlage 1) has the entry number `eintrag`."""
    return re.search(rf"(?:^|[\[;]\s*){re.escape(eintrag)}\s*\|", text, flags=re.M) is not None


def anlage_entry_repealed(text: str, eintrag: str) -> bool:
    """Whether the entry `eintrag` of a flattened fee table reads only "(weggefallen)" (Nr. 1007, 3103 VV RVG)."""
    return re.search(rf"(?:^|[\[;]\s*){re.escape(eintrag)}\s*\|\s*\(weggefallen\)\s*\|", text, flags=re.M) is not None


def _article_fallback(target: Ziel, norms: dict[tuple[str, str, str], list[Any]]) -> list[Any]:
    """For "Art. 246a § 1 EGBGB" in a corpus ingested before an article's sections were norms of
    their own (recherche.gesetze_parser): the article, if none of its sections is a norm yet."""
    if " § " not in target.nummer:
        return []
    article = target.nummer.split(" § ")[0]
    prefix = f"{article} § "
    if any(key[0] == target.gesetz and key[2].startswith(prefix) for key in norms):
        return []
    return norms.get((target.gesetz, target.art, article), [])


def resolve(targets: list[Ziel]) -> list[Aufloesung]:
    """Look each target up: the section (first by position, not repealed), the Absatz anchor and the
    statute's Stand, or the reason it is not in the corpus. Two queries for any number of targets, and
    a third for the numbers of the statutes when a section is not there and its reason is needed
    (`_missing_section`).

    A target with another reading (`Ziel.lesart_abschnitt`) resolves as the section of that reading
    where its own subdivision is not there and the section is."""
    from django.db.models import Q

    from .models import Gesetz, Norm

    if not targets:
        return []
    readings = [*targets, *(t.lesart_abschnitt for t in targets if t.lesart_abschnitt)]
    gesetze = {g.abkuerzung: g for g in Gesetz.objects.filter(abkuerzung__in={t.gesetz for t in readings})}
    condition = Q(pk__in=[])
    for target in readings:
        if target.gesetz in gesetze:
            condition |= Q(gesetz__abkuerzung=target.gesetz, art=target.art, nummer=target.nummer)
            if " § " in target.nummer:  # the article and its sections, for `_article_fallback`
                article = target.nummer.split(" § ")[0]
                condition |= Q(gesetz__abkuerzung=target.gesetz, art=target.art, nummer=article)
                condition |= Q(gesetz__abkuerzung=target.gesetz, art=target.art, nummer__startswith=f"{article} § ")
    norms: dict[tuple[str, str, str], list[Norm]] = {}
    for norm in Norm.objects.filter(condition).select_related("gesetz").order_by("position"):
        norms.setdefault((norm.gesetz.abkuerzung, norm.art, norm.nummer), []).append(norm)
    lacking = {t.gesetz for t in readings if t.gesetz in gesetze and not norms.get((t.gesetz, t.art, t.nummer))}

    @functools.cache
    def numbers() -> dict[tuple[str, str], list[tuple[str, bool]]]:
        """The numbers (and whether repealed) of the sections and articles of all statutes that lack a
        cited one: one query, made when the first reason is needed."""
        found: dict[tuple[str, str], list[tuple[str, bool]]] = {}
        rows = Norm.objects.filter(gesetz__abkuerzung__in=lacking).exclude(nummer__contains=" § ")
        for gesetz, art, nummer, aufgehoben in rows.values_list("gesetz__abkuerzung", "art", "nummer", "aufgehoben"):
            found.setdefault((gesetz, art), []).append((nummer, aufgehoben))
        return found

    def numbers_of(gesetz: str, art: str) -> list[tuple[str, bool]]:
        return numbers().get((gesetz, art), [])

    results = []
    for target in targets:
        result = _resolve_one(target, gesetze, norms, numbers_of)
        if target.lesart_abschnitt is not None and not result.ok:
            section = _resolve_one(target.lesart_abschnitt, gesetze, norms, numbers_of)
            result = section if section.ok else result
        results.append(result)
    return results


def _resolve_one(
    target: Ziel,
    gesetze: dict[str, Any],
    norms: dict[tuple[str, str, str], list[Any]],
    numbers_of: Callable[[str, str], list[tuple[str, bool]]],
) -> Aufloesung:
    """One target against the statutes and norms `resolve` read."""
    from django.urls import reverse

    result = Aufloesung(ziel=target)
    gesetz = gesetze.get(target.gesetz)
    if gesetz is None:
        result.grund = GRUND_GESETZ.format(gesetz=target.gesetz)
        return result
    result.stand = gesetz.stand
    candidates = norms.get((target.gesetz, target.art, target.nummer), []) or _article_fallback(target, norms)
    zitat = f"{target.art} {target.nummer} {target.gesetz}"
    if not candidates:
        if target.alte_fassung:
            result.grund = GRUND_ALTE_FASSUNG_FEHLT.format(zitat=zitat)
        else:
            result.grund = _missing_section(target.nummer, numbers_of(target.gesetz, target.art)).format(zitat=zitat)
        return result
    # An article without text whose sections follow it ("Art 246a" of the EGBGB with its §§ 1 ff.)
    # is a container, not repealed.
    live = [n for n in candidates if not n.aufgehoben or (not n.text.strip() and "weggefallen" not in n.titel)]
    if target.eintrag:
        live = [n for n in live if anlage_entry(n.text, target.eintrag)] or live
    if not live:
        result.norm_id, result.zitat = candidates[0].pk, zitat
        result.reader_url = reverse("norm-detail", args=[candidates[0].pk])
        if target.alte_fassung:  # "§ 847 BGB a. F.": in force then, repealed since
            result.hinweis = HINWEIS_ALTE_FASSUNG_WEGGEFALLEN.format(stand=gesetz.stand or "Stand unbekannt", zitat=zitat)
        else:
            result.grund = GRUND_AUFGEHOBEN.format(zitat=zitat)
        return result
    norm = live[0]
    result.norm_id, result.zitat = norm.pk, norm.zitat
    result.reader_url = reverse("norm-detail", args=[norm.pk])
    if target.alte_fassung:
        result.hinweis = HINWEIS_ALTE_FASSUNG.format(stand=gesetz.stand or "Stand unbekannt")
    if target.eintrag:
        if anlage_entry_repealed(norm.text, target.eintrag):
            result.grund = GRUND_AUFGEHOBEN.format(zitat=f"Nr. {target.eintrag} {target.detail or 'VV'} {target.gesetz}")
        elif anlage_entry(norm.text, target.eintrag):
            result.anker = f"nr-{target.eintrag}"
        elif not TABLE_ENTRY.search(norm.text):
            # The source has only the annex's Fundstelle (GKG-KV, FamGKG/GNotKG tables): the
            # citation is sound, its text is not in the corpus.
            result.hinweis = HINWEIS_OHNE_TEXT.format(zitat=norm.zitat)
            result.nicht_pruefbar = True
        else:
            verzeichnis = "Vergütungsverzeichnis" if target.detail == "VV" else "Kostenverzeichnis"
            result.grund = GRUND_EINTRAG.format(eintrag=target.eintrag, verzeichnis=verzeichnis, gesetz=target.gesetz)
    elif target.absatz and norm.nummer == target.nummer:  # not the Absatz of a section in its article's stead
        numbers_of_norm = absatz_numbers(norm.text)
        if target.absatz in numbers_of_norm:
            result.anker = f"abs-{target.absatz}"
            # an Absatz inside a range ("§ 2229 Abs. 2 bis 4 BGB") may be a repealed one
            if (
                not target.alte_fassung
                and not target.im_bereich
                and _repealed_absatz(absatz_text(norm.text, target.absatz) or "")
            ):
                # "§ 74 Abs. 3 BGB": the section is there, this Absatz reads "(weggefallen)"
                zitat = f"{target.art} {target.nummer} Abs. {target.absatz} {target.gesetz}"
                result.grund = GRUND_AUFGEHOBEN.format(zitat=zitat)
        elif (numbers_of_norm or target.absatz != "1") and not target.alte_fassung and not _left_out(target, numbers_of_norm):
            # an earlier version may have had other Absätze ("§ 850k Abs. 7 ZPO a. F.")
            result.grund = GRUND_ABSATZ.format(zitat=norm.zitat, absatz=target.absatz)
    if not result.grund and not target.eintrag and not target.alte_fassung and norm.nummer == target.nummer:
        result.grund = _subdivision_missing(target, norm.text, gesetz=target.gesetz)
    if result.anker:
        result.reader_url += f"#{result.anker}"
    return result


def _left_out(target: Ziel, numbers: list[str]) -> bool:
    """Whether an Absatz that only a range names lies before the section's last Absatz, where the
    source leaves out repealed ones (§ 32a Abs. 3 and 4 EStG): no error. One after the last is."""
    return target.im_bereich and bool(numbers) and _subdivision_key(target.absatz) < max(map(_subdivision_key, numbers))


_NUMBER_RE = re.compile(r"(\d+)([a-z]*)")


def _missing_section(nummer: str, present: list[tuple[str, bool]]) -> str:
    """Why a section or article the statute's norms (`present`: number and whether repealed, of one
    kind) do not hold is not there, as a reason to format with the citation. A complete statute has
    every number up to its last (a repealed one as "(weggefallen)", several as "§§ 2 bis 4"); a number
    below its first one means that the text in the corpus is incomplete, a gap in its numbers that the
    number was repealed and left out by the source or that the text is incomplete. Only a number
    beyond the last one is no section of the statute."""
    cited = _NUMBER_RE.fullmatch(nummer)
    if not cited:
        return GRUND_NORM
    key = (int(cited[1]), cited[2])
    keys: list[tuple[int, str]] = []
    for number, aufgehoben in present:
        found = [_NUMBER_RE.fullmatch(n) for n in re.findall(r"\d+[a-z]*", number)]
        members = [(int(m[1]), m[2]) for m in found if m]
        if " bis " in number and len(members) == 2 and not members[0][1] and not members[1][1]:
            members = [(n, "") for n in range(members[0][0], members[1][0] + 1)]
        if aufgehoben and key in members:  # "§ 3 TestG" of "§§ 2 bis 4 (weggefallen)"
            return GRUND_AUFGEHOBEN
        keys += members
    if not keys or key > max(keys):
        return GRUND_NORM
    if key[0] < min(keys)[0]:
        return GRUND_NORM_VOR_BESTAND
    letters = [letter for number, letter in keys if number == key[0]]
    if key[1] and letters and max(letters) < key[1]:  # "§ 573e BGB": beyond the last letter of its number
        return GRUND_NORM
    return GRUND_NORM_LUECKE


_REPEALED_ABSATZ_RE = re.compile(r"\(\d+[a-z]?\)\s*\(weggefallen\)\.?")
_REPEALED_FROM_RE = re.compile(r"(?:bis\s*\d{1,3}\.\s*)?\(weggefallen\)")  # after "4. " or "3. "
_REPEALED_RANGE_RE = re.compile(r"(?:(?<=[\s:;,])|^)(\d{1,3})\.\s*bis\s*(\d{1,3})\.\s*\(weggefallen\)")


def _repealed_absatz(block: str) -> bool:
    """Whether an Absatz's text (`absatz_text`) is only "(3) (weggefallen)"."""
    return _REPEALED_ABSATZ_RE.fullmatch(block.strip()) is not None


def _repealed_nummer(block: str, nummer: str) -> bool:
    """Whether the numbered item `nummer` of a section's or an Absatz's text reads "(weggefallen)": "4.
    (weggefallen)", "3. bis 5. (weggefallen)". Only where the text has that item once: where two lists
    share the number, the citation may mean the other one."""
    items = [match for match in _NUMMER_ITEM_RE.finditer(block) if match[1] == nummer]
    if len(items) == 1:
        return _REPEALED_FROM_RE.match(block, items[0].end()) is not None
    if items or not nummer.isdigit():
        return False
    ranges = [(int(low), int(high)) for low, high in _REPEALED_RANGE_RE.findall(block)]
    return sum(low < int(nummer) < high for low, high in ranges) == 1


_DETAIL_SATZ_RE = re.compile(SATZ_LIST)
_DETAIL_NR_RE = re.compile(NR_LIST)


def _subdivision_missing(target: Ziel, text: str, *, gesetz: str) -> str:
    """Why the Satz or Nummer a target names is not in its section or Absatz ("" if it may be):
    "§ 573 Abs. 2 Nr. 4 BGB" (Abs. 2 has Nr. 1-3), "§ 626 Abs. 2 S. 5 BGB". Checked only where the
    answer is certain enough never to raise a false alarm: a Nummer where the text has a numbered
    list, a Satz against an upper bound of the Sätze, never a Satz that belongs to a Nummer
    ("Nr. 11 S. 2"), a detail shared by several Absätze or one of a section the chain only suggests."""
    if not target.detail or target.unterteilung_unsicher:
        return ""
    if target.absatz:
        block = absatz_text(text, target.absatz)
    else:
        block = text if absatz_numbers(text) in ([], ["1"]) else None  # one Absatz: the section
    if block is None:
        return ""
    stelle = f"{target.art} {target.nummer}" + (f" Abs. {target.absatz}" if target.absatz else "") + f" {gesetz}"
    # every list of its kind: "Nr. 2 und Nr. 3", "S. 1 oder S. 3"
    if nummern := _DETAIL_NR_RE.findall(target.detail):
        for nummer in re.findall(r"\d+(?:\s?[a-z](?![\wäöüß]))?", re.sub(NR_KW, "", " ".join(nummern))):
            nummer = re.sub(r"\s+", "", nummer)
            if has_nummer(block, nummer) is False:
                return GRUND_NUMMER.format(stelle=stelle, nummer=nummer)
            if _repealed_nummer(block, nummer):  # "§ 312 Abs. 2 Nr. 4 BGB": "4. (weggefallen)"
                return GRUND_AUFGEHOBEN.format(zitat=f"{stelle.removesuffix(f' {gesetz}')} Nr. {nummer} {gesetz}")
        return ""
    if saetze := _DETAIL_SATZ_RE.findall(target.detail):
        highest = max(int(n) for n in re.findall(r"\d+", re.sub(SATZ_KW, "", " ".join(saetze))))
        if highest > satz_count(block):
            return GRUND_SATZ.format(stelle=stelle, satz=highest)
    return ""


# Markdown emphasis: "**§ 573** BGB" is one citation, split by the marks (single underscores stay:
# they occur inside words).
_MARKDOWN_HERVORHEBUNG = re.compile(r"\*{1,3}|_{2,3}")


def check_text(text: str) -> Pruefbericht:
    """Every norm and decision citation of `text` (an answer, a draft; Markdown), resolved."""
    return check_texts({0: text})[0]


def check_texts(texts: dict[int, str]) -> dict[int, Pruefbericht]:
    """`check_text` for many texts at once (a run's answer and drafts, the draft cards of a page):
    the norms of all of them in one lookup, so the queries do not grow with the texts; decisions
    are looked up only for texts that cite one."""
    if not texts:
        return {}
    names = law_names()
    plain = {key: _MARKDOWN_HERVORHEBUNG.sub("", text) for key, text in texts.items()}
    targets = {key: extract(text, names) for key, text in plain.items()}
    resolved = iter(resolve([target for key in plain for target in targets[key]]))
    return {
        key: Pruefbericht(normen=[next(resolved) for _ in targets[key]], urteile=check_aktenzeichen(text))
        for key, text in plain.items()
    }


def _pruefbericht(text: str, names: LawNames) -> Pruefbericht:
    return Pruefbericht(normen=resolve(extract(text, names)), urteile=check_aktenzeichen(text))


def _normalise_az(value: str) -> str:
    return re.sub(r"\s+", "", value).upper()


# An Aktenzeichen right after these words is a file number (the Akte's court case, a prosecutor's
# or the firm's own), not a decision cited: "Az.: 12 C 345/25", "Geschäftszeichen 2 Js 1234/25".
FILE_NUMBER_BEFORE_RE = re.compile(r"(?:Az\.?|Aktenzeichen|Geschäftszeichen|Zeichen|Gz\.?)\s*:?\s*$", re.IGNORECASE)
# Courts as they are cited and as a decision names them ("BGH" / "Bundesgerichtshof").
COURT_NAMES = {
    "BVerfG": "Bundesverfassungsgericht",
    "BGH": "Bundesgerichtshof",
    "BAG": "Bundesarbeitsgericht",
    "BSG": "Bundessozialgericht",
    "BVerwG": "Bundesverwaltungsgericht",
    "BFH": "Bundesfinanzhof",
    "BPatG": "Bundespatentgericht",
    "EuGH": "Gerichtshof",
    "OLG": "Oberlandesgericht",
    "KG": "Kammergericht",
    "LG": "Landgericht",
    "AG": "Amtsgericht",
    "LAG": "Landesarbeitsgericht",
    "ArbG": "Arbeitsgericht",
    "VGH": "Verwaltungsgerichtshof",
    "OVG": "Oberverwaltungsgericht",
    "VG": "Verwaltungsgericht",
    "LSG": "Landessozialgericht",
    "SG": "Sozialgericht",
    "FG": "Finanzgericht",
}
_COURTS = "|".join(sorted(COURT_NAMES, key=len, reverse=True))
# What shows an Aktenzeichen to be a decision cited: a court or a kind of decision before it, in the
# same paragraph ("BGH, Urt. v. 12.3.2020 – VIII ZR 123/19", "LAG Köln, 5 Sa 12/24").
DECISION_MARKER_RE = re.compile(
    rf"(?<![\wäöüß])(?:{_COURTS}|EGMR|"
    r"Urt\.|Urteil|Beschl\.|Beschluss|Entscheidung|Gerichtsbescheid|Versäumnisurteil|Rechtsprechung)(?![\wäöüß])"
)
DECISION_CONTEXT_CHARS = 160
_COURT_CITED_RE = re.compile(
    rf"(?<![\wäöüß])(?P<court>{_COURTS})(?![\wäöüß])"
    r"(?:\s+(?P<ort>(?!Urt\b|Urteil\b|Beschl\b|Beschluss\b|vom\b|v\b)[A-ZÄÖÜ][\wäöüß-]+))?"
)


def _paragraph_before(text: str, start: int) -> str:
    """Up to DECISION_CONTEXT_CHARS before `start`, within its paragraph: where a citation's court stands."""
    before = text[max(0, start - DECISION_CONTEXT_CHARS) : start]
    return before[before.rfind("\n\n") + 2 :] if "\n\n" in before else before


def _court_cited(text: str, start: int) -> tuple[str, str] | None:
    """The court cited right before the Aktenzeichen at `start` ("OLG Köln, Urt. v. … – 5 U 88/24"):
    its abbreviation and place, or None."""
    courts = list(_COURT_CITED_RE.finditer(_paragraph_before(text, start)))
    return (courts[-1]["court"], courts[-1]["ort"] or "") if courts else None


def _court_fits(gericht: str, court: tuple[str, str] | None) -> bool:
    """Whether a stored decision's court (`Urteil.gericht`) is the court cited (abbreviation or full
    name, as a word; and its place, if one was cited)."""
    if court is None:
        return True
    abbreviation, ort = court
    names = (abbreviation, COURT_NAMES[abbreviation])
    if not any(re.search(rf"(?<![\wäöüß]){re.escape(name)}(?![\wäöüß])", gericht) for name in names):
        return False
    return not ort or ort.casefold() in gericht.casefold()


def _cited_as_decision(text: str, start: int) -> bool:
    """Whether the Aktenzeichen at `start` cites a decision: a court or decision word before it in
    its paragraph, and not a file number ("Az.: 12 C 345/25" in a Schriftsatz's head)."""
    before = _paragraph_before(text, start)
    if FILE_NUMBER_BEFORE_RE.search(before):
        return False
    return DECISION_MARKER_RE.search(before) is not None


def check_aktenzeichen(text: str) -> list[dict[str, Any]]:
    """Decisions cited by Aktenzeichen ("VIII ZR 123/20"), looked up in the decisions table: the
    Aktenzeichen as cited, else without the letters after the year (the next word: "2 O 45/25 AG"),
    each also where the collection's Aktenzeichen carries a prefix ("DEMO 12 C 345/24"). One not in
    the table is reported only where it is cited as a decision (`_cited_as_decision`): the Akte's
    own court file number, a prosecutor's "2 Js 1234/25" or "3 Mio 10/20" are no citations."""
    from django.db.models import Q, Value
    from django.db.models.functions import Replace, Upper
    from django.urls import reverse

    from .models import Urteil

    found = list(AKTENZEICHEN_RE.finditer(text))
    if not found:
        return []
    wanted = {_normalise_az(m[group]) for m in found for group in ("az", "core")}
    condition = Q(pk__in=[])
    for key in wanted:
        condition |= Q(az__endswith=key)
    compact = Upper(Replace(Replace("aktenzeichen", Value(" "), Value("")), Value("\u00a0"), Value("")))
    candidates = list(Urteil.objects.annotate(az=compact).filter(condition).order_by("-datum", "pk"))
    results = []
    for found_az in found:
        az, match = found_az["az"], None
        # a decision of another court with the same number is not the one cited ("OLG Köln, 5 U 88/24")
        court = _court_cited(text, found_az.start("az"))
        of_court = [u for u in candidates if _court_fits(u.gericht, court)]
        for cited in dict.fromkeys((found_az["az"], found_az["core"])):
            match = _stored_decision(of_court, cited)
            if match is not None:
                az = cited
                break
        if match is None and not _cited_as_decision(text, found_az.start("az")):
            continue
        results.append(
            {
                "zitiert": az,
                "start": found_az.start("az"),
                "end": found_az.start("az") + len(az),
                "ok": match is not None,
                "urteil_id": match.pk if match else None,
                "url": reverse("urteil-detail", args=[match.pk]) if match else "",
                "grund": "" if match else GRUND_URTEIL.format(az=az),
            }
        )
    return results


def _stored_decision(candidates: Sequence[Urteil], cited: str) -> Urteil | None:
    """The decision with the cited Aktenzeichen; failing that, one whose Aktenzeichen ends in it, whole
    words ("DEMO 12 C 345/24" cited as "12 C 345/24", "B 4 AS 12/23 R" as "4 AS 12/23 R")."""
    key = _normalise_az(cited)
    ends_in_it = re.compile(r"(?:^|\s)" + r"\s*".join(map(re.escape, key)) + r"$", re.IGNORECASE)
    exact = [u for u in candidates if _normalise_az(u.aktenzeichen) == key]
    return next(iter(exact or [u for u in candidates if ends_in_it.search(u.aktenzeichen.strip())]), None)


# -- rendering in answers ------------------------------------------------------------------------

TAG_RE = re.compile(r"(<[^>]+>)")


def _render_spans(text: str, report: Pruefbericht) -> str:
    """One HTML text node with its citations linked (resolved) or marked (not in the corpus)."""
    from django.urls import reverse
    from django.utils.html import escape

    spans: dict[tuple[int, int], list[Aufloesung | dict[str, Any]]] = {}
    for resolved in report.normen:
        spans.setdefault((resolved.ziel.start, resolved.ziel.end), []).append(resolved)
    for urteil in report.urteile:
        spans.setdefault((urteil["start"], urteil["end"]), []).append(urteil)
    out: list[str] = []
    pos = 0
    for (start, end), items in sorted(spans.items()):
        if start < pos:  # overlapping spans (a range "§§ 4 bis 6"): the first one renders
            continue
        out.append(escape(text[pos:start]))
        cited = escape(text[start:end])
        broken = [i for i in items if not (i.ok if isinstance(i, Aufloesung) else i["ok"])]
        first = items[0]
        if broken:
            reasons = " ".join(i.grund if isinstance(i, Aufloesung) else i["grund"] for i in broken)
            out.append(
                f'<span class="zitat-fehlt" title="{escape(reasons)}">{cited}</span> '
                f'<small class="zitat-hinweis">({NICHT_IM_BESTAND})</small>'
            )
        elif isinstance(first, Aufloesung) and first.norm_id is not None:
            panel = reverse("norm-panel", args=[first.norm_id]) + (f"#{first.anker}" if first.anker else "")
            title = f"{first.zitat} · Stand: {first.stand}" if first.stand else first.zitat
            out.append(
                f'<a href="{escape(first.reader_url)}" class="zitat" data-norm-panel="{escape(panel)}" '
                f'title="{escape(first.hinweis or title)}">{cited}</a>'
            )
            if first.ziel.alte_fassung:
                out.append(f' <small class="zitat-hinweis">({GELTENDE_FASSUNG})</small>')
            if first.nicht_pruefbar:
                out.append(f' <small class="zitat-hinweis">({NICHT_PRUEFBAR})</small>')
        elif isinstance(first, dict):
            out.append(f'<a href="{escape(first["url"])}" class="zitat">{cited}</a>')
        else:
            out.append(cited)
        pos = end
    out.append(escape(text[pos:]))
    return "".join(out)


def link_citations(html: str) -> str:
    """Sanitised HTML with every norm and decision citation checked: resolved ones link to the
    section (Absatz anchor; `data-norm-panel` is the side-panel fragment), the others are marked
    "nicht im Bestand – bitte prüfen". Text inside links and code keeps its markup; a citation
    there that does not resolve gets the mark after the link or code ("[§ 9999 BGB](…)" must not
    look like a checked one)."""
    from html import unescape

    names = law_names()
    out: list[str] = []
    skip = 0
    inside: list[str] = []  # the text of the link or code being passed over
    for part in TAG_RE.split(_citations_across_emphasis(html, names)):
        if part.startswith("<"):
            tag = re.match(r"</?\s*(\w+)", part)
            if tag and tag[1].lower() in ("a", "code", "pre"):
                skip += -1 if part.startswith("</") else 1
                skip = max(skip, 0)
            out.append(part)
            if not skip and inside:
                out.append(_mark_after(unescape("".join(inside)), names))
                inside = []
            continue
        if skip:
            inside.append(part)
            out.append(part)
            continue
        if not part.strip():
            out.append(part)
            continue
        text = unescape(part)
        report = _pruefbericht(text, names)
        out.append(_render_spans(text, report) if report.normen or report.urteile else part)
    return "".join(out)


# The end of bold or italic text, and the text node it closes.
# The text node before the closing tag starts after the previous tag (or at the start): anchored, so
# that a long node is not scanned again from each of its characters (quadratic).
_HERVORHEBUNG_ENDE = re.compile(r"(?:(?<=>)|\A)([^<>]*)</(strong|em|b|i)>(\s+)")
_ZITAT_ANFANG = re.compile(r"(?:§§?|Art\.|Artikel)\s*\d")


def _citations_across_emphasis(html: str, names: LawNames) -> str:
    """Close bold or italic after the statute when it ends between a section and its statute
    ("<strong>§ 573</strong> BGB" → "<strong>§ 573 BGB</strong>"): one citation for the check,
    which reads text nodes one by one."""
    out: list[str] = []
    pos = 0
    for ende in _HERVORHEBUNG_ENDE.finditer(html):
        if ende.start() < pos or not _ZITAT_ANFANG.search(ende.group(1)):
            continue
        gesetz = names.law_at(html, ende.end())
        if gesetz is None:
            continue
        out += [html[pos : ende.start(2) - 2], ende.group(3), html[ende.end() : gesetz[1]], f"</{ende.group(2)}>"]
        pos = gesetz[1]
    out.append(html[pos:])
    return "".join(out)


def _mark_after(text: str, names: LawNames) -> str:
    """The mark for the citations of a link's or code's `text` that do not resolve ("" if none)."""
    from django.utils.html import escape

    report = _pruefbericht(text, names)
    reasons = [r.grund for r in report.normen if not r.ok] + [u["grund"] for u in report.urteile if not u["ok"]]
    if not reasons:
        return ""
    return f' <small class="zitat-hinweis" title="{escape(" ".join(reasons))}">({NICHT_IM_BESTAND})</small>'


def answer_citation_trace(text: str, *, entwuerfe: dict[int, str] | None = None) -> dict[str, Any]:
    """The citation check of a run's final answer and of the drafts it wrote (`entwuerfe`: draft
    id -> the draft's text) as a trace event payload: per text how many citations were checked, how
    many are not in the corpus, and each one (citation, target, reason; no other text of the answer
    or the draft). `geprueft` and `nicht_im_bestand` at the top count the answer; each draft has
    its own entry in `entwuerfe`; `nicht_im_bestand_gesamt` counts both. Never raises: a failing
    check must not fail the run it reports on."""
    try:
        reports = check_texts({pk: body for pk, body in (entwuerfe or {}).items()})
        payload = check_text(text).as_dict() if text else Pruefbericht().as_dict()
        drafts = [{"draft": pk, **reports[pk].as_dict()} for pk in sorted(reports)]
    except Exception as exc:  # noqa: BLE001 - reported in the trace instead of ending the run
        logger.exception("citation check failed")
        return {"geprueft": 0, "nicht_im_bestand": 0, "normen": [], "urteile": [], "fehler": type(exc).__name__}
    if drafts:
        payload["entwuerfe"] = drafts
    payload["nicht_im_bestand_gesamt"] = payload["nicht_im_bestand"] + sum(d["nicht_im_bestand"] for d in drafts)
    return payload


def unresolved_in_trace(payload: dict[str, Any]) -> int:
    """Citations not in the corpus that an `answer.citations` payload counts (answer and drafts;
    payloads written before drafts were checked count the answer)."""
    return int(payload.get("nicht_im_bestand_gesamt", payload.get("nicht_im_bestand", 0)))
