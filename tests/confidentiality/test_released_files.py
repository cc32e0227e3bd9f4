"""A released Word or PDF file reaches the Mandantin without what it says about its making: Word
comments, tracked changes (with the deleted text), author, company; PDF metadata, sticky notes,
embedded files. Staff download the file as it was uploaded (the Akte's record)."""

from __future__ import annotations

import io
import zipfile

import docx
import pytest
from django.test import Client
from django.urls import reverse
from docx.oxml.ns import qn
from lxml import etree
from pypdf import PdfReader, PdfWriter
from pypdf.generic import ArrayObject, DictionaryObject, FloatObject, NameObject, TextStringObject

from akten import services as akten_services
from akten.metadaten import ERR_NICHT_BEREITSTELLBAR
from tests.confidentiality.world import build_world

pytestmark = pytest.mark.django_db

GEHEIM = ("Dr. Katrin Privat", "Mandantin lügt", "Vergleich bis 9000", "Sekretariat Schulz", "Privat GmbH")


def _word_mit_vorgeschichte() -> bytes:
    """A letter the lawyer wrote with a comment, a tracked deletion and an insertion still in it."""
    document = docx.Document()
    absatz = document.add_paragraph("Sehr geehrte Frau Mandantin,")
    document.add_comment(absatz.runs, text="Mandantin lügt, vorsichtig formulieren", author="Dr. Katrin Privat")
    zweiter = document.add_paragraph("wir schlagen vor: ")
    for tag, text in (("w:del", "Vergleich bis 9000 €"), ("w:ins", "ein Gespräch")):
        mark = etree.SubElement(zweiter._p, qn(tag))
        mark.set(qn("w:id"), "7" if tag == "w:del" else "8")
        mark.set(qn("w:author"), "Sekretariat Schulz")
        run = etree.SubElement(mark, qn("w:r"))
        text_el = etree.SubElement(run, qn("w:delText" if tag == "w:del" else "w:t"))
        text_el.text = text
    document.core_properties.author = "Dr. Katrin Privat"
    document.core_properties.comments = "Vergleich bis 9000 nicht nennen"
    buffer = io.BytesIO()
    document.save(buffer)
    quelle, ziel = io.BytesIO(buffer.getvalue()), io.BytesIO()
    with zipfile.ZipFile(quelle) as alt, zipfile.ZipFile(ziel, "w", zipfile.ZIP_DEFLATED) as neu:
        for info in alt.infolist():
            inhalt = alt.read(info.filename)
            if info.filename == "docProps/app.xml":
                inhalt = inhalt.replace(b"</Properties>", b"<Company>Privat GmbH</Company></Properties>")
            neu.writestr(info, inhalt)
    return ziel.getvalue()


def _annotation(subtype: str, rect: tuple[int, ...], text: str, autor: str) -> DictionaryObject:
    """A PDF annotation with its note text and author, as PDF readers write them."""
    return DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Annot"),
            NameObject("/Subtype"): NameObject(subtype),
            NameObject("/Rect"): ArrayObject([FloatObject(value) for value in rect]),
            NameObject("/Contents"): TextStringObject(text),
            NameObject("/T"): TextStringObject(autor),
        }
    )


def _pdf_mit_vorgeschichte() -> bytes:
    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    writer.add_metadata({"/Author": "Dr. Katrin Privat", "/Subject": "Vergleich bis 9000", "/Title": "Mandantin lügt"})
    notiz = _annotation("/Text", (10, 10, 30, 30), "Mandantin lügt", "Dr. Katrin Privat")
    markierung = _annotation("/Highlight", (50, 50, 90, 60), "Vergleich bis 9000", "Sekretariat Schulz")
    writer.pages[0][NameObject("/Annots")] = ArrayObject([writer._add_object(notiz), writer._add_object(markierung)])
    writer.add_attachment("intern.txt", b"Privat GmbH zahlt")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def _released(world, filename: str, content: bytes):
    return akten_services.dokument_create(
        akte=world.akte, by=world.lawyer, name="Schreiben an Sie", filename=filename, content=content, mandant_sichtbar=True
    )


