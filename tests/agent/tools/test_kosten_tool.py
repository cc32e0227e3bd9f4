"""get_kosten_rules: German amounts, the value cap, Nr. 1004, Inkasso and German rates (issue 12)."""

import pytest

from akten.models import Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def kosten(call, anwalt, **args):
    result = call(anwalt, "get_kosten_rules", {"datum": "2025-07-01", **args})
    assert result.ok, result.error
    return result.data


def test_deutscher_tausenderpunkt(call, anwalt):
    data = kosten(call, anwalt, gegenstandswert="5.000", rvg_positionen=[{"vv": "3100"}], umsatzsteuer=False)
    assert data["gegenstandswert_eur"] == "5000.00"
    assert data["rvg"]["positionen"][0]["betrag_eur"] == "460.85"
    mit_cent = kosten(call, anwalt, gegenstandswert="5.000,50", gkg_nummern=["1210"])
    assert mit_cent["gegenstandswert_eur"] == "5000.50"


def test_mehrdeutiger_betrag_wird_auf_deutsch_abgelehnt(call, anwalt):
    result = call(anwalt, "get_kosten_rules", {"gegenstandswert": "1,234", "rvg_positionen": [{"vv": "3100"}]})
    assert not result.ok and "mehrdeutig" in result.error


def test_hoechstwert_30_millionen(call, anwalt):
    data = kosten(
        call,
        anwalt,
        gegenstandswert="50.000.000",
        rvg_positionen=[{"vv": "3100", "satz": "1,3"}],
        gkg_nummern=["1210"],
        auslagenpauschale=False,
        umsatzsteuer=False,
    )
    assert data["rvg"]["positionen"][0]["betrag_eur"] == "139102.60"  # 1,3 × 107.002,00
    assert data["gkg"]["positionen"][0]["betrag_eur"] == "384114.00"
    assert any("§ 22 Abs. 2" in hinweis for hinweis in data["rvg"]["hinweise"])


def test_einigung_in_der_berufung(call, anwalt):
    data = kosten(call, anwalt, gegenstandswert=10000, rvg_positionen=[{"vv": "3200"}, {"vv": "3202"}, {"vv": "1004"}])
    assert data["rvg"]["gesamt_eur"] == "3204.91"
    falsch = call(
        anwalt,
        "get_kosten_rules",
        {"gegenstandswert": 10000, "rvg_positionen": [{"vv": "3200"}, {"vv": "3202"}, {"vv": "1003"}]},
    )
    assert not falsch.ok and "Nr. 1004" in falsch.error


def test_saetze_mit_komma_und_nachkommastelle(call, anwalt):
    data = kosten(call, anwalt, gegenstandswert=5000, rvg_positionen=[{"vv": "3100"}, {"vv": "1003"}])
    einigung = data["rvg"]["positionen"][1]
    assert einigung["satz"] == "1,0"
    assert "Nr. 1003: 1,0 Einigungsgebühr" in data["rvg"]["aufstellung"]


def test_inkasso_unbestritten(call, anwalt):
    data = kosten(
        call,
        anwalt,
        gegenstandswert=40,
        rvg_positionen=[{"vv": "2300", "inkasso_unbestritten": True}],
        auslagenpauschale=False,
        umsatzsteuer=False,
    )
    # 0,9 × 31,50 € = 28,35 € (§ 13 Abs. 2 RVG, Anm. Abs. 2 zu Nr. 2300 VV RVG).
    assert data["rvg"]["positionen"][0]["betrag_eur"] == "28.35"
    zu_hoch = call(
        anwalt,
        "get_kosten_rules",
        {"gegenstandswert": 1000, "rvg_positionen": [{"vv": "2300", "satz": 1.3, "inkasso_unbestritten": True}]},
    )
    assert not zu_hoch.ok and "mehr als 0,9" in zu_hoch.error


