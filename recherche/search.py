"""Search over the knowledge base.

Norms: citations in the query ("§ 573c BGB", "§§ 187, 188 BGB", "Art. 1 GG", "573c BGB") are
resolved exactly and come first. Otherwise (and after them) full-text search (PostgreSQL `german`
configuration, terms OR-ed and ranked; the question's framing words dropped, rare compounds also
searched by their parts, practitioners' terms and everyday expressions translated into the statutes'
wording by two vocabularies, thesaurus.txt and alltagssprache.txt) and vector search (cosine
distance on the configured model's embeddings, HNSW; the question is embedded together with that
statute wording) are fused with reciprocal rank fusion; norms in the outline areas closest to the
question (their sections' mean vector) count more. A norm of everyday practice has one more chunk,
its Sachregister entry (recherche/sachregister.py: the situations it governs in a Mandant's words),
found by both searches like its text; a hit on it counts for the norm, the best chunk of a norm
once per ranking. If the embedding backend is down, the search runs on full text alone and says so
(`fallback`, `hinweis`).

Decisions, templates and the firm's documents use the same hybrid core; document chunks are
limited to the Dokumente the user may see (`Dokument.objects.visible_to`).
"""

from __future__ import annotations

import datetime
import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from django.db import connection
from django.db.models import Q
from wordfreq import get_frequency_dict

from akten.models import Dokument
from helena.db import execute_with_local_settings

from . import citations
from .embeddings import EmbeddingBackend, EmbeddingUnavailable, get_backend
from .models import Chunk, Gesetz, Muster, Norm, Urteil
from .services import AVERAGE_LENGTH_LEXEM

# A small k rewards sections that both rankings put near the top (measured in bench/retrieval.py).
RRF_K = 5
CANDIDATES = 50
SNIPPET_CHARS = 300
FALLBACK_HINWEIS = "Semantische Suche gerade nicht verfügbar; Ergebnisse nur aus der Volltextsuche."

# Full-text scores: BM25 with these constants (term frequency saturation, length normalisation).
BM25_K1 = 1.2
BM25_B = 0.75
# HNSW candidates per vector search (pgvector's default of 40 returns fewer than CANDIDATES), and
# the pool the nearest CANDIDATES are taken from. HNSW is approximate and its graph differs with
# every build (REINDEX, VACUUM FULL, a restore): with 50 of ef 100, a rebuild changed the 50 vector
# candidates of 46 of the 99 tuning questions; the nearest 50 of 100 (ef 200) match the exact search
# for 63 of them instead of 34, and the hybrid top 10 changed for 1 instead of 5 questions over two
# rebuilds (bench/data/fragen_2026.jsonl, tuning half). The exact search itself takes 44-98 ms.
EF_SEARCH = 200
VECTOR_POOL = 100
# Relevance floor: a hit found only by the vector search counts if its cosine similarity reaches
# this. Measured on the tuning half of bench/data/fragen_2026.jsonl: the correct hits of the vector
# search lie at 0.82 and above (5th percentile 0.85), the best hits for unrelated questions ("Wie
# backe ich einen Marmorkuchen?") at 0.78 to 0.83.
VECTOR_FLOOR = 0.815
# Annexes (fee tables, forms) are long, full of numbers and match many words; they rank only when
# the question is about them.
ANLAGE_FACTOR = 0.5
ANLAGE_WORDS = re.compile(r"(?i)\b(anlage|\w*verzeichnis|\w*tabelle|\w*gebühr\w*|vv|kv|muster|formular)\b|nr\.\s*\d{4}")
# Statutes the question's field of law (or the Akte's Sachgebiet) prefers among equal hits.
PREFERENCE_FACTOR = 1.5
SACHGEBIETE_PATH = Path(__file__).parent / "data" / "sachgebiete.txt"
# A question about no legal subject at all ("Wie backe ich einen Marmorkuchen?") still shares words
# with some section ("Farbe", "Kilo", "Fahrrad"), and the vector search always finds a nearest one:
# such hits are not shown. A question has a legal subject when it cites a norm, uses an expression of
# the vocabularies, or has a word the statutes use far more than everyday German does: the share of
# sections that hold its stem, against the frequency of that stem in general German (wordfreq's
# Zipf scale, log10 of occurrences per billion words), both on the Zipf scale, LEGAL_WORD_MARGIN or
# more apart. Measured on the tuning questions (286 about law, 60 not, bench/retrieval.py
# --tuning-only): at 2.0 no question about law is judged to have no legal subject (the lowest lies
# at 2.1), and 45 of the 60 others are; at 2.3 three questions about law would be. Stems of general
# German at or above FUNCTION_WORD_ZIPF ("werden", "nicht") never count; a stem outside
# wordfreq's short list (Zipf below 3) counts as GENERAL_RARE_ZIPF.
LEGAL_WORD_MARGIN = 2.0
# A question this close to a section (cosine similarity) is about law whatever its words: 98.6 % of
# the tuning questions about law reach it, none of the 45 others judged without a legal subject
# (they lie at 0.856 and below). The words are only looked at below it.
SUBJECT_SIMILARITY = 0.86
# Someone who describes a matter at length to a law firm has a legal matter, even in words the
# statutes do not use ("… ich hab zugeschlagen und ihm die Nase gebrochen. Jetzt zeigt er mich
# an.", 25 words, a tuning question the words alone judged to have no legal subject): the floor is
# for short questions. The 60 tuning questions with no legal subject have 3 to 9 words.
SUBJECT_MAX_WORDS = 12
FUNCTION_WORD_ZIPF = 5.3
GENERAL_RARE_ZIPF = 2.5
# Outline areas: the sections under one heading of a statute's outline (Norm.gliederung, e.g. "Titel 26
# Ungerechtfertigte Bereicherung"). A question in everyday words often meets the area that answers it
# better than any one of its sections, whose text may share few of its words; an area's mean vector
# stands for all of its sections, also those the searches did not find. Hits in the AREA_COUNT areas
# closest to the question (cosine similarity to the mean vector) count AREA_BOOST more. Measured on
# the tuning sets (bench/retrieval.py --tuning-only, 249 questions): recall@5 / MRR 0.751 / 0.700 →
# 0.763 / 0.709 with 5 areas and 0.3 (everyday questions 0.614 → 0.632, expert ones 0.892 → 0.898);
# 3 areas and 0.5 0.760 / 0.709, 10 areas or a boost of 1.0 less; adding the areas' unfound sections
# as a third ranking lost (0.743 / 0.696).
AREA_COUNT = 5
AREA_BOOST = 0.3
# References between sections (`_with_referenced`): the REFERENCE_TOP best hits pass REFERENCE_SHARE
# of their score to the sections of their own statute that their text cites. Fixed before measuring
# on the tuning sets (bench/retrieval.py --tuning-only) by the rule for such changes: take it when
# recall@5 over the three tuning sets rises by at least 0.01 and no set falls by more than 0.01.
# 0.1 / 10: 0.888 / 0.933 / 0.669 → 0.889 / 0.942 / 0.695 (weighted +0.011), MRR 0.832 / 0.869 /
# 0.657 → 0.842 / 0.884 / 0.663; 0.07–0.1 with 8–15 hits alike; shares of 0.3 and more lost (0.6:
# MRR 0.801 / 0.779 / 0.600); passing only to sections already found gained less.
REFERENCE_SHARE = 0.1
REFERENCE_TOP = 10
# "§ 355", "§§ 355", "§ 573 Absatz 2" in a section's text; not "Artikel 3 § 2"
SAME_LAW_REFERENCE = re.compile(
    r"(?P<artikel>(?:Artikel|Art\.) \d+[a-z]? )?§§? (?P<nummer>\d{1,4}[a-z]?)\b(?P<after>[^§;]{0,120})"
)
# what follows a reference to another statute, after its subdivisions and further numbers or sections:
# "… Abs. 2 des Patentgesetzes", "§§ 878, 892, 893 des Bürgerlichen Gesetzbuchs", "… VVG", "§ 5 und
# § 6 des Kündigungsschutzgesetzes" (the statute named at the end is that of every section before it)
OTHER_LAW = re.compile(
    r"^(?:\s*,|\s+(?:Abs(?:atz|\.)|Satz|S\.|Nummer|Nr\.|Buchstabe|Halbsatz|Hs\.|und|oder|bis|sowie|in|Verbindung|mit"
    r"|§§?|\d+[a-z]?|[a-z]\)?))*"
    r"\s+(?:(?:des|der|dem|den)\s+(?:\S+\s+){0,3}?\S*(?:[Gg]esetz|[Bb]uch|[Oo]rdnung|[Vv]ertrag)|(?:(?:des|der|dem|den)\s+)?[A-Z][A-Za-z]*(?:G|O|V|B)\b)"
)
OTHER_LAW_REACH = 200
NOTHING_FOUND = "Keine passende Norm gefunden. Nenne das Gesetz oder formuliere mit den Begriffen des Gesetzes."
NOT_LOADED = "{gesetze} nicht im Bestand. Geladen sind: {bekannt}."
DOKUMENTE_PENDING = "{n} Dokument(e) noch nicht eingebettet; für sie zählt bisher nur die Volltextsuche."
DOKUMENTE_NOTHING = "Kein passendes Dokument gefunden."
URTEILE_NOTHING = "Keine passende Entscheidung gefunden."


