"""Work-product probe of 2026-12-05: a template is chosen only when the request names it (a „Replik auf
die Klageerwiderung“ is no Klageerwiderung: its Rubrum called the suing client „Beklagte“); a letter
says whom it goes to (a letter to the client went to the other side's lawyer, confidential text
and all); „Herrn“ in the Anrede field gives „Sehr geehrter Herr …“."""

from __future__ import annotations

import pytest

from agent.tools.base import ToolContext
from agent.tools.executor import toolbox_for
from akten.models import Beteiligter, Kontakt
from drafts.models import HelenaDraft
from schriftgut.platzhalter import _anrede
from schriftgut.services import kostennote_rendern, schriftstueck_rendern, vorlage_waehlen
from schriftgut.vorlagen import VorlagenFehler
from tests.agent.tools.conftest import run_call
from tests.factories import AgentRunFactory, BeteiligterFactory, KontaktFactory
from tests.schriftgut.helpers import akte_mit_parteien, docx_text, kanzlei, kostennote_fuer

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _tools_in_test_thread(settings):
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True


def _tool(akte, arguments):
    run = AgentRunFactory(user=akte.anwalt, akte=akte)
    return run_call(toolbox_for(ToolContext(user=akte.anwalt, akte=akte, run=run)), "create_draft_dokument", arguments, "c1")


@pytest.mark.parametrize(
    "anfrage",
    [
        "Replik auf die Klageerwiderung",
        "Stellungnahme zur Klageerwiderung",
        "Berufungserwiderung",
        "Klagerücknahme",
        "Widerklage",
        "Klageerweiterung",
        # second review
        "Erwiderung auf die Berufung",
        "Klage-Erwiderung",
    ],
)
def test_a_request_that_only_mentions_a_template_gets_none(anfrage):
    with pytest.raises(VorlagenFehler) as fehler:
        vorlage_waehlen(anfrage)
    assert "Vorhanden:" in fehler.value.message and "Schriftsatz" in fehler.value.message


@pytest.mark.parametrize(
    ("anfrage", "name"),
    [
        ("Klageerwiderung", "Klageerwiderung"),
        ("eine Klageerwiderung", "Klageerwiderung"),
        ("Kündigungsschutzklage für Herrn Schmidt", "Kündigungsschutzklage"),
        ("Klage", "Klage"),
        ("Mahnung an Herrn Schmidt", "Mahnschreiben"),
        ("  Brief  ", "Brief"),
        ("Entwurf einer Klageerwiderung", "Klageerwiderung"),
        ("bitte eine Klageerwiderung", "Klageerwiderung"),
        ("erste Mahnung", "Mahnschreiben"),
    ],
)
def test_a_request_that_names_a_template_gets_it(anfrage, name):
    assert vorlage_waehlen(anfrage).stand.name == name


def test_a_letter_asks_whom_it_goes_to_and_goes_there():
    kanzlei()
    akte = akte_mit_parteien()
    vertreter = KontaktFactory(anrede="Herrn", vorname="Max", nachname="Beispiel", strasse="Graben 1", plz="80331", ort="München")
    BeteiligterFactory(akte=akte, kontakt=vertreter, rolle=Beteiligter.Rolle.GEGNERVERTRETER)
    text = "Intern: Vergleich bis 3.000 € akzeptabel."

    offen = _tool(akte, {"titel": "Sachstand", "vorlage": "Brief", "inhalt_markdown": text})
    assert not offen.ok and "empfaenger" in offen.error and "MANDANT" in offen.error
    assert not HelenaDraft.objects.exists()

    an_mandantin = _tool(akte, {"titel": "Sachstand", "vorlage": "Brief", "empfaenger": "MANDANT", "inhalt_markdown": text})
    assert an_mandantin.ok, an_mandantin.error
    draft = HelenaDraft.objects.get(pk=an_mandantin.data["draft_id"])
    inhalt = docx_text(schriftstueck_rendern(akte=akte, titel=draft.titel, markdown=text, vorlage=draft.payload["vorlage"]).docx)
    assert "Erika Mustermann" in inhalt and "Musterweg 1" in inhalt and "Sehr geehrte Frau Mustermann," in inhalt
    assert "Beispiel" not in inhalt

    an_gegenseite = _tool(akte, {"titel": "Aufforderung", "vorlage": "Brief", "empfaenger": "GEGENSEITE", "inhalt_markdown": "x"})
    draft = HelenaDraft.objects.get(pk=an_gegenseite.data["draft_id"])
    inhalt = docx_text(
        schriftstueck_rendern(akte=akte, titel="Aufforderung", markdown="x", vorlage=draft.payload["vorlage"]).docx
    )
    # to the other side's lawyer (§ 12 BORA), greeted as „Herr“ though the field says „Herrn“
    assert "Max Beispiel" in inhalt and "Sehr geehrter Herr Beispiel," in inhalt

    # a Mahnschreiben goes to the other side without being told
    assert _tool(akte, {"titel": "Mahnung", "vorlage": "Mahnschreiben", "inhalt_markdown": "Bitte zahlen."}).ok


