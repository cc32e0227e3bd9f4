"""Review of the citation check (2026-12-03): citations in the forms of Schriftsätze and Gutachten
that were flagged though valid, linked to the wrong section, or not checked at all."""

import pytest

from recherche.citations import check_text, extract, link_citations, resolve
from recherche.models import Norm, Urteil
from tests.recherche.test_citations import NAMES


def _targets(text: str) -> list[tuple[str, str, str, str]]:
    return [(z.art, z.nummer, z.gesetz, z.absatz) for z in extract(text, NAMES)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A number after a list of Absätze that cannot be one is the chain's next section.
        ("§§ 823 Abs. 1, 826 BGB", [("§", "823", "BGB", "1"), ("§", "826", "BGB", "")]),
        ("§§ 280 Abs. 1, 3, 283 BGB", [("§", "280", "BGB", "1"), ("§", "280", "BGB", "3"), ("§", "283", "BGB", "")]),
        ("§§ 280 Abs. 1 und 3, 283 BGB", [("§", "280", "BGB", "1"), ("§", "280", "BGB", "3"), ("§", "283", "BGB", "")]),
        ("§§ 987 Abs. 1, 990 ff. BGB", [("§", "987", "BGB", "1"), ("§", "990", "BGB", "")]),
        # "§§" names two sections at least: the last number is the second one.
        ("§§ 1 Abs. 1, 2 KSchG", [("§", "1", "KSchG", "1"), ("§", "2", "KSchG", "")]),
        ("§§ 9 Abs. 1 S. 1, 10 KSchG", [("§", "9", "KSchG", "1"), ("§", "10", "KSchG", "")]),
        ("Artt. 1 Abs. 1, 2 GG", [("Art.", "1", "GG", "1"), ("Art.", "2", "GG", "")]),
        # Lists of Sätze and Nummern of one section are no further sections.
        ("§ 280 Abs. 1 S. 1, 2 BGB", [("§", "280", "BGB", "1")]),
        ("§ 573c Abs. 1 S. 1 und 2 BGB", [("§", "573c", "BGB", "1")]),
        ("§ 573 Abs. 2 Nr. 1 bis 3 BGB", [("§", "573", "BGB", "2")]),
        ("§ 569 Abs. 3 Nr. 1, 2 BGB", [("§", "569", "BGB", "3")]),
        ("§ 7 Abs. 1 Satz 1 Nr. 1 bis 3 SGB II", [("§", "7", "SGB II", "1")]),
        ("§ 3 Nr. 26, 26a EStG", [("§", "3", "EStG", "")]),
        # Unchanged: lists of Absätze of one section, and chains that name their sections.
        ("§ 823 Abs. 1 und 2 BGB", [("§", "823", "BGB", "1"), ("§", "823", "BGB", "2")]),
        ("§ 1 Abs. 1, 2 KSchG", [("§", "1", "KSchG", "1"), ("§", "1", "KSchG", "2")]),
        ("§§ 280, 281 Abs. 1 S. 1 BGB", [("§", "280", "BGB", ""), ("§", "281", "BGB", "1")]),
    ],
)
def test_lists_of_absaetze_saetze_and_nummern_and_the_chains_next_section(text, expected):
    assert _targets(f"Der Anspruch folgt aus {text}.") == expected


@pytest.mark.parametrize(
    ("text", "expected", "detail"),
    [
        ("gem. § 543 Abs. 2 S. 1 Nr. 3 a) BGB", [("§", "543", "BGB", "2")], "S. 1 Nr. 3 a)"),
        ("§ 812 Abs. 1 S. 1, 2. Alt. BGB", [("§", "812", "BGB", "1")], "S. 1 2. Alt."),
        ("§ 280 Abs. 1 S. 1, 2 BGB", [("§", "280", "BGB", "1")], "S. 1, 2"),
    ],
)
def test_nummer_letters_in_parentheses_and_ordinal_alternatives_are_part_of_the_citation(text, expected, detail):
    assert _targets(text) == expected
    (target,) = extract(text, NAMES)
    assert target.detail == detail and text[target.end - 3 :].endswith("BGB")


