"""Read tools through the registry and the real database: what they return (semantic names next to
ids, source attribution, cut texts) and their actionable German errors."""

import datetime
from decimal import Decimal

import pytest
from django.utils import timezone

from akten.models import Beteiligter, Role
from recherche.services import dokument_index
from tests.factories import (
    AgentRunFactory,
    AkteFactory,
    AktenActivityFactory,
    BeteiligterFactory,
    DokumentFactory,
    KalenderEintragFactory,
    KontaktFactory,
    NotizFactory,
    UserFactory,
    ZeiterfassungFactory,
)

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate


@pytest.fixture
def anwalt():
    return UserFactory(role=Role.ANWALT, first_name="Anna", last_name="Recht")


@pytest.fixture
def akte(anwalt):
    akte = AkteFactory(aktenzeichen="12/25", kurzrubrum="Müller ./. Schmidt", anwalt=anwalt, zusammenfassung="Räumungsklage.")
    BeteiligterFactory(akte=akte, rolle=Beteiligter.Rolle.MANDANT, kontakt=KontaktFactory(vorname="Max", nachname="Müller"))
    BeteiligterFactory(akte=akte, rolle=Beteiligter.Rolle.GEGNER, kontakt=KontaktFactory(vorname="Sabine", nachname="Schmidt"))
    return akte


def test_read_akte_overview_names_things(call, anwalt, akte):
    KalenderEintragFactory(akte=akte, titel="Berufungsfrist", fristablauf=TODAY() + datetime.timedelta(days=5))
    KalenderEintragFactory(akte=akte, titel="Erledigt", erledigt=True, erledigt_at=timezone.now())
    DokumentFactory(akte=akte)
    result = call(anwalt, "read_akte", {"akte": "12/25"})
    assert result.ok and not result.untrusted
    data = result.data
    assert (data["akte_id"], data["aktenzeichen"], data["kurzrubrum"]) == (akte.pk, "12/25", "Müller ./. Schmidt")
    assert data["sachgebiet"] == "Mietrecht" and data["status"] == "offen" and data["gegenstandswert_eur"] == "5400.00"
    assert data["anwalt"] == "Anna Recht"
    assert {"rolle": "Mandant/in", "name": "Max Müller"} in data["beteiligte"]
    assert data["offene_kalendereintraege"] == 1 and data["naechster_eintrag"]["titel"] == "Berufungsfrist"
    assert data["dokumente"] == 1
    assert result.source == [{"table": "akten_akte", "id": akte.pk, "label": "Akte 12/25 Müller ./. Schmidt"}]


def test_read_akte_counts_all_open_entries_and_names_the_earliest(call, anwalt, akte):
    for days, titel in ((30, "Klageerwiderung"), (3, "Stellungnahme"), (12, "Termin")):
        KalenderEintragFactory(akte=akte, titel=titel, fristablauf=TODAY() + datetime.timedelta(days=days))
    KalenderEintragFactory(akte=akte, titel="Erledigt", erledigt=True, erledigt_at=timezone.now())
    data = call(anwalt, "read_akte", {"akte": "12/25"}).data
    assert data["offene_kalendereintraege"] == 3 and data["naechster_eintrag"]["titel"] == "Stellungnahme"
    assert call(anwalt, "read_akte", {"akte": str(AkteFactory(anwalt=anwalt).pk)}).data["offene_kalendereintraege"] == 0


def test_read_akte_uses_the_runs_akte_and_asks_for_one_without(call, anwalt, akte):
    assert call(anwalt, "read_akte", {}, akte=akte).data["aktenzeichen"] == "12/25"
    error = call(anwalt, "read_akte", {}).error
    assert error.startswith("Keine Akte angegeben") and "search_alle_akten" in error


def test_read_akte_detail_has_contacts_notes_and_cut_summary(call, anwalt, akte):
    akte.zusammenfassung = "S" * 7000
    akte.notizen = "Mandant bevorzugt E-Mail."
    akte.save()
    NotizFactory(akte=akte, titel="Telefonat", text="Rückruf am Montag")
    data = call(anwalt, "read_akte_detail", {"akte": str(akte.pk)}).data
    assert any(b["name"] == "Sabine Schmidt" and b["rolle"] == "Gegner/in" for b in data["beteiligte"])
    assert data["zusammenfassung"].startswith("S" * 6000) and "[… gekürzt: 1000 weitere Zeichen." in data["zusammenfassung"]
    assert data["interne_notizen"] == "Mandant bevorzugt E-Mail."
    assert data["notizen"][0]["titel"] == "Telefonat"


