"""A paragraph Word hides entirely (its text and its paragraph mark hidden, directly or through its
style) takes no line in the PDF: the text around it stands as if it were not there. A paragraph
whose text is hidden but whose mark is not stays an empty line, as in Word."""

from __future__ import annotations

import io

import docx
import pytest
from django.test import Client
from django.urls import reverse
from docx.enum.style import WD_STYLE_TYPE
from docx.oxml.ns import qn
from lxml import etree
from pypdf import PdfReader

from akten import services as akten_services
from tests.confidentiality.world import build_world

pytestmark = pytest.mark.django_db

ZEILEN = ("Erster Absatz.", "Zweiter Absatz.", "Dritter Absatz.", "Vierter Absatz.")


def _speichern(document) -> bytes:
    puffer = io.BytesIO()
    document.save(puffer)
    return puffer.getvalue()


def _mit_versteckten_absaetzen() -> bytes:
    document = docx.Document()
    notiz = document.styles.add_style("Interne Notiz", WD_STYLE_TYPE.PARAGRAPH)
    notiz.font.hidden = True
    document.add_paragraph(ZEILEN[0])
    direkt = document.add_paragraph()
    direkt.add_run("Notiz: Frist intern auf Freitag gelegt.").font.hidden = True
    etree.SubElement(etree.SubElement(direkt._p.get_or_add_pPr(), qn("w:rPr")), qn("w:vanish"))
    document.add_paragraph(ZEILEN[1])
    document.add_paragraph("Notiz: Mandantin nicht zurueckrufen.", style="Interne Notiz")  # mark hidden by its style
    document.add_paragraph(ZEILEN[2])
    document.add_paragraph().add_run("Nur der Text versteckt.").font.hidden = True  # the mark shows: an empty line
    document.add_paragraph(ZEILEN[3])
    return _speichern(document)


def _ohne_versteckte_absaetze() -> bytes:
    document = docx.Document()
    document.add_paragraph(ZEILEN[0])
    document.add_paragraph(ZEILEN[1])
    document.add_paragraph(ZEILEN[2])
    document.add_paragraph()
    document.add_paragraph(ZEILEN[3])
    return _speichern(document)


def _zeilen_hoehen(pdf: bytes) -> dict[str, float]:
    """The text of each line on page 1 → its baseline (pt from the bottom)."""
    hoehen: dict[str, float] = {}

    def merken(text, cm, tm, font, size):  # noqa: ANN001 - pypdf's visitor signature
        if text.strip():
            hoehen[text.strip()] = round(tm[5] * cm[3] + cm[5], 1)

    PdfReader(io.BytesIO(pdf)).pages[0].extract_text(visitor_text=merken)
    return hoehen


def _pdf_der_kanzlei(world, inhalt: bytes) -> bytes:
    dokument = akten_services.dokument_create(
        akte=world.akte, by=world.lawyer, name="Schreiben", filename="schreiben.docx", content=inhalt
    )
    client = Client()
    client.force_login(world.lawyer)
    antwort = client.get(reverse("api-dokument-datei", args=[dokument.pk, "pdf"]))
    assert antwort.status_code == 200
    return antwort.content


def test_a_hidden_paragraph_leaves_no_empty_line_in_the_pdf():
    world = build_world()
    mit = _zeilen_hoehen(_pdf_der_kanzlei(world, _mit_versteckten_absaetzen()))
    ohne = _zeilen_hoehen(_pdf_der_kanzlei(world, _ohne_versteckte_absaetze()))

    assert not [text for text in mit if "Notiz" in text or "versteckt" in text]
    assert [mit[zeile] for zeile in ZEILEN] == [ohne[zeile] for zeile in ZEILEN]
    # control: the lines really are apart by a paragraph each, and the empty paragraph takes room
    abstand = ohne[ZEILEN[0]] - ohne[ZEILEN[1]]
    assert abstand > 0 and ohne[ZEILEN[2]] - ohne[ZEILEN[3]] > abstand
