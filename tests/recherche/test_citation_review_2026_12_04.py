"""Review of the citation check (2026-12-04): correct citations marked "nicht im Bestand" (chains of
"§§" with small section numbers, "oder" between subdivisions, a statute whose shipped text has gaps,
citations of an earlier version, a Betriebsvereinbarung), wrong Sätze and Nummern that passed, and
citation forms that were not recognised at all."""

import pytest

from recherche.citations import check_text, check_texts, extract, link_citations, satz_count
from recherche.models import Gesetz, Norm
from tests.recherche.test_citations import NAMES


def _targets(text: str) -> list[tuple[str, str, str, str]]:
    return [(z.art, z.nummer, z.gesetz, z.absatz) for z in extract(text, NAMES)]


def _checked(text: str) -> list[str]:
    """Each target as the section it links to, or the reason it is marked."""
    return [a.zitat + (f"#{a.anker}" if a.anker else "") if a.ok else a.grund for a in check_text(text).normen]


# -- false alarms -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a number after a list that the section lacks as a subdivision, but that the statute has as a section
        ("§§ 14 Abs. 2, 16, 17 TzBfG", ["§ 14 TzBfG#abs-2", "§ 16 TzBfG", "§ 17 TzBfG"]),
        ("§§ 1 Abs. 2, 9, 10 KSchG", ["§ 1 KSchG#abs-2", "§ 9 KSchG", "§ 10 KSchG"]),
        ("§§ 31 Abs. 1 S. 1 Nr. 1, 31a, 31b SGB II", ["§ 31 SGB II#abs-1", "§ 31a SGB II", "§ 31b SGB II"]),
        ("§§ 45 Abs. 2 S. 3 Nr. 3, 48, 50 Abs. 1 SGB X", ["§ 45 SGB X#abs-2", "§ 48 SGB X", "§ 50 SGB X#abs-1"]),
        # a subdivision that is there stays one
        ("§§ 280 Abs. 1, 3, 283 BGB", ["§ 280 BGB#abs-1", "§ 280 BGB#abs-3", "§ 283 BGB"]),
    ],
)
def test_a_plural_chain_reads_a_number_as_the_section_the_subdivision_cannot_be(shipped_gesetze, text, expected):
    assert _checked(f"Das folgt aus {text}.") == expected


def test_the_section_read_from_a_list_links_the_number_itself(shipped_gesetze):
    text = "Nach §§ 14 Abs. 2, 16, 17 TzBfG gilt das."
    html = link_citations(f"<p>{text}</p>")
    norm_16 = Norm.objects.get(gesetz__abkuerzung="TzBfG", nummer="16")
    assert f'<a href="/recherche/normen/{norm_16.pk}/" class="zitat"' in html and ">16</a>" in html
    assert "zitat-fehlt" not in html


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("§ 573 Abs. 2 Nr. 2 oder 3 BGB", ["§ 573 BGB#abs-2"]),
        ("§ 573 Abs. 2 Nr. 2 bzw. 3 BGB", ["§ 573 BGB#abs-2"]),
        ("§ 280 Abs. 1 oder 3 BGB", ["§ 280 BGB#abs-1", "§ 280 BGB#abs-3"]),
        ("§ 626 Abs. 2 S. 1 oder 3 BGB", ["§ 626 BGB#abs-2"]),
        ("§ 14 Abs. 2 Satz 1 oder 2 TzBfG", ["§ 14 TzBfG#abs-2"]),
        # under a single "§" a bare number after a list of Absätze is the next Absatz, not § 2
        ("§ 626 Abs. 1 und 2 S. 3 BGB", ["§ 626 BGB#abs-1", "§ 626 BGB#abs-2"]),
    ],
)
def test_or_between_subdivisions_is_no_next_section(shipped_gesetze, text, expected):
    assert _checked(f"Das folgt aus {text}.") == expected