def test_read_dokumente_lists_metadata_without_text(call, anwalt, akte):
    DokumentFactory(akte=akte, name="Klageschrift", text="Geheimer Inhalt")
    DokumentFactory(akte=akte, name="Kündigung vom 1.3.")
    result = call(anwalt, "read_dokumente", {"akte": "12/25", "titel_enthaelt": "kündigung"})
    assert [d["titel"] for d in result.data["dokumente"]] == ["Kündigung vom 1.3."]
    assert result.data["anzahl"] == 1 and "Geheimer" not in str(result.data)
    assert result.source[0]["label"] == "Kündigung vom 1.3."


def test_read_dokument_detail_cuts_long_text_with_marker_and_reads_on(call, anwalt, akte):
    text = "".join(f"Absatz {i}. " for i in range(1500))
    dokument = DokumentFactory(akte=akte, name="Schriftsatz", text=text)
    first = call(anwalt, "read_dokument_detail", {"dokument_id": dokument.pk})
    assert first.untrusted and first.data["gekuerzt"] and first.data["text_laenge"] == len(text)
    assert "offset=6000" in first.data["text"]
    rest = call(anwalt, "read_dokument_detail", {"dokument_id": dokument.pk, "offset": 6000})
    assert (
        rest.data["text"]
        == text[6000:12000]
        + f"\n[… gekürzt: {len(text) - 12000} weitere Zeichen. Rufe das Werkzeug mit offset=12000 auf, um weiterzulesen.]"
    )
    assert "hinter dem Ende" in call(anwalt, "read_dokument_detail", {"dokument_id": dokument.pk, "offset": 10**6}).error


def test_read_dokument_detail_without_extracted_text_says_why(call, anwalt, akte):
    pending = DokumentFactory(akte=akte, text="", text_status="AUSSTEHEND")
    failed = DokumentFactory(akte=akte, text="", text_status="FEHLER", text_fehler="PDF verschlüsselt")
    assert "läuft noch" in call(anwalt, "read_dokument_detail", {"dokument_id": pending.pk}).data["hinweis"]
    assert "PDF verschlüsselt" in call(anwalt, "read_dokument_detail", {"dokument_id": failed.pk}).data["hinweis"]
    assert call(anwalt, "read_dokument_detail", {"dokument_id": 10**9}).error.startswith("Dokument 1000000000 nicht gefunden")


def test_read_fristen_active_past_all_and_types(call, anwalt, akte):
    today = TODAY()
    offen = KalenderEintragFactory(akte=akte, titel="Klageerwiderung", fristablauf=today + datetime.timedelta(days=3))
    ueberfaellig = KalenderEintragFactory(
        akte=akte,
        titel="Stellungnahme",
        datum=today - datetime.timedelta(days=20),
        fristablauf=today - datetime.timedelta(days=2),
    )
    erledigt = KalenderEintragFactory(akte=akte, titel="Alt", erledigt=True, erledigt_at=timezone.now())
    termin = KalenderEintragFactory(
        akte=akte, typ="TERMIN", titel="Verhandlung", datum=today + datetime.timedelta(days=9), fristablauf=None
    )
    aktiv = call(anwalt, "read_fristen", {"akte": "12/25"}).data
    assert [e["id"] for e in aktiv["eintraege"]] == [ueberfaellig.pk, offen.pk, termin.pk]
    assert aktiv["eintraege"][0]["ueberfaellig"] and aktiv["eintraege"][1]["tage_bis_stichtag"] == 3
    vergangen = call(anwalt, "read_fristen", {"akte": "12/25", "zeitraum": "vergangen"}).data
    assert {e["id"] for e in vergangen["eintraege"]} == {ueberfaellig.pk, erledigt.pk} | (
        {erledigt.pk} if erledigt.fristablauf < today else set()
    )
    termine = call(anwalt, "read_fristen", {"akte": "12/25", "zeitraum": "alle", "typ": "TERMIN"}).data
    assert [e["titel"] for e in termine["eintraege"]] == ["Verhandlung"] and termine["eintraege"][0]["akte"][
        "aktenzeichen"
    ] == "12/25"


