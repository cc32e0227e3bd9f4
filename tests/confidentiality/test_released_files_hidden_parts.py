"""What a file that leaves the Kanzlei carries besides what it shows: hidden Word text (in the file,
its PDF and the API text), author names on range, cell and permission marks, other documents inside
a Word file (building blocks, alternative-format chunks, embedded workbooks under any name, the
mail-merge data source) and, in a PDF, attached files, bookmarks, scripts and note details. A
Mandantin downloading a released file and a draft rendered from a firm template receive none of it;
the visible text, tables and pictures stay."""

from __future__ import annotations

import io
import zipfile

import docx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from docx.enum.style import WD_STYLE_TYPE
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.packuri import PackURI
from docx.opc.part import Part
from docx.oxml.ns import qn
from lxml import etree
from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    FloatObject,
    NameObject,
    NumberObject,
    StreamObject,
    TextStringObject,
)

from agent.tools.base import ToolContext
from agent.tools.executor import toolbox_for
from akten.extraction import DOCX_TYPE, extract_text
from akten.models import DokumentVorlage
from schriftgut.pdf import docx_zu_pdf
from tests.agent.tools.conftest import run_call
from tests.confidentiality.test_released_files import (
    _alle_teile,
    _annotation,
    _download,
    _excel_mit_kommentar,
    _released,
    _released_before_the_check,
)
from tests.confidentiality.world import build_world
from tests.factories import AgentRunFactory
from tests.schriftgut.helpers import akte_mit_parteien, docx_text, kanzlei, pdf_text

pytestmark = pytest.mark.django_db

SICHTBAR = "Die Miete wurde vollständig gezahlt."
ZELLE = "Mietrückstand Januar"
VERSTECKT_DIREKT = "Honorar intern 350 Euro je Stunde"
VERSTECKT_STIL = "Mandantin wirkt unglaubwuerdig"
GEHEIME_NAMEN = ("Sekretariat Schulz", "Dr. Katrin Privat", "KANZLEI\\kmueller", "Referendar Klein")
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _speichern(document) -> bytes:
    puffer = io.BytesIO()
    document.save(puffer)
    return puffer.getvalue()


def _foto() -> bytes:
    from PIL import Image

    puffer = io.BytesIO()
    Image.new("RGB", (40, 20), (10, 120, 10)).save(puffer, format="PNG")
    return puffer.getvalue()


def _mit_verstecktem_text(document) -> None:
    """Visible text with hidden runs in it: one hidden directly (w:vanish), one through a character
    style; a table (with a hidden run in a cell) and a picture."""
    stil = document.styles.add_style("Interne Notiz", WD_STYLE_TYPE.CHARACTER)
    stil.font.hidden = True
    absatz = document.add_paragraph(SICHTBAR + " ")
    absatz.add_run(VERSTECKT_DIREKT).font.hidden = True
    absatz.add_run(VERSTECKT_STIL, style="Interne Notiz")
    tabelle = document.add_table(rows=1, cols=2)
    tabelle.cell(0, 0).text = ZELLE
    tabelle.cell(0, 1).paragraphs[0].add_run("1.200 €")
    tabelle.cell(0, 1).paragraphs[0].add_run(" " + VERSTECKT_DIREKT).font.hidden = True
    document.add_picture(io.BytesIO(_foto()))


def _word_mit_verstecktem_text() -> bytes:
    document = docx.Document()
    _mit_verstecktem_text(document)
    return _speichern(document)


def _ohne_versteckten_text(text: str) -> None:
    assert VERSTECKT_DIREKT not in text and VERSTECKT_STIL not in text