@dataclass
class Hit:
    kind: str
    object_id: int
    score: float
    chunk_id: int  # the source's best chunk (of the first ranking that has it)
    chunk_text: str = ""  # its text, where `hybrid_chunks` was asked for it
    fulltext_rank: int | None = None
    vector_rank: int | None = None
    exact: bool = False
    similarity: float = 0.0


@dataclass
class SearchResult:
    results: list[dict[str, Any]] = field(default_factory=list)
    fallback: bool = False
    hinweis: str = ""
    query: str = ""
    # Citations in the query that do not resolve: [{zitiert, grund, …}] (citations.Aufloesung).
    nicht_im_bestand: list[dict[str, Any]] = field(default_factory=list)


def parse_citations(query: str) -> list[tuple[str, str, str]]:
    """[(art, nummer, abkuerzung)] for every citation of a known statute in `query`, in order
    (VV/KV numbers as their annex: ("Anlage", "1", "RVG"))."""
    names = citations.law_names()
    found: list[tuple[str, str, str]] = []
    for target in citations.extract(query, names, bare_numbers=True):
        key = (target.art, target.nummer, target.gesetz)
        if target.gesetz in names.canonical_names and key not in found:
            found.append(key)
    return found


def _snippet(text: str, query: str) -> str:
    words = [w for w in re.findall(r"\w{4,}", query.lower())]
    lower = text.lower()
    positions = [lower.find(w[:6]) for w in words if lower.find(w[:6]) >= 0]
    start = max(0, min(positions) - 80) if positions else 0
    snippet = text[start : start + SNIPPET_CHARS].replace("\n", " ")
    return ("…" if start else "") + snippet + ("…" if start + SNIPPET_CHARS < len(text) else "")


THESAURUS_PATH = Path(__file__).parent / "data" / "thesaurus.txt"
LAY_VOCABULARY_PATH = Path(__file__).parent / "data" / "alltagssprache.txt"
VOCABULARY_PATHS = (THESAURUS_PATH, LAY_VOCABULARY_PATH)
SHORT_KEY_CHARS = 4
# Lexemes in more than this share of a kind's chunks carry no signal ("Absatz", "kann").
COMMON_LEXEM_SHARE = 0.1
# The statute wording of the query's terms (thesaurus, everyday vocabulary) counts this much
# (measured on the tuning half of bench/data/fragen_2026.jsonl).
EXPANSION_WEIGHT = 0.8
TITLE_BONUS = 1.0
# Full text scores at most this many candidate chunks (those with the query's rarest words).
FULLTEXT_CANDIDATES = 1000
# Words that frame a question rather than name its subject ("Wann muss ich …?", "Geht das?", "Wie
# lange …?"). Statutes rarely use them, so their IDF would be high and chance matches would rank.
QUERY_STOPWORDS = frozenset(
    "wann wer wie was welche welcher welches welchem welchen wo wohin woher warum weshalb wieso "
    "wieviel wieviele ob geht passiert tun braucht brauchen gibt einfach eigentlich überhaupt schon "
    "darf dürfen muss müssen kann können soll sollen will wollen ab bis seit beim lange lang hoch "
    "viel viele schnell".split()
)
# A compound the corpus (almost) never uses ("Räumungsklage", "Wohnungsmieter") is searched by its
# parts as well, when both occur in the corpus ("Räumung" + "Klage"); the parts count less.
COMPOUND_MAX_NDOC = 3
COMPOUND_PART_WEIGHT = 0.6
COMPOUND_MIN_CHARS = 8
# Linking elements between the parts of a German compound ("Räumung-s-klage", "Familie-n-sache").
COMPOUND_LINKS = ("", "s", "es", "n", "en")
# Endings that make a word, not a compound ("restlich", "automatisch", "Zahlung").
COMPOUND_NOT_HEADS = ("lich", "isch", "ung", "heit", "keit", "schaft", "bar", "sam", "haft", "los")


def vocabulary_entries(path: Path) -> list[tuple[list[str], str]]:
    """The entries of a vocabulary file: ([expression, …], statute wording) per line."""
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#") or "=" not in line:
            continue
        keys, expansion = line.split("=", 1)
        entries.append(([k.strip().lower() for k in keys.split(",") if k.strip()], expansion.strip()))
    return entries


# An expression of several words also matches with up to PHRASE_GAP_WORDS other words between its
# words, within one sentence: "Kaution zurück" in "Ich will meine Kaution vom Vermieter zurück".
PHRASE_GAP_WORDS = 3
_LETTER = "a-zäöüß"
_PHRASE_GAP = rf"[^{_LETTER}.?!;]+(?:[{_LETTER}]+[^{_LETTER}.?!;]+){{0,{PHRASE_GAP_WORDS}}}?"


def _phrase_pattern(key: str) -> re.Pattern[str]:
    """A multi-word expression with room for other words in between; each of its words matches
    words beginning with it, a word of up to three letters ("in", "vom") only itself."""
    words = [re.escape(word) + (rf"(?![{_LETTER}])" if len(word) <= 3 else "") for word in key.split()]
    return re.compile(rf"(?<![{_LETTER}])" + _PHRASE_GAP.join(words))


# Vocabulary patterns by the first three letters of their expression: a question is tried only
# against the expressions that can begin at one of its words (a few dozen of some 2,000).
VocabularyIndex = dict[str, list[tuple[re.Pattern[str], str]]]


