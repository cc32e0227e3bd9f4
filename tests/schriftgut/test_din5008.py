"""Letters, the Kostennote and Schriftsätze follow DIN 5008 Form B in Word and in the PDF: address
field 45 mm from the top and 20 mm from the left (text at 25 mm; sender line at the foot of the
Zusatz- und Vermerkzone 45–62.7 mm, recipient in the Anschriftzone 62.7–90 mm), information block at
125 mm, fold marks at 105/210 mm and the hole mark at 148.5 mm, whatever the letterhead's height; a
blank line between paragraphs, two after the Betreff, three for the signature. Before, sender and
address were ordinary paragraphs below the letterhead (44 mm down with a short one, out of the
window with a tall one), the paragraphs were glued together and „Unser Zeichen“ stood twice."""

from __future__ import annotations

import datetime
import io
import re
from dataclasses import dataclass

import docx
import pytest
from django.utils import timezone
from docx.oxml import parse_xml
from docx.oxml.ns import qn
from docx.shared import Mm, Pt
from pypdf import PdfReader

from schriftgut.pdf import docx_zu_pdf
from schriftgut.platzhalter import datum_lang
from schriftgut.services import schriftstueck_rendern, vorlage_waehlen
from tests.schriftgut.helpers import VIELE_PARTNER, Textstelle, akte_mit_parteien, kanzlei, kostennote_fuer, zeilen_positionen

HEUTE = datetime.date(2026, 12, 4)
MM = 72 / 25.4  # pt per mm
TWIPS = 1440 / 25.4
EMU = 36000
ABSENDER = "Kanzlei Müller & Becker · Friedrichstraße 100 · 10117 Berlin"
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _stelle(stellen: list[Textstelle], anfang: str) -> Textstelle:
    return next(s for s in stellen if s.text.startswith(anfang))


@dataclass(frozen=True)
class Strich:
    x1: float
    y1: float
    x2: float
    y2: float


def _striche(pdf: bytes, seite: int = 0) -> list[Strich]:
    """Lines drawn on a page („x y m x y l S“), in mm from the left and top edge."""
    page = PdfReader(io.BytesIO(pdf)).pages[seite]
    hoehe = float(page.mediabox.height)
    inhalt = page.get_contents().get_data().decode("latin-1")
    zahl = r"(-?[\d.]+)"
    return [
        Strich(float(a) / MM, (hoehe - float(b)) / MM, float(c) / MM, (hoehe - float(d)) / MM)
        for a, b, c, d in re.findall(rf"{zahl} {zahl} m {zahl} {zahl} l S", inhalt)
    ]


def _bilder_unterkante(pdf: bytes) -> list[float]:
    """The lower edge (mm from the top) of each picture on page 1 („w 0 0 h x y cm /I Do“)."""
    page = PdfReader(io.BytesIO(pdf)).pages[0]
    hoehe = float(page.mediabox.height)
    inhalt = page.get_contents().get_data().decode("latin-1")
    return [
        (hoehe - float(y)) / MM for _w, _h, _x, y in re.findall(r"([\d.]+) 0 0 ([\d.]+) ([\d.]+) ([\d.]+) cm /I\w+ Do", inhalt)
    ]


def _entwurf(client, akte, vorlage: str, markdown: str = "Die Miete für Oktober ist offen.\n\nBitte zahlen Sie."):
    """A draft made by Helena's tool and downloaded as a user does: (docx, pdf)."""
    from agent.tools.base import ToolContext
    from agent.tools.executor import toolbox_for
    from tests.agent.tools.conftest import run_call
    from tests.factories import AgentRunFactory

    run = AgentRunFactory(user=akte.anwalt, akte=akte)
    ergebnis = run_call(
        toolbox_for(ToolContext(user=akte.anwalt, akte=akte, run=run)),
        "create_draft_dokument",
        {"titel": "Zahlungsaufforderung", "vorlage": vorlage, "inhalt_markdown": markdown, "empfaenger": "GEGENSEITE"},
        "c1",
    )
    assert ergebnis.ok, ergebnis.error
    client.force_login(akte.anwalt)
    word = client.get(ergebnis.data["downloads"]["docx"])
    pdf = client.get(f"/api/drafts/{ergebnis.data['draft_id']}/datei/pdf/")
    assert word.status_code == 200 and pdf.status_code == 200
    return word.content, pdf.content