def test_hidden_word_text_is_not_in_the_released_file_its_pdf_or_its_text():
    world = build_world()
    original = _word_mit_verstecktem_text()
    assert VERSTECKT_DIREKT in _alle_teile(original) and VERSTECKT_STIL in _alle_teile(original)
    dokument = _released(world, "brief.docx", original)

    antwort = _download(world.mandantin, dokument)
    assert antwort.status_code == 200
    _ohne_versteckten_text(_alle_teile(antwort.content))
    text = docx_text(antwort.content)
    assert SICHTBAR in text and ZELLE in text and "1.200 €" in text
    with zipfile.ZipFile(io.BytesIO(antwort.content)) as archiv:
        assert any(name.startswith("word/media/") for name in archiv.namelist())  # the picture stays

    pdf = _download(world.mandantin, dokument, "api-dokument-datei", ausgabe="pdf")
    assert pdf.status_code == 200
    _ohne_versteckten_text(pdf_text(pdf.content))
    assert SICHTBAR in pdf_text(pdf.content)

    client = Client()
    client.force_login(world.mandantin)
    detail = client.get(reverse("api-dokument-detail", args=[dokument.pk])).json()
    _ohne_versteckten_text(detail["text"])
    assert SICHTBAR in detail["text"]
    assert _download(world.lawyer, dokument).content == original  # the Akte's record stays as uploaded


def test_the_pdf_renderer_and_the_text_extraction_leave_hidden_runs_out_as_word_prints():
    document = docx.Document()
    _mit_verstecktem_text(document)
    document.sections[0].header.paragraphs[0].add_run("Briefkopf ")
    document.sections[0].header.paragraphs[0].add_run(VERSTECKT_STIL).font.hidden = True
    ausgeblendet = document.add_paragraph("Ausgeblendet: ").add_run("nicht ausgeblendet")
    ausgeblendet.font.hidden = False  # w:vanish w:val="0": shown
    ausgeblendet.style = document.styles["Interne Notiz"]

    gedruckt = pdf_text(docx_zu_pdf(document))
    _ohne_versteckten_text(gedruckt)
    assert SICHTBAR in gedruckt and ZELLE in gedruckt and "Briefkopf" in gedruckt and "nicht ausgeblendet" in gedruckt

    text = extract_text(_speichern(document), DOCX_TYPE)
    _ohne_versteckten_text(text)
    assert SICHTBAR in text and "nicht ausgeblendet" in text


def _firmenvorlage() -> bytes:
    """A firm template: fields, a hidden note to the colleagues, an editing permission for one user."""
    document = docx.Document()
    document.add_paragraph("Eigene Vorlage der Kanzlei für {{ mandant }}")
    _mit_verstecktem_text(document)
    document.add_paragraph("{{p freitext }}")
    erster = document.paragraphs[0]._p
    erster.insert(0, _w("permStart", id="3", ed="KANZLEI\\kmueller"))
    erster.append(_w("permEnd", id="3"))
    return _speichern(document)


def test_a_draft_from_a_firm_template_leaves_out_hidden_text_and_editors(settings):
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True  # the tool reads this test's transaction
    kanzlei()
    akte = akte_mit_parteien()
    vorlage = DokumentVorlage(name="Anschreiben Mandant", datei=SimpleUploadedFile("a.docx", _firmenvorlage()))
    vorlage.full_clean()
    vorlage.save()
    run = AgentRunFactory(user=akte.anwalt, akte=akte)
    box = toolbox_for(ToolContext(user=akte.anwalt, akte=akte, run=run))
    ergebnis = run_call(
        box, "create_draft_dokument", {"titel": "Info", "vorlage": str(vorlage.pk), "inhalt_markdown": "Stand der Sache."}
    )
    assert ergebnis.ok, ergebnis.error
    client = Client()
    client.force_login(akte.anwalt)

    word = client.get(f"/api/drafts/{ergebnis.data['draft_id']}/datei/docx/")
    assert word.status_code == 200
    alles = _alle_teile(word.content)
    _ohne_versteckten_text(alles)
    assert "kmueller" not in alles and "permStart" not in alles
    text = docx_text(word.content)
    assert "Erika Mustermann" in text and SICHTBAR in text and ZELLE in text and "Stand der Sache." in text

    pdf = client.get(f"/api/drafts/{ergebnis.data['draft_id']}/datei/pdf/")
    assert pdf.status_code == 200
    _ohne_versteckten_text(pdf_text(pdf.content))
    assert SICHTBAR in pdf_text(pdf.content)


def _w(tag: str, **attribute: str) -> etree._Element:
    element = etree.Element(qn(f"w:{tag}"), nsmap={"w": W})
    for name, wert in attribute.items():
        element.set(qn(f"w:{name}"), wert)
    return element