def _by_start(entries: list[tuple[str, re.Pattern[str], str]]) -> VocabularyIndex:
    index: VocabularyIndex = {}
    for key, pattern, expansion in entries:
        index.setdefault(_word_start(key), []).append((pattern, expansion))
    return index


def _word_start(text: str) -> str:
    """Up to three letters a word (or expression) begins with: "kün" for "kündigt", "p" for
    "p-konto", "" for "1-prozent-regel"."""
    return re.match(rf"[{_LETTER}]*", text).group(0)[:3]  # type: ignore[union-attr]


def _candidates(index: VocabularyIndex, lower: str) -> list[tuple[re.Pattern[str], str]]:
    starts = dict.fromkeys(["", *(_word_start(lower[m.start() :]) for m in re.finditer(rf"(?<![{_LETTER}])[^\s]", lower))])
    return [entry for start in starts for entry in index.get(start, ())]


@functools.cache
def _phrases() -> VocabularyIndex:
    return _by_start(
        [
            (key, _phrase_pattern(key), expansion)
            for path in VOCABULARY_PATHS
            for keys, expansion in vocabulary_entries(path)
            for key in keys
            if " " in key
        ]
    )


@functools.cache
def _thesaurus() -> VocabularyIndex:
    """Practitioners' terms (recherche/data/thesaurus.txt) and everyday wording
    (recherche/data/alltagssprache.txt) → the statute's own wording. An expression matches every
    word that begins with it ("kündig" matches "kündigt"); a short one (up to SHORT_KEY_CHARS,
    "Amt", "Abo") only the whole word, so "Amt" does not match "Amtsgericht"."""
    entries = []
    for path in VOCABULARY_PATHS:
        for keys, expansion in vocabulary_entries(path):
            for key in keys:
                end = rf"(?![{_LETTER}])" if len(key) <= SHORT_KEY_CHARS else ""
                entries.append((key, re.compile(rf"(?<![{_LETTER}])" + re.escape(key) + end), expansion))
    return _by_start(entries)


@functools.lru_cache(maxsize=1024)
def vocabulary_matches(query: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, statute wording) of the practitioners' terms and everyday expressions in
    `query`, in the order of the question. Where terms overlap, the longest one counts:
    "Scheidungsverfahren" is about the procedure, not about the grounds for a "Scheidung". Then
    multi-word expressions written with other words in between (`_phrase_pattern`); these add
    their wording but, spanning words that are not theirs, never displace another match."""
    lower = query.lower()
    candidates = _candidates(_thesaurus(), lower)
    matches = [(m.start(), m.end(), expansion) for pattern, expansion in candidates for m in pattern.finditer(lower)]
    found = [
        (start, end, expansion)
        for start, end, expansion in matches
        if not any(s <= start and end <= e and e - s > end - start for s, e, _ in matches)
    ]
    # Wordings already matched without a gap, kept or displaced by a longer expression: a gapped
    # match of the same expression must not bring a displaced one back.
    wordings = {expansion for _start, _end, expansion in matches}
    for pattern, expansion in _candidates(_phrases(), lower):
        if expansion not in wordings and (match := pattern.search(lower)):
            found.append((match.start(), match.end(), expansion))
            wordings.add(expansion)
    return tuple(sorted(found))


def expand_query(query: str) -> str:
    """The statute wording for the practitioners' terms in `query` (empty if none)."""
    return " ".join(dict.fromkeys(expansion for _start, _end, expansion in vocabulary_matches(query)))


def embedding_query(query: str) -> str:
    """What the embedding model sees of a question: the question, and the statute wording of its
    everyday expressions and practitioners' terms (the model compares it with statute text)."""
    expansion = expand_query(query)
    return f"{query} ({expansion})" if expansion else query


def query_words(query: str) -> list[str]:
    """The words of `query` that name its subject (without QUERY_STOPWORDS)."""
    return [word for word in re.findall(r"\w+", query) if word.lower() not in QUERY_STOPWORDS]


def _stem_counts(cursor: Any, kind: str, words: list[str]) -> tuple[list[tuple[str, str, int]], int]:
    """(word, stem, number of chunks of `kind` with the stem) for each stem of `words` (stopwords
    have none), and the number of chunks of the kind (0 without statistics)."""
    cursor.execute(
        "SELECT w.word, l.lexem, COALESCE(s.ndoc, 0), "
        "(SELECT t.ndoc FROM recherche_lexemstatistik t WHERE t.kind = %s AND t.lexem = '') "
        "FROM unnest(%s::text[]) AS w(word) "
        "CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector('german', w.word))) AS l(lexem) "
        "LEFT JOIN recherche_lexemstatistik s ON s.kind = %s AND s.lexem = l.lexem",
        [kind, words, kind],
    )
    rows = cursor.fetchall()
    return [(word, stem, ndoc) for word, stem, ndoc, _total in rows], (rows[0][3] or 0) if rows else 0


@functools.cache
def _general_stem_zipf() -> dict[str, float]:
    """Stem (PostgreSQL's German stemmer, as in the search vectors) → its frequency in general
    German on the Zipf scale: the sum over the words of wordfreq's short German list (about 39,000)
    that have that stem, so "gesündesten" is compared as "gesund"."""
    frequencies = get_frequency_dict("de", wordlist="small")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT w.word, l.lexem FROM unnest(%s::text[]) AS w(word) "
            "CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector('german', w.word))) AS l(lexem)",
            [list(frequencies)],
        )
        by_stem: dict[str, float] = {}
        for word, stem in cursor.fetchall():
            by_stem[stem] = by_stem.get(stem, 0.0) + frequencies[word]
    return {stem: math.log10(frequency * 1e9) for stem, frequency in by_stem.items()}


def legal_words(query: str, kind: str = Chunk.Kind.NORM) -> list[str] | None:
    """The words of `query` whose stems the statutes (chunks of `kind`) use far more than general
    German does (see LEGAL_WORD_MARGIN); None without statistics for the kind (nothing ingested)."""
    words = [word for word in dict.fromkeys(query_words(query)) if len(word) >= 4 and word.isalpha()]
    if not words:
        return []
    general = _general_stem_zipf()
    with connection.cursor() as cursor:
        rows, total = _stem_counts(cursor, kind, words)
    if not total:
        return None
    found = []
    for word, stem, ndoc in rows:
        everyday = general.get(stem, GENERAL_RARE_ZIPF)
        if ndoc and everyday < FUNCTION_WORD_ZIPF and math.log10(ndoc / total) + 9 - everyday >= LEGAL_WORD_MARGIN:
            found.append(word)
    return found


def about_law(query: str, kind: str = Chunk.Kind.NORM) -> bool:
    """Does `query` name a legal subject: an expression of the vocabularies or a legal word
    (`legal_words`)? A description longer than SUBJECT_MAX_WORDS always does. Citations are
    resolved before this is asked. Without statistics for the kind (nothing ingested yet) every
    question with words does."""
    if vocabulary_matches(query) or len(query_words(query)) > SUBJECT_MAX_WORDS:
        return True
    found = legal_words(query, kind)
    return found is None or bool(found)