@pytest.mark.parametrize(
    ("text", "gesetz"),
    [("§ 3 Abs. 1 EFZG", "EntgFG"), ("§ 1 UVG", "UhVorschG"), ("§ 7 HeizKV", "HeizkostenV")],
)
def test_the_common_abbreviations_of_shipped_statutes_name_them(text, gesetz):
    assert [z.gesetz for z in extract(text, NAMES)] == [gesetz]


def test_an_old_version_named_before_the_law_is_a_citation():
    (target,) = extract("Der Mangelbegriff des § 434 Abs. 1 a. F. BGB war enger.", NAMES)
    assert (target.nummer, target.gesetz, target.absatz, target.alte_fassung) == ("434", "BGB", "1", True)


@pytest.mark.django_db
def test_a_schriftsatz_with_chains_and_lists_has_no_false_alarms_and_links_each_section(shipped_gesetze):
    text = (
        "Der Anspruch folgt aus §§ 280 Abs. 1, 3, 283 BGB, hilfsweise aus §§ 823 Abs. 1, 826 BGB. "
        "Die Kündigung ist nach § 573 Abs. 2 Nr. 1 bis 3 BGB i. V. m. § 573c Abs. 1 S. 1 und 2 BGB "
        "sowie gem. § 543 Abs. 2 S. 1 Nr. 3 a) BGB wirksam; §§ 1 Abs. 1, 2 KSchG gelten nicht."
    )
    report = check_text(text).as_dict()
    assert report["nicht_im_bestand"] == 0, [n["grund"] for n in report["normen"] if not n["ok"]]
    assert [n["zitat"] for n in report["normen"]] == [
        "§ 280 BGB", "§ 280 BGB", "§ 283 BGB", "§ 823 BGB", "§ 826 BGB", "§ 573 BGB", "§ 573c BGB", "§ 543 BGB",
        "§ 1 KSchG", "§ 2 KSchG",
    ]  # fmt: skip
    html = link_citations(f"<p>{text}</p>")
    assert "zitat-fehlt" not in html
    norm_826 = Norm.objects.get(gesetz__abkuerzung="BGB", art="§", nummer="826")
    assert f'<a href="/recherche/normen/{norm_826.pk}/" class="zitat"' in html
    assert ">§ 3 BGB<" not in html and "/#abs-283" not in html


@pytest.mark.django_db
def test_a_wrong_absatz_or_section_inside_the_new_forms_is_flagged(shipped_gesetze):
    report = check_text("Gem. § 543 Abs. 7 S. 1 Nr. 3 a) BGB und §§ 823 Abs. 1, 9999 BGB.").as_dict()
    assert [n["grund"] for n in report["normen"] if not n["ok"]] == [
        "§ 543 BGB hat keinen Absatz 7.",
        "§ 9999 BGB gibt es im Bestand nicht.",
    ]


@pytest.mark.django_db
def test_every_fee_number_of_a_list_is_checked_and_linked_to_its_entry(shipped_gesetze):
    (first, second) = resolve(extract("Die Gebühren entstehen nach Nr. 3100, 3104 VV RVG.", NAMES))
    assert (first.anker, second.anker) == ("nr-3100", "nr-3104") and first.ok and second.ok
    report = check_text("Abzurechnen sind Nrn. 9999, 3104 VV RVG und KV Nr. 1210, 1211 GKG.").as_dict()
    assert [(n["zitiert"], n["ok"]) for n in report["normen"]] == [
        ("Nr. 9999 VV RVG", False),
        ("Nr. 3104 VV RVG", True),
        ("Nr. 1210 KV GKG", True),
        ("Nr. 1211 KV GKG", True),
    ]
    html = link_citations("<p>Nr. 3100, 3104 VV RVG</p>")
    assert html.count('class="zitat"') == 2 and "#nr-3100" in html and "#nr-3104" in html


