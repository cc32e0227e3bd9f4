"""The amounts the shipped Muster and demo documents state with a citation ("übersteigt 1.000 EUR
(§ 511 Abs. 2 Nr. 1 ZPO)") are the amounts of the cited norm in the shipped, current corpus: a
template that still says 600 EUR after the law says 1 000 Euro tells a court something false."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from recherche.citations import absatz_text, extract, law_names, resolve
from recherche.models import Norm

ROOT = Path(__file__).resolve().parents[2]
TEXTS = sorted([*(ROOT / "recherche/data/muster").glob("*.md"), *(ROOT / "helena/demo_data/dokumente").glob("*.md")])
# "1.000 EUR (§ 511 Abs. 2 Nr. 1 ZPO …)", "40 Euro (§ 288 Abs. 5 BGB)": an amount, then its citation
AMOUNT_CITED = re.compile(r"(\d{1,3}(?:\.\d{3})*(?:,\d+)?) ?(?:EUR|Euro|€) ?\(((?:§|Art\.)[^);]*)")


def _digits(amount: str) -> str:
    return amount.replace(".", "").replace(" ", "")


def amounts_cited(text: str) -> list[tuple[str, str]]:
    return [(match[1], match[2]) for match in AMOUNT_CITED.finditer(text)]


def test_the_pattern_finds_amount_and_citation():
    text = "Der Wert übersteigt 1.000 EUR (§ 511 Abs. 2 Nr. 1 ZPO; 600 EUR, wenn …) und 40 Euro (§ 288 Abs. 5 BGB)."
    assert amounts_cited(text) == [("1.000", "§ 511 Abs. 2 Nr. 1 ZPO"), ("40", "§ 288 Abs. 5 BGB")]


@pytest.mark.parametrize("path", [p for p in TEXTS if amounts_cited(p.read_text(encoding="utf-8"))], ids=lambda p: p.name)
def test_a_cited_amount_is_the_amount_of_the_norm(shipped_gesetze, path):
    for amount, citation in amounts_cited(path.read_text(encoding="utf-8")):
        targets = extract(citation, law_names())
        assert targets, f"{path.name}: „{citation}“ nicht erkannt"
        (aufloesung,) = resolve(targets[:1])
        assert aufloesung.ok, f"{path.name}: „{citation}“ {aufloesung.grund}"
        text = Norm.objects.get(pk=aufloesung.norm_id).text
        if aufloesung.ziel.absatz:
            text = absatz_text(text, aufloesung.ziel.absatz) or ""
        in_norm = {_digits(found) for found in re.findall(r"\d{1,3}(?:[ .]\d{3})*(?:,\d+)?(?= ?(?:Euro|EUR|€))", text)}
        assert _digits(amount) in in_norm, f"{path.name}: {amount} EUR zu {citation}, die Norm nennt {sorted(in_norm)}"
