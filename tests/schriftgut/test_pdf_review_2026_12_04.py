"""PDF review of 2026-12-04: text after an indented paragraph goes back to the margin, a footer laid
out as a table, content controls, nested tables, Word's non-breaking hyphen and symbols print, a
heading does not end a page, and the file does not name the tool that wrote it."""

from __future__ import annotations

import io

import docx
from docx.oxml import parse_xml
from docx.shared import Cm
from pypdf import PdfReader

from schriftgut.pdf import docx_zu_pdf

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _positionen(document) -> list[tuple[str, float]]:
    positionen: list[tuple[str, float]] = []

    def merken(text, cm, tm, font, size):  # noqa: ANN001 - pypdf's visitor signature
        if text.strip():
            positionen.append((text.strip(), tm[4]))

    PdfReader(io.BytesIO(docx_zu_pdf(document))).pages[0].extract_text(visitor_text=merken)
    return positionen


def _text(document) -> str:
    return "\n".join(seite.extract_text() for seite in PdfReader(io.BytesIO(docx_zu_pdf(document))).pages)


def test_text_after_an_indented_paragraph_is_back_at_the_margin():
    """fpdf2's text columns start at the current x: after a list item every later paragraph kept its
    indent (the Begründung and the signature 6 mm right of the margin)."""
    document = docx.Document()
    document.add_paragraph("Es wird beantragt:")
    document.add_paragraph("1. Die Beklagte wird verurteilt, 1.200 € zu zahlen.").paragraph_format.left_indent = Cm(1.26)
    document.add_paragraph("Begründung")
    document.add_paragraph("Katrin Müller")
    x = dict(_positionen(document))
    assert abs(x["Begründung"] - x["Es wird beantragt:"]) < 1 and abs(x["Katrin Müller"] - x["Es wird beantragt:"]) < 1


def test_a_footer_laid_out_as_a_table_is_printed():
    document = docx.Document()
    document.add_paragraph("Sehr geehrte Damen und Herren,")
    tabelle = document.sections[0].footer.add_table(rows=1, cols=3, width=Cm(16))
    for zelle, text in zip(
        tabelle.rows[0].cells, ("Hauptstraße 1, 10115 Berlin", "IBAN DE02 1203 0000 0000 2020 51", "Tel. 030 123456"), strict=True
    ):
        zelle.text = text
    text = _text(document)
    assert "Hauptstraße 1, 10115 Berlin" in text and "IBAN DE02 1203 0000 0000 2020 51" in text and "Tel. 030 123456" in text


def test_content_controls_nested_tables_hyphens_and_symbols_print():
    document = docx.Document()
    body = document.element.body
    sect = body[-1]
    for xml in (
        f"<w:p {W}><w:r><w:t>Müller</w:t></w:r><w:r><w:noBreakHyphen/><w:t>Lüdenscheidt</w:t></w:r>"
        f'<w:r><w:sym w:font="Symbol" w:char="F0B7"/><w:t xml:space="preserve"> Punkt</w:t></w:r></w:p>',
        f"<w:sdt {W}><w:sdtContent><w:p><w:r><w:t>Absatz im Steuerelement</w:t></w:r></w:p></w:sdtContent></w:sdt>",
        f"<w:tbl {W}><w:tr><w:tc><w:tbl><w:tr><w:tc><w:p><w:r><w:t>Verschachtelt</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
        "<w:p/></w:tc><w:tc><w:sdt><w:sdtContent><w:p><w:r><w:t>Steuerelement in Zelle</w:t></w:r></w:p></w:sdtContent>"
        "</w:sdt></w:tc></w:tr></w:tbl>",
    ):
        sect.addprevious(parse_xml(xml))
    text = _text(document)
    assert "Müller-Lüdenscheidt" in text and "• Punkt" in text
    assert "Absatz im Steuerelement" in text and "Verschachtelt" in text and "Steuerelement in Zelle" in text


def test_a_heading_does_not_end_a_page_and_the_file_names_no_tool():
    document = docx.Document()
    for index in range(200):
        if index and index % 9 == 0:
            document.add_heading(f"Abschnitt {index // 9}", level=2)
        document.add_paragraph(f"Zeile {index} der Begründung.")
    reader = PdfReader(io.BytesIO(docx_zu_pdf(document)))
    for seite in reader.pages:
        zeilen = [z for z in seite.extract_text().splitlines() if z.strip()]
        assert not zeilen[-1].startswith("Abschnitt"), zeilen[-3:]
    assert "Helena" not in str(reader.metadata or {})


def test_word_lists_are_numbered_as_word_numbers_them():
    """Word counts per list definition: another instance of the same list continues its numbers,
    unless it restarts a level (startOverride). The PDF restarted every instance at 1 and ignored
    the restart ("Antrag 5" printed as "1.")."""
    from docx.oxml.ns import qn

    document = docx.Document()
    numbering = document.part.numbering_part.element
    stil = document.styles["List Number"].element
    num_id = stil.find(f"{qn('w:pPr')}/{qn('w:numPr')}/{qn('w:numId')}").get(qn("w:val"))
    abstract = next(n for n in numbering.iterchildren(qn("w:num")) if n.get(qn("w:numId")) == num_id).find(qn("w:abstractNumId"))
    abstract_id = abstract.get(qn("w:val"))
    numbering.append(parse_xml(f'<w:num {W} w:numId="901"><w:abstractNumId w:val="{abstract_id}"/></w:num>'))
    numbering.append(
        parse_xml(
            f'<w:num {W} w:numId="902"><w:abstractNumId w:val="{abstract_id}"/>'
            '<w:lvlOverride w:ilvl="0"><w:startOverride w:val="5"/></w:lvlOverride></w:num>'
        )
    )

    def nummeriert(text: str, instanz: str) -> None:
        absatz = document.add_paragraph(text)
        absatz._p.get_or_add_pPr().append(parse_xml(f'<w:numPr {W}><w:ilvl w:val="0"/><w:numId w:val="{instanz}"/></w:numPr>'))

    document.add_paragraph("Erstens", style="List Number")
    document.add_paragraph("Zweitens", style="List Number")
    document.add_paragraph("Zwischentext")
    nummeriert("Drittens", "901")
    nummeriert("Antrag fünf", "902")
    nummeriert("Antrag sechs", "902")
    zeilen = [z.strip() for z in _text(document).splitlines()]
    assert {"1. Erstens", "2. Zweitens", "3. Drittens", "5. Antrag fünf", "6. Antrag sechs"} <= set(zeilen), zeilen
