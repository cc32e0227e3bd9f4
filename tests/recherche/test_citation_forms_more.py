"""Citation forms beyond issue 13's list, found by probing the norm search and the answer check as a
lawyer writes: a roman Absatz after "Abs." or run into the section ("§ 823 Abs. I", "§823I"), "SGBII",
"Vorb.", a VV number without "RVG", "lit f", "§§ 823/826", an old version named by its date, repealed
Absätze and Nummern, the European courts' case numbers. Each was dropped silently, read as another
law, or passed as valid."""

import datetime

import pytest

from recherche import search
from recherche.citations import (
    GRUND_AUFGEHOBEN,
    _repealed_absatz,
    _repealed_nummer,
    check_aktenzeichen,
    check_text,
    extract,
)
from recherche.models import Urteil
from tests.recherche.test_citations import NAMES


def _targets(text: str) -> list[tuple[str, str, str, str]]:
    return [(z.art, z.nummer, z.gesetz, z.absatz) for z in extract(text, NAMES)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a roman Absatz after its keyword
        ("§ 823 Abs. I BGB", [("§", "823", "BGB", "1")]),
        ("§ 823 Absatz II BGB", [("§", "823", "BGB", "2")]),
        ("§ 823 Abs. I und II BGB", [("§", "823", "BGB", "1"), ("§", "823", "BGB", "2")]),
        ("§§ 823 Abs. I, 826 BGB", [("§", "823", "BGB", "1"), ("§", "826", "BGB", "")]),
        # a roman Absatz run into the section
        ("§823I BGB", [("§", "823", "BGB", "1")]),
        ("§ 823I BGB", [("§", "823", "BGB", "1")]),
        ("§ 573cI BGB", [("§", "573c", "BGB", "1")]),
        # "abs" without its dot, "ABS." in capitals: never a statute "ABS"
        ("§ 823 abs 1 bgb", [("§", "823", "BGB", "1")]),
        ("§ 823 ABS. 1 BGB", [("§", "823", "BGB", "1")]),
        # the statute's own numbering "(1)"
        ("§ 823 (1) BGB", [("§", "823", "BGB", "1")]),
        ("§§ 823/826 BGB", [("§", "823", "BGB", ""), ("§", "826", "BGB", "")]),
        ("§ 823 Abs. 1 resp. Abs. 2 BGB", [("§", "823", "BGB", "1"), ("§", "823", "BGB", "2")]),
        # "i V m" without its dots still hands the statute on to the chain before it
        ("§ 626 Abs. 2 i V m § 174 BGB", [("§", "626", "BGB", "2"), ("§", "174", "BGB", "")]),
        # the Sozialgesetzbuch's book run into "SGB"
        ("§ 7 SGBII", [("§", "7", "SGB II", "")]),
        ("§ 44 SGBX", [("§", "44", "SGB X", "")]),
        ("SGBII § 7", [("§", "7", "SGB II", "")]),
        # a law the corpus does not hold stays that law, whatever the letter is written like
        ("Art. 6 Abs 1 lit f DSGVO", [("Art.", "6", "DSGVO", "1")]),
        ("Art. 6 I f DSGVO", [("Art.", "6", "DSGVO", "1")]),
        ("Art. 6(1)(f) DSGVO", [("Art.", "6", "DSGVO", "1")]),
        # the Vergütungsverzeichnis is the RVG's, named or not; "Vorb." is a Vorbemerkung
        ("Nr. 3100 VV", [("Anlage", "1", "RVG", "")]),
        ("VV Nr. 3100", [("Anlage", "1", "RVG", "")]),
        ("Nr. 3100 VV Die Verfahrensgebühr entsteht", [("Anlage", "1", "RVG", "")]),
        ("Nr. 3100, 3104 VV", [("Anlage", "1", "RVG", ""), ("Anlage", "1", "RVG", "")]),
        ("Vorb. 3 Abs. 4 VV RVG", [("Anlage", "1", "RVG", "")]),
        ("Vorbem. 3 Abs. 4 VV", [("Anlage", "1", "RVG", "")]),
        # a Kostenverzeichnis without its statute may be the GKG's, the FamGKG's or the GNotKG's
        ("Nr. 1210 KV", []),
    ],
)
def test_more_citation_forms_are_extracted(text, expected):
    assert _targets(text) == expected
    assert _targets(f"Das folgt aus {text}.") == expected


@pytest.mark.parametrize(
    ("text", "old"),
    [
        ("§ 823 BGB (a. F.)", True),
        ("§ 823 BGB (aF)", True),
        ("§ 434 Abs. 1 S. 2 Nr. 1 BGB in der bis zum 31.12.2021 geltenden Fassung", True),
        ("§ 434 BGB in der bis 31. Dezember 2021 geltenden Fassung", True),
        ("§ 434 BGB in der vor dem 1.1.2022 geltenden Fassung", True),
        ("§ 434 BGB idF bis 31.12.2021", True),
        ("§ 434 BGB i.d.F. vor dem 1.1.2022", True),
        ("§ 434 BGB in der ab dem 1.1.2022 geltenden Fassung", False),
        ("§ 434 BGB n. F.", False),
    ],
)
def test_an_old_version_named_by_its_date_or_in_parentheses_is_one(text, old):
    (target,) = extract(text, NAMES)
    assert target.alte_fassung is old