def test_strafsache_mittelgebuehr_und_pflichtverteidiger(call, anwalt):
    nummern = ["4100", "4104", "4106", "4108"]
    wahl = kosten(call, anwalt, rahmen_positionen=[{"vv": vv} for vv in nummern])["rahmengebuehren"]
    # Mittelgebühren 240 + 198 + 198 + 330 = 966,00 €; the Ermittlungs- and the gerichtliche Verfahren are two
    # Angelegenheiten (§ 17 Nr. 10a RVG): + 2 × 20,00 € Nr. 7002; + 19 % USt. (One Pauschale gave 1.173,34 €.)
    assert [p["betrag_eur"] for p in wahl["positionen"]] == ["240.00", "198.00", "198.00", "330.00"]
    assert wahl["gesamt_eur"] == "1197.14"
    assert [a["betrag_eur"] for a in wahl["auslagen"]] == ["20.00", "20.00"]
    assert any("§ 14 Abs. 1 RVG" in h for h in wahl["hinweise"])
    pflicht = kosten(call, anwalt, rahmen_positionen=[{"vv": vv, "pflichtverteidiger": True} for vv in nummern])
    assert pflicht["rahmengebuehren"]["gesamt_eur"] == "966.28"  # (192 + 158 + 158 + 264 + 2 × 20) × 1,19


def test_rahmen_ausserhalb_und_sozialrecht_schwelle(call, anwalt):
    zu_hoch = call(anwalt, "get_kosten_rules", {"datum": "2025-07-01", "rahmen_positionen": [{"vv": "4106", "betrag": "400"}]})
    assert not zu_hoch.ok and "außerhalb des Rahmens" in zu_hoch.error
    sozial = kosten(call, anwalt, rahmen_positionen=[{"vv": "2302"}], auslagenpauschale=False, umsatzsteuer=False)
    assert sozial["rahmengebuehren"]["positionen"][0]["betrag_eur"] == "391.00"  # Schwellengebühr, not 451,00
    alt = call(anwalt, "get_kosten_rules", {"datum": "2025-05-01", "rahmen_positionen": [{"vv": "4100"}]})
    assert not alt.ok and "ab dem 01.06.2025" in alt.error


def test_auslagen_7000_bis_7006(call, anwalt):
    data = kosten(
        call,
        anwalt,
        gegenstandswert=5000,
        rvg_positionen=[{"vv": "3100"}],
        auslagenpauschale=False,
        umsatzsteuer=False,
        auslagen={
            "seiten_sw": 60,
            "dateien": 5,
            "km": "100",
            "abwesenheit_stunden": ["5"],
            "fahrtkosten": "45,80",
            "reiseauslagen": "12,00",
        },
    )
    auslagen = {(p["nr"], p["betrag_eur"]) for p in data["rvg"]["auslagen"]}
    # 50 × 0,50 + 10 × 0,15 = 26,50 €; 5 Dateien höchstens 5,00 €; 100 km × 0,42 €; 5 Stunden 50,00 €.
    assert auslagen == {
        ("7000", "26.50"),
        ("7000", "5.00"),
        ("7003", "42.00"),
        ("7005", "50.00"),
        ("7004", "45.80"),
        ("7006", "12.00"),
    }


def test_zwangsvollstreckung_mindestgebuehr(call, anwalt):
    data = kosten(call, anwalt, gegenstandswert=300, rvg_positionen=[{"vv": "3309"}], auslagenpauschale=False, umsatzsteuer=False)
    assert data["rvg"]["positionen"][0]["betrag_eur"] == "15.45"  # 0,3 × 51,50 €
    klein = kosten(call, anwalt, gegenstandswert=300, rvg_positionen=[{"vv": "3310"}], datum="2021-06-01")
    assert klein["rvg"]["positionen"][0]["betrag_eur"] == "15.00"  # 0,3 × 49,00 € = 14,70 € → Mindestgebühr


def test_calc_verzugszinsen(call, anwalt):
    result = call(anwalt, "calc_verzugszinsen", {"hauptforderung": "10.000", "von": "2024-01-01", "bis": "2024-12-31"})
    assert result.ok, result.error
    assert result.data["zinsen_eur"] == "849.43" and len(result.data["perioden"]) == 2
    zukunft = call(anwalt, "calc_verzugszinsen", {"hauptforderung": 100, "von": "2026-06-01", "bis": "2026-08-01"})
    assert not zukunft.ok and "noch nicht hinterlegt" in zukunft.error


