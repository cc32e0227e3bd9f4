"""Markdown in Word: the same parse as the screen (helena.markdown), so what the preview shows is
what the Word file and its PDF show - nested and numbered lists, quotes, code, links, escapes,
aligned table columns."""

from __future__ import annotations

import io
from typing import Any

import docx
import pytest
from docx.enum.text import WD_ALIGN_PARAGRAPH

from helena.markdown import render_markdown
from schriftgut.services import schriftstueck_rendern
from schriftgut.vorlagen import markdown_absaetze

from .helpers import akte_mit_parteien, kanzlei, pdf_text


def _word(markdown: str) -> docx.document.Document:
    document = docx.Document()
    markdown_absaetze(document, markdown)
    return document


def _absaetze(document: docx.document.Document) -> list[str]:
    return [p.text for p in document.paragraphs]


def test_numbered_list_keeps_its_first_number_and_nested_items_are_indented():
    document = _word("3. Der Beklagte zahlt.\n4. Er trägt die Kosten:\n    - Gericht\n    - Anwalt\n\nEnde.")

    assert _absaetze(document) == ["3. Der Beklagte zahlt.", "4. Er trägt die Kosten:", "• Gericht", "• Anwalt", "Ende."]
    einzug = [p.paragraph_format.left_indent for p in document.paragraphs]
    assert einzug[2] > einzug[1] > (einzug[4] or 0)
    assert '<ol start="3">' in render_markdown("3. a\n4. b")  # the preview counts the same way


def test_links_quotes_code_and_escapes_read_on_paper_as_on_screen():
    document = _word(
        "Siehe [BGH, Urteil](https://juris.example/bgh) und <https://dejure.org>.\n\n"
        "> Der Mieter **muss** zahlen.\n\n"
        "```\nZeile 1\n  Zeile 2\n```\n\n"
        "Sternchen \\*bleiben\\* und `§ 573 BGB` ist Code."
    )

    texte = _absaetze(document)
    assert texte[0] == "Siehe BGH, Urteil (https://juris.example/bgh) und https://dejure.org."
    zitat = document.paragraphs[1]
    assert zitat.text == "Der Mieter muss zahlen." and zitat.paragraph_format.left_indent
    assert all(run.italic for run in zitat.runs) and [r.text for r in zitat.runs if r.bold] == ["muss"]
    code = document.paragraphs[2]
    assert code.text == "Zeile 1\n  Zeile 2" and code.runs[0].font.name == "Courier New"
    assert texte[3] == "Sternchen *bleiben* und § 573 BGB ist Code."
    assert [r.font.name for r in document.paragraphs[3].runs if r.text == "§ 573 BGB"] == ["Courier New"]


def test_a_loose_list_and_a_heading_and_a_right_aligned_amount_column():
    document = _word(
        "## Forderung\n\n- erster Posten\n\n- zweiter Posten\n\n| Posten | Betrag |\n|---|---:|\n| Miete | 1.200,00 € |"
    )

    assert _absaetze(document) == ["Forderung", "• erster Posten", "• zweiter Posten"]
    assert document.paragraphs[0].style.name == "Heading 2" and document.paragraphs[0].runs[0].bold
    tabelle = document.tables[0]
    assert [c.text for c in tabelle.rows[1].cells] == ["Miete", "1.200,00 €"]
    assert tabelle.cell(1, 1).paragraphs[0].alignment == WD_ALIGN_PARAGRAPH.RIGHT
    assert tabelle.cell(1, 0).paragraphs[0].alignment is None


def test_html_in_markdown_never_reaches_the_file_as_markup():
    document = _word('Text <script>alert(1)</script> und <b onclick="x">fett</b>.\n\n<div>Block</div>')

    alles = "\n".join(_absaetze(document))
    assert "<" not in alles and "alert" not in alles and "onclick" not in alles
    assert "fett" in alles and "Block" in alles


@pytest.mark.django_db
def test_a_rendered_letter_shows_the_nested_list_in_word_and_pdf():
    kanzlei()
    akte = akte_mit_parteien()
    markdown = "Wir beantragen:\n\n1. Der Beklagte wird verurteilt,\n    - 1.200 € zu zahlen,\n2. die Kosten zu tragen."
    schriftstueck = schriftstueck_rendern(akte=akte, titel="Klage", markdown=markdown)

    texte = [p.text for p in docx.Document(io.BytesIO(schriftstueck.docx)).paragraphs]
    assert "1. Der Beklagte wird verurteilt," in texte and "• 1.200 € zu zahlen," in texte
    assert "2. die Kosten zu tragen." in texte
    assert "2. die Kosten zu tragen." in pdf_text(schriftstueck.pdf())


