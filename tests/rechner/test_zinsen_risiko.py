"""Verzugszinsen (§§ 247, 288 BGB) and Prozesskostenrisiko (issue 12)."""

from datetime import date
from decimal import Decimal

import pytest

from rechner.risiko import prozesskostenrisiko
from rechner.rvg import RvgError
from rechner.zinsen import ZinsError, basiszins_am, basiszinssaetze, verzugszinsen

# Published by the Deutsche Bundesbank (§ 247 Abs. 2 BGB), checked value by value.
VEROEFFENTLICHT = {
    date(2002, 1, 1): "2.57",
    date(2008, 1, 1): "3.32",
    date(2009, 7, 1): "0.12",
    date(2011, 7, 1): "0.37",
    date(2013, 1, 1): "-0.13",
    date(2016, 7, 1): "-0.88",
    date(2022, 7, 1): "-0.88",
    date(2023, 1, 1): "1.62",
    date(2023, 7, 1): "3.12",
    date(2024, 1, 1): "3.62",
    date(2024, 7, 1): "3.37",
    date(2025, 1, 1): "2.27",
    date(2025, 7, 1): "1.27",
    date(2026, 1, 1): "1.27",
}


@pytest.mark.parametrize(("ab", "satz"), VEROEFFENTLICHT.items())
def test_basiszinssatz_wie_veroeffentlicht(ab: date, satz: str) -> None:
    assert basiszins_am(ab) == Decimal(satz)
    assert basiszins_am(date(ab.year, ab.month + 5, 30)) == Decimal(satz)  # the whole half year


def test_jedes_halbjahr_ist_hinterlegt() -> None:
    werte, bis = basiszinssaetze()
    erwartet = [date(jahr, monat, 1) for jahr in range(2002, bis.year + 1) for monat in (1, 7) if date(jahr, monat, 1) <= bis]
    assert [w.gueltig_ab for w in werte] == erwartet


def test_zinsen_2024_verbraucher() -> None:
    # 10.000 € × 8,62 % × 182/366 = 428,64 €; × 8,37 % × 184/366 = 420,79 €; gesamt 849,43 €.
    zinsen = verzugszinsen(hauptforderung="10.000", von=date(2024, 1, 1), bis=date(2024, 12, 31))
    assert [(p.tage, p.zinssatz, p.zinsen) for p in zinsen.perioden] == [
        (182, Decimal("8.62"), Decimal("428.64")),
        (184, Decimal("8.37"), Decimal("420.79")),
    ]
    assert zinsen.zinsen == Decimal("849.43") and zinsen.pauschale == Decimal("0.00")


def test_zinsen_unternehmer_ueber_den_jahreswechsel() -> None:
    # 5.000 € B2B vom 15.12.2024 bis 15.01.2025: 17 Tage × 12,37 % / 366 + 15 Tage × 11,27 % / 365.
    zinsen = verzugszinsen(hauptforderung=Decimal(5000), von=date(2024, 12, 15), bis=date(2025, 1, 15), art="unternehmer")
    erwartet = Decimal(5000) * Decimal("12.37") / 100 * 17 / 366 + Decimal(5000) * Decimal("11.27") / 100 * 15 / 365
    assert zinsen.zinsen == erwartet.quantize(Decimal("0.01"))
    assert zinsen.pauschale == Decimal("40.00")
    assert "§ 288 Abs. 2 BGB" in zinsen.erlaeuterung


def test_zinsen_verbraucher_als_glaeubiger_einer_entgeltforderung_bekommt_die_pauschale() -> None:
    """§ 288 Abs. 5 BGB asks only whether the debtor is a consumer: a consumer's price claim against a
    company gets the 40 € at 5 points (before: the Pauschale came only with the 9 points)."""
    zinsen = verzugszinsen(hauptforderung="1.000", von=date(2025, 3, 1), bis=date(2025, 3, 31), art="verbraucher_glaeubiger")
    fuenf = verzugszinsen(hauptforderung="1.000", von=date(2025, 3, 1), bis=date(2025, 3, 31), art="verbraucher")
    assert zinsen.pauschale == Decimal("40.00") and fuenf.pauschale == Decimal("0.00")
    assert zinsen.zinsen == fuenf.zinsen and zinsen.perioden[0].zinssatz == Decimal("7.27")  # 2,27 % + 5 points
    assert "§ 288 Abs. 1 BGB" in zinsen.erlaeuterung and "§ 288 Abs. 5 BGB: 40,00 €" in zinsen.erlaeuterung