def test_calc_verzugszinsen_mit_in_der_verwaltung_erfasstem_basiszinssatz(call, anwalt, client):
    args = {"hauptforderung": "10.000", "von": "2026-06-01", "bis": "2026-07-31"}
    vorher = call(anwalt, "calc_verzugszinsen", args)
    assert not vorher.ok and "Verwaltung → Rechner → Basiszinssätze" in vorher.error

    client.force_login(UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True))
    assert client.post("/admin/rechner/basiszinssatz/add/", {"gueltig_ab": "01.07.2026", "satz": "1,52"}).status_code == 302

    result = call(anwalt, "calc_verzugszinsen", args)
    assert result.ok, result.error
    assert [(p["von"], p["basiszins_prozent"], p["zinssatz_prozent"]) for p in result.data["perioden"]] == [
        ("2026-06-01", "1.27", "6.27"),
        ("2026-07-01", "1.52", "6.52"),
    ]
    # 10.000 € × (6,27 % × 30 + 6,52 % × 31) / 365 = 51,53 € + 55,38 €
    assert result.data["zinsen_eur"] == "106.91"


def test_calc_prozesskostenrisiko_aus_der_akte(call, anwalt):
    from tests.factories import AkteFactory

    akte = AkteFactory(anwalt=anwalt, gegenstandswert=10000)
    result = call(anwalt, "calc_prozesskostenrisiko", {"instanzen": 2, "datum": "2025-07-01"}, akte=akte)
    assert result.ok, result.error
    assert result.data["gesamt_bei_unterliegen_eur"] == "10300.52"
    assert [z["instanz"] for z in result.data["tabelle"]] == ["Erster Rechtszug", "Berufung"]
    fremd = AkteFactory(gegenstandswert=10000)
    assert not call(anwalt, "calc_prozesskostenrisiko", {"akte": fremd.aktenzeichen}).ok


def test_famgkg_scheidung_kindschaft_unterhalt(call, anwalt):
    scheidung = kosten(
        call, anwalt, familie={"art": "scheidung", "netto_monat": "4.000", "anrechte": 2, "kindschaftsfolgesachen": 1}
    )["famgkg"]
    # 12.000 € Ehesache + 2.400 € Versorgungsausgleich + 2.400 € Kindschaft = 16.800 €; 2,0 × 374,50 € = 749,00 €.
    assert scheidung["verfahrenswert_eur"] == "16800.00" and scheidung["gerichtsgebuehr_eur"] == "749.00"
    assert any("§ 50 Abs. 1 FamGKG" in z for z in scheidung["wertbegruendung"])
    assert kosten(call, anwalt, familie={"art": "kindschaft"})["famgkg"]["gerichtsgebuehr_eur"] == "85.25"
    unterhalt = kosten(call, anwalt, familie={"art": "unterhalt", "unterhalt_monat": 500, "rueckstand": "1.000"})["famgkg"]
    assert (unterhalt["verfahrenswert_eur"], unterhalt["gerichtsgebuehr_eur"]) == ("7000.00", "646.50")
    klein = kosten(call, anwalt, familie={"art": "scheidung", "netto_monat": 500})["famgkg"]
    assert klein["verfahrenswert_eur"] == "3000.00"  # Mindestwert § 43 Abs. 1 Satz 2 FamGKG


def test_rahmengebuehren_mit_mehreren_auftraggebern_wie_der_rechner(call, anwalt):
    """Nr. 1008 VV RVG for several clients (a Bedarfsgemeinschaft before the Sozialgericht): the tool
    computed with one client while the calculator page raised the fee."""
    import datetime
    from decimal import Decimal

    from rechner import rahmen

    einer = kosten(call, anwalt, rahmen_positionen=[{"vv": "3102"}], umsatzsteuer=False)["rahmengebuehren"]
    drei = kosten(call, anwalt, rahmen_positionen=[{"vv": "3102"}], umsatzsteuer=False, auftraggeber=3)["rahmengebuehren"]
    seite, _ = rahmen.berechne(
        auftragsdatum=datetime.date(2025, 7, 1),
        positions=[rahmen.RahmenRequest(vv="3102")],
        ust_rate=Decimal("0"),
        auftraggeber=3,
    )
    assert Decimal(drei["gesamt_eur"]) == seite.gross > Decimal(einer["gesamt_eur"])