@pytest.mark.django_db
def test_decisions_are_found_by_the_aktenzeichen_as_courts_write_it():
    courts = {  # the court each decision names (a cited court must fit it, stop 34)
        "DEMO 12 C 345/24": "DEMO – Amtsgericht Musterstadt",
        "432 C 1234/19": "Amtsgericht München",
        "B 4 AS 12/23 R": "Bundessozialgericht",
        "L 7 AS 123/24 B ER": "Landessozialgericht Nordrhein-Westfalen",
        "2 O 45/25": "Landgericht Musterstadt",
    }
    stored = {
        az: Urteil.objects.create(external_id=az, gericht=gericht, datum="2024-03-14", aktenzeichen=az, text="t")
        for az, gericht in courts.items()
    }
    text = (
        "Vgl. AG Musterstadt, Urt. v. 14.03.2024 – DEMO 12 C 345/24; AG München, Urt. v. 1.2.2020 – 432 C 1234/19; "
        "BSG, Urt. v. 1.6.2023 – B 4 AS 12/23 R; LSG, Beschl. v. 2.2.2025 – L 7 AS 123/24 B ER; "
        "LG Musterstadt, 2 O 45/25 AG Köln; AG München, 433 C 1234/19."
    )
    urteile = check_text(text).urteile
    assert [(u["zitiert"], u["ok"]) for u in urteile] == [
        ("12 C 345/24", True),
        ("432 C 1234/19", True),
        ("B 4 AS 12/23 R", True),
        ("L 7 AS 123/24 B ER", True),
        ("2 O 45/25", True),
        ("433 C 1234/19", False),
    ]
    assert urteile[0]["urteil_id"] == stored["DEMO 12 C 345/24"].pk
    assert [text[u["start"] : u["end"]] for u in urteile] == [u["zitiert"] for u in urteile]
    # A longer Aktenzeichen that merely ends in the same digits is another decision.
    assert [u["ok"] for u in check_text("AG X, 2 C 345/24").urteile] == [False]


def test_sgb_with_a_hyphen_is_the_book_of_the_corpus():
    """ "§ 7 SGB-II" was flagged as a law not in the corpus."""
    from tests.recherche.test_citations import NAMES

    assert [(t.nummer, t.gesetz) for t in extract("§ 7 SGB-II, § 45 Abs. 1 SGB-X", NAMES)] == [("7", "SGB II"), ("45", "SGB X")]


@pytest.mark.django_db
def test_a_citation_split_by_bold_or_italic_is_checked_and_linked(shipped_gesetze):
    """ "**§ 573** BGB" was two text nodes for the link check and "§ 573** BGB" for the trace: an
    invented "**§ 9999** BGB" was neither marked nor counted."""
    markdown = "Kündigung nach **§ 573** BGB, aber **§ 9999** BGB gibt es nicht; *Art. 3* GG gilt."

    report = check_text(markdown).as_dict()
    assert [(n["zitat"] if n["ok"] else n["grund"]) for n in report["normen"]] == [
        "§ 573 BGB",
        "§ 9999 BGB gibt es im Bestand nicht.",
        "Art. 3 GG",
    ]

    html = link_citations(
        "<p>Kündigung nach <strong>§ 573</strong> BGB, aber <strong>§ 9999</strong> BGB gibt es nicht; "
        "<em>Art. 3</em> GG gilt, <strong>wichtig</strong> bleibt.</p>"
    )
    norm_573 = Norm.objects.get(gesetz__abkuerzung="BGB", art="§", nummer="573")
    assert f'<strong><a href="/recherche/normen/{norm_573.pk}/" class="zitat"' in html and "§ 573 BGB</a></strong>" in html
    assert '<span class="zitat-fehlt"' in html and "§ 9999 BGB</span>" in html
    assert "Art. 3 GG</a></em> gilt" in html and "<strong>wichtig</strong> bleibt" in html