def test_read_zeiterfassung_sums_and_values(call, anwalt, akte):
    ZeiterfassungFactory(akte=akte, minuten=90, stundensatz=Decimal("200.00"), beschreibung="Schriftsatz")
    ZeiterfassungFactory(akte=akte, minuten=30, abrechenbar=False, beschreibung="Kopien")
    ZeiterfassungFactory(akte=akte, minuten=10, datum=TODAY() - datetime.timedelta(days=40), beschreibung="Alt")
    data = call(anwalt, "read_zeiterfassung", {"akte": "12/25"}).data
    assert data["summe_minuten"] == 130 and data["summe_stunden"] == "2.17"
    assert data["abrechenbare_minuten"] == 100 and data["wert_abrechenbar_eur"] == "300.00"
    recent = call(anwalt, "read_zeiterfassung", {"akte": "12/25", "von": (TODAY() - datetime.timedelta(days=7)).isoformat()}).data
    assert recent["anzahl"] == 2
    assert "'von' liegt nach 'bis'" in call(anwalt, "read_zeiterfassung", {"von": "2025-02-01", "bis": "2025-01-01"}).error


def test_read_akte_verlauf_says_who_did_what(call, anwalt, akte):
    run = AgentRunFactory(user=anwalt)
    AktenActivityFactory(akte=akte, beschreibung="Status geändert")
    AktenActivityFactory(akte=akte, beschreibung="Entwurf erstellt", actor_user=None, actor_run=run)
    data = call(anwalt, "read_akte_verlauf", {"akte": "12/25"}).data
    assert [e["beschreibung"] for e in data["ereignisse"]] == ["Entwurf erstellt", "Status geändert"]
    assert data["ereignisse"][0]["durch"] == f"Helena (Lauf {run.pk})"
    assert "Anna Recht" in data["ereignisse"][1]["durch"]


def test_search_alle_akten_by_beteiligter_status_and_sachgebiet(call, anwalt, akte):
    AkteFactory(aktenzeichen="13/25", kurzrubrum="Weber ./. Bank", anwalt=anwalt, sachgebiet="INKASSO", status="RUHEND")
    assert [a["aktenzeichen"] for a in call(anwalt, "search_alle_akten", {"suche": "Schmidt"}).data["akten"]] == ["12/25"]
    ruhend = call(anwalt, "search_alle_akten", {"status": "RUHEND"}).data
    assert [a["aktenzeichen"] for a in ruhend["akten"]] == ["13/25"]
    assert call(anwalt, "search_alle_akten", {"sachgebiet": "INKASSO"}).data["anzahl"] == 1
    empty = call(anwalt, "search_alle_akten", {"suche": "Niemand"})
    assert empty.ok and empty.data["akten"] == [] and empty.source == [{"query": "Niemand"}]
    assert "muss einer dieser Werte sein" in call(anwalt, "search_alle_akten", {"status": "offen"}).error


def test_search_dokumente_finds_visible_documents_and_is_untrusted(call, anwalt, akte):
    dokument = DokumentFactory(akte=akte, name="Mängelanzeige", text="Seit März Schimmelbildung im Badezimmer.")
    dokument_index(dokument)
    result = call(anwalt, "search_dokumente", {"suche": "Schimmelbildung Badezimmer"})
    assert result.untrusted and result.data["treffer"][0]["dokument_id"] == dokument.pk
    assert result.data["treffer"][0]["akte"]["aktenzeichen"] == "12/25"
    assert "nur aus der Volltextsuche" in result.data["hinweis"]
    assert result.source[0]["label"] == "Mängelanzeige (Akte 12/25)"
    stranger = UserFactory(role=Role.ANWALT)
    assert call(stranger, "search_dokumente", {"suche": "Schimmelbildung Badezimmer"}).data["treffer"] == []


