"""A released Word or PDF file reaches the Mandantin without what it says about its making: Word
comments, tracked changes (with the deleted text), author, company; PDF metadata, sticky notes,
embedded files. Staff download the file as it was uploaded (the Akte's record). A file is cleaned by
what its bytes are, not by its name; a kind that is not cleaned (Excel, PowerPoint, OpenDocument …)
cannot be released at all and never reaches her."""

from __future__ import annotations

import io
import zipfile

import docx
import pytest
from asgiref.sync import async_to_sync
from django.test import Client
from django.urls import reverse
from docx.oxml.ns import qn
from lxml import etree
from pypdf import PdfReader, PdfWriter
from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, FloatObject, NameObject, TextStringObject

from agent.tools.base import ToolContext
from agent.tools.executor import toolbox_for
from akten import services as akten_services
from akten.metadaten import ERR_NICHT_BEREITSTELLBAR, GRUND_FORMAT
from akten.models import Dokument, Role
from tests.confidentiality.world import build_world
from tests.factories import UserFactory
from tests.schriftgut.helpers import mit_fussnoten

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


def test_the_mandantin_learns_no_size_of_the_file_before_it_was_cleaned(settings):
    """`groesse` was the stored original's: 37 KB where her download had 33 KB, telling her that, and
    how much, was taken out. API and Helena's document tools leave the size out for her."""
    world = build_world()
    dokument = _released(world, "brief.docx", _word_mit_vorgeschichte())
    mandantin, anwalt = Client(), Client()
    mandantin.force_login(world.mandantin)
    anwalt.force_login(world.lawyer)

    detail = mandantin.get(reverse("api-dokument-detail", args=[dokument.pk])).json()
    liste = mandantin.get(reverse("api-dokument-list")).json()
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True  # the tool reads this test's transaction
    box = toolbox_for(ToolContext(user=world.mandantin, akte=world.akte, run=None))
    werkzeug = async_to_sync(box.execute)("read_dokumente", {"akte": world.akte.aktenzeichen}, call_id="c1")

    assert detail["name"] == dokument.name and "groesse" not in detail
    assert all("groesse" not in eintrag for eintrag in liste["results"])
    assert werkzeug.ok and werkzeug.data["dokumente"] and all("groesse_bytes" not in d for d in werkzeug.data["dokumente"])
    assert anwalt.get(reverse("api-dokument-detail", args=[dokument.pk])).json()["groesse"] == dokument.groesse


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
    with pytest.raises(ValueError, match="beschädigt oder verschlüsselt"):  # refused at release
        _released(world, "brief.pdf", kaputt)
    dokument = _released_before_the_check(world, "brief.pdf", kaputt)

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


def _excel_mit_kommentar() -> bytes:
    """An .xlsx as Excel writes it, with its author and a cell comment (the parts that matter)."""
    puffer = io.BytesIO()
    with zipfile.ZipFile(puffer, "w", zipfile.ZIP_DEFLATED) as archiv:
        archiv.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        archiv.writestr("xl/workbook.xml", '<?xml version="1.0"?><workbook/>')
        archiv.writestr("xl/worksheets/sheet1.xml", '<?xml version="1.0"?><worksheet>12000</worksheet>')
        archiv.writestr("xl/comments1.xml", "<comments><text>Mandantin lügt</text></comments>")
        archiv.writestr("docProps/core.xml", "<coreProperties><creator>Dr. Katrin Privat</creator></coreProperties>")
    return puffer.getvalue()


def _stored_before_the_checks(world, filename: str, content: bytes, name: str = "Schreiben an Sie") -> Dokument:
    """A file stored before uploads were checked for their kind (akten.services.dokument_datei_pruefen),
    with the type the upload then took from its name."""
    import mimetypes

    from django.core.files.base import ContentFile

    mime_type = mimetypes.guess_type(filename)[0] or "application/octet-stream"
    dokument = Dokument(akte=world.akte, name=name, mime_type=mime_type, groesse=len(content), erstellt_von=world.lawyer)
    dokument.datei.save(filename, ContentFile(content))
    return dokument


def _released_before_the_check(world, filename: str, content: bytes) -> Dokument:
    """A file released before releases were checked (or by a path that skipped the check)."""
    dokument = _stored_before_the_checks(world, filename, content)
    Dokument.objects.filter(pk=dokument.pk).update(mandant_sichtbar=True)
    return dokument


def test_a_word_file_uploaded_under_another_name_is_cleaned_by_what_it_is():
    world = build_world()
    original = _word_mit_vorgeschichte()
    with pytest.raises(ValueError, match="ihr Inhalt ist aber eine Word-Datei"):
        _released(world, "brief.txt", original)  # the name says text, the bytes say Word: refused now
    dokument = _released_before_the_check(world, "brief.txt", original)  # stored before that rule
    assert dokument.mime_type == "text/plain"

    antwort = _download(world.mandantin, dokument)

    assert antwort.status_code == 200
    alles = _alle_teile(antwort.content)
    for geheim in GEHEIM:
        assert geheim not in alles, geheim
    assert "Sehr geehrte Frau Mandantin," in alles