def _word_mit_bearbeitern() -> bytes:
    """Moved text, table cell revisions, custom XML revisions and an editing permission, each with
    the name of whoever made it."""
    document = docx.Document()
    verschoben = document.add_paragraph("Der Vertrag wurde am 3. März geschlossen.")._p
    verschoben.insert(0, _w("moveToRangeStart", id="1", name="move1", author="Sekretariat Schulz"))
    verschoben.append(_w("moveToRangeEnd", id="1"))
    herkunft = document.add_paragraph(SICHTBAR)._p
    herkunft.insert(0, _w("moveFromRangeStart", id="2", name="move1", author="Sekretariat Schulz"))
    herkunft.append(_w("moveFromRangeEnd", id="2"))
    herkunft.insert(0, _w("customXmlInsRangeStart", id="3", author="Referendar Klein"))
    herkunft.append(_w("customXmlInsRangeEnd", id="3"))
    herkunft.insert(0, _w("customXmlDelRangeStart", id="4", author="Referendar Klein"))
    herkunft.append(_w("customXmlDelRangeEnd", id="4"))
    herkunft.insert(0, _w("permStart", id="5", ed="KANZLEI\\kmueller", edGrp="everyone"))
    herkunft.append(_w("permEnd", id="5"))
    tabelle = document.add_table(rows=2, cols=2)
    tabelle.cell(0, 0).text = ZELLE
    tabelle.cell(0, 1).text = "1.200 €"
    for zelle, marke in ((tabelle.cell(0, 0), "cellIns"), (tabelle.cell(0, 1), "cellDel"), (tabelle.cell(1, 0), "cellMerge")):
        zelle._tc.get_or_add_tcPr().append(_w(marke, id="6", author="Dr. Katrin Privat", initials="KP"))
    return _speichern(document)


def test_author_names_on_range_cell_and_permission_marks_do_not_reach_the_mandantin():
    world = build_world()
    original = _word_mit_bearbeitern()
    assert all(name in _alle_teile(original) for name in GEHEIME_NAMEN)
    dokument = _released(world, "vertrag.docx", original)

    antwort = _download(world.mandantin, dokument)

    assert antwort.status_code == 200
    alles = _alle_teile(antwort.content)
    for geheim in (*GEHEIME_NAMEN, "w:author", "w:initials", "w:ed=", "permStart", "cellMerge", "RangeStart"):
        assert geheim not in alles, geheim
    text = docx_text(antwort.content)
    assert SICHTBAR in text and "3. März" in text and ZELLE in text and "1.200 €" in text


GLOSSAR = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    f'<w:glossaryDocument xmlns:w="{W}"><w:docParts><w:docPart><w:docPartPr><w:name w:val="Akte 99/25 Anders"/>'
    "</w:docPartPr><w:docPartBody><w:p><w:r><w:t>Vergleichsangebot Anders 40000</w:t></w:r></w:p></w:docPartBody>"
    "</w:docPart></w:docParts></w:glossaryDocument>"
)
MAIL_MERGE_SOURCE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/mailMergeSource"
DATENQUELLE = "C:\\Users\\kmueller\\Mandanten\\Insolvenz Meier Glaeubiger.xlsx"


def _word_mit_bausteinen_und_serienbrief() -> bytes:
    document = docx.Document()
    document.add_paragraph(SICHTBAR)
    document.add_table(rows=1, cols=1).cell(0, 0).text = ZELLE
    glossar = Part(
        PackURI("/word/glossary/document.xml"),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document.glossary+xml",
        GLOSSAR.encode(),
        document.part.package,
    )
    document.part.relate_to(glossar, RT.GLOSSARY_DOCUMENT)
    einstellungen = document.settings.element
    rid = document.part._settings_part.relate_to(DATENQUELLE, MAIL_MERGE_SOURCE, is_external=True)
    serienbrief = _w("mailMerge")
    serienbrief.append(_w("mainDocumentType", val="formLetters"))
    serienbrief.append(_w("connectString", val=f"Provider=Microsoft.ACE.OLEDB.12.0;Data Source={DATENQUELLE}"))
    serienbrief.append(_w("query", val="SELECT * FROM `Glaeubiger$` WHERE Name = 'Meier Insolvenz'"))
    quelle = _w("dataSource")
    quelle.set(qn("r:id"), rid)
    serienbrief.append(quelle)
    einstellungen.append(serienbrief)
    return _speichern(document)