def test_search_gesetze_returns_citations(call, anwalt, knowledge):
    result = call(anwalt, "search_gesetze", {"suche": "§ 1a TestG"})
    first = result.data["normen"][0]
    assert first["zitat"] == "§ 1a TestG" and first["exakt"] and first["url"].endswith("/testg/__1a.html")
    assert result.source[0]["zitat"] == "§ 1a TestG" and not result.untrusted
    filtered = call(anwalt, "search_gesetze", {"suche": "Kündigungsfrist", "gesetz": "testg"})
    assert filtered.ok and all(n["zitat"].endswith("TestG") for n in filtered.data["normen"])
    error = call(anwalt, "search_gesetze", {"suche": "Frist", "gesetz": "XYZ"}).error
    assert error.startswith("Gesetz „XYZ“ ist nicht in der Datenbank.") and "TestG" in error
    assert first["stand"] == "Zuletzt geändert durch Art. 1 G v. 1.2.2021 I 99"


def test_search_gesetze_answers_citations_outside_the_corpus_honestly(call, anwalt, knowledge):
    unknown = call(anwalt, "search_gesetze", {"suche": "Art. 15 DSGVO"}).data
    assert unknown["normen"] == []  # never five unrelated norms instead
    assert unknown["nicht_im_bestand"] == [{"zitat": "Art. 15 DSGVO", "grund": "Gesetz „DSGVO“ ist nicht im Bestand."}]
    assert unknown["hinweis"].startswith("„DSGVO“ ist nicht im Bestand. Geladen sind: ") and "TestG" in unknown["hinweis"]
    missing = call(anwalt, "search_gesetze", {"suche": "§ 99 TestG"}).data
    assert missing["normen"] == [] and missing["nicht_im_bestand"][0]["grund"] == "§ 99 TestG gibt es im Bestand nicht."
    repealed = call(anwalt, "search_gesetze", {"suche": "§ 5 TestG"}).data
    assert repealed["normen"] == [] and "weggefallen" in repealed["nicht_im_bestand"][0]["grund"]


def test_search_gesetze_says_when_nothing_relevant_is_found(call, anwalt, knowledge):
    result = call(anwalt, "search_gesetze", {"suche": "Quantenchromodynamik Gluonen"}).data
    assert result["normen"] == [] and "Keine passende Norm gefunden" in result["hinweis"]


def test_read_norm_by_citation(call, anwalt, knowledge):
    result = call(anwalt, "read_norm", {"zitat": "§ 1 TestG"})
    assert result.data["zitat"] == "§ 1 TestG" and "Zugang der Kündigung" in result.data["text"]
    assert result.data["ueberschrift"] == "Beginn der Kündigungsfrist" and not result.data["gekuerzt"]
    assert result.source[0]["zitat"] == "§ 1 TestG"
    assert result.data["stand"] == result.source[0]["stand"] == "Zuletzt geändert durch Art. 1 G v. 1.2.2021 I 99"
    absatz = call(anwalt, "read_norm", {"zitat": "§ 1 II TestG"}).data  # roman Absatz
    assert absatz["anker"] == "abs-2" and absatz["reader_url"].endswith("#abs-2")
    assert call(anwalt, "read_norm", {"zitat": "§ 1 Abs. 7 TestG"}).error.startswith("§ 1 TestG hat keinen Absatz 7.")
    assert call(anwalt, "read_norm", {"zitat": "1a TestG"}).data["zitat"] == "§ 1a TestG"
    assert "Nur die erste" in call(anwalt, "read_norm", {"zitat": "§§ 1, 6 TestG"}).data["hinweis"]
    assert call(anwalt, "read_norm", {"zitat": "§ 999 TestG"}).error.startswith("§ 999 TestG gibt es im Bestand nicht.")
    assert call(anwalt, "read_norm", {"zitat": "§ 5 TestG"}).error.startswith("§ 5 TestG ist weggefallen")
    assert call(anwalt, "read_norm", {"zitat": "Art. 6 DSGVO"}).error.startswith("Gesetz „DSGVO“ ist nicht im Bestand.")
    assert call(anwalt, "read_norm", {"zitat": "Mietrecht allgemein"}).error.startswith(
        "Das Zitat „Mietrecht allgemein“ wurde nicht erkannt."
    )


