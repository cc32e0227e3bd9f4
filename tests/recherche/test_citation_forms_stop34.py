"""Citation review of stop 34: forms that were dropped silently (neither linked nor marked), and file
numbers that were flagged as decisions missing from the collection."""

import pytest

from recherche.citations import check_aktenzeichen, extract
from recherche.models import Urteil
from tests.recherche.test_citations import NAMES


def _targets(text: str) -> list[tuple[str, str, str, str]]:
    return [(z.art, z.nummer, z.gesetz, z.absatz) for z in extract(text, NAMES)]


@pytest.mark.parametrize(
    "connector", ["iVm.", "i.V.m", "i. V. mit", "i.Vm.", "jeweils i.V.m.", "i. V. m.", "iVm", "in Verbindung mit"]
)
def test_every_way_of_writing_i_v_m_keeps_the_chain_before_it(connector):
    assert _targets(f"§ 9999 Abs. 2 {connector} § 174 BGB") == [("§", "9999", "BGB", "2"), ("§", "174", "BGB", "")]


def test_articles_joined_by_ivm_with_a_dot():
    assert _targets("Art. 2 Abs. 1 iVm. Art. 1 Abs. 1 GG") == [("Art.", "2", "GG", "1"), ("Art.", "1", "GG", "1")]


@pytest.mark.parametrize("text", ["§§ 280 ff BGB", "§§ 280ff. BGB", "§ 280ff BGB", "§§ 280 ff. BGB"])
def test_following_sections_written_without_dot_or_space(text):
    (target,) = extract(text, NAMES)
    assert (target.art, target.nummer, target.gesetz) == ("§", "280", "BGB") and "ff" in target.detail


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("§ 823 abs. 1 BGB", [("§", "823", "BGB", "1")]),
        ("§ 573 Abs. 2 nr. 1 BGB", [("§", "573", "BGB", "2")]),
        ("art. 20 GG", [("Art.", "20", "GG", "")]),
        # a section with a letter f stays that section
        ("§ 312f BGB", [("§", "312f", "BGB", "")]),
        ("§ 573c Abs. 1 BGB", [("§", "573c", "BGB", "1")]),
    ],
)
def test_lower_case_keywords(text, expected):
    assert _targets(text) == expected


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text",
    [
        "**Az.: 12 C 345/25**\n\nIn dem Rechtsstreit …",
        "Amtsgericht Köln, Aktenzeichen 12 C 345/25",
        "Staatsanwaltschaft Köln, Geschäftszeichen: 2 Js 1234/25",
        "Es wurden 3 Mio 10/20 gezahlt.",
        "Rechnung 3 RE 12/25 vom 1. März",
    ],
)
def test_file_numbers_and_amounts_are_no_decisions_missing_from_the_collection(text):
    assert check_aktenzeichen(text) == []


@pytest.mark.django_db
def test_a_decision_cited_with_its_court_is_still_checked_and_linked():
    Urteil.objects.create(external_id="bgh-1", gericht="BGH", datum="2024-01-10", aktenzeichen="VIII ZR 123/22", text="t")
    missing = check_aktenzeichen("Vgl. BGH, Urt. v. 12.03.2020 – VIII ZR 999/19, NJW 2020, 1.")
    assert [(r["zitiert"], r["ok"]) for r in missing] == [("VIII ZR 999/19", False)]
    found = check_aktenzeichen("So auch VIII ZR 123/22 (ohne Gericht genannt).")
    assert [(r["zitiert"], r["ok"]) for r in found] == [("VIII ZR 123/22", True)]  # in the table: linked
    lag = check_aktenzeichen("LAG Köln, Beschluss vom 3. Mai 2024 – 5 Sa 12/24")
    assert [(r["zitiert"], r["ok"]) for r in lag] == [("5 Sa 12/24", False)]


@pytest.mark.parametrize("text", ["§ 3 AGB der Beklagten", "§ 6 Abs. 2 MV", "§ 2 ARB 2010", "nach § 4 AVB"])
def test_a_clause_of_the_contracts_terms_is_no_statute_citation(text):
    """They were marked "Gesetz „AGB“ ist nicht im Bestand" - a false alarm in every contract dispute."""
    assert extract(text, NAMES) == []