@pytest.fixture
def gesetz_mit_luecken(db):
    """A statute whose text holds only some articles (as the shipped EGBGB: Art. 219 to 253, with holes)."""
    gesetz = Gesetz.objects.create(abkuerzung="LückG", titel="Lückengesetz", slug="lueckg", stand="Stand Y")
    for position, nummer in enumerate(["219", "224", "242", "246a", "246b", "246d", "247", "253"]):
        Norm.objects.create(gesetz=gesetz, art="Art.", nummer=nummer, titel="", text="(1) Text.", position=position)
    return gesetz


@pytest.mark.parametrize(
    ("cited", "reason"),
    [
        ("Art. 3 Abs. 1 LückG", "Art. 3 LückG ist im Bestand nicht enthalten (Text des Gesetzes im Bestand lückenhaft)."),
        ("Art. 244 LückG", "Art. 244 LückG ist im Bestand nicht enthalten (weggefallen oder Text im Bestand lückenhaft)."),
        ("Art. 246 LückG", "Art. 246 LückG ist im Bestand nicht enthalten (weggefallen oder Text im Bestand lückenhaft)."),
        ("Art. 246c LückG", "Art. 246c LückG ist im Bestand nicht enthalten (weggefallen oder Text im Bestand lückenhaft)."),
        # beyond the last article: no gap to speak of
        ("Art. 300 LückG", "Art. 300 LückG gibt es im Bestand nicht."),
        ("Art. 246f LückG", "Art. 246f LückG gibt es im Bestand nicht."),
    ],
)
def test_a_number_missing_in_the_statutes_text_is_not_said_to_be_no_norm(gesetz_mit_luecken, cited, reason):
    (result,) = check_text(f"Siehe {cited}.").normen
    assert not result.ok and result.grund == reason


def test_a_hole_in_a_complete_statute_is_reported_as_missing_not_as_no_norm(shipped_gesetze):
    """§§ 3 to 6 BGB were repealed in 1992; the source leaves them out without a "(weggefallen)"."""
    assert _checked("Siehe § 3 BGB.") == ["§ 3 BGB ist im Bestand nicht enthalten (weggefallen oder Text im Bestand lückenhaft)."]


def test_a_number_in_a_repealed_range_is_repealed(mini_gesetze):
    assert _checked("Siehe § 3 TestG.") == ["§ 3 TestG ist weggefallen (aufgehoben)."]


def test_the_gaps_cost_one_query_per_batch(gesetz_mit_luecken, django_assert_num_queries):
    check_text("Art. 219 LückG")  # the names of the statutes are read once
    with django_assert_num_queries(3):  # no section missing: the numbers are not read
        check_texts({1: "Art. 219 LückG", 2: "Art. 224 Abs. 1 LückG"})
    texts = {1: "Art. 3 LückG und Art. 244 LückG", 2: "Art. 246c LückG, Art. 5 LückG", 3: "Art. 300 LückG"}
    with django_assert_num_queries(4):  # the names' fingerprint, the statutes, the norms, the numbers
        reports = check_texts(texts)
    assert [r.nicht_im_bestand for r in reports.values()] == [2, 2, 1]


@pytest.mark.parametrize(
    "cited",
    ["§ 850k Abs. 7 ZPO a.F.", "§ 850c Abs. 2a ZPO a. F.", "§ 573 Abs. 2 Nr. 4 BGB a. F.", "§ 626 Abs. 2 S. 9 BGB a.F."],
)
def test_an_earlier_version_is_not_judged_by_the_current_subdivisions(shipped_gesetze, cited):
    (result,) = check_text(f"Nach {cited} war das anders.").normen
    assert result.ok and result.ziel.alte_fassung and "alte Fassung" in result.hinweis
    assert "(a. F. – verlinkt ist die geltende Fassung)" in link_citations(f"<p>Nach {cited} war das anders.</p>")


def test_an_earlier_version_of_a_section_repealed_since_links_it_with_a_note(shipped_gesetze):
    (result,) = check_text("Schmerzensgeld nach § 847 BGB a.F.").normen
    assert result.ok and result.zitat == "§ 847 BGB"
    assert "in der geltenden Fassung" in result.hinweis and "weggefallen" in result.hinweis