def _subject_floor(hits: list[Hit], query: str, source: str, closest: float) -> list[Hit]:
    """`hits` without the chance ones: when no chunk is as close as SUBJECT_SIMILARITY (`closest`,
    the best cosine similarity of the search) and `query` names no legal subject (`about_law`),
    only the hits with a chunk that holds every word of it. Such a question shares a word or two
    with some section by chance ("Welche Farbe hat der Himmel?"); a search for a word or two
    ("Hund", "Alkohol Steuer") is a keyword search, and the sections that hold all of them are
    what was asked for."""
    if not hits or closest >= SUBJECT_SIMILARITY or about_law(query):
        return hits
    words = " ".join(query_words(query))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT DISTINCT {source} FROM recherche_chunk "  # noqa: S608 - `source` is a column name of this module
            f"WHERE {source} = ANY(%s) AND search_vector @@ plainto_tsquery('german', %s)",
            [[hit.object_id for hit in hits], words],
        )
        holding = {row[0] for row in cursor.fetchall()}
    return [hit for hit in hits if hit.object_id in holding]


def _compound_splits(word: str) -> list[tuple[str, str]]:
    """Every (modifier, head) reading of `word` as a two-part compound, linking elements removed."""
    lower = word.lower()
    splits = []
    for cut in range(4, len(lower) - 3):  # both parts at least four letters
        left, head = lower[:cut], lower[cut:]
        if head.startswith(COMPOUND_NOT_HEADS):
            continue
        for link in COMPOUND_LINKS:
            if left.endswith(link) and len(left) - len(link) >= 3:
                splits.append((left[: len(left) - len(link)], head))
    return splits


def _long_words(words: list[str]) -> list[str]:
    """The words of a query that may be compounds worth splitting (`_compound_readings`)."""
    return [word for word in dict.fromkeys(words) if len(word) >= COMPOUND_MIN_CHARS and word.isalpha()]


def _compound_pieces(long_words: list[str]) -> list[str]:
    """Every piece of every split of `long_words`, and the words themselves (lower case), whose
    stems and document frequencies `_compound_readings` compares."""
    pieces = {piece for word in long_words for split in _compound_splits(word) for piece in split}
    return sorted(pieces | {word.lower() for word in long_words})


def _compound_readings(long_words: list[str], found: dict[str, tuple[str, int]]) -> list[str]:
    """Lexemes of the parts of the rare compounds among `long_words`, given each piece's (lexeme,
    document frequency) in `found` (`_compound_pieces`): for each word the corpus (almost) never
    uses, the split whose two parts are both in the corpus and most common there (the geometric
    mean of their document frequencies, after Koehn and Knight 2003)."""
    parts: list[str] = []
    for word in long_words:
        if found.get(word.lower(), ("", 0))[1] > COMPOUND_MAX_NDOC:
            continue  # the corpus uses the compound itself
        readings = []
        for left, head in _compound_splits(word):
            (left_lexem, left_ndoc), (head_lexem, head_ndoc) = found.get(left, ("", 0)), found.get(head, ("", 0))
            if left_ndoc and head_ndoc:
                readings.append((math.sqrt(left_ndoc * head_ndoc), left_lexem, head_lexem))
        if readings:
            _score, left_lexem, head_lexem = max(readings)
            parts += [left_lexem, head_lexem]
    return list(dict.fromkeys(parts))


# The lexemes of the question's own words, of its thesaurus expansion and of the pieces of its long
# words, with their document frequencies and the kind's totals: one round trip for `_term_weights`.
TERM_STATISTICS_SQL = """
    WITH terms(source, word, lexem) AS (
        SELECT 'own', '', l.lexem FROM unnest(tsvector_to_array(to_tsvector('german', %s))) AS l(lexem)
        UNION ALL
        SELECT 'expanded', '', l.lexem FROM unnest(tsvector_to_array(to_tsvector('german', %s))) AS l(lexem)
        UNION ALL
        SELECT 'piece', w.word, l.lexem FROM unnest(%s::text[]) AS w(word)
        CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector('german', w.word))) AS l(lexem)
        UNION ALL
        SELECT 'total', '', t.lexem FROM unnest(ARRAY['', %s]) AS t(lexem)
    )
    SELECT t.source, t.word, t.lexem,
        COALESCE((SELECT s.ndoc FROM recherche_lexemstatistik s WHERE s.kind = %s AND s.lexem = t.lexem), 0)
    FROM terms t
"""  # a subquery per term: the planner cannot see how few terms there are and would hash the whole table


def _term_weights(cursor: Any, kind: str, query: str) -> tuple[dict[str, tuple[float, int]], float]:
    """IDF weight and document frequency per query lexeme (from LexemStatistik); the parts of rare
    compounds and thesaurus expansions count less. Without statistics for the kind (nothing
    ingested yet) every lexeme weighs 1."""
    words = query_words(query)
    long_words = _long_words(words)
    cursor.execute(
        TERM_STATISTICS_SQL,
        [" ".join(words), expand_query(query), _compound_pieces(long_words), AVERAGE_LENGTH_LEXEM, kind],
    )
    own: list[str] = []
    expanded: list[str] = []
    found: dict[str, tuple[str, int]] = {}
    df: dict[str, int] = {}
    for source, word, lexem, ndoc in cursor.fetchall():
        df[lexem] = ndoc
        if source == "own":
            own.append(lexem)
        elif source == "expanded":
            expanded.append(lexem)
        elif source == "piece":
            found[word] = (lexem, ndoc)
    total = df.pop("", 0)
    average_length = float(df.pop(AVERAGE_LENGTH_LEXEM, 0) or 100)
    parts = [lex for lex in _compound_readings(long_words, found) if lex not in own]
    expanded = [lex for lex in expanded if lex not in own and lex not in parts]
    lexemes = own + parts + expanded
    if not lexemes:
        return {}, 1.0
    weights: dict[str, tuple[float, int]] = {}
    for lexem in lexemes:
        factor = 1.0 if lexem in own else COMPOUND_PART_WEIGHT if lexem in parts else EXPANSION_WEIGHT
        if not total:
            weights[lexem] = (factor, 0)
            continue
        # A lexeme missing from the statistics is rare (or newer than them, e.g. a fresh upload).
        ndoc = max(df.get(lexem, 0), 1)
        if ndoc > COMMON_LEXEM_SHARE * total:
            continue  # too common to tell sections apart
        weights[lexem] = (factor * math.log(1 + (total - ndoc + 0.5) / (ndoc + 0.5)), ndoc)
    return weights, average_length


def _candidate_query(weights: dict[str, tuple[float, int]]) -> str:
    """The tsquery that selects the chunks full text scores: the rarest lexemes whose chunks
    together stay within FULLTEXT_CANDIDATES. When even the rarest one is in more chunks than that,
    its chunks that also hold another of the query's lexemes (an intersection of posting lists in
    the GIN index): a chunk with only that one common word of the question rarely ranks."""
    ordered = sorted(weights, key=lambda lex: (weights[lex][1], lex))
    chosen: list[str] = []
    postings = 0
    for lexem in ordered:
        postings += weights[lexem][1]
        if chosen and postings > FULLTEXT_CANDIDATES:
            break
        chosen.append(lexem)
    if weights[ordered[0]][1] <= FULLTEXT_CANDIDATES or len(ordered) == 1:
        return " | ".join(_tsquery_term(lex) for lex in chosen)
    return f"{_tsquery_term(ordered[0])} & ({' | '.join(_tsquery_term(lex) for lex in ordered[1:])})"