def test_an_absatz_the_source_prints_inside_the_one_before_counts():
    """§ 127 MarkenG: "… besteht. (5) Die Absätze 2 und 3 …" inside (4); "Abs. 5" was a false alarm."""
    from recherche.citations import absatz_numbers

    text = "(1) Eins.\n\n(2) Zwei.\n\n(4) Vier, wenn der Ruf besteht. (5) Die Absätze 2 und 3 gelten.\n\n(6) Sechs."
    assert absatz_numbers(text) == ["1", "2", "4", "5", "6"]
    # a reference to an earlier Absatz inside the text is none of its own
    assert absatz_numbers("(1) Eins.\n\n(2) Wie in Satz 1. (1) gilt entsprechend.") == ["1", "2"]


@pytest.mark.django_db
def test_a_cost_schedule_number_whose_text_is_missing_is_shown_and_counted_as_unchecked(shipped_gesetze):
    """GKG Anlage 1 holds only its Fundstelle: "KV 9999 GKG" was linked like a checked citation
    with the note only in a tooltip (review of stop 34)."""
    from recherche.citations import NICHT_PRUEFBAR, check_text, link_citations

    report = check_text("Gerichtsgebühr nach KV 9999 GKG; Verfahrensgebühr Nr. 3100 VV RVG.").as_dict()
    assert report["nicht_pruefbar"] == 1 and report["nicht_im_bestand"] == 0
    html = link_citations("<p>Gerichtsgebühr nach KV 9999 GKG; Verfahrensgebühr Nr. 3100 VV RVG.</p>")
    assert html.count(NICHT_PRUEFBAR) == 1


@pytest.mark.django_db
def test_a_decision_of_another_court_with_the_same_number_is_not_the_one_cited():
    """Review of stop 34: "OLG Köln, 5 U 88/24" was linked as verified to the decision of the OLG
    Musterstadt with that number."""
    Urteil.objects.create(
        external_id="olg",
        gericht="DEMO – Oberlandesgericht Musterstadt",
        datum="2024-06-01",
        aktenzeichen="DEMO 5 U 88/24",
        text="t",
    )
    Urteil.objects.create(
        external_id="bgh", gericht="Bundesgerichtshof", datum="2024-01-10", aktenzeichen="VIII ZR 123/22", text="t"
    )

    def checked(text: str) -> list[tuple[str, bool]]:
        return [(r["zitiert"], r["ok"]) for r in check_aktenzeichen(text)]

    assert checked("OLG Köln, Urt. v. 1.6.2024 – 5 U 88/24") == [("5 U 88/24", False)]
    assert checked("LG Köln, 5 U 88/24") == [("5 U 88/24", False)]
    assert checked("OLG Musterstadt, Urt. v. 1.6.2024 – 5 U 88/24") == [("5 U 88/24", True)]
    assert checked("BGH, Urt. v. 10.1.2024 – VIII ZR 123/22") == [("VIII ZR 123/22", True)]
    assert checked("Bundesgerichtshof, VIII ZR 123/22") == [("VIII ZR 123/22", True)]  # no abbreviation: no court check
    assert checked("BAG, Urt. v. 10.1.2024 – VIII ZR 123/22") == [("VIII ZR 123/22", False)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Vorbem. 3 Abs. 4 VV RVG", [("Anlage", "1", "RVG", "")]),
        ("Vorbemerkung 3.2.1 VV RVG", [("Anlage", "1", "RVG", "")]),
        ("Nr. 3100 VV zum RVG", [("Anlage", "1", "RVG", "")]),
    ],
)
def test_preliminary_remarks_and_schedules_zum_law(text, expected):
    """They were dropped silently, and search read "Vorbem. 3 Abs. 4" as "§ 3 Abs. 4 VV" (review of stop 34)."""
    assert _targets(text) == expected