def test_an_earlier_version_of_a_section_the_corpus_lacks_is_not_said_to_never_have_existed(shipped_gesetze):
    (result,) = check_text("Nach § 9999 BGB a. F. war das anders.").normen
    assert not result.ok
    assert result.grund == "§ 9999 BGB a. F. ist im Bestand nicht enthalten; die geltende Fassung hat keinen § 9999 BGB."


@pytest.mark.parametrize(
    "text", ["§ 5 BV", "§ 5 Abs. 2 der BV", "§ 3 GBV", "§ 2 KBV", "§ 4 DV", "§ 6 TV", "§ 12 MTV", "§ 34 TVöD", "§ 8 TV-L"]
)
def test_agreements_between_employers_and_employees_are_no_statutes(text):
    assert _targets(f"Der Anspruch folgt aus {text}.") == []


def test_the_bavarian_constitution_cited_by_article_stays_a_law_not_in_the_corpus():
    assert _targets("Art. 118 BV") == [("Art.", "118", "BV", "")]


# -- wrong citations that passed ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("§ 573 Abs. 1 S. 1, Abs. 2 Nr. 7 BGB", ["§ 573 BGB#abs-1", "§ 573 Abs. 2 BGB hat keine Nummer 7."]),
        ("§ 307 Abs. 1 S. 3, Abs. 2 Nr. 1 BGB", ["§ 307 Abs. 1 BGB hat keinen Satz 3.", "§ 307 BGB#abs-2"]),
        ("§ 573 Abs. 1, Abs. 2 Nr. 7 BGB", ["§ 573 BGB#abs-1", "§ 573 Abs. 2 BGB hat keine Nummer 7."]),
        ("§ 573 Abs. 2 Nr. 2, Abs. 3 S. 4 BGB", ["§ 573 BGB#abs-2", "§ 573 Abs. 3 BGB hat keinen Satz 4."]),
        ("§ 573 Abs. 1 S. 2, Abs. 2 Nr. 3 BGB", ["§ 573 BGB#abs-1", "§ 573 BGB#abs-2"]),
        ("§ 626 II 4 BGB", ["§ 626 Abs. 2 BGB hat keinen Satz 4."]),
        ("§ 823 I 2 BGB", ["§ 823 Abs. 1 BGB hat keinen Satz 2."]),
        ("§ 626 II 3 BGB", ["§ 626 BGB#abs-2"]),
        ("§ 823 II 2 BGB", ["§ 823 BGB#abs-2"]),
        ("§ 307 I 1, II Nr. 1 BGB", ["§ 307 BGB#abs-1", "§ 307 BGB#abs-2"]),
        ("§ 307 I 1, II Nr. 3 BGB", ["§ 307 BGB#abs-1", "§ 307 Abs. 2 BGB hat keine Nummer 3."]),
        # every Nummer and Satz written with its own keyword
        ("§ 573 Abs. 2 Nr. 2 und Nr. 7 BGB", ["§ 573 Abs. 2 BGB hat keine Nummer 7."]),
        ("§ 626 Abs. 2 S. 1 oder S. 4 BGB", ["§ 626 Abs. 2 BGB hat keinen Satz 4."]),
        ("§ 573 Abs. 2 Nr. 2 oder 9 BGB", ["§ 573 Abs. 2 BGB hat keine Nummer 9."]),
    ],
)
def test_each_absatz_of_a_section_is_checked_with_its_own_satz_and_nummer(shipped_gesetze, text, expected):
    assert _checked(f"Das folgt aus {text}.") == expected


def test_the_dot_of_an_abbreviation_before_a_number_ends_no_satz(shipped_gesetze):
    """Art. 19 Abs. 4 GG has three Sätze; "Artikel 10 Abs. 2 Satz 2 bleibt unberührt." counted four."""
    assert _checked("Das folgt aus Art. 19 Abs. 4 S. 4 GG.") == ["Art. 19 Abs. 4 GG hat keinen Satz 4."]
    assert _checked("Das folgt aus Art. 19 Abs. 4 S. 3 GG.") == ["Art. 19 GG#abs-4"]