# The columns of a chunk that name its source, one per kind (`hybrid_chunks`' `source`).
SOURCE_COLUMNS = frozenset({"norm_id", "urteil_id", "muster_id", "dokument_id"})
# A ranked chunk: (chunk id, its source's id – the `source` column, e.g. norm_id –, score). Without
# its text: a norm's hit shows the section's text, and the other kinds need the text of the shown
# hits only (`hybrid_chunks`), not of every candidate.
Ranked = tuple[int, int, float]


def _tsquery_term(lexem: str) -> str:
    return "'" + lexem.replace("'", "''") + "'"


# From PostgreSQL 17 on, a B-tree scan with two arrays (the query's lexemes × the candidates' ids)
# descends only where the next pair can be: with 100,000 more chunks it reads a few hundred index
# pages instead of every posting of a common word (full text p95 at 100,000 synthetic chunks 25.6 →
# 11.0 ms, the same results). Older servers descend once per pair (lexemes × up to 1,000 ids); there
# the candidates filter the lexemes' posting lists in a hash join.
POSTING_PROBE_MIN_SERVER = 170000


def _posting_candidates() -> str:
    """The condition that keeps the postings of the first FULLTEXT_CANDIDATES matched chunks."""
    if connection.pg_version >= POSTING_PROBE_MIN_SERVER:  # type: ignore[attr-defined]  # PostgreSQL only
        return "p.chunk_id = ANY((SELECT array_agg(id) FROM (SELECT id FROM matched ORDER BY id LIMIT %s) m)::bigint[])"
    return "p.chunk_id IN (SELECT id FROM matched ORDER BY id LIMIT %s)"


def _fulltext(kind: str, query: str, source: str, where: str, params: list[Any], limit: int) -> list[Ranked]:
    """Chunks (with their `source` column) ranked by BM25: per query lexeme its IDF weight times its saturated term
    frequency, normalised by the chunk's length (distinct lexemes against the kind's average),
    doubled where the lexeme stands in the chunk's heading. The query is widened by the thesaurus,
    so "Kündigung Eigenbedarf" also looks for the statute's own words. Ties break on the chunk id."""
    with connection.cursor() as cursor:
        weights, average_length = _term_weights(cursor, kind, query)
        if not weights:
            return []
        # Candidates: chunks with one of the rarest terms (a GIN lookup over short posting lists);
        # only they are scored with every term, so common words cannot make the query scan the corpus.
        # Where more chunks match than are scored (statistics older than the chunks, a common
        # rarest lexeme), those with the lowest ids are: the same ones whatever the physical order of
        # the rows (an UPDATE or VACUUM FULL reorders them; a bare LIMIT would follow that order).
        # The candidates' term frequencies come from the query lexemes' posting lists
        # (recherche_chunk_posting, kept by triggers; migration 0006): reading each candidate's
        # tsvector instead cost most of the query's time. The terms are summed as numeric, exactly:
        # a float sum depends on the order the plan delivers them in, and equal texts must tie. Each
        # term is computed in float8 (the constants are cast: a bare literal would make every
        # operation numeric, a third of the query's time where common words have long posting lists).
        sql = f"""
            WITH matched AS MATERIALIZED (
                SELECT c.id FROM recherche_chunk c
                WHERE c.kind = %s AND c.search_vector @@ %s::tsquery {where}
            ),
            scored AS (
                SELECT p.chunk_id AS id, SUM((
                    (%s::float8[])[array_position(%s::text[], p.lexem::text)]
                    * (1 + %s::float8 * p.titel::int)
                    * (p.tf * (%s::float8 + 1))
                    / (p.tf + %s::float8 * (1 - %s::float8 + %s::float8 * p.len / %s::float8))
                )::numeric) AS score
                FROM recherche_chunk_posting p
                WHERE p.lexem = ANY(%s::text[]) AND {_posting_candidates()}
                GROUP BY p.chunk_id
                ORDER BY score DESC, p.chunk_id
                LIMIT %s
            )
            SELECT scored.id, c.{source}, scored.score FROM scored JOIN recherche_chunk c ON c.id = scored.id
            ORDER BY scored.score DESC, scored.id
        """  # noqa: S608 - `where` and `source` are built from constants in this module
        lexemes = list(weights)
        cursor.execute(
            sql,
            [kind, _candidate_query(weights), *params, [w for w, _ndoc in weights.values()], lexemes]
            + [TITLE_BONUS, BM25_K1, BM25_K1, BM25_B, BM25_B, average_length]
            + [lexemes, FULLTEXT_CANDIDATES, limit],
        )
        return [(row[0], row[1], float(row[2])) for row in cursor.fetchall()]


@functools.cache
def _iterative_scan() -> bool:
    """Does the database's pgvector scan an HNSW index on until a filtered search has its rows
    (`hnsw.iterative_scan`, pgvector 0.8.0)? Older versions (an external server) do not know it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cursor.fetchone()
    version = tuple(int(part) for part in re.findall(r"\d+", row[0] if row else "")[:2])
    return version >= (0, 8)


def _vector(
    kind: str, vector: list[float], backend: EmbeddingBackend, source: str, where: str, params: list[Any], limit: int
) -> list[Ranked]:
    """Chunks (with their `source` column) by cosine similarity (HNSW), with their similarity: the nearest `limit` of the
    VECTOR_POOL the index finds. `hnsw.ef_search` is set with the query
    (`execute_with_local_settings`), so it applies also where the caller has no transaction (tool
    calls), there in one round trip.

    With a filter (`where`: the Dokumente a user may see, one statute) the index hands over its
    nearest candidates before the filter, and a user who sees few of the firm's documents got few
    or none: the scan goes on until the pool is full (`hnsw.iterative_scan`, where pgvector has it;
    its relaxed order is sorted here)."""
    dim = int(backend.dim)
    sql = f"""
        SELECT c.id, c.{source}, 1 - ((c.embedding::vector({dim})) <=> %s::vector({dim})) AS similarity
        FROM recherche_chunk c
        WHERE c.embedding_model = %s AND c.kind = %s {where}
        ORDER BY (c.embedding::vector({dim})) <=> %s::vector({dim}), c.id
        LIMIT %s
    """  # noqa: S608 - `where` and `source` are built from constants in this module, dim is an int
    literal = "[" + ",".join(f"{x:.6f}" for x in vector) + "]"
    settings = [f"SET LOCAL hnsw.ef_search = {int(EF_SEARCH)}"]
    if where and _iterative_scan():
        settings.append("SET LOCAL hnsw.iterative_scan = relaxed_order")
    fetched = execute_with_local_settings(settings, sql, [literal, backend.name, kind, *params, literal, max(limit, VECTOR_POOL)])
    rows = sorted(((row[0], row[1], float(row[2])) for row in fetched), key=lambda r: (-r[2], r[0]))
    return rows[:limit]


class _RememberedQuery:
    """An embedding backend that embeds the question once and keeps the vector (or the failure),
    so that search_normen can reuse the vector hybrid_chunks asked for without a second model call."""

    def __init__(self, backend: EmbeddingBackend) -> None:
        self.backend = backend
        self.name, self.dim = backend.name, backend.dim
        self.vector: list[float] | None = None
        self._failure: EmbeddingUnavailable | None = None

    def embed_passages(self, texts: list[str]) -> list[list[float]]:
        return self.backend.embed_passages(texts)

    def embed_query(self, text: str) -> list[float]:
        if self._failure is not None:
            raise self._failure
        if self.vector is None:
            try:
                self.vector = self.backend.embed_query(text)
            except EmbeddingUnavailable as exc:
                self._failure = exc
                raise
        return self.vector


def _norm_chunks_version() -> int:
    """The newest norm chunk's id: it changes whenever an ingestion adds or replaces sections."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(max(id), 0) FROM recherche_chunk WHERE kind = %s", [Chunk.Kind.NORM])
        return int(cursor.fetchone()[0])


