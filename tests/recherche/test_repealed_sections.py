"""Citation review of stop 34: sections repealed as "(1) (weggefallen)" (§ 847 BGB, 120 such in
the corpus) and repealed entries of the RVG fee table (Nr. 3103, 1007 VV) passed the check as
valid, were exact search hits and had no badge in the reader."""

import pytest

from recherche.citations import check_text
from recherche.gesetze_parser import _only_repealed
from recherche.models import Norm

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("text", "repealed"),
    [
        ("(weggefallen)", True),
        ("(1) (weggefallen)", True),
        ("(1) (weggefallen)\n\n(2) (weggefallen)", True),
        ("(1) (weggefallen)\n\n(2) Der Anspruch verjährt in drei Jahren.", False),
        ("Der Anspruch (weggefallen) ist zu prüfen.", False),
        ("", False),
    ],
)
def test_only_wholly_repealed_text_counts_as_repealed(text, repealed):
    assert _only_repealed(text) is repealed


def test_a_section_repealed_as_its_only_absatz_and_a_repealed_fee_entry_are_marked(shipped_gesetze):
    assert Norm.objects.get(gesetz__abkuerzung="BGB", nummer="847").aufgehoben
    report = check_text("Schmerzensgeld nach § 847 BGB, Gebühr Nr. 3103 VV RVG und Nr. 3100 VV RVG; § 823 Abs. 1 BGB.")
    grund = {r.ziel.eintrag or r.ziel.nummer: r.grund for r in report.normen}
    assert set(grund) >= {"847", "3103", "3100", "823"}, grund
    assert "weggefallen" in grund["847"] and "weggefallen" in grund["3103"] and "Nr. 3103 VV RVG" in grund["3103"]
    assert grund["3100"] == "" and grund["823"] == ""  # control: in force