@pytest.mark.parametrize(
    ("kwargs", "meldung"),
    [
        ({"von": date(2025, 3, 1), "bis": date(2025, 2, 1)}, "liegt vor ihrem Beginn"),
        ({"von": date(2001, 12, 1), "bis": date(2002, 2, 1)}, r"Zinsbeginn \(Samstag, 01\.12\.2001\) liegt vor dem 01\.01\.2002"),
        # the day outside the history is the start, not the end the user entered
        ({"von": date(1990, 1, 1), "bis": date(1990, 12, 31)}, r"Zinsbeginn \(Montag, 01\.01\.1990\) liegt vor"),
        ({"von": date(2026, 6, 1), "bis": date(2026, 8, 1)}, "ab dem Mittwoch, 01.07.2026 ist im Rechner noch nicht"),
        ({"hauptforderung": "1,234"}, "mehrdeutig"),
        ({"art": "bank"}, "Unbekannte Art"),
    ],
)
def test_zinsen_fehler_auf_deutsch(kwargs: dict[str, object], meldung: str) -> None:
    eingaben: dict[str, object] = {"hauptforderung": "1000", "von": date(2024, 1, 1), "bis": date(2024, 2, 1), **kwargs}
    with pytest.raises(ZinsError, match=meldung):
        verzugszinsen(**eingaben)  # type: ignore[arg-type]


def test_prozesskostenrisiko_zwei_instanzen() -> None:
    # 10.000 €, 2025: 1,0 RVG 652,00 €; GKG 283,00 €.
    # I: (2,5 × 652 + 20) × 1,19 = 1.963,50 € je Anwalt; 3,0 × 283 = 849,00 €.
    # II: (2,8 × 652 + 20) × 1,19 = 2.196,26 € je Anwalt; 4,0 × 283 = 1.132,00 €.
    risiko = prozesskostenrisiko(streitwert=Decimal(10_000), datum=date(2025, 7, 1), heute=date(2025, 7, 1), instanzen=2)
    assert [(z.eigener_anwalt, z.gegenanwalt, z.gericht, z.summe) for z in risiko.zeilen] == [
        (Decimal("1963.50"), Decimal("1963.50"), Decimal("849.00"), Decimal("4776.00")),
        (Decimal("2196.26"), Decimal("2196.26"), Decimal("1132.00"), Decimal("5524.52")),
    ]
    assert risiko.gesamt == Decimal("10300.52")


def test_prozesskostenrisiko_vorsteuerabzug_nur_beim_eigenen_anwalt() -> None:
    """The client's Vorsteuerabzug takes the USt off its own lawyer only: the winner's USt is
    reimbursed unless the winner may deduct it (§ 104 Abs. 2 Satz 3 ZPO), which the client does not
    know. 10.000 €, 2025: own (2,5 × 652 + 20) = 1.650,00 €, opposing lawyer 1.963,50 € with USt."""
    risiko = prozesskostenrisiko(streitwert=Decimal(10_000), datum=date(2025, 7, 1), heute=date(2025, 7, 1), vorsteuerabzug=True)
    zeile = risiko.zeilen[0]
    assert (zeile.eigener_anwalt, zeile.gegenanwalt, zeile.gericht) == (Decimal("1650.00"), Decimal("1963.50"), Decimal("849.00"))
    assert risiko.gesamt == Decimal("4462.50")
    assert any("§ 104 Abs. 2 Satz 3 ZPO" in hinweis for hinweis in risiko.hinweise)


def test_prozesskostenrisiko_arbeitsgericht_ohne_kostenerstattung() -> None:
    risiko = prozesskostenrisiko(
        streitwert=Decimal(10_000), datum=date(2025, 7, 1), heute=date(2025, 7, 1), gericht="arbeit", vorsteuerabzug=True
    )
    zeile = risiko.zeilen[0]
    assert zeile.eigener_anwalt == Decimal("1650.00") and zeile.gegenanwalt == Decimal("0.00")
    assert zeile.gericht == Decimal("566.00")  # 2,0 × 283,00 € (Nr. 8210 KV GKG)
    assert any("§ 12a Abs. 1 Satz 1 ArbGG" in h for h in risiko.hinweise)


def test_prozesskostenrisiko_fehler() -> None:
    with pytest.raises(RvgError, match="eine oder zwei Instanzen"):
        prozesskostenrisiko(streitwert=Decimal(1000), datum=date(2025, 7, 1), heute=date(2025, 7, 1), instanzen=3)


def test_die_berufung_eines_alten_mandats_kostet_nach_heutigem_recht() -> None:
    """Auftrag 01.05.2025 (before the KostBRÄG 2025), estimated on 03.12.2026: the Berufung is filed
    from today on, so it costs 4,0 × 170,50 = 682,00 € GKG (§ 71 Abs. 1 Satz 2 GKG), not the 644,00 €
    of the old table; the first instance stays at the old table (3,0 × 161,00 = 483,00 €)."""
    risiko = prozesskostenrisiko(streitwert=Decimal(5000), datum=date(2025, 5, 1), instanzen=2, heute=date(2026, 12, 3))
    assert [z.gericht for z in risiko.zeilen] == [Decimal("483.00"), Decimal("682.00")]
    assert any("Berufung gerechnet nach dem Recht vom 03.12.2026" in h for h in risiko.hinweise)


