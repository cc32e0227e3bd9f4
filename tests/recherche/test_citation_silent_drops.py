"""Citations that the check used to drop without a word: a roman Absatz with its Satz before a
comma, a statute written out that the corpus does not hold, a zero-width space inside a citation."""

import pytest

from recherche.citations import check_text, extract
from tests.recherche.test_citations import NAMES


def _targets(text: str) -> list[tuple[str, str, str, str]]:
    return [(z.art, z.nummer, z.gesetz, z.absatz) for z in extract(text, NAMES)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("§ 307 I 1, II Nr. 1 BGB", [("§", "307", "BGB", "1"), ("§", "307", "BGB", "2")]),
        ("§ 280 I 1, 281 BGB", [("§", "280", "BGB", "1"), ("§", "281", "BGB", "")]),
        ("§ 280 I 1, 281 I 1 BGB", [("§", "280", "BGB", "1"), ("§", "281", "BGB", "1")]),
        ("§ 280 I 1, III BGB", [("§", "280", "BGB", "1"), ("§", "280", "BGB", "3")]),
        ("§ 280 I 1, 2 BGB", [("§", "280", "BGB", "1")]),  # Sätze 1 and 2
        ("§\u200b823 Abs.\u200b1 BGB", [("§", "823", "BGB", "1")]),
        ("§ 823\u00adBGB", [("§", "823", "BGB", "")]),
        ("§ 3 des Gewaltschutzgesetzes", [("§", "3", "Gewaltschutzgesetz", "")]),
        ("§ 1 Gewaltschutzgesetz und § 823 BGB", [("§", "1", "Gewaltschutzgesetz", ""), ("§", "823", "BGB", "")]),
        ("§ 14 der Gewerbeordnung", [("§", "14", "GewO", "")]),  # a title of the corpus stays its abbreviation
        ("§ 47 der Finanzgerichtsordnung", [("§", "47", "Finanzgerichtsordnung", "")]),
        # the Sozialgesetzbuch written out is one of its books (review: "Sozialgesetzbuch" was reported missing)
        ("§ 45 Sozialgesetzbuch X", [("§", "45", "SGB X", "")]),
        ("§ 2 Sozialgesetzbuch (SGB) II", [("§", "2", "SGB II", "")]),
        ("§ 31 des Sozialgesetzbuchs II", [("§", "31", "SGB II", "")]),
        ("§ 5 Sozialgesetzbuch 2", [("§", "5", "SGB II", "")]),
        # roman Sätze in lists; a number a Satz cannot be is the chain's next section (review)
        ("§ 626 II 1, 2, 3 BGB", [("§", "626", "BGB", "2")]),
        ("§ 280 I 1, 2 und 3 BGB", [("§", "280", "BGB", "1")]),
        ("§§ 280 I 1, 2, 281 BGB", [("§", "280", "BGB", "1"), ("§", "281", "BGB", "")]),
        ("§§ 1 I 1, 4 S. 2 KSchG", [("§", "1", "KSchG", "1"), ("§", "4", "KSchG", "")]),
        ("§§ 1 I 1, 23 I 3 KSchG", [("§", "1", "KSchG", "1"), ("§", "23", "KSchG", "1")]),
        ("§§ 280 I 1, 31 BGB", [("§", "280", "BGB", "1"), ("§", "31", "BGB", "")]),
        ("§ 280 I 1 Nr. 2 BGB", [("§", "280", "BGB", "1")]),
        # no particular statute, or no statute at all: nothing to check
        ("§ 3 der Verordnung", []),
        ("§ 5 der Hausordnung", []),
        ("§ 5 der Beitragsordnung", []),
        ("§ 3 der Prüfungsordnung", []),
        ("§ 4 Sozialgesetzbuch", []),
        ("§ 5 dieses Gesetzes", []),
    ],
)
def test_the_forms_that_were_dropped_are_read(text, expected):
    assert _targets(f"Das folgt aus {text}.") == expected


def test_a_statute_written_out_that_is_not_in_the_corpus_is_reported_not_dropped(shipped_gesetze):
    report = check_text("Die Schutzanordnung stützt sich auf § 1 des Gewaltschutzgesetzes.")
    (result,) = report.normen
    assert not result.ok and result.grund == "Gesetz „Gewaltschutzgesetz“ ist nicht im Bestand."


def test_a_zero_width_space_keeps_the_span_of_the_text_given(shipped_gesetze):
    text = "Nach §\u200b823 Abs. 1 BGB haftet er."
    (result,) = check_text(text).normen
    assert result.ok and text[result.ziel.start : result.ziel.end] == "§\u200b823 Abs. 1 BGB"


@pytest.mark.parametrize("cited", ["§ 45 Sozialgesetzbuch X", "§§ 1 I 1, 4 S. 2 KSchG", "§§ 626 Abs. 1 und 2 S. 3 BGB"])
def test_review_forms_raise_no_false_alarm(shipped_gesetze, cited):
    report = check_text(f"Das folgt aus {cited}.")
    assert report.normen and all(result.ok for result in report.normen), [r.grund for r in report.normen]
