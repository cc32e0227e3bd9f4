"""The PDF of a Word file keeps what Word shows (review 2026-12-03): field results (a date, a name),
indents of nested paragraphs, page breaks where they stand, a text box once."""

from __future__ import annotations

import io

import docx
from docx.oxml import parse_xml
from docx.shared import Cm
from pypdf import PdfReader

from schriftgut.pdf import docx_zu_pdf
from tests.schriftgut.helpers import mit_fussnoten

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _seiten(document: docx.document.Document) -> list[str]:
    return [seite.extract_text() for seite in PdfReader(io.BytesIO(docx_zu_pdf(document))).pages]


def _feld(absatz, anweisung: str, ergebnis: str) -> None:
    for xml in (
        f'<w:r {W}><w:fldChar w:fldCharType="begin"/></w:r>',
        f'<w:r {W}><w:instrText xml:space="preserve"> {anweisung} </w:instrText></w:r>',
        f'<w:r {W}><w:fldChar w:fldCharType="separate"/></w:r>',
        f"<w:r {W}><w:t>{ergebnis}</w:t></w:r>",
        f'<w:r {W}><w:fldChar w:fldCharType="end"/></w:r>',
    ):
        absatz._p.append(parse_xml(xml))


def test_field_results_other_than_page_numbers_are_printed():
    document = docx.Document()
    _feld(document.add_paragraph("Berlin, den "), 'DATE \\@ "d. MMMM yyyy"', "3. Dezember 2026")
    referenz = document.add_paragraph("siehe Randnummer ")
    _feld(referenz, "REF _Ref1 \\h", "12")
    referenz.add_run(" oben.")
    text = " ".join(_seiten(document))
    assert "Berlin, den 3. Dezember 2026" in text and "siehe Randnummer 12 oben." in text


def test_indented_paragraphs_stay_indented():
    document = docx.Document()
    document.add_paragraph("Es wird beantragt:")
    document.add_paragraph("1. Die Beklagte wird verurteilt,").paragraph_format.left_indent = Cm(0.63)
    document.add_paragraph("1. an die Klägerin 1.200 € zu zahlen,").paragraph_format.left_indent = Cm(1.26)
    positionen: list[tuple[str, float]] = []

    def merken(text, cm, tm, font, size):  # noqa: ANN001 - pypdf's visitor signature
        if text.strip():
            positionen.append((text.strip(), tm[4]))

    PdfReader(io.BytesIO(docx_zu_pdf(document))).pages[0].extract_text(visitor_text=merken)
    x = [next(x for text, x in positionen if text.startswith(k)) for k in ("Es wird", "1. Die", "1. an die")]
    assert x[0] < x[1] < x[2]
    assert 15 < x[1] - x[0] < 21 and 15 < x[2] - x[1] < 21  # 0.63 cm ≈ 17.9 pt each


def test_a_page_break_before_text_comes_before_it():
    document = docx.Document()
    document.add_paragraph("Seite eins")
    absatz = document.add_paragraph()
    absatz.add_run().add_break(docx.enum.text.WD_BREAK.PAGE)
    absatz.add_run("Anlage K 1: Mietvertrag")
    davor = document.add_paragraph("Anlagenverzeichnis")
    davor.paragraph_format.page_break_before = True
    seiten = _seiten(document)
    assert "Anlage K 1" not in seiten[0]
    assert "Anlage K 1" in seiten[1] and "Anlagenverzeichnis" not in seiten[1]
    assert "Anlagenverzeichnis" in seiten[2]


def test_a_text_box_is_printed_once():
    box = (
        f'<w:r {W} xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
        'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
        'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
        'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:v="urn:schemas-microsoft-com:vml">'
        '<mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wp:anchor><a:graphic><a:graphicData><wps:wsp>'
        "<wps:txbx><w:txbxContent><w:p><w:r><w:t>Amtsgericht Tempelhof-Kreuzberg</w:t></w:r></w:p></w:txbxContent>"
        "</wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice><mc:Fallback><w:pict>"
        "<v:shape><v:textbox><w:txbxContent><w:p><w:r><w:t>Amtsgericht Tempelhof-Kreuzberg</w:t></w:r></w:p>"
        "</w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r>"
    )
    document = docx.Document()
    document.add_paragraph()._p.append(parse_xml(box))
    assert " ".join(_seiten(document)).count("Amtsgericht Tempelhof-Kreuzberg") == 1


def test_words_automatic_numbering_is_printed():
    """Anträge numbered by Word (style "List Number", numbering.xml) keep their numbers in the PDF."""
    document = docx.Document()
    document.add_paragraph("Es wird beantragt:")
    document.add_paragraph("Die Beklagte wird verurteilt, 1.200 € zu zahlen.", style="List Number")
    document.add_paragraph("Die Beklagte trägt die Kosten.", style="List Number")
    document.add_paragraph("Mit freundlichen Grüßen")
    zeilen = [z.strip() for z in _seiten(document)[0].splitlines()]
    assert "1. Die Beklagte wird verurteilt, 1.200 € zu zahlen." in zeilen
    assert "2. Die Beklagte trägt die Kosten." in zeilen
    assert "Mit freundlichen Grüßen" in zeilen  # not numbered


def test_a_picture_in_the_text_is_printed_in_its_size():
    """A scanned signature or stamp in the body (review 2026-12-03: it was left out of the PDF)."""

    from PIL import Image

    puffer = io.BytesIO()
    Image.new("RGB", (40, 20), "navy").save(puffer, format="PNG")
    document = docx.Document()
    document.add_paragraph("Mit freundlichen Grüßen")
    document.add_paragraph().add_run().add_picture(io.BytesIO(puffer.getvalue()), width=Cm(4))
    document.add_paragraph("Dr. Katrin Müller, Rechtsanwältin")
    seite = PdfReader(io.BytesIO(docx_zu_pdf(document))).pages[0]
    assert len(seite.images) == 1
    assert "Dr. Katrin Müller" in seite.extract_text()


def test_footnotes_follow_the_text_with_their_marks():
    fussnoten = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes {W}>'
        '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
        '<w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> BGH, Urteil vom '
        "29.03.2017 – VIII ZR 45/16.</w:t></w:r></w:p></w:footnote></w:footnotes>"
    )
    puffer = io.BytesIO()
    document = docx.Document()
    document.add_paragraph("Die Kündigung ist unwirksam.")
    document.save(puffer)
    word = mit_fussnoten(puffer.getvalue(), fussnoten, nach=b"unwirksam.</w:t></w:r>", verweis="1")
    text = _seiten(docx.Document(io.BytesIO(word)))[0]
    assert "Die Kündigung ist unwirksam.¹" in text
    assert "1 BGH, Urteil vom 29.03.2017 – VIII ZR 45/16." in text