def test_risiko_nennt_die_gerichtsgebuehr_nach_heutigem_recht_wenn_die_klage_erst_jetzt_eingereicht_wird() -> None:
    """§ 71 Abs. 1 GKG: the court fee follows the day the case became pending. For a mandate of May
    2025 the first instance was charged at the old table without a word (483,00 € instead of 511,50 €
    if the action is filed now)."""
    risiko = prozesskostenrisiko(streitwert=Decimal(5000), datum=date(2025, 5, 20), heute=date(2026, 12, 4))
    assert risiko.zeilen[0].gericht == Decimal("483.00")
    hinweis = next(h for h in risiko.hinweise if "§ 71 Abs. 1 GKG" in h)
    assert "483,00 €" in hinweis and "511,50 €" in hinweis
    gleich = prozesskostenrisiko(streitwert=Decimal(5000), datum=date(2025, 7, 20), heute=date(2026, 12, 4))
    assert not any("§ 71 Abs. 1 GKG" in h for h in gleich.hinweise)


@pytest.mark.parametrize(
    ("streitwert", "gericht", "heute", "summe"),
    [
        (Decimal(800), "zivil", date(2026, 12, 4), "1.000,00 €"),  # § 511 Abs. 2 Nr. 1 ZPO since 2026
        (Decimal(1000), "zivil", date(2026, 12, 4), "1.000,00 €"),  # must exceed, not reach
        (Decimal(500), "zivil", date(2025, 7, 1), "600,00 €"),  # before 2026: § 47 Abs. 1 EGZPO
        (Decimal(550), "arbeit", date(2026, 12, 4), "600,00 €"),  # § 64 Abs. 2 lit. b ArbGG
    ],
)
def test_zwei_instanzen_unter_der_berufungssumme_nennen_die_zulassung(streitwert, gericht, heute, summe) -> None:
    """An estimate over two instances for a value the Beschwer cannot exceed the Berufungssumme with
    adds an instance only a Zulassung opens: said, with the threshold of the law of the appeal."""
    risiko = prozesskostenrisiko(streitwert=streitwert, datum=heute, heute=heute, instanzen=2, gericht=gericht)
    hinweis = next(h for h in risiko.hinweise if "nur nach Zulassung" in h)
    assert f"{summe} übersteigt" in hinweis
    assert ("§ 511 Abs. 2 ZPO" if gericht == "zivil" else "§ 64 Abs. 2 ArbGG") in hinweis


def test_ueber_der_berufungssumme_oder_mit_einer_instanz_kein_hinweis_auf_die_zulassung() -> None:
    for streitwert, instanzen in ((Decimal("1000.01"), 2), (Decimal(500), 1)):
        risiko = prozesskostenrisiko(streitwert=streitwert, datum=date(2026, 12, 4), heute=date(2026, 12, 4), instanzen=instanzen)
        assert not any("Zulassung" in h for h in risiko.hinweise)


@pytest.mark.parametrize(("art", "punkte"), [("unternehmer", Decimal(8)), ("verbraucher_glaeubiger", Decimal(5))])
def test_zinsen_schuldverhaeltnis_vor_dem_29_07_2014_nach_altem_recht(art: str, punkte: Decimal) -> None:
    """Art. 229 § 34 EGBGB: the 9 points of § 288 Abs. 2 and the 40 € of Abs. 5 BGB apply only to
    Schuldverhältnisse that arose after 28.07.2014. Interest from 01.01.2014 means default began by
    31.12.2013, so the Schuldverhältnis is older: 8 points (B2B) and no Pauschale. 2014: Basiszinssatz
    -0,63 % (1st half year), -0,73 % (2nd); 10.000 € × 7,37 % × 181/365 + × 7,27 % × 184/365."""
    zinsen = verzugszinsen(hauptforderung="10.000", von=date(2014, 1, 1), bis=date(2014, 12, 31), art=art)
    assert zinsen.pauschale == Decimal("0.00")
    assert zinsen.perioden[0].zinssatz == Decimal("-0.63") + punkte
    erwartet = (
        Decimal(10_000) * (Decimal("-0.63") + punkte) / 100 * 181 / 365
        + Decimal(10_000) * (Decimal("-0.73") + punkte) / 100 * 184 / 365
    )
    assert zinsen.zinsen == erwartet.quantize(Decimal("0.01"))
    assert "Art. 229 § 34 EGBGB" in zinsen.erlaeuterung
    # a Zinsbeginn on 29.07.2014 still means default by 28.07.2014; from 30.07.2014 the new law may apply
    grenze = verzugszinsen(hauptforderung="10.000", von=date(2014, 7, 29), bis=date(2014, 7, 31), art=art)
    danach = verzugszinsen(hauptforderung="10.000", von=date(2014, 7, 30), bis=date(2014, 7, 31), art=art)
    assert grenze.pauschale == Decimal("0.00") and danach.pauschale == Decimal("40.00")
    assert danach.perioden[0].zinssatz - grenze.perioden[0].zinssatz == (1 if art == "unternehmer" else 0)
    assert "vor dem 29.07.2014 entstanden, gilt § 288 BGB a. F." in danach.erlaeuterung