def test_search_urteile_cites_court_and_aktenzeichen_and_is_untrusted(call, anwalt, knowledge):
    result = call(anwalt, "search_urteile", {"suche": "Eigenbedarf Kündigung", "rechtsgebiet": "Mietrecht"})
    assert result.untrusted and result.data["urteile"]
    first = result.data["urteile"][0]
    assert first["zitat"].startswith(first["gericht"]) and first["aktenzeichen"] in first["zitat"]
    assert all(u["rechtsgebiet"] == "Mietrecht" for u in result.data["urteile"])
    assert result.source[0]["zitat"] == first["zitat"]
    assert (
        "'von' liegt nach 'bis'"
        in call(anwalt, "search_urteile", {"suche": "x y", "von": "2025-01-02", "bis": "2025-01-01"}).error
    )


def test_search_urteile_answers_a_question_about_no_legal_subject_with_nothing_found(call, anwalt, knowledge):
    """A decision about a deadline over the weekend shares "Wochenende" with a question about the
    weather; that is no reason to cite it."""
    result = call(anwalt, "search_urteile", {"suche": "Wie wird das Wetter am Wochenende?"}).data
    assert result["urteile"] == [] and result["hinweis"].endswith("Keine passende Entscheidung gefunden.")


def test_search_muster_with_full_text(call, anwalt, knowledge):
    result = call(anwalt, "search_muster", {"suche": "Mahnung offene Rechnung", "mit_text": True, "limit": 3})
    first = result.data["muster"][0]
    assert "Mahn" in first["name"] and first["platzhalter"] and first["text"]
    assert "text" not in result.data["muster"][1]
    assert result.source[0]["muster"] == first["name"]


def test_get_kosten_rules_rvg_and_gkg(call, anwalt, akte):
    result = call(
        anwalt,
        "get_kosten_rules",
        {
            "gegenstandswert": 5000,
            "datum": "2025-07-01",
            "rvg_positionen": [{"vv": "3100"}, {"vv": "3104"}],
            "gkg_nummern": ["1210"],
        },
    )
    rvg = result.data["rvg"]
    assert [p["nr"] for p in rvg["positionen"]] == ["3100", "3104"]
    assert rvg["positionen"][0]["betrag_eur"] == "460.85"  # 1.3 × 354.50 (RVG 2025)
    assert rvg["auslagen"][0]["nr"] == "7002" and rvg["gesamt_eur"] and "Gesamtbetrag" in rvg["aufstellung"]
    assert result.data["gkg"]["positionen"][0]["betrag_eur"] == "511.50"  # 3.0 × 170.50 (GKG 2025)
    from_akte = call(anwalt, "get_kosten_rules", {"akte": "12/25", "gkg_nummern": ["1210"], "datum": "2025-07-01"})
    assert from_akte.data["gegenstandswert_eur"] == "5400.00" and from_akte.data["akte"]["aktenzeichen"] == "12/25"


def test_get_kosten_rules_catalog_and_errors(call, anwalt):
    catalog = call(anwalt, "get_kosten_rules", {}).data
    assert {n["vv"] for n in catalog["rvg_nummern"]} >= {"2300", "3100"} and catalog["gkg_nummern"]
    assert (
        "Gebührensatz 3"
        in call(anwalt, "get_kosten_rules", {"gegenstandswert": 1000, "rvg_positionen": [{"vv": "2300", "satz": 3}]}).error
    )
    assert (
        "vor dem 01.01.2021"
        in call(anwalt, "get_kosten_rules", {"gegenstandswert": 1000, "datum": "2019-01-01", "gkg_nummern": ["1210"]}).error
    )
    assert call(anwalt, "get_kosten_rules", {"gkg_nummern": ["1210"]}).error.startswith("Kein Gegenstandswert angegeben.")
    akte = AkteFactory(anwalt=anwalt, gegenstandswert=None)
    result = call(anwalt, "get_kosten_rules", {"akte": akte.aktenzeichen, "gkg_nummern": ["1210"]})
    assert result.error == f"Die Akte {akte.aktenzeichen} hat keinen Gegenstandswert. Gib 'gegenstandswert' an."