@pytest.mark.parametrize(
    ("anrede", "erwartet"),
    [
        ("Herrn", "Sehr geehrter Herr Beispiel,"),
        ("Herrn Dr.", "Sehr geehrter Herr Dr. Beispiel,"),
        ("Herr", "Sehr geehrter Herr Beispiel,"),
        ("Frau Dr.", "Sehr geehrte Frau Dr. Beispiel,"),
    ],
)
def test_the_salutation_says_herr_where_the_address_says_herrn(anrede, erwartet):
    assert _anrede(Kontakt(typ=Kontakt.Typ.NATUERLICH, anrede=anrede, vorname="Max", nachname="Beispiel")) == erwartet


def test_the_example_kostennote_of_the_template_preview_has_the_figures_of_the_rvg():
    import datetime
    from decimal import Decimal

    from rechner.rvg import gebuehr
    from rechner.tabellen import format_euro
    from schriftgut.platzhalter import beispiel_kontext

    rechnung = beispiel_kontext(None).werte["rechnung"]
    verfahren = gebuehr(Decimal("5000"), Decimal("1.3"), on=datetime.date(2026, 1, 31))
    pauschale = min(verfahren * Decimal("0.2"), Decimal("20")).quantize(Decimal("0.01"))
    netto = verfahren + pauschale
    ust = (netto * Decimal("0.19")).quantize(Decimal("0.01"))
    assert [p["betrag"] for p in rechnung["positionen"]] == [format_euro(verfahren), format_euro(pauschale)]
    assert [s["betrag"] for s in rechnung["summen"]] == [format_euro(netto), format_euro(ust)]
    assert rechnung["zahlbetrag"] == format_euro(netto + ust)


@pytest.mark.parametrize(
    ("ust_id", "steuernummer", "erwartet"),
    [
        ("DE123456789", "", "USt-IdNr.: DE123456789"),
        ("", "27/123/45678", "Steuernummer: 27/123/45678"),
        ("", "", "[fehlt: USt-IdNr. oder Steuernummer"),
    ],
)
def test_a_kostennote_names_the_ust_id_or_else_the_steuernummer(ust_id, steuernummer, erwartet):
    """§ 14 Abs. 4 Nr. 2 UStG: the Steuernummer or the USt-IdNr.; a firm with only a Steuernummer got
    „[fehlt: USt-IdNr.]“ on every Kostennote."""
    profil = kanzlei()
    profil.ust_id, profil.steuernummer = ust_id, steuernummer
    profil.save()
    payload = kostennote_fuer()
    text = docx_text(kostennote_rendern(akte=akte_mit_parteien(), payload=payload, nummer="2026-0001").docx)
    assert erwartet in text


def test_the_file_of_a_draft_says_it_is_a_draft(client):
    """A draft's Word or PDF looked exactly like the approved document: its name now says „Entwurf“."""
    kanzlei()
    akte = akte_mit_parteien()
    result = _tool(akte, {"titel": "Klageerwiderung", "vorlage": "Klageerwiderung", "inhalt_markdown": "Text."})
    client.force_login(akte.anwalt)
    for ausgabe in ("pdf", "docx"):
        antwort = client.get(f"/api/drafts/{result.data['draft_id']}/datei/{ausgabe}/")
        assert antwort.status_code == 200
        assert "Entwurf%20%E2%80%93%20Klageerwiderung" in antwort["Content-Disposition"]


def test_streitgenossen_are_numbered_and_named_with_und():
    kanzlei()
    akte = akte_mit_parteien()
    zweiter = KontaktFactory(anrede="Herr", vorname="Ömer", nachname="Groß", strasse="Weg 1", plz="13055", ort="Berlin")
    BeteiligterFactory(akte=akte, kontakt=zweiter, rolle=Beteiligter.Rolle.MANDANT)
    klage = docx_text(
        schriftstueck_rendern(akte=akte, titel="Klage", markdown="x", vorlage=vorlage_waehlen("Klage").als_payload()).docx
    )
    assert "– Klägerin zu 1 –" in klage and "– Kläger zu 2 –" in klage and "– Beklagter –" in klage
    mahnung = docx_text(
        schriftstueck_rendern(
            akte=akte, titel="Mahnung", markdown="x", vorlage=vorlage_waehlen("Mahnschreiben").als_payload()
        ).docx
    )
    assert "Interessen von Erika Mustermann und Ömer Groß vertreten" in mahnung