def _feld(word: bytes):
    """The positioned table of the body (the address field), its grid and rows."""
    document = docx.Document(io.BytesIO(word))
    tabelle = document.element.body.find(qn("w:tbl"))
    assert tabelle is not None
    return document, tabelle


@pytest.fixture
def _werkzeuge(settings, tmp_path):
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True
    settings.MEDIA_ROOT = tmp_path


@pytest.mark.django_db
@pytest.mark.usefixtures("_werkzeuge")
@pytest.mark.parametrize("hoch", [False, True], ids=["kurzer Briefkopf", "Logo und zehn Anwälte"])
def test_a_letter_has_the_din_5008_address_field_information_block_and_marks(client, hoch):
    kanzlei(logo=hoch, partner=VIELE_PARTNER if hoch else None)
    word, pdf = _entwurf(client, akte_mit_parteien(), "Brief")

    # PDF: where the window of a DIN-lang envelope shows it, however tall the letterhead
    stellen = zeilen_positionen(pdf)
    absender, name = _stelle(stellen, ABSENDER), _stelle(stellen, "Hans Schmidt")
    strasse, ort = _stelle(stellen, "Hauptstraße 5"), _stelle(stellen, "10827 Berlin")
    # the letter is dated the day it is rendered (Berlin time), not the day this test was written
    heute = f"Berlin, {datum_lang(timezone.localdate())}"
    zeichen, datum = _stelle(stellen, "Unser Zeichen: 12/26"), _stelle(stellen, heute)
    for stelle in (absender, name, strasse, ort):
        assert abs(stelle.x - 25) < 0.3, stelle
    assert 59 < absender.y <= 62.7, absender  # the foot of the Zusatz- und Vermerkzone
    assert 62.7 + 2.5 < name.y < 62.7 + 4.5, name  # the first line of the Anschriftzone
    assert name.y < strasse.y < ort.y < 90
    for stelle in (zeichen, datum):
        assert abs(stelle.x - 125) < 0.3, stelle
    assert 45 + 2.5 < zeichen.y < 45 + 4.5 < datum.y < 62.7
    betreff = _stelle(stellen, "Zahlungsaufforderung")
    assert 98 < betreff.y < 103, betreff  # two blank lines below the address field (90 mm)
    # the letterhead stays above the address field, the logo too
    kopf = [s for s in stellen if s.y < absender.y and s.x < 120 or s.text.startswith(("Kanzlei Müller & Becker", "Tel."))]
    kopf = [s for s in kopf if s is not absender and not s.text.startswith(ABSENDER)]
    assert kopf and max(s.y for s in kopf) < 45 - 1, kopf
    assert all(unterkante < 45 for unterkante in _bilder_unterkante(pdf))
    assert len(_bilder_unterkante(pdf)) == (1 if hoch else 0)
    assert sum(s.text.count("Unser Zeichen") for s in stellen) == 1
    marken = sorted((s for s in _striche(pdf) if s.x2 < 15), key=lambda s: s.y1)
    assert [round(m.y1, 1) for m in marken] == [105.0, 148.5, 210.0]
    assert all(m.y1 == m.y2 and abs(m.x1 - 5) < 0.1 and m.x2 - m.x1 >= 5 for m in marken)
    assert marken[1].x2 - marken[1].x1 > marken[0].x2 - marken[0].x1  # the hole mark is the longer one

    # Word: one table fixed on the page at the same place, rows of exact height
    document, tabelle = _feld(word)
    lage = tabelle.find(f"{qn('w:tblPr')}/{qn('w:tblpPr')}")
    assert lage.get(qn("w:horzAnchor")) == "page" and lage.get(qn("w:vertAnchor")) == "page"
    assert int(lage.get(qn("w:tblpX"))) == round(20 * TWIPS) and int(lage.get(qn("w:tblpY"))) == round(45 * TWIPS)
    assert int(lage.get(qn("w:bottomFromText"))) == 480  # the Betreff two blank lines below
    spalten = [int(c.get(qn("w:w"))) for c in tabelle.iter(qn("w:gridCol"))]
    assert spalten[0] == round(85 * TWIPS)
    hoehen = [(int(h.get(qn("w:val"))), h.get(qn("w:hRule"))) for h in tabelle.iter(qn("w:trHeight"))]
    assert hoehen == [(round(17.7 * TWIPS), "exact"), (round(27.3 * TWIPS), "exact")]
    reihen = tabelle.findall(qn("w:tr"))
    vermerk, info = reihen[0].findall(qn("w:tc"))
    anschrift = reihen[1].findall(qn("w:tc"))[0]

    def text(zelle) -> str:
        return "\n".join("".join(t.text or "" for t in p.iter(qn("w:t"))) for p in zelle.iter(qn("w:p")))

    def einzug(zelle) -> set[int]:
        return {int(ind.get(qn("w:left"))) for ind in zelle.iter(qn("w:ind"))}

    assert text(vermerk) == ABSENDER and vermerk.find(f"{qn('w:tcPr')}/{qn('w:vAlign')}").get(qn("w:val")) == "bottom"
    assert text(anschrift).startswith("Hans Schmidt\nHauptstraße 5")
    assert einzug(vermerk) == einzug(anschrift) == {round(5 * TWIPS)}  # text at 25 mm
    assert "Unser Zeichen: 12/26" in text(info) and heute in text(info)
    assert int(lage.get(qn("w:tblpX"))) + spalten[0] + min(einzug(info)) == round(125 * TWIPS)
    section = document.sections[0]
    ankerpunkte = [
        int(a.find(f"{qn('wp:positionV')}/{qn('wp:posOffset')}").text)
        for a in section.first_page_header._element.iter(qn("wp:anchor"))
        if a.find(qn("wp:positionV")).get("relativeFrom") == "page"
    ]
    assert sorted(ankerpunkte) == [105 * EMU, round(148.5 * EMU), 210 * EMU]
    kopftext = "\n".join(p.text for p in section.first_page_header.paragraphs)
    assert "Unser Zeichen" not in kopftext  # page 1: in the information block only
    assert "Unser Zeichen: 12/26 · Seite" in section.header.paragraphs[0].text  # from page 2 on
    bilder = list(section.first_page_header._element.iter(qn("wp:extent")))
    if hoch:
        # ten lawyers in running lines, the logo smaller, so that it all ends above 45 mm
        assert "Jonas Becker, Fachanwalt für Arbeitsrecht · Prof. Dr. Anna Schulz" in kopftext
        assert len(bilder) == 4 and 8 * EMU <= max(int(e.get("cy")) for e in bilder) <= 16 * EMU
    else:
        assert "Dr. Katrin Müller, Fachanwältin für Mietrecht\nJonas Becker" in kopftext
        assert len(bilder) == 3  # the marks only
    for absatz in section.first_page_header.paragraphs:
        assert absatz.paragraph_format.space_after == 0 and absatz.paragraph_format.line_spacing == 1.0


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("vorlage", "gericht_az"),
    [("Klage", False), ("Kündigungsschutzklage", False), ("Klageerwiderung", True), ("Schriftsatz", True)],
)
def test_a_schriftsatz_puts_the_court_into_the_address_field(vorlage, gericht_az):
    kanzlei()
    akte = akte_mit_parteien()
    ergebnis = schriftstueck_rendern(
        akte=akte, titel="Schriftsatz", markdown="Text.", vorlage=vorlage_waehlen(vorlage).als_payload(), heute=HEUTE
    )
    stellen = zeilen_positionen(ergebnis.pdf())
    gericht, ort = _stelle(stellen, "Amtsgericht Tempelhof-Kreuzberg"), next(s for s in stellen if s.text == "Berlin")
    assert abs(gericht.x - 25) < 0.3 and 62.7 + 2.5 < gericht.y < 62.7 + 4.5 and gericht.y < ort.y < 90
    assert abs(_stelle(stellen, ABSENDER).y - 61) < 1.7
    zeichen = _stelle(stellen, "Unser Zeichen: 12/26")
    assert abs(zeichen.x - 125) < 0.3 and 45 < zeichen.y < 50
    assert sum(s.text.count("Unser Zeichen") for s in stellen) == 1
    assert any(s.text == "Az. des Gerichts: 7 C 123/26" and abs(s.x - 125) < 0.3 for s in stellen) is gericht_az
    assert abs(_stelle(stellen, "Berlin, 4. Dezember 2026").x - 125) < 0.3
    assert [round(m.y1, 1) for m in sorted(_striche(ergebnis.pdf()), key=lambda s: s.y1) if m.x2 < 15] == [105.0, 148.5, 210.0]