def test_non_breaking_spaces_stay_in_word():
    """ "§ 573 Abs. 2 Nr. 1 BGB" and "1.200 €" with non-breaking spaces never break apart (review
    2026-12-03: every NBSP became a plain space)."""
    text = "Gemäß §\u00a0573 Abs.\u00a02 Nr.\u00a01 BGB und 1.200\u00a0€   mit  Leerraum."
    (absatz,) = _absaetze(_word(text))
    assert absatz == "Gemäß §\u00a0573 Abs.\u00a02 Nr.\u00a01 BGB und 1.200\u00a0€ mit Leerraum."


def _mit_hausvorlage(vorlage: docx.document.Document) -> tuple[Any, Any, str]:
    """A letter rendered on `vorlage` as the firm's own template; its Akte and the text of the
    saved Word file's header parts."""
    import zipfile

    from django.core.files.uploadedfile import SimpleUploadedFile

    from akten.models import DokumentVorlage
    from schriftgut.services import vorlage_waehlen

    kanzlei()
    akte = akte_mit_parteien()
    puffer = io.BytesIO()
    vorlage.save(puffer)
    DokumentVorlage.objects.create(name="Hausbrief", datei=SimpleUploadedFile("h.docx", puffer.getvalue()))
    schriftstueck = schriftstueck_rendern(
        akte=akte, titel="Schreiben", markdown="Text.", vorlage=vorlage_waehlen("Hausbrief").als_payload()
    )
    with zipfile.ZipFile(io.BytesIO(schriftstueck.docx)) as archiv:
        koepfe = "".join(archiv.read(n).decode() for n in archiv.namelist() if n.startswith("word/header"))
    return akte, schriftstueck, koepfe


@pytest.mark.django_db
def test_a_firm_template_with_its_own_header_gets_filled_header_and_page_line_in_word_and_pdf():
    """The template's header placeholders are filled in Word and PDF, and Helena's „Unser Zeichen …
    Seite X von Y“ is in the Word file (review 2026-12-03: it went into a part never saved, and the
    PDF printed „{{ aktenzeichen }}“)."""
    import re

    vorlage = docx.Document()
    vorlage.sections[0].header.paragraphs[0].text = "Kanzlei Müller & Becker · Az. {{ aktenzeichen }}"
    vorlage.add_paragraph("{{p freitext }}")
    akte, schriftstueck, koepfe = _mit_hausvorlage(vorlage)
    kopf = " ".join(re.findall(r"<w:t[^>]*>([^<]*)</w:t>", koepfe))
    assert f"Az. {akte.aktenzeichen}" in kopf and "Unser Zeichen" in kopf
    pdf = pdf_text(schriftstueck.pdf())
    assert "{{" not in pdf and f"Az. {akte.aktenzeichen}" in pdf


@pytest.mark.django_db
def test_a_second_section_sharing_the_header_gets_no_second_page_line():
    from docx.enum.section import WD_SECTION

    vorlage = docx.Document()
    vorlage.sections[0].header.paragraphs[0].text = "Kanzlei Müller & Becker"
    vorlage.add_paragraph("{{p freitext }}")
    vorlage.add_section(WD_SECTION.NEW_PAGE)  # linked to the first section's header, as Word does
    vorlage.add_paragraph("Anlagen")
    _, _, koepfe = _mit_hausvorlage(vorlage)
    assert koepfe.count("Unser Zeichen") == 1


@pytest.mark.django_db
def test_the_signature_carries_the_lawyers_own_title_never_a_guess():
    from schriftgut.platzhalter import kontext_fuer_akte

    kanzlei()
    akte = akte_mit_parteien()
    assert (
        kontext_fuer_akte(akte=akte, profil=None, betreff="Kündigung").werte["unterschrift"] == "Katrin Müller"
    )  # no title given: none guessed
    akte.anwalt.berufsbezeichnung = "Rechtsanwältin und Fachanwältin für Mietrecht"
    akte.anwalt.save()
    akte.refresh_from_db()
    assert (
        kontext_fuer_akte(akte=akte, profil=None, betreff="Kündigung").werte["unterschrift"]
        == "Katrin Müller\nRechtsanwältin und Fachanwältin für Mietrecht"
    )