def test_ausgelassene_eingaben_stehen_als_annahmen_im_ergebnis(call, anwalt):
    """Date and number of clients change the fee; left out, the result says what was assumed."""
    ohne = call(anwalt, "get_kosten_rules", {"gegenstandswert": 10000, "rvg_positionen": [{"vv": "3100"}]})
    assert ohne.ok, ohne.error
    annahmen = " ".join(ohne.data["annahmen"])
    assert "Kein Datum angegeben" in annahmen and "01.06.2025" in annahmen
    assert "einem Auftraggeber" in annahmen and "Nr. 1008" in annahmen
    mit = kosten(call, anwalt, gegenstandswert=10000, rvg_positionen=[{"vv": "3100"}], auftraggeber=1)
    assert "annahmen" not in mit
    # a court fee alone has no Nr. 1008 question
    gkg_only = kosten(call, anwalt, gegenstandswert=10000, gkg_nummern=["1210"])
    assert "annahmen" not in gkg_only


def test_famgkg_ohne_betrag_fragt_nach(call, anwalt):
    unterhalt = call(anwalt, "get_kosten_rules", {"familie": {"art": "unterhalt"}})
    assert not unterhalt.ok and "monatlich geforderte Betrag fehlt" in unterhalt.error
    scheidung = call(anwalt, "get_kosten_rules", {"familie": {"art": "scheidung"}})
    assert not scheidung.ok and "Nettoeinkommen" in scheidung.error


def test_verzugszinsen_ohne_art_nennt_die_annahme(call, anwalt):
    args = {"hauptforderung": 1000, "von": "2025-01-01", "bis": "2025-12-31"}
    ohne = call(anwalt, "calc_verzugszinsen", args)
    assert ohne.ok, ohne.error
    assert "§ 288 Abs. 2" in " ".join(ohne.data["annahmen"])
    mit = call(anwalt, "calc_verzugszinsen", {**args, "art": "verbraucher"})
    assert mit.ok and "annahmen" not in mit.data


def test_prozesskostenrisiko_nennt_seine_annahmen(call, anwalt):
    ohne = call(anwalt, "calc_prozesskostenrisiko", {"streitwert": 10000})
    assert ohne.ok, ohne.error
    annahmen = " ".join(ohne.data["annahmen"])
    assert "Kein Datum angegeben" in annahmen and "einer Partei je Seite" in annahmen
    mit = call(anwalt, "calc_prozesskostenrisiko", {"streitwert": 10000, "datum": "2025-07-01"})
    assert not any("Kein Datum" in a for a in mit.data["annahmen"])


@pytest.mark.parametrize(
    "nummern",
    [["1210", "1211"], ["1220", "1222"], ["1410", "1412"], ["1411", "1412"], ["8220", "8222"], ["1210", "1210"]],
)
def test_einander_ersetzende_gkg_nummern_werden_nicht_summiert(call, anwalt, nummern):
    """Nr. 1211 replaces Nr. 1210 (reduced to 1.0): summed, 4.0 instead of 1.0 court fees were shown."""
    result = call(anwalt, "get_kosten_rules", {"datum": "2025-07-01", "gegenstandswert": 5000, "gkg_nummern": nummern})
    assert not result.ok
    assert "nicht nebeneinander" in result.error or "mehrfach" in result.error


def test_verschiedene_instanzen_werden_summiert(call, anwalt):
    data = kosten(call, anwalt, gegenstandswert=5000, gkg_nummern=["1210", "1222"])
    assert [p["nr"] for p in data["gkg"]["positionen"]] == ["1210", "1222"]
    assert data["gkg"]["gesamt_eur"] == "852.50"  # 3.0 × 170.50 + 2.0 × 170.50