@pytest.mark.django_db
def test_a_kostennote_goes_to_the_mandant_in_the_window():
    from schriftgut.services import kostennote_rendern

    kanzlei()
    akte = akte_mit_parteien()
    payload = kostennote_fuer("3100")
    stellen = zeilen_positionen(kostennote_rendern(akte=akte, payload=payload, nummer="2026-0001", heute=HEUTE).pdf())
    mandantin = _stelle(stellen, "Erika Mustermann")
    assert abs(mandantin.x - 25) < 0.3 and 62.7 < mandantin.y < 67
    assert abs(_stelle(stellen, "Musterweg 1").x - 25) < 0.3
    assert abs(_stelle(stellen, "Unser Zeichen: 12/26").x - 125) < 0.3
    assert _stelle(stellen, "Kostennote").y > 98


@pytest.mark.django_db
@pytest.mark.usefixtures("_werkzeuge")
def test_a_letter_has_din_spacing_in_word_and_pdf(client):
    """A blank line between paragraphs, two after the Betreff, three for the handwritten signature."""
    kanzlei()
    word, pdf = _entwurf(client, akte_mit_parteien(), "Brief")
    stellen = zeilen_positionen(pdf)
    y = {
        text: _stelle(stellen, text).y
        for text in (
            "Zahlungsaufforderung",
            "Sehr geehrter Herr Schmidt,",
            "Die Miete für Oktober",
            "Bitte zahlen Sie.",
            "Mit freundlichen Grüßen",
            "Katrin Müller",
        )
    }
    zeile = 11 * 1.149 / MM  # Word's single line of 11 pt Liberation Sans, 4.46 mm
    leer = 12 / MM  # a blank line (12 pt)

    def abstand(oben: str, unten: str) -> float:
        return y[unten] - y[oben]

    assert abs(abstand("Zahlungsaufforderung", "Sehr geehrter Herr Schmidt,") - (zeile + 2 * leer)) < 0.3
    assert abs(abstand("Sehr geehrter Herr Schmidt,", "Die Miete für Oktober") - (zeile + leer)) < 0.3
    assert abs(abstand("Die Miete für Oktober", "Bitte zahlen Sie.") - (zeile + leer)) < 0.3
    assert abs(abstand("Bitte zahlen Sie.", "Mit freundlichen Grüßen") - (zeile + leer)) < 0.3
    assert abs(abstand("Mit freundlichen Grüßen", "Katrin Müller") - (zeile + 3 * leer)) < 0.3

    document = docx.Document(io.BytesIO(word))
    absaetze = {p.text: p for p in document.paragraphs if p.text}
    assert absaetze["Zahlungsaufforderung"].paragraph_format.space_after == Pt(24)
    assert absaetze["Mit freundlichen Grüßen"].paragraph_format.space_after == Pt(36)
    standard = document.styles.element.find(f"{qn('w:docDefaults')}/{qn('w:pPrDefault')}/{qn('w:pPr')}/{qn('w:spacing')}")
    assert standard.get(qn("w:after")) == "240" and standard.get(qn("w:line")) == "240"