def test_the_upper_bound_of_the_saetze_skips_abbreviations_before_a_number():
    absatz = (
        "(4) Wird jemand verletzt, so steht ihm der Rechtsweg offen. Soweit nichts begründet ist, ist er gegeben. "
        "Artikel 10 Abs. 2 Satz 2 bleibt unberührt."
    )
    assert satz_count(absatz) == 3
    # a sentence may begin with a section sign (§ 50 Abs. 2 SGB X): never fewer Sätze than there are
    assert satz_count("(2) Sie sind zu erstatten. §§ 45 und 48 gelten entsprechend.") == 2
    # numbered items still count as possible ends: an upper bound, never too low
    assert satz_count("(2) Sie ist unwirksam, wenn 1. in Betrieben a) die Regel, 2. in Verwaltungen b) gilt.") == 3


# -- forms that were dropped -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("§ 812 Abs. 1 S. 1, 1. Alt. BGB", [("§", "812", "BGB", "1")]),
        ("§ 823 Abs. 1, 1. Alt. BGB", [("§", "823", "BGB", "1")]),
        ("§ 280 Abs. 1, 1. Hs. BGB", [("§", "280", "BGB", "1")]),
        ("§ 626 Abs. 2 S. 4, 2. Alt. BGB", [("§", "626", "BGB", "2")]),
        ("§ 280 Abs. 1 und Abs. 3 BGB", [("§", "280", "BGB", "1"), ("§", "280", "BGB", "3")]),
        ("§ 307 Abs. 1 S. 1 und Abs. 2 Nr. 1 BGB", [("§", "307", "BGB", "1"), ("§", "307", "BGB", "2")]),
        ("§ 1 Abs. 2 bzw. Abs. 3 KSchG", [("§", "1", "KSchG", "2"), ("§", "1", "KSchG", "3")]),
        ("§ 14 Abs. 1 oder Abs. 2 TzBfG", [("§", "14", "TzBfG", "1"), ("§", "14", "TzBfG", "2")]),
        ("§ 573 Abs. 2 Nr. 2 und Nr. 3 BGB", [("§", "573", "BGB", "2")]),
        ("§ 573 Abs. 2 Nr. 2 oder Nr. 3 BGB", [("§", "573", "BGB", "2")]),
        ("Art. 2 I i.V.m. 1 I GG", [("Art.", "2", "GG", "1"), ("Art.", "1", "GG", "1")]),
        ("Art. 2 Abs. 1 i.V.m. 1 Abs. 1 GG", [("Art.", "2", "GG", "1"), ("Art.", "1", "GG", "1")]),
        ("§ 280 Abs. 1 i.V.m. 241 Abs. 2 BGB", [("§", "280", "BGB", "1"), ("§", "241", "BGB", "2")]),
        ("§ 280 I iVm 241 II BGB", [("§", "280", "BGB", "1"), ("§", "241", "BGB", "2")]),
        ("§ 823 II BGB iVm 263 I StGB", [("§", "823", "BGB", "2"), ("§", "263", "StGB", "1")]),
        ("§ 1 Abs. 3 S. 1 Hs 2 KSchG", [("§", "1", "KSchG", "3")]),
        ("§ 1 Abs. 3 S. 1 letzter Hs. KSchG", [("§", "1", "KSchG", "3")]),
        ("§ 823 Abs. 1 Fall 2 BGB", [("§", "823", "BGB", "1")]),
        ("§ 823 Abs. 1 a.E. BGB", [("§", "823", "BGB", "1")]),
        ("§ 211 Abs. 2 Gr. 1 Var. 4 StGB", [("§", "211", "StGB", "2")]),
        ("§ 309 Nr. 8 b) aa) BGB", [("§", "309", "BGB", "")]),
        ("§ 309 Nr. 8 lit. b aa BGB", [("§", "309", "BGB", "")]),
        ("§ 309 Nr. 8 Buchst. b Doppelbuchst. aa BGB", [("§", "309", "BGB", "")]),
        ("§§ 7 Abs. 1, 18 StVG, 115 VVG", [("§", "7", "StVG", "1"), ("§", "18", "StVG", ""), ("§", "115", "VVG", "")]),
        ("Art. 6 Abs. 1 UAbs. 1 lit. f DSGVO", [("Art.", "6", "DSGVO", "1")]),
        ("§ 433 des Bürgerlichen Gesetz\u00adbuchs", [("§", "433", "BGB", "")]),
        ("§ 82\u00ad3 BGB", [("§", "823", "BGB", "")]),
        ("§ 823\u00adBGB", [("§", "823", "BGB", "")]),  # between a number and a word: a break
    ],
)
def test_the_forms_that_were_dropped_are_read(text, expected):
    assert _targets(f"Der Anspruch folgt aus {text}.") == expected