def test_zahlungsvereinbarung_ueber_das_werkzeug(call, anwalt):
    data = kosten(
        call, anwalt, gegenstandswert=10000, rvg_positionen=[{"vv": "2300"}, {"vv": "1000", "zahlungsvereinbarung": True}]
    )
    einigung = next(p for p in data["rvg"]["positionen"] if p["nr"] == "1000")
    assert einigung["betrag_eur"] == "248.15"
    assert any("§ 31b RVG" in hinweis for hinweis in data["rvg"]["hinweise"])


def test_mehrvergleich_mit_teilwerten_ueber_das_werkzeug(call, anwalt):
    data = kosten(
        call,
        anwalt,
        gegenstandswert=15000,
        rvg_positionen=[{"vv": "3100", "wert": "10.000"}, {"vv": "3101", "wert": 5000}, {"vv": "3104"}],
        umsatzsteuer=False,
    )
    assert [p["nr"] for p in data["rvg"]["positionen"]] == ["3100", "3101", "3104", "§ 15 Abs. 3"]
    assert data["rvg"]["positionen"][-1]["betrag_eur"] == "-140.60"
    ohne_werte = call(anwalt, "get_kosten_rules", {"gegenstandswert": 15000, "rvg_positionen": [{"vv": "3100"}, {"vv": "3101"}]})
    assert not ohne_werte.ok and "Wert ihres Teils" in ohne_werte.error


def test_prozesskostenrisiko_einer_arbeitsrechtsakte_rechnet_nach_paragraf_12a_arbgg(call, anwalt):
    """Without `gericht` it computed a civil case (the loser pays the other lawyer) also for an
    Arbeitsrecht Akte, where each party keeps its own lawyer in the first instance, and said nothing."""
    from tests.factories import AkteFactory

    akte = AkteFactory(anwalt=anwalt, gegenstandswert=10000, sachgebiet="ARBEITSRECHT")
    arbeit = call(anwalt, "calc_prozesskostenrisiko", {"datum": "2025-07-01"}, akte=akte)
    assert arbeit.ok, arbeit.error
    assert arbeit.data["tabelle"][0]["gegenanwalt_eur"] == "0.00"
    assert any("Arbeitsrecht" in a for a in arbeit.data["annahmen"])
    zivil = call(anwalt, "calc_prozesskostenrisiko", {"streitwert": 10000, "datum": "2025-07-01"})
    assert any("§ 12a ArbGG" in a and "gericht='arbeit'" in a for a in zivil.data["annahmen"])
    gesagt = call(anwalt, "calc_prozesskostenrisiko", {"gericht": "zivil", "datum": "2025-07-01"}, akte=akte)
    assert gesagt.data["tabelle"][0]["gegenanwalt_eur"] != "0.00"
    assert not any("Gerechnet" in a and "Arbeitsgericht" in a for a in gesagt.data["annahmen"])


def test_rahmen_und_familiensachen_nennen_ein_fehlendes_datum(call, anwalt):
    """Without 'datum' the Rahmen amounts and FamGKG values of today were used silently (an older
    mandate or proceeding has the old amounts: Kindschaft 4.000 € instead of 5.000 € before 1.6.2025)."""
    rahmen = call(anwalt, "get_kosten_rules", {"rahmen_positionen": [{"vv": "4100"}]})
    assert rahmen.ok, rahmen.error
    assert any("Kein Datum angegeben" in a for a in rahmen.data["annahmen"])
    assert any("Auftraggeber" in a or "1008" in a for a in rahmen.data["annahmen"])
    familie = call(anwalt, "get_kosten_rules", {"familie": {"art": "kindschaft"}})
    assert familie.ok, familie.error
    assert any("Kein Datum angegeben" in a for a in familie.data["annahmen"])
    mit_datum = call(anwalt, "get_kosten_rules", {"familie": {"art": "kindschaft"}, "datum": "2025-07-01"})
    assert "annahmen" not in mit_datum.data