def test_an_excel_file_cannot_be_released_and_a_released_one_never_reaches_her():
    world = build_world()
    original = _excel_mit_kommentar()
    client = Client()
    client.force_login(world.lawyer)
    upload = {"akte": world.akte.pk, "datei": _datei("forderung.xlsx", original)}

    ohne_titel = client.post(reverse("api-dokument-list"), {**upload, "mandant_sichtbar": "true"})
    assert ohne_titel.status_code == 400 and "Titel" in str(ohne_titel.json()["name"])  # the file name never reaches her
    upload["datei"] = _datei("forderung.xlsx", original)
    freigabe = client.post(reverse("api-dokument-list"), {**upload, "name": "Forderung", "mandant_sichtbar": "true"})

    assert freigabe.status_code == 400
    meldung = str(freigabe.json()["datei"])
    assert "„.xlsx“" in meldung and "als PDF" in meldung
    # Nor kept for the Akte without release: an Akte holds only the kinds Helena reads and can release.
    intern = client.post(reverse("api-dokument-list"), {**upload, "datei": _datei("forderung.xlsx", original)})
    assert intern.status_code == 400 and akten_services.ERLAUBTE_DATEIARTEN in str(intern.json()["datei"])
    assert not Dokument.objects.filter(akte=world.akte, name__in=("Forderung", "forderung.xlsx")).exists()

    frueher = _released_before_the_check(world, "forderung.xlsx", original)
    antwort = _download(world.mandantin, frueher)
    assert antwort.status_code == 409 and b"Katrin" not in antwort.content
    assert _download(world.lawyer, frueher).content == original


def test_a_new_version_of_a_released_document_must_be_releasable_too():
    world = build_world()
    dokument = _released(world, "brief.pdf", _pdf_mit_vorgeschichte())
    client = Client()
    client.force_login(world.lawyer)

    antwort = client.post(
        # an e-mail is a kind an Akte holds but never releases (its headers and attachments are not cleaned)
        reverse("api-dokument-versionen", args=[dokument.pk]),
        {"datei": _datei("brief.eml", b"From: k.mueller@kanzlei.example\r\nSubject: intern\r\n\r\nNur intern.")},
    )

    assert antwort.status_code == 400 and GRUND_FORMAT in antwort.json()["detail"]
    assert _download(world.mandantin, dokument).status_code == 200  # she still has the PDF


def test_releasing_in_the_admin_obeys_the_same_rule():
    world = build_world()
    admin = UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True)
    excel = _stored_before_the_checks(world, "forderung.xlsx", _excel_mit_kommentar(), name="Forderung")
    client = Client()
    client.force_login(admin)
    url = reverse("admin:akten_dokument_change", args=[excel.pk])
    formular = {
        "akte": world.akte.pk,
        "name": excel.name,
        "status": excel.status,
        "mandant_sichtbar": "on",
        "erstellt_von": world.lawyer.pk,
    }

    antwort = client.post(url, formular)

    assert antwort.status_code == 200 and GRUND_FORMAT in antwort.content.decode()
    excel.refresh_from_db()
    assert not excel.mandant_sichtbar
    assert client.get(reverse("admin:akten_dokument_add")).status_code == 403


def _datei(name: str, inhalt: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, inhalt, content_type="application/octet-stream")


def _foto_mit_exif() -> bytes:
    from PIL import Image

    exif = Image.Exif()
    exif[0x013B] = "Dr. Katrin Privat"  # Artist
    exif.get_ifd(0x8825)[2] = (52.0, 31.0, 12.0)  # GPS latitude
    puffer = io.BytesIO()
    Image.new("RGB", (40, 20), (200, 10, 10)).save(puffer, format="JPEG", exif=exif, comment=b"Mandantin luegt")
    return puffer.getvalue()


def test_a_photo_inside_a_released_word_file_loses_its_exif_and_embedded_files_block_the_release():
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    world = build_world()
    foto = _foto_mit_exif()
    document = docx.Document()
    document.add_paragraph("Das Foto vom Schaden:")
    document.add_picture(io.BytesIO(foto))
    puffer = io.BytesIO()
    document.save(puffer)
    original = puffer.getvalue()
    assert "Katrin" in _alle_teile(original)
    dokument = _released(world, "schaden.docx", original)

    antwort = _download(world.mandantin, dokument)

    assert antwort.status_code == 200
    assert "Katrin" not in _alle_teile(antwort.content) and "luegt" not in _alle_teile(antwort.content)
    with zipfile.ZipFile(io.BytesIO(antwort.content)) as archiv:
        bild = next(archiv.read(n) for n in archiv.namelist() if n.startswith("word/media/"))
    from PIL import Image

    assert Image.open(io.BytesIO(bild)).size == (40, 20)

    # A Word file with an embedded workbook: its authors and comments would travel inside it.
    document.part.relate_to(
        Part(
            PackURI("/word/embeddings/Tabelle1.xlsx"),
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            _excel_mit_kommentar(),
            document.part.package,
        ),
        RT.PACKAGE,
    )
    puffer = io.BytesIO()
    document.save(puffer)
    with pytest.raises(ValueError, match="eingebettete Dateien"):
        _released(world, "mit-tabelle.docx", puffer.getvalue())