def test_the_pdf_honours_paragraph_spacing_and_line_spacing():
    """w:spacing before/after and the line spacing, set on a paragraph or through a style."""
    document = docx.Document()
    document.styles["Normal"].paragraph_format.space_after = Pt(0)
    document.styles["Normal"].paragraph_format.line_spacing = 1.0
    document.add_paragraph("Erste Zeile")
    document.add_paragraph("Zweite Zeile").paragraph_format.space_before = Pt(30)
    document.add_paragraph("Dritte Zeile").paragraph_format.space_after = Pt(20)
    document.add_paragraph("Vierte Zeile")
    doppelt = document.add_paragraph("Fünfte Zeile ist lang genug, um umzubrechen. " * 4)
    doppelt.paragraph_format.line_spacing = 2.0
    stellen = zeilen_positionen(docx_zu_pdf(document))
    y = [_stelle(stellen, t).y for t in ("Erste", "Zweite", "Dritte", "Vierte", "Fünfte")]
    zeile = 11 * 1.149 / MM
    assert abs((y[1] - y[0]) - (zeile + 30 / MM)) < 0.3
    assert abs((y[2] - y[1]) - zeile) < 0.3
    assert abs((y[3] - y[2]) - (zeile + 20 / MM)) < 0.3
    umbrochen = sorted(s.y for s in stellen if y[4] <= s.y)
    assert len(umbrochen) >= 2 and abs((umbrochen[1] - umbrochen[0]) - 2 * zeile) < 0.3