def test_berechne_frist_preset_and_custom(call, anwalt):
    berufung = call(anwalt, "berechne_frist", {"ereignis_datum": "2025-03-14", "vorlage": "berufung", "bundesland": "NW"}).data
    assert berufung["fristablauf"] == "2025-04-14" and berufung["notfrist"] and "§ 517 ZPO" in berufung["rechtsgrundlage"]
    assert "§ 187 Abs. 1 BGB" in berufung["erlaeuterung"]
    # 2 weeks from Fri 2025-05-16 end on Fri 2025-05-30; 3 working days before, skipping Christi
    # Himmelfahrt (Thu 2025-05-29), is Mon 2025-05-26.
    custom = call(
        anwalt,
        "berechne_frist",
        {
            "ereignis_datum": "2025-05-16",
            "dauer": 2,
            "einheit": "wochen",
            "vorfrist_tage": 3,
            "vorfrist_arbeitstage": True,
            "bundesland": "NW",
        },
    )
    assert (custom.data["fristablauf"], custom.data["vorfrist"]) == ("2025-05-30", "2025-05-26")
    # Ends on Sunday 2025-06-01 → moved to Monday (§ 193 BGB).
    moved = call(
        anwalt, "berechne_frist", {"ereignis_datum": "2025-05-18", "dauer": 2, "einheit": "wochen", "bundesland": "NW"}
    ).data
    assert moved["fristablauf"] == "2025-06-02" and moved["verschoben"]
    assert (
        "Gib entweder 'vorlage' oder 'dauer' und 'einheit' an"
        in call(anwalt, "berechne_frist", {"ereignis_datum": "2025-03-14"}).error
    )
    both = call(
        anwalt, "berechne_frist", {"ereignis_datum": "2025-03-14", "vorlage": "berufung", "dauer": 1, "einheit": "monate"}
    )
    assert "nicht beides" in both.error
    assert (
        "muss einer dieser Werte sein"
        in call(anwalt, "berechne_frist", {"ereignis_datum": "2025-03-14", "vorlage": "berufung", "bundesland": "XX"}).error
    )


def test_search_web_against_a_configured_searxng_endpoint(call, anwalt, settings):
    from tests.support.scripted_server import ScriptedServer

    server = ScriptedServer().start()
    try:
        server.routes["/search"] = lambda body: (
            200,
            {
                "results": [
                    {"title": "AG Köln", "url": "https://example.org/ag", "content": "Öffnungszeiten " * 100},
                    {"title": "ohne url"},
                ]
            },
        )
        settings.HELENA_WEB_SEARCH_URL = f"{server.url}/search"
        result = call(anwalt, "search_web", {"suche": "Amtsgericht Köln Öffnungszeiten"})
        assert result.untrusted and [r["url"] for r in result.data["ergebnisse"]] == ["https://example.org/ag"]
        assert len(result.data["ergebnisse"][0]["auszug"]) == 400
        assert "q=Amtsgericht" in server.requests[0].path and "format=json" in server.requests[0].path
        # a name or Aktenzeichen from an Akte she may see never leaves the firm
        from tests.factories import AkteFactory, BeteiligterFactory, KontaktFactory

        akte = AkteFactory(anwalt=anwalt, aktenzeichen="731/26")
        BeteiligterFactory(akte=akte, kontakt=KontaktFactory(nachname="Wunderlichstein"), rolle="GEGNER")
        BeteiligterFactory(akte=akte, kontakt=KontaktFactory(nachname="Weißmüller"), rolle="MANDANT")
        gesendet = len(server.requests)
        for suche in (
            "Wunderlichstein Insolvenz",
            "Stand 731/26 Amtsgericht",
            # other spellings of a name and of the Aktenzeichen, and personal data of anyone
            "Weissmueller zahlungsunfähig",
            "WEISSMULLER Insolvenz",
            "Akte 731 / 26 Mandant zahlungsunfähig",
            "j.weissmueller@example.org Insolvenz",
            "zahlungsunfähig IBAN DE89370400440532013000",
            "Rückruf 0221 4711 0815",
        ):
            abgelehnt = call(anwalt, "search_web", {"suche": suche})
            assert not abgelehnt.ok and "nicht gesendet" in abgelehnt.error
        assert len(server.requests) == gesendet
        server.routes["/search"] = lambda body: (502, {"error": "down"})
        assert call(anwalt, "search_web", {"suche": "Amtsgericht Bonn"}).error.startswith(
            "Die Websuche ist gerade nicht erreichbar."
        )
    finally:
        server.stop()