def test_a_soft_hyphen_keeps_the_spans_of_the_text_given():
    text = "Nach § 82\u00ad3 Abs. 1 des Bürgerlichen Gesetz\u00adbuchs haftet er."
    (target,) = extract(text, NAMES)
    assert text[target.start : target.end] == "§ 82\u00ad3 Abs. 1 des Bürgerlichen Gesetz\u00adbuchs"


def test_the_details_of_a_subdivision_stay_in_the_citation():
    (target,) = extract("§ 1 Abs. 3 S. 1 Hs 2 KSchG", NAMES)
    assert target.detail == "S. 1 Hs 2"
    (target,) = extract("§ 309 Nr. 8 b) aa) BGB", NAMES)
    assert target.detail == "Nr. 8 b) aa)"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("GKG-KV Nr. 1210", ("1", "GKG", "1210", "KV")),
        ("RVG-VV Nr. 3100", ("1", "RVG", "3100", "VV")),
        ("Nr. 3100 RVG-VV", ("1", "RVG", "3100", "VV")),
        ("Nr. 3100 des VV RVG", ("1", "RVG", "3100", "VV")),
        ("Nr. 1008 Anm. Abs. 1 VV RVG", ("1", "RVG", "1008", "VV")),
        ("Vorbem. 3 Abs. 4 S. 1 VV RVG", ("1", "RVG", "", "VV")),
    ],
)
def test_the_forms_of_the_fee_schedules(text, expected):
    (target,) = extract(f"Die Gebühr entsteht nach {text}.", NAMES)
    assert (target.art, target.nummer, target.gesetz, target.eintrag, target.detail) == ("Anlage", *expected)


@pytest.mark.parametrize(
    ("text", "gesetz"),
    [
        ("Art. 3 Abs. 1 Rom I-VO", "Rom I-VO"),
        ("Art. 4 Abs. 1 Rom II", "Rom II"),
        ("Art. 18 Abs. 1 Brüssel Ia-VO", "Brüssel Ia-VO"),
        ("Art. 5 Abs. 1 der Verordnung (EU) 2016/679", "Verordnung (EU) 2016/679"),
        ("Art. 6 Abs. 1 der Richtlinie 93/13/EWG", "Richtlinie 93/13/EWG"),
        ("Art. 13 Abs. 1 RL 93/13/EWG", "RL 93/13/EWG"),
        ("§ 8 PolG NRW", "PolG NRW"),
        ("§ 35 VwVfG NRW", "VwVfG NRW"),  # the Land's statute, not the federal one of the corpus
        ("Art. 6 Abs. 1 UAbs. 1 lit. f DSGVO", "DSGVO"),
    ],
)
def test_european_and_land_law_is_named_as_written(text, gesetz):
    assert [z.gesetz for z in extract(f"Nach {text} gilt das.", NAMES)] == [gesetz]


def test_european_and_land_law_is_reported_as_not_in_the_corpus(shipped_gesetze):
    assert _checked("Nach Art. 3 Abs. 1 Rom I-VO und § 8 PolG NRW.") == [
        "Gesetz „Rom I-VO“ ist nicht im Bestand.",
        "Gesetz „PolG NRW“ ist nicht im Bestand.",
    ]