def test_list_items_of_one_style_keep_together_as_in_word():
    """contextualSpacing (Word's list styles): no paragraph spacing between items, as Word shows them."""
    document = docx.Document()  # python-docx's defaults: 10 pt after each paragraph, 1.15 lines
    document.add_paragraph("Einleitung")
    document.add_paragraph("Erster Antrag", style="List Number")
    document.add_paragraph("Zweiter Antrag", style="List Number")
    document.add_paragraph("Schluss")
    stellen = zeilen_positionen(docx_zu_pdf(document))
    y = [_stelle(stellen, t).y for t in ("Einleitung", "1. Erster", "2. Zweiter", "Schluss")]
    zeile = 11 * 1.149 * 1.15 / MM
    assert abs((y[1] - y[0]) - (zeile + 10 / MM)) < 0.3
    assert abs((y[2] - y[1]) - zeile) < 0.3
    assert abs((y[3] - y[2]) - (zeile + 10 / MM)) < 0.3


@pytest.mark.django_db
def test_page_two_shows_the_running_aktenzeichen_and_no_address_field():
    kanzlei()
    ergebnis = schriftstueck_rendern(
        akte=akte_mit_parteien(),
        titel="Zahlungsaufforderung",
        markdown="\n\n".join(f"Absatz {n} der Begründung mit etwas mehr Text darin." for n in range(60)),
        vorlage=vorlage_waehlen("Brief").als_payload(),
        heute=HEUTE,
    )
    pdf = ergebnis.pdf()
    assert len(PdfReader(io.BytesIO(pdf)).pages) >= 2
    zweite = zeilen_positionen(pdf, seite=1)
    assert any("Unser Zeichen: 12/26 · Seite 2 von" in s.text for s in zweite)
    assert not any(s.text.startswith(("Hans Schmidt", ABSENDER)) for s in zweite)
    assert not [s for s in _striche(pdf, seite=1) if s.x2 < 15]
    assert min(s.y for s in zweite if s.text.startswith("Absatz")) > 25  # below the top margin