@functools.lru_cache(maxsize=2)
def _area_vectors(model: str, dim: int, version: int) -> tuple[list[tuple[int, str]], Any]:
    """The outline areas of the statutes ((gesetz id, gliederung), by row) and their mean vectors (rows
    normalised) under `model`; computed once per corpus `version` (about 0.2 s for 24,000 chunks)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT n.gesetz_id, n.gliederung, avg(c.embedding::vector({int(dim)}))::text "  # noqa: S608 - dim is an int
            "FROM recherche_chunk c JOIN recherche_norm n ON n.id = c.norm_id "
            "WHERE c.kind = %s AND c.embedding_model = %s AND c.embedding IS NOT NULL "
            "GROUP BY n.gesetz_id, n.gliederung ORDER BY 1, 2",
            [Chunk.Kind.NORM, model],
        )
        rows = cursor.fetchall()
    areas = [(gesetz_id, gliederung) for gesetz_id, gliederung, _mean in rows]
    matrix = np.array([[float(x) for x in mean.strip("[]").split(",")] for _g, _gl, mean in rows], dtype=np.float32)
    if len(rows):
        matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
    return areas, matrix


def closest_areas(vector: list[float], model: str, dim: int) -> set[tuple[int, str]]:
    """The AREA_COUNT outline areas (gesetz id, gliederung) whose mean vector is closest to `vector`."""
    areas, matrix = _area_vectors(model, dim, _norm_chunks_version())
    if not areas:
        return set()
    similarity = matrix @ np.asarray(vector, dtype=np.float32)
    return {areas[row] for row in np.argsort(-similarity, kind="stable")[:AREA_COUNT].tolist()}


def hybrid_chunks(
    *,
    kind: str,
    query: str,
    source: str,
    where: str = "",
    params: list[Any] | None = None,
    limit: int = 10,
    mode: str = "hybrid",
    backend: EmbeddingBackend | None = None,
    with_text: bool = True,
) -> tuple[list[Hit], bool]:
    """Rank sources (norm/urteil/muster/dokument ids, column `source`) of one chunk kind.

    Returns the hits (with the text of their best chunk, `with_text`) and whether the search fell
    back to full text only.
    """
    if source not in SOURCE_COLUMNS:
        raise ValueError(f"unknown source column {source!r}")  # it is written into the SQL
    params = params or []
    rankings: list[tuple[str, list[Ranked]]] = []
    fallback = False
    if mode in ("hybrid", "fulltext"):
        rankings.append(("fulltext", _fulltext(kind, query, source, where, params, CANDIDATES)))
    if mode in ("hybrid", "vector"):
        backend = backend or get_backend()
        try:
            vector = backend.embed_query(embedding_query(query))
            rankings.append(("vector", _vector(kind, vector, backend, source, where, params, CANDIDATES)))
        except EmbeddingUnavailable:
            fallback = True
            if mode == "vector":
                rankings.append(("fulltext", _fulltext(kind, query, source, where, params, CANDIDATES)))
    hits: dict[int, Hit] = {}
    for name, ranking in rankings:
        seen: set[int] = set()
        for chunk_id, object_id, value in ranking:
            if object_id in seen:  # the best chunk of a source counts, once per ranking
                continue
            seen.add(object_id)
            rank = len(seen)
            hit = hits.setdefault(object_id, Hit(kind=kind, object_id=object_id, score=0.0, chunk_id=chunk_id))
            hit.score += 1.0 / (RRF_K + rank)
            if name == "fulltext":
                hit.fulltext_rank = rank
            else:
                hit.vector_rank, hit.similarity = rank, value
    ordered = sorted(hits.values(), key=lambda h: (-h.score, h.object_id))[:limit]
    if with_text:
        texts = dict(Chunk.objects.filter(pk__in=[hit.chunk_id for hit in ordered]).values_list("pk", "text"))
        for hit in ordered:
            hit.chunk_text = texts.get(hit.chunk_id, "")
    return ordered, fallback


def relevant(hit: Hit, *, fallback: bool = False) -> bool:
    """The relevance floor: full-text matches count; a hit of the vector search alone only if it
    is close enough to the question (without vectors, full text decides alone)."""
    return hit.fulltext_rank is not None or fallback or hit.similarity >= VECTOR_FLOOR


@functools.cache
def _sachgebiete() -> dict[str, tuple[frozenset[str], tuple[str, ...]]]:
    """Field of law → (its statutes, the word beginnings that signal it in a question)
    (recherche/data/sachgebiete.txt)."""
    fields: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {}
    for line in SACHGEBIETE_PATH.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#") or "=" not in line:
            continue
        code, rest = line.split("=", 1)
        laws, _, words = rest.partition("|")
        fields[code.strip()] = (
            frozenset(law.strip() for law in laws.split(",") if law.strip()),
            tuple(word.lower() for word in words.split()),
        )
    return fields


def preferred_gesetze(query: str, sachgebiet: str = "") -> frozenset[str]:
    """The statutes to prefer among equal hits: those of the Akte's Sachgebiet and of the fields
    the question's words signal; without either, the general laws (ZPO, BGB, GVG)."""
    fields = _sachgebiete()
    words = [word.lower() for word in re.findall(r"\w+", query)]
    chosen: set[str] = set()
    if sachgebiet in fields:
        chosen |= fields[sachgebiet][0]
    for laws, signals in fields.values():
        if signals and any(word.startswith(signal) for word in words for signal in signals):
            chosen |= laws
    return frozenset(chosen) or fields.get("ALLGEMEIN", (frozenset(), ()))[0]


# Abbreviations that look like a statute but name courts, company forms and the like.
NOT_STATUTES = frozenset(
    "AG KG OHG GmbH UG LG OLG BGH BAG BSG BFH BVerwG BVerfG EuGH VG OVG VGH LAG ArbG SG LSG FG AGB PKH "
    "USA EU EG GbR eG KGaA SE EWIV AO".split()
    # the first word of "SGB II", "VV RVG", "KV GKG": the code as a whole or a table of a loaded law
    + ["SGB", "VV", "KV"]
)
ROMAN = re.compile(r"[IVX]+")
# "DSGVO", "BayBO", and hyphenated ones whole ("DS-GVO", not its "GVO")
LAW_MENTION = re.compile(r"(?<![\wäöüß-])[A-ZÄÖÜ][A-Za-zÄÖÜäöü]*(?:-[A-ZÄÖÜ][A-Za-zÄÖÜäöü]*)?(?:G|O|V|VO|GB|GVO)(?![\wäöüß])")


