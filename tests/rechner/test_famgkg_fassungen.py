"""FamGKG fixed values by the date a matter became pending (§ 63 FamGKG): 4,000 EUR for a
Kindschaftssache and as the cap per Kindschaftsfolgesache in the KostRÄG 2021 version, 5,000 EUR
since the KostBRÄG 2025 (1 June 2025). The calculator used 5,000 EUR for every date before."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from rechner import famgkg


def test_kindschaftssache_vor_und_nach_dem_kostbraeg_2025() -> None:
    alt = famgkg.familienkosten("kindschaft", on=date(2025, 3, 1))
    neu = famgkg.familienkosten("kindschaft", on=date(2025, 6, 1))
    assert (alt.verfahrenswert, neu.verfahrenswert) == (Decimal(4000), Decimal(5000))
    assert "a. F." in alt.wertbegruendung[0] and "a. F." not in neu.wertbegruendung[0]


def test_hoechstbetrag_je_kindschaftsfolgesache_im_verbund() -> None:
    # 3 × 9,000 EUR net: 20 % of 27,000 EUR = 5,400 EUR, capped at 4,000 (old) or 5,000 EUR (new)
    alt, _ = famgkg.verfahrenswert("scheidung", on=date(2024, 12, 1), netto_monat=9000, kindschaftsfolgesachen=1)
    neu, _ = famgkg.verfahrenswert("scheidung", on=date(2025, 7, 1), netto_monat=9000, kindschaftsfolgesachen=1)
    assert (alt, neu) == (Decimal(31000), Decimal(32000))


def test_einigungsgebuehr_1_5_neben_einem_gerichtlichen_verfahren_wird_angemerkt() -> None:
    """Nr. 1003 VV RVG (1.0) applies where the matter is pending, also in the Mahnverfahren; 1.5 only
    for claims not pending (a Mehrvergleich), so the calculator keeps it but says so."""
    from rechner.rvg import HINWEIS_EINIGUNG_ANHAENGIG, PositionRequest, calculate

    def hinweise(*vv: str) -> tuple[str, ...]:
        positions = [PositionRequest(vv=v) for v in vv]
        return calculate(gegenstandswert=Decimal(5000), auftragsdatum=date(2025, 6, 1), positions=positions).hinweise

    assert HINWEIS_EINIGUNG_ANHAENGIG in hinweise("3305", "1000")
    assert HINWEIS_EINIGUNG_ANHAENGIG in hinweise("3100", "1000")
    assert HINWEIS_EINIGUNG_ANHAENGIG not in hinweise("2300", "1000")
    assert HINWEIS_EINIGUNG_ANHAENGIG not in hinweise("3100", "1003")