def test_building_blocks_and_the_mail_merge_source_do_not_travel_in_a_released_word_file():
    world = build_world()
    original = _word_mit_bausteinen_und_serienbrief()
    geheim = ("Akte 99/25 Anders", "Vergleichsangebot Anders", "kmueller", "Meier Insolvenz", "Glaeubiger")
    assert all(g in _alle_teile(original) or g in original.decode("latin-1") for g in geheim)
    dokument = _released(world, "brief.docx", original)

    antwort = _download(world.mandantin, dokument)

    assert antwort.status_code == 200
    alles = _alle_teile(antwort.content)
    for g in (*geheim, "glossary", "mailMerge"):
        assert g not in alles, g
    text = docx_text(antwort.content)
    assert SICHTBAR in text and ZELLE in text


def _alt_chunk_docx() -> bytes:
    """Another matter's letter with its own author, as Word keeps a pasted document (altChunk)."""
    anderes = docx.Document()
    anderes.add_paragraph("Schreiben in Sachen Anders ./. Meier")
    anderes.core_properties.author = "Dr. Katrin Privat"
    return _speichern(anderes)


@pytest.mark.parametrize(
    ("partname", "content_type", "reltype", "inhalt"),
    [
        (
            "/word/objekte/Mappe1.xlsx",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            RT.PACKAGE,
            _excel_mit_kommentar(),
        ),
        ("/word/objekte/oleObject1.bin", "application/vnd.openxmlformats-officedocument.oleObject", RT.OLE_OBJECT, b"\xd0\xcf"),
        ("/word/afchunk1.docx", DOCX_TYPE, RT.A_F_CHUNK, _alt_chunk_docx()),
        ("/word/afchunk.htm", "text/html", RT.A_F_CHUNK, b"<html><body>Dr. Katrin Privat</body></html>"),
    ],
    ids=["workbook", "ole-object", "alt-chunk-docx", "alt-chunk-html"],
)
def test_other_files_inside_a_word_file_block_the_release_whatever_their_part_is_named(partname, content_type, reltype, inhalt):
    world = build_world()
    document = docx.Document()
    document.add_paragraph(SICHTBAR)
    rid = document.part.relate_to(Part(PackURI(partname), content_type, inhalt, document.part.package), reltype)
    if reltype == RT.A_F_CHUNK:
        chunk = _w("altChunk")
        chunk.set(qn("r:id"), rid)
        document.element.body.insert(0, chunk)
    original = _speichern(document)

    with pytest.raises(ValueError, match="eingebettete Dateien"):
        _released(world, "brief.docx", original)
    frueher = _released_before_the_check(world, "brief.docx", original)
    antwort = _download(world.mandantin, frueher)
    assert antwort.status_code == 409 and b"Katrin" not in antwort.content


# --- PDF -----------------------------------------------------------------------------------------

PDF_GEHEIM = ("Rechnung intern 4711", "Verhandlungsspielraum 9000", "Notiz Betreff Privat", "nm-kmueller-2026", "app.alert")


def _pdf_roh(data: bytes) -> str:
    """Every object of the PDF, streams decoded: what anyone with a PDF tool can read in it."""
    reader = PdfReader(io.BytesIO(data))
    teile = []
    for nummer in range(1, int(reader.trailer["/Size"])):
        try:
            objekt = reader.get_object(nummer)
        except Exception:  # noqa: BLE001, S112  # free entries of the cross-reference table
            continue
        if objekt is None:
            continue
        teile.append(str(objekt))
        if isinstance(objekt, StreamObject):
            teile.append(objekt.get_data().decode("latin-1"))
    teile.append(str(reader.trailer))
    return "\n".join(teile)


def _datei_spezifikation(writer: PdfWriter, name: str, inhalt: bytes) -> DictionaryObject:
    datei = DecodedStreamObject()
    datei.set_data(inhalt)
    datei[NameObject("/Type")] = NameObject("/EmbeddedFile")
    return DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Filespec"),
            NameObject("/F"): TextStringObject(name),
            NameObject("/UF"): TextStringObject(name),
            NameObject("/AFRelationship"): NameObject("/Data"),
            NameObject("/EF"): DictionaryObject({NameObject("/F"): writer._add_object(datei)}),
        }
    )