def unknown_laws(query: str, names: citations.LawNames, *, cited: Sequence[tuple[int, int]] = ()) -> list[str]:
    """Statute abbreviations in the question that are not loaded ("DSGVO", "BayBO"); words within the
    spans `cited` (citations already resolved or reported) are left out."""
    found = []
    for match in LAW_MENTION.finditer(query):
        if any(start <= match.start() < end for start, end in cited):
            continue
        token = match.group(0)
        if sum(ch.isupper() for ch in token) < 2 or token in NOT_STATUTES or names.lookup(token):
            continue
        if "-" in token and any(part in NOT_STATUTES or names.lookup(part) or ROMAN.fullmatch(part) for part in token.split("-")):
            continue  # "GKG-KV", "RVG-VV": a table of a loaded law; "Hartz-IV"
        if token not in found:
            found.append(token)
    return found


def _not_loaded(laws: list[str]) -> str:
    known = sorted(Gesetz.objects.values_list("abkuerzung", flat=True), key=str.lower)
    gesetze = ", ".join(f"„{law}“" for law in laws) + (" ist" if len(laws) == 1 else " sind")
    return NOT_LOADED.format(gesetze=gesetze, bekannt=", ".join(known))


def search_normen(
    *, query: str, gesetz: str | None = None, limit: int = 10, mode: str = "hybrid", sachgebiet: str = ""
) -> SearchResult:
    """Norms for `query`: its citations resolved exactly and first (one that does not resolve is
    reported in `nicht_im_bestand`, never replaced by unrelated norms), then hybrid results above
    the relevance floor, preferring the statutes of the question's field of law or the Akte's
    `sachgebiet` (akten.models.Sachgebiet code) and the outline areas closest to the question
    (`closest_areas`). Repealed norms never appear."""
    result = SearchResult(query=query)
    names = citations.law_names()
    targets = citations.extract(query, names, bare_numbers=True)
    resolved = citations.resolve(targets)
    exact_ids: list[int] = []
    for item in resolved:
        if item.ok and item.norm_id is not None and item.norm_id not in exact_ids and (not gesetz or item.ziel.gesetz == gesetz):
            exact_ids.append(item.norm_id)
    result.nicht_im_bestand = [item.as_dict() for item in resolved if not item.ok]
    hinweise: list[str] = []
    missing_laws = list(dict.fromkeys(i.ziel.gesetz for i in resolved if i.ziel.gesetz not in names.canonical_names))
    cited = [(target.start, target.end) for target in targets]
    missing_laws += [law for law in unknown_laws(query, names, cited=cited) if law not in missing_laws]
    if missing_laws:
        hinweise.append(_not_loaded(missing_laws))
    hinweise += [item.grund for item in resolved if not item.ok and item.ziel.gesetz in names.canonical_names]
    # What is left of the question once its citations are taken out decides whether it is also a
    # question in words ("§ 573 BGB Eigenbedarf") or only citations.
    rest = query
    for target in sorted(targets, key=lambda t: -t.start):
        rest = rest[: target.start] + " " + rest[target.end :]
    words_left = [w for w in query_words(rest) if len(w) > 2 and not w.isdigit()]
    hits: list[Hit] = []
    areas: set[tuple[int, str]] = set()
    if not (targets and len(words_left) < 2):
        where, params = "", []
        if gesetz:
            where, params = (
                "AND c.norm_id IN (SELECT n.id FROM recherche_norm n "
                "JOIN recherche_gesetz g ON g.id = n.gesetz_id WHERE g.abkuerzung = %s)",
                [gesetz],
            )
        wanted = limit + len(exact_ids) + 10  # room for the re-ordering below
        backend = _RememberedQuery(get_backend()) if mode != "fulltext" else None
        hits, result.fallback = hybrid_chunks(
            kind=Chunk.Kind.NORM,
            query=query,
            source="norm_id",
            where=where,
            params=params,
            limit=wanted,
            mode=mode,
            backend=backend,
            with_text=False,  # a norm's hit shows the section's own text
        )
        if backend is not None and backend.vector is not None:
            areas = closest_areas(backend.vector, backend.name, backend.dim)
        closest = max((hit.similarity for hit in hits), default=0.0)
        hits = [hit for hit in hits if relevant(hit, fallback=result.fallback)]
        hits = _subject_floor(hits, query, "norm_id", closest)
    norms = Norm.objects.select_related("gesetz").in_bulk([*exact_ids, *(h.object_id for h in hits)])
    preferred = preferred_gesetze(query, sachgebiet)
    about_annexes = bool(ANLAGE_WORDS.search(query))
    for hit in hits:
        norm = norms[hit.object_id]
        if norm.art == Norm.Art.ANLAGE and not about_annexes:
            hit.score *= ANLAGE_FACTOR
        if norm.gesetz.abkuerzung in preferred:
            hit.score *= PREFERENCE_FACTOR
        if (norm.gesetz_id, norm.gliederung) in areas:
            hit.score *= 1 + AREA_BOOST
    hits.sort(key=lambda h: (-h.score, h.object_id))
    hits = _with_referenced(hits, norms, keep=limit + len(exact_ids))
    ordered: list[tuple[Norm, Hit | None]] = [(norms[pk], None) for pk in exact_ids]
    ordered += [(norms[h.object_id], h) for h in hits if h.object_id not in exact_ids]
    for norm, ranked in ordered[:limit]:
        result.results.append(
            norm_citation(norm, query=query, score=1.0 if ranked is None else round(ranked.score, 5), exact=ranked is None)
        )
    if not result.results and not result.nicht_im_bestand and not missing_laws:
        hinweise.append(NOTHING_FOUND)
    if result.fallback:
        hinweise.append(FALLBACK_HINWEIS)
    result.hinweis = " ".join(hinweise)
    return result


def _with_referenced(hits: list[Hit], norms: dict[int, Norm], *, keep: int) -> list[Hit]:
    """The best `keep` of `hits` (ordered) once the sections the best of them refer to in their own
    statute are raised: each of the REFERENCE_TOP best hits passes REFERENCE_SHARE of its score to
    every section its text cites ("ein Widerrufsrecht gemäß § 355" in § 312g BGB), found or not. A
    section that several good hits point to is often the one that governs the question (§ 355 BGB
    for a question about sending back an online order, whose hits are §§ 312g, 356, 356a, 357).
    Repealed sections are never added. `norms` gets the sections added among the best `keep`."""
    passed: dict[tuple[int, str], float] = {}
    for hit in hits[:REFERENCE_TOP]:
        norm = norms[hit.object_id]
        if norm.art == Norm.Art.ANLAGE:
            continue
        cited: set[str] = set()
        for match in SAME_LAW_REFERENCE.finditer(norm.text):
            nummer = match["nummer"]
            following = norm.text[match.end("nummer") : match.end("nummer") + OTHER_LAW_REACH]
            if match["artikel"] or nummer == norm.nummer or nummer in cited or OTHER_LAW.match(following):
                continue  # a section of an article of another act, itself, again, or another statute's
            cited.add(nummer)
            key = (norm.gesetz_id, nummer)
            passed[key] = passed.get(key, 0.0) + hit.score * REFERENCE_SHARE
    if passed:
        by_gesetz: dict[int, list[str]] = {}
        for gesetz, nummer in passed:
            by_gesetz.setdefault(gesetz, []).append(nummer)
        cited_sections = Q()
        for gesetz, nummern in by_gesetz.items():
            cited_sections |= Q(gesetz_id=gesetz, nummer__in=nummern)
        referenced = Norm.objects.filter(cited_sections, art=Norm.Art.PARAGRAPH, aufgehoben=False)
        by_id = {hit.object_id: hit for hit in hits}
        for pk, gesetz, nummer in referenced.values_list("pk", "gesetz_id", "nummer"):
            found = by_id.get(pk)
            if found is None:
                found = by_id[pk] = Hit(kind=Chunk.Kind.NORM, object_id=pk, score=0.0, chunk_id=0)
                hits.append(found)
            found.score += passed[(gesetz, nummer)]
        hits.sort(key=lambda h: (-h.score, h.object_id))
    hits = hits[:keep]
    missing = [hit.object_id for hit in hits if hit.object_id not in norms]
    if missing:
        norms.update(Norm.objects.select_related("gesetz").in_bulk(missing))
    return hits


