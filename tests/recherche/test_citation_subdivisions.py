"""The Satz and the Nummer of a citation: "§ 573 Abs. 2 Nr. 4 BGB" (Abs. 2 has Nr. 1-3) is marked,
never a Satz or Nummer that is there."""

import importlib.util
import sys
from pathlib import Path

import pytest

from recherche.citations import absatz_text, check_text, has_nummer, satz_count

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("cited", "reason"),
    [
        ("§ 573 Abs. 2 Nr. 4 BGB", "§ 573 Abs. 2 BGB hat keine Nummer 4."),
        ("§ 573 Abs. 2 Nr. 2 bis 5 BGB", "§ 573 Abs. 2 BGB hat keine Nummer 5."),
        ("§ 626 Abs. 2 S. 4 BGB", "§ 626 Abs. 2 BGB hat keinen Satz 4."),
        ("§ 626 Abs. 2 Satz 3 und 5 BGB", "§ 626 Abs. 2 BGB hat keinen Satz 5."),
        ("§ 195 S. 2 BGB", "§ 195 BGB hat keinen Satz 2."),
    ],
)
def test_a_nummer_or_satz_the_section_lacks_is_marked(shipped_gesetze, cited, reason):
    report = check_text(f"Das folgt aus {cited}.")
    (result,) = report.normen
    assert not result.ok
    assert result.grund == reason
    assert report.nicht_im_bestand == 1


@pytest.mark.parametrize(
    "cited",
    [
        "§ 573 Abs. 2 Nr. 3 BGB",
        "§ 573 Abs. 2 Nr. 1 bis 3 BGB",
        "§ 543 Abs. 2 S. 1 Nr. 3 a) BGB",
        "§ 543 Abs. 2 Nr. 3b BGB",  # "Nr. 3b" for Nummer 3 Buchstabe b
        "§ 626 Abs. 2 S. 3 BGB",
        "§ 626 Abs. 2 Sätze 1 und 2 BGB",
        "§ 195 S. 1 BGB",
        "§ 573 Abs. 2 Nr. 4 BGB a. F.",  # an earlier version is not the corpus's to judge
        "§ 626 Abs. 1 und 2 S. 3 BGB",  # the Satz may belong to either Absatz
        "§ 573 Abs. 2 S. 1 Nr. 2 BGB",
        "§ 823 Abs. 1 BGB",
        "§ 7 Abs. 1 S. 1 Nr. 1 SGB II",
    ],
)
def test_a_nummer_or_satz_that_is_there_is_never_marked(shipped_gesetze, cited):
    report = check_text(f"Das folgt aus {cited}.")
    assert report.normen and all(result.ok for result in report.normen), [r.grund for r in report.normen]


def test_the_numbered_items_of_an_absatz_and_an_upper_bound_of_its_saetze():
    text = (
        "(1) Der Vermieter kann kündigen. Das gilt nicht für Wohnraum.\n\n"
        "(2) Ein Interesse liegt vor, wenn 1. der Mieter säumig ist, 2. der Vermieter die Räume braucht oder "
        "3. die Verwertung gehindert ist; 3a. (weggefallen)\n\n"
        "(3) Die Gründe sind anzugeben [bis 9 | Monate.] Andere Gründe zählen nicht."
    )
    assert absatz_text(text, "2").startswith("(2) Ein Interesse") and "(3)" not in absatz_text(text, "2")
    assert absatz_text(text, "4") is None
    assert has_nummer(absatz_text(text, "2"), "3") is True
    assert has_nummer(absatz_text(text, "2"), "3a") is True
    assert has_nummer(absatz_text(text, "2"), "4") is False
    assert has_nummer(absatz_text(text, "1"), "1") is None  # no list: nothing can be said
    # repealed together (§ 145 Abs. 2 GewO): the range holds its inner numbers
    assert has_nummer("(2) Wer 1. a, 2. b, 3. bis 5. (weggefallen) 6. c", "4") is True
    assert satz_count(absatz_text(text, "1")) == 2
    assert satz_count(absatz_text(text, "3")) == 2  # a sentence ending inside a table still ends
    # Where the source marks only some Sätze, the count is never below the sentence ends.
    assert satz_count("(4a) <sup>1</sup>Eins. Zwei. <sup>2</sup>Drei. Vier.") == 4


def _internal_references():
    spec = importlib.util.spec_from_file_location("zitat_verweise", ROOT / "bench" / "zitat_verweise.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module.check_internal_references


def test_the_statutes_own_references_to_satz_and_nummer_raise_no_false_alarm():
    """BGB, ZPO, StGB and SGB II, VI and X cite their own Sätze and Nummern about 1,000 times. The
    check flags exactly two, both in transitional provisions of SGB VI: § 229 still cites § 2 Satz 1
    Nr. 10 SGB VI, which the current text no longer has (Nr. 1-9), and § 276 cites § 162 Nr. 3a "in
    der bis zum 31. Dezember 2019 geltenden Fassung", which now reads "3a. (weggefallen)".
    bench/zitat_verweise.py measures all 85 statutes."""
    check = _internal_references()
    corpus = ROOT / "recherche" / "data" / "gesetze"
    counts, flagged = check([corpus / f"{name}.md" for name in ("bgb", "zpo", "stgb", "sgb_2", "sgb_6", "sgb_10")])
    assert counts["nummer_geprueft"] > 400 and counts["satz_geprueft"] > 500, counts
    assert [(f.gesetz, f.in_section, f.grund) for f in flagged] == [
        ("SGB VI", "229", "§ 2 SGB VI hat keine Nummer 10."),
        ("SGB VI", "276", "§ 162 Nr. 3a SGB VI ist weggefallen (aufgehoben)."),
    ]