def test_a_photo_inside_a_released_pdf_loses_its_exif_and_the_page_its_xmp():
    from fpdf import FPDF
    from PIL import Image

    world = build_world()
    pdf = FPDF()
    pdf.add_page()
    pdf.image(io.BytesIO(_foto_mit_exif()), x=10, y=10, w=40)
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(bytes(pdf.output()))))
    xmp = writer._add_object(DecodedStreamObject())
    xmp.set_data(b"<x:xmpmeta><dc:creator>Sekretariat Schulz</dc:creator></x:xmpmeta>")
    writer.pages[0][NameObject("/Metadata")] = xmp.indirect_reference
    puffer = io.BytesIO()
    writer.write(puffer)
    original = puffer.getvalue()
    assert b"Katrin" in original and b"Sekretariat Schulz" in original
    dokument = _released(world, "schaden.pdf", original)

    antwort = _download(world.mandantin, dokument)

    assert antwort.status_code == 200
    assert b"Katrin" not in antwort.content and b"Sekretariat Schulz" not in antwort.content
    seite = PdfReader(io.BytesIO(antwort.content)).pages[0]
    bilder = list(seite.images)
    assert len(bilder) == 1 and bilder[0].image.size == (40, 20)
    assert isinstance(bilder[0].image, Image.Image)


@pytest.mark.parametrize("progressive", [False, True])
def test_a_jpeg_loses_its_metadata_and_trailer_but_keeps_its_pixels_colours_and_orientation(progressive):
    from PIL import Image

    from akten.metadaten import jpeg_ohne_metadaten

    exif = Image.Exif()
    exif[0x013B] = "Dr. Katrin Privat"
    exif[0x0112] = 6  # shown turned by 90°
    exif.get_ifd(0x8825)[2] = (52.0, 31.0, 12.0)
    bild = Image.effect_mandelbrot((64, 48), (-2, -1.5, 1, 1.5), 50).convert("RGB")
    puffer = io.BytesIO()
    bild.save(puffer, "JPEG", exif=exif, progressive=progressive, comment=b"Mandantin luegt", icc_profile=b"ICC" * 8)
    original = puffer.getvalue() + b"Anhang vom Handy: Privat GmbH"

    sauber = jpeg_ohne_metadaten(original)

    assert b"Katrin" not in sauber and b"luegt" not in sauber and b"Privat GmbH" not in sauber
    gelesen, vorher = Image.open(io.BytesIO(sauber)), Image.open(io.BytesIO(original))
    assert dict(gelesen.getexif()) == {0x0112: 6} and gelesen.info["icc_profile"] == b"ICC" * 8
    assert gelesen.tobytes() == vorher.tobytes()  # the same picture, not compressed again


_FUSSNOTEN = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<w:footnotes xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
    '<w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> BGH, Urteil vom '
    "29.03.2017 – VIII ZR 45/16</w:t></w:r>"
    '<w:del w:id="5" w:author="RAin Dr. Privat" w:date="2026-11-30T10:00:00Z"><w:r><w:delText>; Mandantin hat '
    "selbst eingeräumt, die Miete nie gezahlt zu haben</w:delText></w:r></w:del>"
    '<w:commentRangeStart w:id="9"/><w:r><w:t xml:space="preserve"> Rn. 12</w:t></w:r><w:commentRangeEnd w:id="9"/>'
    '<w:r><w:commentReference w:id="9"/></w:r></w:p></w:footnote></w:footnotes>'
)


def _word_mit_fussnote() -> bytes:
    """A Word file whose footnote holds a colleague's tracked deletion and a comment anchor (a part
    python-docx keeps as bytes)."""
    puffer = io.BytesIO()
    docx.Document().save(puffer)
    return mit_fussnoten(puffer.getvalue(), _FUSSNOTEN)


def test_a_footnote_reaches_the_mandantin_without_tracked_changes_and_comment_anchors():
    world = build_world()
    original = _word_mit_fussnote()
    assert "RAin Dr. Privat" in _alle_teile(original)
    dokument = _released(world, "schriftsatz.docx", original)
    antwort = _download(world.mandantin, dokument)
    assert antwort.status_code == 200
    with zipfile.ZipFile(io.BytesIO(antwort.content)) as archiv:
        fussnoten = archiv.read("word/footnotes.xml").decode()
    for geheim in ("RAin Dr. Privat", "Miete nie gezahlt", "w:del ", "commentReference", "commentRangeStart"):
        assert geheim not in fussnoten, geheim
    assert "VIII ZR 45/16" in fussnoten and "Rn. 12" in fussnoten  # the footnote itself stays