def norm_citation(norm: Norm, *, query: str = "", score: float = 1.0, exact: bool = False) -> dict[str, Any]:
    return {
        "typ": "norm",
        "id": norm.pk,
        "zitat": norm.zitat,
        "gesetz": norm.gesetz.abkuerzung,
        "art": norm.art,
        "nummer": norm.nummer,
        "ueberschrift": norm.titel,
        "snippet": _snippet(norm.text, query),
        "score": score,
        "exakt": exact,
        "stand": norm.gesetz.stand,
        "url": norm.official_url,
        "reader_url": f"/recherche/normen/{norm.pk}/",
    }


def search_urteile(
    *,
    query: str,
    gericht: str = "",
    rechtsgebiet: str = "",
    von: datetime.date | None = None,
    bis: datetime.date | None = None,
    limit: int = 10,
    mode: str = "hybrid",
) -> SearchResult:
    conditions: list[str] = []
    params: list[Any] = []
    if gericht:
        conditions.append("u.gericht ILIKE %s")
        params.append(f"%{gericht}%")
    if rechtsgebiet:
        conditions.append("u.rechtsgebiet ILIKE %s")
        params.append(f"%{rechtsgebiet}%")
    if von:
        conditions.append("u.datum >= %s")
        params.append(von)
    if bis:
        conditions.append("u.datum <= %s")
        params.append(bis)
    where = ""
    if conditions:
        where = "AND c.urteil_id IN (SELECT u.id FROM recherche_urteil u WHERE " + " AND ".join(conditions) + ")"  # noqa: S608
    hits, fallback = hybrid_chunks(
        kind=Chunk.Kind.URTEIL, query=query, source="urteil_id", where=where, params=params, limit=limit, mode=mode
    )
    hits = _subject_floor(hits, query, "urteil_id", max((hit.similarity for hit in hits), default=0.0))
    urteile = Urteil.objects.in_bulk([h.object_id for h in hits])
    hinweise = [FALLBACK_HINWEIS] if fallback else []
    if not hits:
        hinweise.append(URTEILE_NOTHING)
    result = SearchResult(query=query, fallback=fallback, hinweis=" ".join(hinweise))
    for hit in hits:
        u = urteile[hit.object_id]
        result.results.append(
            {
                "typ": "urteil",
                "id": u.pk,
                "gericht": u.gericht,
                "datum": u.datum.isoformat(),
                "aktenzeichen": u.aktenzeichen,
                "entscheidungsart": u.typ,
                "rechtsgebiet": u.rechtsgebiet,
                "leitsatz": u.leitsatz[:SNIPPET_CHARS],
                "snippet": _snippet(hit.chunk_text, query),
                "score": round(hit.score, 5),
                "url": u.source_url,
                "reader_url": f"/recherche/urteile/{u.pk}/",
                "zitat": f"{u.gericht}, {u.typ} vom {u.datum:%d.%m.%Y} – {u.aktenzeichen}",
            }
        )
    return result


def search_muster(*, query: str, kategorie: str = "", limit: int = 10, mode: str = "hybrid") -> SearchResult:
    where, params = "", []
    if kategorie:
        where, params = "AND c.muster_id IN (SELECT m.id FROM recherche_muster m WHERE m.kategorie ILIKE %s)", [f"%{kategorie}%"]
    hits, fallback = hybrid_chunks(
        kind=Chunk.Kind.MUSTER, query=query, source="muster_id", where=where, params=params, limit=limit, mode=mode
    )
    muster = Muster.objects.in_bulk([h.object_id for h in hits])
    # Kanzlei-eigene Muster first when the fused score ties.
    hits.sort(key=lambda h: (-h.score, not muster[h.object_id].kanzlei_eigen, h.object_id))
    result = SearchResult(query=query, fallback=fallback, hinweis=FALLBACK_HINWEIS if fallback else "")
    for hit in hits:
        m = muster[hit.object_id]
        result.results.append(
            {
                "typ": "muster",
                "id": m.pk,
                "name": m.name,
                "kategorie": m.kategorie,
                "kanzlei_eigen": m.kanzlei_eigen,
                "beschreibung": m.beschreibung,
                "platzhalter": m.platzhalter,
                "snippet": _snippet(hit.chunk_text, query),
                "score": round(hit.score, 5),
                "reader_url": f"/recherche/muster/{m.pk}/",
            }
        )
    return result


def search_dokumente(*, user: Any, query: str, akte_id: int | None = None, limit: int = 10, mode: str = "hybrid") -> SearchResult:
    """The firm's documents, restricted to the Dokumente `user` may see (through visible_to)."""
    visible = Dokument.objects.visible_to(user)
    if akte_id is not None:
        visible = visible.filter(akte_id=akte_id)
    visible_ids = list(visible.values_list("pk", flat=True))
    result = SearchResult(query=query)
    if not visible_ids:
        return result
    hits, fallback = hybrid_chunks(
        kind=Chunk.Kind.DOKUMENT,
        query=query,
        source="dokument_id",
        where="AND c.dokument_id = ANY(%s)",
        params=[visible_ids],
        limit=limit,
        mode=mode,
    )
    hits = [hit for hit in hits if relevant(hit, fallback=fallback)]
    hinweise = [FALLBACK_HINWEIS] if fallback else []
    if not fallback and mode != "fulltext":
        pending = (
            Chunk.objects.filter(kind=Chunk.Kind.DOKUMENT, dokument_id__in=visible_ids)
            .exclude(embedding_model=get_backend().name)
            .values("dokument_id")
            .distinct()
            .count()
        )
        if pending:
            hinweise.append(DOKUMENTE_PENDING.format(n=pending))
    if not hits:
        hinweise.append(DOKUMENTE_NOTHING)
    result.fallback, result.hinweis = fallback, " ".join(hinweise)
    dokumente = visible.select_related("akte").in_bulk([h.object_id for h in hits])
    for hit in hits:
        d = dokumente.get(hit.object_id)
        if d is None:  # defence in depth: never return a chunk of an invisible document
            continue
        result.results.append(
            {
                "typ": "dokument",
                "id": d.pk,
                "titel": d.name,
                "akte_id": d.akte_id,
                "aktenzeichen": d.akte.aktenzeichen,
                "kurzrubrum": d.akte.kurzrubrum,
                "snippet": _snippet(hit.chunk_text, query),
                "score": round(hit.score, 5),
                "reader_url": f"/akten/{d.akte_id}/",
            }
        )
    return result