def test_a_pleading_goes_to_the_courts_postal_address_where_the_akte_has_it():
    kanzlei()
    akte = akte_mit_parteien()
    vorlage = vorlage_waehlen("Klageerwiderung").als_payload()
    ohne = docx_text(schriftstueck_rendern(akte=akte, titel="Klageerwiderung", markdown="x", vorlage=vorlage).docx)
    assert "Amtsgericht Tempelhof-Kreuzberg\nBerlin" in ohne  # only its Ort, as before
    gericht = KontaktFactory(
        typ=Kontakt.Typ.JURISTISCH,
        firma="Amtsgericht Tempelhof-Kreuzberg",
        strasse="Möckernstraße 130",
        plz="10963",
        ort="Berlin",
    )
    BeteiligterFactory(akte=akte, kontakt=gericht, rolle=Beteiligter.Rolle.GERICHT)
    mit = docx_text(schriftstueck_rendern(akte=akte, titel="Klageerwiderung", markdown="x", vorlage=vorlage).docx)
    assert "Amtsgericht Tempelhof-Kreuzberg\nMöckernstraße 130\n10963 Berlin" in mit


def _eigene_vorlage(name: str, art: str):
    import io

    import docx
    from django.core.files.uploadedfile import SimpleUploadedFile

    from akten.models import DokumentVorlage

    dokument = docx.Document()
    for zeile in ("{{ empfaenger }}", "{{ empfaenger_anschrift }}", "{{ anrede }}", "{{p freitext }}"):
        dokument.add_paragraph(zeile)
    puffer = io.BytesIO()
    dokument.save(puffer)
    vorlage = DokumentVorlage(name=name, art=art, datei=SimpleUploadedFile("v.docx", puffer.getvalue()))
    vorlage.full_clean()
    vorlage.save()
    return vorlage


def test_a_firm_mahnschreiben_goes_to_the_other_side_and_a_firm_kostennote_to_the_client():
    """Second review: a firm template named Mahnschreiben asked for a recipient, and a firm
    Kostennote that addresses someone went to the other side's lawyer."""
    from akten.models import DokumentVorlage

    kanzlei()
    akte = akte_mit_parteien()
    vertreter = KontaktFactory(
        anrede="Herr", vorname="Max", nachname="Gegneranwalt", strasse="Graben 1", plz="80331", ort="München"
    )
    BeteiligterFactory(akte=akte, kontakt=vertreter, rolle=Beteiligter.Rolle.GEGNERVERTRETER)
    _eigene_vorlage("Mahnschreiben der Kanzlei", DokumentVorlage.Art.BRIEF)
    assert not vorlage_waehlen("Mahnschreiben der Kanzlei").empfaenger_offen
    _eigene_vorlage("Rechnung der Kanzlei", DokumentVorlage.Art.KOSTENNOTE)
    payload = kostennote_fuer()
    text = docx_text(kostennote_rendern(akte=akte, payload=payload, nummer="2026-0001").docx)
    assert "Erika Mustermann" in text and "Sehr geehrte Frau Mustermann," in text and "Gegneranwalt" not in text


def test_an_edit_keeps_whom_a_letter_goes_to():
    from drafts.services import draft_edit

    kanzlei()
    akte = akte_mit_parteien()
    result = _tool(akte, {"titel": "Sachstand", "vorlage": "Brief", "empfaenger": "MANDANT", "inhalt_markdown": "Text."})
    draft = HelenaDraft.objects.get(pk=result.data["draft_id"])
    geaendert = {**draft.payload, "inhalt_markdown": "Neuer Text.", "vorlage": {**draft.payload["vorlage"], "empfaenger": ""}}
    draft_edit(draft_id=draft.pk, by=akte.anwalt, payload=geaendert)
    draft.refresh_from_db()
    assert draft.payload["inhalt_markdown"] == "Neuer Text." and draft.payload["vorlage"]["empfaenger"] == "MANDANT"


def test_a_letter_to_the_other_sides_lawyer_names_the_firm_and_the_lawyer():
    kanzlei()
    akte = akte_mit_parteien()
    vertreter = KontaktFactory(
        anrede="Herr",
        vorname="Max",
        nachname="Beispiel",
        firma="Beispiel & Partner Rechtsanwälte mbB",
        strasse="Graben 1",
        plz="80331",
        ort="München",
    )
    BeteiligterFactory(akte=akte, kontakt=vertreter, rolle=Beteiligter.Rolle.GEGNERVERTRETER)
    brief = vorlage_waehlen("Brief").als_payload() | {"empfaenger": "GEGENSEITE"}
    text = docx_text(schriftstueck_rendern(akte=akte, titel="Aufforderung", markdown="x", vorlage=brief).docx)
    assert "Beispiel & Partner Rechtsanwälte mbB\nRechtsanwalt Max Beispiel\nGraben 1\n80331 München" in text
    klage = vorlage_waehlen("Klage").als_payload()
    rubrum = docx_text(schriftstueck_rendern(akte=akte, titel="Klage", markdown="x", vorlage=klage).docx)
    assert "Prozessbevollmächtigte: Beispiel & Partner Rechtsanwälte mbB, Rechtsanwalt Max Beispiel, Graben 1" in rubrum


def test_the_pdf_says_it_is_german():
    from pypdf import PdfReader

    kanzlei()
    akte = akte_mit_parteien()
    pdf = schriftstueck_rendern(akte=akte, titel="Vermerk", markdown="Text.").pdf()
    import io

    assert PdfReader(io.BytesIO(pdf)).trailer["/Root"]["/Lang"] == "de-DE"