@pytest.mark.django_db
def test_a_firm_template_keeps_its_own_layout():
    """An uploaded template gets the letterhead, but no address field or marks of Helena's own."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from akten.models import DokumentVorlage

    vorlage = docx.Document()
    vorlage.add_paragraph("{{ empfaenger }}")
    vorlage.add_paragraph("{{ betreff }}")
    vorlage.add_paragraph("{{p freitext }}")
    puffer = io.BytesIO()
    vorlage.save(puffer)
    eigene = DokumentVorlage.objects.create(name="Eigener Brief", datei=SimpleUploadedFile("b.docx", puffer.getvalue()))
    kanzlei()
    ergebnis = schriftstueck_rendern(
        akte=akte_mit_parteien(), titel="Mahnung", markdown="Text.", vorlage=vorlage_waehlen(eigene.pk).als_payload()
    )
    document = docx.Document(io.BytesIO(ergebnis.docx))
    assert document.element.body.find(qn("w:tbl")) is None
    assert not list(document.sections[0].first_page_header._element.iter(qn("wp:anchor")))
    assert [p.text for p in document.paragraphs][:2] == ["Hans Schmidt", "Mahnung"]
    kopf = "\n".join(p.text for p in document.sections[0].first_page_header.paragraphs)
    assert "Unser Zeichen: 12/26 · Seite" in kopf  # no information block: the letterhead names it
    assert not [s for s in _striche(ergebnis.pdf()) if s.x2 < 15]


def test_a_floating_table_of_a_word_file_is_drawn_where_word_puts_it():
    """A firm's own address field as a table fixed on the page (w:tblpPr): the PDF draws it there and
    the text below it, not in the flow before the text."""
    document = docx.Document()
    body = document.element.body
    body.sectPr.addprevious(
        parse_xml(
            f'<w:tbl {W}><w:tblPr><w:tblpPr w:vertAnchor="page" w:horzAnchor="page" w:tblpX="{round(30 * TWIPS)}" '
            f'w:tblpY="{round(50 * TWIPS)}" w:bottomFromText="{round(5 * TWIPS)}" w:topFromText="{round(40 * TWIPS)}"/>'
            '<w:tblCellMar><w:left w:w="0" w:type="dxa"/><w:right w:w="0" w:type="dxa"/></w:tblCellMar></w:tblPr>'
            f'<w:tblGrid><w:gridCol w:w="{round(80 * TWIPS)}"/></w:tblGrid>'
            f'<w:tr><w:trPr><w:trHeight w:val="{round(30 * TWIPS)}" w:hRule="exact"/></w:trPr><w:tc><w:p>'
            '<w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr>'
            "<w:r><w:t>Firma Beispiel GmbH</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
        )
    )
    document.add_paragraph("Betreff: Ihre Rechnung")
    document.sections[0].top_margin = Mm(20)
    stellen = zeilen_positionen(docx_zu_pdf(document))
    firma, betreff = _stelle(stellen, "Firma Beispiel GmbH"), _stelle(stellen, "Betreff")
    assert abs(firma.x - 30) < 0.3 and 50 < firma.y < 55
    assert betreff.y > 50 + 30 + 5  # below the table and its distance from the text


def test_a_letterhead_that_cannot_fit_above_the_address_field_is_reported():
    """Forty lawyers do not fit in 45 mm even in running lines: Word keeps the address field at its
    place and lets the letterhead overlap it; the PDF does the same, and the sender is told."""
    from akten.models import KanzleiProfil
    from schriftgut.briefkopf import briefkopf_anwenden, briefkopf_planen

    profil = KanzleiProfil(
        name="Großkanzlei",
        partner="\n".join(f"Dr. Rechtsanwältin Nummer {n}, Fachanwältin für Bau- und Architektenrecht" for n in range(40)),
        strasse="Friedrichstraße 100",
        plz="10117",
        ort="Berlin",
    )
    passend = briefkopf_planen(profil, schrift="Liberation Sans", breite_mm=165, platz_mm=34)
    assert not passend.passt and passend.hoehe_mm > 34
    klein = KanzleiProfil(name="Kanzlei Klein", partner="Eva Klein", strasse="Markt 1", plz="10117", ort="Berlin")
    assert briefkopf_planen(klein, schrift="Liberation Sans", breite_mm=165, platz_mm=34).passt

    from schriftgut.builtin import mitgeliefert_inhalt

    document = docx.Document(io.BytesIO(mitgeliefert_inhalt("BRIEF")))
    hinweise = briefkopf_anwenden(document, profil=profil, aktenzeichen="12/26")
    assert hinweise and "höher als die 45 mm" in hinweise[0]
    stellen = zeilen_positionen(docx_zu_pdf(document))
    # the address field keeps its place (its placeholders are not filled here)
    assert abs(_stelle(stellen, "{{ empfaenger }}").y - 66) < 1.5


def test_a_logo_gets_a_little_smaller_before_the_partners_run_together():
    from akten.models import KanzleiProfil
    from schriftgut.briefkopf import briefkopf_planen

    profil = KanzleiProfil(
        name="Kanzlei Müller & Becker",
        partner="Dr. Katrin Müller, Fachanwältin für Mietrecht\nJonas Becker",
        strasse="Friedrichstraße 100",
        plz="10117",
        ort="Berlin",
        telefon="030 1234567",
        logo="kanzlei/logo.png",
    )
    ohne_grenze = briefkopf_planen(profil, schrift="Liberation Sans", breite_mm=165, platz_mm=None)
    assert ohne_grenze.logo_mm == 16 and ("Jonas Becker", False) in ohne_grenze.zeilen
    plan = briefkopf_planen(profil, schrift="Liberation Sans", breite_mm=165, platz_mm=34)
    assert plan.passt and ("Jonas Becker", False) in plan.zeilen and 12 <= plan.logo_mm < 16
    assert plan.hoehe_mm <= 34


@pytest.mark.django_db
def test_a_letterhead_ending_in_the_air_above_the_field_is_not_reported_as_reaching_into_it():
    """With a logo and many partners the letterhead ends at about 44 mm: above the field (45 mm),
    only inside the 1 mm of air kept free. It was reported as reaching into the envelope's window."""
    from schriftgut.briefkopf import briefkopf_anwenden
    from schriftgut.builtin import mitgeliefert_inhalt

    profil = kanzlei(logo=True, partner=VIELE_PARTNER)
    document = docx.Document(io.BytesIO(mitgeliefert_inhalt("BRIEF")))

    assert briefkopf_anwenden(document, profil=profil, aktenzeichen="12/26") == []
    stellen = zeilen_positionen(docx_zu_pdf(document))
    briefkopf_unten = max(s.y for s in stellen if s.text.startswith("Tel."))
    assert briefkopf_unten < 45


@pytest.mark.django_db
def test_a_logo_whose_file_is_gone_leaves_the_letter_without_it_instead_of_failing():
    """A database restored without its media folder: every letter's PDF answered 500."""
    from schriftgut.briefkopf import briefkopf_anwenden
    from schriftgut.builtin import mitgeliefert_inhalt

    profil = kanzlei(logo=True)
    profil.logo.storage.delete(profil.logo.name)
    document = docx.Document(io.BytesIO(mitgeliefert_inhalt("BRIEF")))

    briefkopf_anwenden(document, profil=profil, aktenzeichen="12/26")

    assert "Kanzlei Müller & Becker" in [s.text for s in zeilen_positionen(docx_zu_pdf(document))]
    assert not document.sections[0].first_page_header.part.element.xpath(".//pic:pic")  # the fold marks are drawings too