def test_a_closing_parenthesis_belongs_to_the_old_version_only_if_it_opened_it():
    text = "davor 1,5 aus 20 % (§ 31b RVG a. F.): so"
    (target,) = extract(text, NAMES)
    assert text[target.start : target.end] == "§ 31b RVG a. F."
    (target,) = extract("§ 823 BGB (a. F.) gilt", NAMES)
    assert target.end == len("§ 823 BGB (a. F.)")


def test_repealed_absatz_and_nummer_texts():
    assert _repealed_absatz("(3) (weggefallen)")
    assert not _repealed_absatz("(3) Der Anspruch (weggefallen) ist …")
    block = "(2) Dies gilt für 1. Kauf, 2. (weggefallen) 3. bis 5. (weggefallen) 6. Tausch."
    assert [n for n in "1 2 3 4 5 6 7".split() if _repealed_nummer(block, n)] == ["2", "3", "4", "5"]
    # two lists with the same number: which one is meant is open
    assert not _repealed_nummer("(1) Wenn 1. (weggefallen) 2. b; und wenn 1. c, 2. d.", "1")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "zitat", "anker"),
    [
        ("§ 823 Abs. I BGB", "§ 823 BGB", "abs-1"),
        ("§823I BGB", "§ 823 BGB", "abs-1"),
        ("§ 7 SGBII", "§ 7 SGB II", ""),
        ("Nr. 3100 VV", "Anlage 1 RVG", "nr-3100"),
        ("Vorb. 3 Abs. 4 VV RVG", "Anlage 1 RVG", ""),
        # "f" written apart: § 249 f. (following) where the BGB has no § 249f, § 312f where it has one
        ("§ 249 f BGB", "§ 249 BGB", ""),
        ("§ 312 f BGB", "§ 312f BGB", ""),
        ("§ 74 Abs. 2 BGB", "§ 74 BGB", "abs-2"),
    ],
)
def test_the_new_forms_resolve_in_the_answer_check(shipped_gesetze, text, zitat, anker):
    (resolved,) = check_text(f"Siehe {text}.").normen
    assert (resolved.ok, resolved.zitat, resolved.anker) == (True, zitat, anker), resolved.grund


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "grund"),
    [
        ("§ 74 Abs. 3 BGB", GRUND_AUFGEHOBEN.format(zitat="§ 74 Abs. 3 BGB")),  # "(3) (weggefallen)"
        ("§ 312 Abs. 2 Nr. 4 BGB", GRUND_AUFGEHOBEN.format(zitat="§ 312 Abs. 2 Nr. 4 BGB")),  # "4. (weggefallen)"
        ("§ 204 Abs. 1 Nr. 1a BGB", GRUND_AUFGEHOBEN.format(zitat="§ 204 Abs. 1 Nr. 1a BGB")),
        ("§ 9999 f BGB", "§ 9999f BGB gibt es im Bestand nicht."),
    ],
)
def test_a_repealed_absatz_or_nummer_is_marked(shipped_gesetze, text, grund):
    (resolved,) = check_text(text).normen
    assert not resolved.ok and resolved.grund == grund


@pytest.mark.django_db
def test_an_old_version_of_a_repealed_absatz_only_gets_the_hint(shipped_gesetze):
    (resolved,) = check_text("§ 74 Abs. 3 BGB a. F.").normen
    assert resolved.ok and resolved.anker == "abs-3" and "alte Fassung" in resolved.hinweis


@pytest.mark.django_db
def test_an_old_version_named_by_its_date_gets_the_hint_and_no_alarm(shipped_gesetze):
    (resolved,) = check_text("§ 434 Abs. 1 S. 2 Nr. 1 BGB in der bis zum 31.12.2021 geltenden Fassung").normen
    assert resolved.ok and "alte Fassung" in resolved.hinweis


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["Nr. 3100 VV", "Vorb. 3 Abs. 4 VV RVG", "§ 7 SGBII", "§ 823 Abs. I BGB"])
def test_the_norm_search_finds_them_and_reports_no_law_missing(shipped_gesetze, query):
    result = search.search_normen(query=query)
    assert result.results and result.results[0]["exakt"], result.hinweis
    assert result.nicht_im_bestand == []


@pytest.mark.django_db
def test_european_case_numbers_are_checked_as_decisions():
    (flagged,) = check_aktenzeichen("EuGH, Urt. v. 16.7.2020 – C-311/18 (Schrems II)")
    assert (flagged["zitiert"], flagged["ok"]) == ("C-311/18", False)
    assert check_aktenzeichen("Die Rechtssache C-311/18 ist bekannt.") == []  # no decision cited
    Urteil.objects.create(
        external_id="eugh-c-311-18", gericht="Gerichtshof der Europäischen Union", datum=datetime.date(2020, 7, 16),
        aktenzeichen="C-311/18", typ="Urteil", text="…",
    )  # fmt: skip
    (found,) = check_aktenzeichen("EuGH, Urt. v. 16.7.2020 – C-311/18")
    assert found["ok"]