def _javascript(writer: PdfWriter) -> object:
    return writer._add_object(
        DictionaryObject(
            {
                NameObject("/S"): NameObject("/JavaScript"),
                NameObject("/JS"): TextStringObject("app.alert('Verhandlungsspielraum 9000')"),
            }
        )
    )


def _pdf_mit_anhaengen() -> bytes:
    from fpdf import FPDF

    fpdf = FPDF()
    fpdf.add_page()
    fpdf.set_font("Helvetica", size=12)
    fpdf.cell(text="Sichtbarer Rechnungstext")
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(bytes(fpdf.output()))))
    wurzel, seite = writer.root_object, writer.pages[0]
    # PDF/A-3 and ZUGFeRD attach files through /AF, not through the EmbeddedFiles name tree
    wurzel[NameObject("/AF")] = ArrayObject(
        [writer._add_object(_datei_spezifikation(writer, "factur-x.xml", b"Rechnung intern 4711"))]
    )
    seite[NameObject("/AF")] = ArrayObject(
        [writer._add_object(_datei_spezifikation(writer, "notiz.txt", b"Rechnung intern 4711"))]
    )
    writer.add_outline_item(title="Verhandlungsspielraum 9000", page_number=0)
    wurzel[NameObject("/OpenAction")] = _javascript(writer)
    wurzel[NameObject("/AA")] = DictionaryObject({NameObject("/WC"): _javascript(writer)})
    seite[NameObject("/AA")] = DictionaryObject({NameObject("/O"): _javascript(writer)})
    namen = DictionaryObject({NameObject("/Names"): ArrayObject([TextStringObject("start"), _javascript(writer)])})
    wurzel[NameObject("/Names")] = DictionaryObject({NameObject("/JavaScript"): writer._add_object(namen)})
    markierung = _annotation("/Highlight", (50, 50, 90, 60), "Verhandlungsspielraum 9000", "Dr. Katrin Privat")
    markierung[NameObject("/Subj")] = TextStringObject("Notiz Betreff Privat")
    markierung[NameObject("/NM")] = TextStringObject("nm-kmueller-2026")
    markierung[NameObject("/RC")] = TextStringObject("<body><p>Verhandlungsspielraum 9000</p></body>")
    markierung[NameObject("/F")] = NumberObject(4)
    markierung_ref = writer._add_object(markierung)
    popup = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Annot"),
            NameObject("/Subtype"): NameObject("/Popup"),
            NameObject("/Rect"): ArrayObject([FloatObject(v) for v in (100, 100, 200, 150)]),
            NameObject("/Parent"): markierung_ref,
        }
    )
    popup_ref = writer._add_object(popup)
    markierung[NameObject("/Popup")] = popup_ref
    seite[NameObject("/Annots")] = ArrayObject([markierung_ref, popup_ref])
    puffer = io.BytesIO()
    writer.write(puffer)
    return puffer.getvalue()


def test_a_released_pdf_loses_attached_files_bookmarks_scripts_and_note_details():
    world = build_world()
    original = _pdf_mit_anhaengen()
    roh = _pdf_roh(original)
    assert all(geheim in roh for geheim in PDF_GEHEIM)
    dokument = _released(world, "rechnung.pdf", original)

    antwort = _download(world.mandantin, dokument)

    assert antwort.status_code == 200
    roh = _pdf_roh(antwort.content)
    for geheim in (*PDF_GEHEIM, "Dr. Katrin Privat", "/AF", "/Outlines", "/OpenAction", "/AA", "/JavaScript", "/EmbeddedFile"):
        assert geheim not in roh, geheim
    reader = PdfReader(io.BytesIO(antwort.content))
    assert "Sichtbarer Rechnungstext" in reader.pages[0].extract_text()
    assert [a.get_object()["/Subtype"] for a in reader.pages[0]["/Annots"]] == ["/Highlight"]  # the highlight stays
    assert _download(world.lawyer, dokument).content == original