def _alle_teile(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as archiv:
        return "\n".join(archiv.read(name).decode("utf-8", errors="replace") for name in archiv.namelist())


def _pdf_alles(data: bytes) -> str:
    reader = PdfReader(io.BytesIO(data))
    teile = [str(reader.metadata or {}), str(reader.xmp_metadata or ""), str(reader.attachments)]
    for seite in reader.pages:
        for annotation in seite.get("/Annots") or []:
            teile.append(str(annotation.get_object()))
    return "\n".join(teile)


def _download(user, dokument, url_name: str = "api-dokument-download", **kwargs):
    client = Client()
    client.force_login(user)
    args = [dokument.pk, *kwargs.values()]
    return client.get(reverse(url_name, args=args))


def test_a_released_word_file_reaches_the_mandantin_without_comments_changes_and_authors():
    world = build_world()
    original = _word_mit_vorgeschichte()
    assert all(geheim in _alle_teile(original) for geheim in GEHEIM)  # the file holds them
    dokument = _released(world, "brief.docx", original)

    antwort = _download(world.mandantin, dokument)
    assert antwort.status_code == 200
    alles = _alle_teile(antwort.content)
    for geheim in GEHEIM:
        assert geheim not in alles, geheim
    gelesen = docx.Document(io.BytesIO(antwort.content))
    text = "\n".join(p.text for p in gelesen.paragraphs)
    assert "Sehr geehrte Frau Mandantin," in text and "ein Gespräch" in alles
    assert gelesen.core_properties.title == "Schreiben an Sie"
    # Also as PDF through the Word/PDF endpoint: rendered from the cleaned file.
    als_word = _download(world.mandantin, dokument, "api-dokument-datei", ausgabe="docx")
    assert als_word.status_code == 200 and "Mandantin lügt" not in _alle_teile(als_word.content)

    # Staff keep the record as uploaded.
    intern = _download(world.lawyer, dokument)
    assert intern.status_code == 200 and intern.content == original


def test_a_released_pdf_reaches_the_mandantin_without_metadata_notes_and_attachments():
    world = build_world()
    original = _pdf_mit_vorgeschichte()
    assert all(geheim in _pdf_alles(original) for geheim in GEHEIM[:4])
    dokument = _released(world, "brief.pdf", original)

    antwort = _download(world.mandantin, dokument)
    assert antwort.status_code == 200
    alles = _pdf_alles(antwort.content)
    for geheim in GEHEIM:
        assert geheim not in alles, geheim
    reader = PdfReader(io.BytesIO(antwort.content))
    assert reader.metadata.title == "Schreiben an Sie" and len(reader.pages) == 1
    annotationen = [a.get_object()["/Subtype"] for a in reader.pages[0]["/Annots"]]
    assert annotationen == ["/Highlight"]  # the highlight stays visible, without its note and author
    assert _download(world.lawyer, dokument).content == original


def test_a_released_file_that_cannot_be_cleaned_is_refused_not_sent_as_is():
    world = build_world()
    kaputt = b"%PDF-1.7\n" + b"Mandantin luegt " * 50  # no readable PDF structure
    dokument = _released(world, "brief.pdf", kaputt)

    antwort = _download(world.mandantin, dokument)
    assert antwort.status_code == 409
    assert antwort.json() == {"detail": ERR_NICHT_BEREITSTELLBAR}
    assert _download(world.lawyer, dokument).content == kaputt


def test_a_released_photo_reaches_the_mandantin_without_exif_and_gps():
    from PIL import Image

    world = build_world()
    exif = Image.Exif()
    exif[0x013B] = "Dr. Katrin Privat"  # Artist
    exif[0x010E] = "Mandantin lügt"  # ImageDescription
    exif[0x0112] = 6  # Orientation: rotate 90° to display
    exif.get_ifd(0x8825)[2] = (52.0, 31.0, 12.0)  # GPS latitude
    puffer = io.BytesIO()
    Image.new("RGB", (40, 20), (200, 10, 10)).save(puffer, format="JPEG", exif=exif)
    original = puffer.getvalue()
    assert b"Dr. Katrin Privat" in original
    dokument = _released(world, "schaden.jpg", original)

    antwort = _download(world.mandantin, dokument)

    assert antwort.status_code == 200
    assert b"Katrin" not in antwort.content and "lügt".encode() not in antwort.content
    bild = Image.open(io.BytesIO(antwort.content))
    assert not bild.getexif() and bild.format == "JPEG"
    assert bild.size == (20, 40)  # the orientation is applied to the pixels, not lost
    assert _download(world.lawyer, dokument).content == original


def test_a_released_multi_page_scan_keeps_every_page_without_its_metadata():
    from PIL import Image

    world = build_world()
    seiten = [Image.new("L", (30, 40), farbe) for farbe in (0, 128, 255)]
    puffer = io.BytesIO()
    seiten[0].save(puffer, format="TIFF", save_all=True, append_images=seiten[1:], tiffinfo={270: "Mandantin luegt"})
    original = puffer.getvalue()
    assert b"Mandantin luegt" in original
    dokument = _released(world, "fax.tif", original)

    antwort = _download(world.mandantin, dokument)

    assert antwort.status_code == 200 and b"Mandantin luegt" not in antwort.content
    scan = Image.open(io.BytesIO(antwort.content))
    assert scan.n_frames == 3
    scan.seek(2)
    assert scan.getpixel((0, 0)) == 255