def test_plain_text_documents_keep_their_lines_and_characters():
    """A .txt file set on the letterhead shows as written: an address block keeps its lines, "*"
    lines stay lines, "<Anlage K 1>" and "&" stay text (review 2026-12-03: it was read as Markdown)."""
    from schriftgut.api import text_als_markdown

    text = (
        "Müller GmbH\nHauptstraße 5\n10827 Berlin\n\nAnbei:\n* Mietvertrag\n* Kündigung\n\n"
        "Vorgelegt als <Anlage K 1> & K_2 [Kopie]. 1.200 €"
    )
    absaetze = [a for a in _absaetze(_word(text_als_markdown(text))) if a.strip()]
    assert absaetze == [
        "Müller GmbH\nHauptstraße 5\n10827 Berlin",
        "Anbei:\n* Mietvertrag\n* Kündigung",
        "Vorgelegt als <Anlage K 1> & K_2 [Kopie]. 1.200 €",
    ]


def test_placeholders_and_comparisons_in_angle_brackets_stay_text_on_screen_and_in_word():
    """Before, the sanitiser took "<Anrede>" for a tag and dropped it: the draft read "Sehr geehrte ,"
    in the preview and in the Word file."""
    markdown = "Sehr geehrte <Anrede>,\n\nStreitwert < 5.000 €, Termin am <Datum einsetzen>.\n\n`a<b`"
    html = render_markdown(markdown)
    assert "&lt;Anrede&gt;" in html and "&lt; 5.000 €" in html and "&lt;Datum einsetzen&gt;" in html
    assert "<code>a&lt;b</code>" in html
    assert _absaetze(_word(markdown)) == ["Sehr geehrte <Anrede>,", "Streitwert < 5.000 €, Termin am <Datum einsetzen>.", "a<b"]


def test_placeholders_named_like_html_elements_stay_text_and_comments_stay_hidden():
    """Review: "<Form der Zustellung>", "<Title>" and "<Option A>" were read as the HTML elements
    form, title and option and dropped. HTML is written in lower case; a capitalised name is a
    placeholder."""
    html = render_markdown("<Form der Zustellung> wählen, <Title>, <Option A>. <!-- intern --> <SCRIPT>x</SCRIPT>")
    assert "&lt;Form der Zustellung&gt;" in html and "&lt;Title&gt;" in html and "&lt;Option A&gt;" in html
    assert "intern" not in html and "<script" not in html.lower()


def test_a_single_line_break_stays_a_line_break_and_indented_text_stays_text():
    """Review 2026-12-04: an address, a signature block and "a) … b) …" ran together on one line in
    the preview, Word and the PDF (Markdown joins lines); an Antrag indented by four spaces came out
    as a Courier code block."""
    markdown = (
        "Herrn\nMax Müller\nHauptstraße 1\n10115 Berlin\n\n    Die Klage wird abgewiesen.\n\n"
        "Mit freundlichen Grüßen\nDr. Katrin Müller"
    )
    html = render_markdown(markdown)
    assert "Herrn<br>" in html and "<pre>" not in html and "<code>" not in html
    gelesen = _word(markdown)
    texte = [p.text for p in gelesen.paragraphs if p.text.strip()]
    assert texte[0].splitlines() == ["Herrn", "Max Müller", "Hauptstraße 1", "10115 Berlin"]
    assert "Die Klage wird abgewiesen." in texte
    assert all(run.font.name != "Courier New" for p in gelesen.paragraphs for run in p.runs)


def test_a_long_table_keeps_every_cell_in_its_row_and_column_without_the_quadratic_cell_lookup(monkeypatch):
    """A draft with a Markdown table of 3,000 rows took minutes of CPU to render (and tied up a
    server worker): python-docx's `Table.cell(r, c)` walks the whole table on every call."""
    from docx.table import Table

    calls = []
    original = Table.cell
    monkeypatch.setattr(Table, "cell", lambda self, r, c: calls.append((r, c)) or original(self, r, c))
    rows = 400
    markdown = "| Nr. | Posten | Betrag |\n|---|---|---:|\n" + "\n".join(f"| {i} | Posten {i} | {i},00 € |" for i in range(rows))
    (tabelle,) = _word(markdown).tables
    assert len(tabelle.rows) == rows + 1
    assert [c.text for c in tabelle.rows[1].cells] == ["0", "Posten 0", "0,00 €"]
    assert [c.text for c in tabelle.rows[rows].cells] == [str(rows - 1), f"Posten {rows - 1}", f"{rows - 1},00 €"]
    assert tabelle.rows[rows].cells[2].paragraphs[0].alignment == WD_ALIGN_PARAGRAPH.RIGHT
    assert calls == []