def test_sozialrecht_widerspruch_und_klage_sind_zwei_angelegenheiten_mit_anrechnung(call, anwalt):
    """2302 + 3102 + 3106 (391 Schwellengebühr + 392 + 365 = 1.148,00 €)
    were billed as one Angelegenheit: one Pauschale and no Anrechnung (1.168,00 € net). By law:
    two Pauschalen (§ 17 Nr. 1a RVG) and half of the 2302 credited (Vorbem. 3 Abs. 4 VV RVG, max 225 €)."""
    data = kosten(call, anwalt, rahmen_positionen=[{"vv": vv} for vv in ("2302", "3102", "3106")], umsatzsteuer=False)[
        "rahmengebuehren"
    ]
    assert [a["betrag_eur"] for a in data["anrechnungen"]] == ["-195.50"]
    assert [a["betrag_eur"] for a in data["auslagen"]] == ["20.00", "20.00"]
    assert data["netto_eur"] == "992.50"
    assert any("§ 17 Nr. 1a" in h for h in data["hinweise"])


def test_scheidung_ohne_anrechte_sagt_dass_der_versorgungsausgleich_fehlt(call, anwalt):
    ohne = call(anwalt, "get_kosten_rules", {"familie": {"art": "scheidung", "netto_monat": 4000}, "datum": "2025-07-01"})
    assert ohne.ok, ohne.error
    assert any("Versorgungsausgleich" in a for a in ohne.data["annahmen"])
    mit = call(
        anwalt, "get_kosten_rules", {"familie": {"art": "scheidung", "netto_monat": 4000, "anrechte": 4}, "datum": "2025-07-01"}
    )
    assert "annahmen" not in mit.data


def test_eigenes_datum_fuer_die_berufung(call, anwalt):
    # § 60 Abs. 1 Satz 2 RVG: 1.6 × 354.50 (KostBRÄG 2025) next to 1.3 × 334.00 (KostRÄG 2021)
    result = call(
        anwalt,
        "get_kosten_rules",
        {
            "gegenstandswert": "5000",
            "datum": "2025-03-01",
            "datum_rechtsmittel": "2025-08-01",
            "rvg_positionen": [{"vv": "3100"}, {"vv": "3200"}],
        },
    )
    assert result.ok, result.error
    positionen = {p["nr"]: p["betrag_eur"] for p in result.data["rvg"]["positionen"]}
    assert positionen == {"3100": "434.20", "3200": "567.20"}
    assert result.data["rvg"]["auftragsdaten_je_angelegenheit"] == [
        {
            "angelegenheit": "Berufungsverfahren",
            "datum": "2025-08-01",
            "fassung": "RVG i. d. F. des KostBRÄG 2025 (Aufträge ab 01.06.2025)",
        }
    ]


def test_gerichtsgebuehren_nach_dem_tag_der_anhaengigkeit_nicht_des_auftrags(call, anwalt):
    """§ 60 RVG follows the mandate, § 71 Abs. 1 GKG the day the case became pending. One `datum`
    served both: a mandate of 20.05.2025 and a Klage of 10.06.2025 got the court fee of the old table
    (483,00 € instead of 511,50 €) without a word."""
    args = {"gegenstandswert": 5000, "rvg_positionen": [{"vv": "3100"}], "gkg_nummern": ["1210"], "datum": "2025-05-20"}
    beides = call(anwalt, "get_kosten_rules", {**args, "datum_anhaengig": "2025-06-10"})
    assert beides.ok, beides.error
    assert beides.data["gkg"]["positionen"][0]["betrag_eur"] == "511.50" and beides.data["gkg"]["anhaengig"] == "2025-06-10"
    assert "KostRÄG 2021" in beides.data["rvg"]["fassung"]  # the lawyer's fee keeps the mandate's law
    assert not any("§ 71 Abs. 1 GKG" in a for a in beides.data.get("annahmen", []))

    nur_auftrag = call(anwalt, "get_kosten_rules", args)
    assert nur_auftrag.ok, nur_auftrag.error
    assert nur_auftrag.data["gkg"]["positionen"][0]["betrag_eur"] == "483.00"
    assert any("§ 71 Abs. 1 GKG" in a and "datum_anhaengig" in a for a in nur_auftrag.data["annahmen"])
