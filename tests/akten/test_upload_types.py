"""An Akte holds PDF, Word (.docx), text, Markdown and photos and scans (JPEG, PNG, TIFF, WebP),
each with content of the kind its name says; everything else is refused with a German message
naming the allowed kinds, on every path that stores a file (akten.services.dokument_datei_pruefen)."""

from __future__ import annotations

import io
import zipfile

import docx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from akten import services
from akten.extraction import DOCX_TYPE
from akten.models import AktenActivity, Dokument
from tests.factories import AkteFactory

pytestmark = pytest.mark.django_db

PDF_BYTES = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


def _docx() -> bytes:
    document = docx.Document()
    document.add_paragraph("Mietvertrag über die Wohnung")
    puffer = io.BytesIO()
    document.save(puffer)
    return puffer.getvalue()


def _zip(name: str, inhalt: str = "<x/>") -> bytes:
    puffer = io.BytesIO()
    with zipfile.ZipFile(puffer, "w") as archiv:
        archiv.writestr(name, inhalt)
    return puffer.getvalue()


def _bild(format: str) -> bytes:
    puffer = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 10, 10)).save(puffer, format=format)
    return puffer.getvalue()


def _upload(client, akte, name: str, inhalt: bytes, content_type: str = "application/octet-stream"):
    return client.post(
        reverse("api-dokument-list"), {"akte": akte.pk, "datei": SimpleUploadedFile(name, inhalt, content_type=content_type)}
    )


REFUSED = [
    pytest.param("setup.exe", b"MZ\x90\x00" + b"\x00" * 60, "application/x-msdownload", "„.exe“", id="executable"),
    pytest.param("akten.zip", _zip("akten/brief.txt"), "application/zip", "„.zip“", id="zip"),
    pytest.param("brief.html", b"<html><body>Hallo</body></html>", "text/html", "„.html“", id="html"),
    pytest.param(
        "mail.msg",
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600,
        "application/vnd.ms-outlook",
        "als .eml",
        id="outlook-msg",
    ),
    pytest.param("mail.eml", "Rückruf bei Müller, bitte".encode(), "message/rfc822", "keine E-Mail", id="eml-not-an-e-mail"),
    pytest.param("mail.eml", PDF_BYTES, "message/rfc822", "keine E-Mail", id="eml-is-pdf"),
    pytest.param("forderung.xlsx", _zip("xl/workbook.xml"), "application/octet-stream", "„.xlsx“", id="excel"),
    pytest.param("klage.pdf", b"<html><script>alert(1)</script></html>", "application/pdf", "ein PDF", id="pdf-not-pdf"),
    pytest.param("vertrag.docx", _zip("xl/workbook.xml"), "application/octet-stream", "Word-Datei", id="docx-zip"),
    pytest.param(
        "vertrag.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600, "application/msword", ".doc", id="docx-ole"
    ),
    pytest.param(
        "vertrag.docx",
        b"MZ\x90\x00" + b"\x00" * 60 + _zip("word/document.xml"),
        "application/octet-stream",
        "Word-Datei",
        id="docx-self-extracting",
    ),
    pytest.param("notiz.txt", b"\x7fELF\x02\x01\x01\x00" + bytes(range(1, 32)), "text/plain", "keine Textdatei", id="txt-binary"),
    pytest.param("notiz.txt", "Rückruf".encode("utf-16-le"), "text/plain", "keine Textdatei", id="txt-utf16-without-bom"),
    pytest.param("notiz.txt", _docx(), "text/plain", "ihr Inhalt ist aber eine Word-Datei", id="txt-is-word"),
    pytest.param("foto.jpg", _bild("PNG"), "image/jpeg", "ihr Inhalt ist aber ein PNG-Bild", id="jpg-is-png"),
    pytest.param("foto.webp", b"RIFF\x24\x00\x00\x00WAVEfmt ", "image/webp", "ein WebP-Bild", id="webp-is-wav"),
    pytest.param("Anlage", b"\x00\x01\x02", "application/octet-stream", "keine Endung", id="no-extension-unknown-type"),
    pytest.param("Anlage", b"<html></html>", "application/pdf", "angegebenem Dateityp", id="no-extension-pdf-not-pdf"),
    pytest.param("rechnung.pdf.exe", PDF_BYTES, "application/pdf", "„.exe“", id="pdf-content-exe-name"),
]


@pytest.mark.parametrize(("name", "inhalt", "content_type", "grund"), REFUSED)
def test_an_upload_of_another_kind_or_with_content_not_matching_its_name_is_refused(client, name, inhalt, content_type, grund):
    akte = AkteFactory()
    client.force_login(akte.anwalt)

    antwort = _upload(client, akte, name, inhalt, content_type)

    assert antwort.status_code == 400, antwort.content
    meldung = antwort.json()["datei"]
    assert meldung.startswith(f"Die Datei „{name}“ wird nicht angenommen: ")
    assert grund in meldung
    assert meldung.endswith(
        "Erlaubt sind PDF, Word (.docx), Text (.txt), Markdown (.md), E-Mails (.eml) und Bilder (JPEG, PNG, TIFF, WebP)."
    )
    assert not Dokument.objects.filter(akte=akte).exists()
    assert not AktenActivity.objects.filter(akte=akte, typ=AktenActivity.Typ.DOKUMENT_HOCHGELADEN).exists()


ACCEPTED = [
    pytest.param("klage.pdf", PDF_BYTES, "application/pdf", id="pdf"),
    pytest.param("vertrag.docx", _docx(), DOCX_TYPE, id="docx"),
    pytest.param("notiz.txt", "Rückruf bei Müller – 5 €".encode(), "text/plain", id="txt"),
    pytest.param("notiz.txt", "\ufeffRückruf".encode(), "text/plain", id="txt-with-bom"),
    pytest.param("vermerk.md", "# Vermerk\n\n- Frist prüfen".encode(), "text/markdown", id="markdown"),
    pytest.param("vermerk.markdown", b"# Vermerk", "text/markdown", id="markdown-long-extension"),
    pytest.param("Schaden.JPG", _bild("JPEG"), "image/jpeg", id="jpeg-upper-case"),
    pytest.param("scan.png", _bild("PNG"), "image/png", id="png"),
    pytest.param("fax.tif", _bild("TIFF"), "image/tiff", id="tiff"),
    pytest.param("foto.webp", _bild("WEBP"), "image/webp", id="webp"),
    pytest.param("scan.pdf", b"\r\n\xef\xbb\xbf" + PDF_BYTES, "application/pdf", id="pdf-header-after-leading-bytes"),
    pytest.param("Anfrage.eml", b"From: a@b.de\r\nSubject: Anfrage\r\n\r\nText", "message/rfc822", id="e-mail"),
]


@pytest.mark.parametrize(("name", "inhalt", "mime_type"), ACCEPTED)
def test_the_kinds_an_akte_holds_are_stored_with_the_type_of_their_content(client, name, inhalt, mime_type):
    akte = AkteFactory()
    client.force_login(akte.anwalt)

    antwort = _upload(client, akte, name, inhalt)  # the declared type (octet-stream) does not decide

    assert antwort.status_code == 201, antwort.content
    assert antwort.json()["mime_type"] == mime_type
    assert client.get(antwort.json()["download_url"]).content == inhalt


def test_a_name_without_extension_takes_its_declared_type_and_its_download_carries_the_extension(client):
    akte = AkteFactory()
    client.force_login(akte.anwalt)

    antwort = _upload(client, akte, "Klage vom 03.05.2026", PDF_BYTES, "application/pdf")

    assert antwort.status_code == 201, antwort.content
    assert antwort.json()["mime_type"] == "application/pdf"
    download = client.get(antwort.json()["download_url"])
    assert download["Content-Disposition"].endswith('.pdf"') and download.content == PDF_BYTES


def test_the_rule_holds_for_every_path_through_the_service():
    """Draft acceptance, Helena's answers as documents and the demo store files through the same
    service: a refused kind never becomes a Dokument there either."""
    akte = AkteFactory()

    with pytest.raises(ValueError, match="wird nicht angenommen"):
        services.dokument_create(akte=akte, by=akte.anwalt, name="Anlage", filename="anlage.html", content=b"<p>x</p>")

    assert not Dokument.objects.filter(akte=akte).exists()


def test_the_akte_page_names_the_accepted_kinds_and_offers_no_word_or_pdf_of_a_photo(client):
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    foto = _upload(client, akte, "schaden.jpg", _bild("JPEG")).json()

    html = client.get(reverse("akte-detail", args=[akte.pk])).content.decode()

    assert "Fotos und Scans als JPEG, PNG, TIFF oder WebP" in html
    assert 'accept=".pdf,.docx,.txt,.md,.markdown,.jpg,.jpeg,.png,.tif,.tiff,.webp,.eml,' in html
    assert reverse("api-dokument-download", args=[foto["id"]]) in html
    assert reverse("api-dokument-datei", args=[foto["id"], "pdf"]) not in html
    assert reverse("api-dokument-datei", args=[foto["id"], "docx"]) not in html


@pytest.mark.parametrize(
    ("filename", "mime_type", "erwartet"),
    [
        ("brief.PDF", None, ("application/pdf", "brief.PDF")),
        ("Schreiben v. 12.3", "application/pdf", ("application/pdf", "Schreiben v. 12.3.pdf")),
        ("notiz", "text/x-markdown; charset=utf-8", ("text/markdown", "notiz.md")),
    ],
)
def test_type_and_stored_name_of_an_accepted_file(filename, mime_type, erwartet):
    inhalt = PDF_BYTES if erwartet[0] == "application/pdf" else b"# Notiz"
    assert services.dokument_datei_pruefen(filename=filename, content=inhalt, mime_type=mime_type) == erwartet


@pytest.mark.parametrize(
    ("name", "inhalt"),
    [("tabelle.xlsx", _zip("xl/workbook.xml")), ("vertrag.docx", b"MZ\x90\x00 kein Word"), ("brief.html", b"<html></html>")],
)
def test_a_new_version_obeys_the_same_kinds_as_the_first_upload(client, name, inhalt):
    """A new version of a stored document (POST …/versionen/) stored any file: an Excel workbook or a
    program named .docx became the document the Akte shows."""
    akte = AkteFactory()
    dokument = services.dokument_create(
        akte=akte, by=akte.anwalt, name="Vertrag", filename="vertrag.txt", content=b"Erste Fassung"
    )
    client.force_login(akte.anwalt)

    antwort = client.post(f"/api/dokumente/{dokument.pk}/versionen/", {"datei": SimpleUploadedFile(name, inhalt)})

    assert antwort.status_code == 400, antwort.content
    assert "Erlaubt sind PDF, Word (.docx)" in antwort.json()["detail"]
    dokument.refresh_from_db()
    assert not dokument.versionen.exists() and dokument.text == "Erste Fassung"


def test_a_new_version_of_an_accepted_kind_is_stored_under_its_checked_type(client):
    akte = AkteFactory()
    dokument = services.dokument_create(
        akte=akte, by=akte.anwalt, name="Vertrag", filename="vertrag.txt", content=b"Erste Fassung"
    )
    client.force_login(akte.anwalt)

    antwort = client.post(f"/api/dokumente/{dokument.pk}/versionen/", {"datei": SimpleUploadedFile("vertrag.docx", _docx())})

    assert antwort.status_code == 201, antwort.content
    dokument.refresh_from_db()
    assert dokument.mime_type == DOCX_TYPE and "Mietvertrag über die Wohnung" in dokument.text


MAIL = (
    b"From: =?utf-8?q?J=C3=B6rg_M=C3=BCller?= <mueller@example.org>\r\n"
    b"To: kanzlei@kanzlei.example\r\n"
    b"Date: Tue, 03 Nov 2026 10:15:00 +0000\r\n"
    b"Subject: =?utf-8?q?K=C3=BCndigung_zum_31.12.?=\r\n"
    b"MIME-Version: 1.0\r\n"
    b'Content-Type: multipart/mixed; boundary="grenze"\r\n\r\n'
    b"--grenze\r\n"
    b"Content-Type: text/html; charset=utf-8\r\n\r\n"
    b"<p>Sehr geehrte Frau Stein,</p><script>alert('x')</script><style>p{color:red}</style>"
    b"<p>anbei die K\xc3\xbcndigung &amp; das Zeugnis.<br>Gr\xc3\xbc\xc3\x9fe</p>\r\n"
    b"--grenze\r\n"
    b"Content-Type: application/pdf\r\n"
    b'Content-Disposition: attachment; filename="Kuendigung.pdf"\r\n'
    b"Content-Transfer-Encoding: base64\r\n\r\n"
    b"JVBERi0xLjQK\r\n"
    b"--grenze--\r\n"
)


def test_an_e_mail_is_filed_with_its_headers_text_and_the_names_of_its_attachments(client):
    """A Kanzlei files e-mails in the Akte: sender, recipient, German date, subject and the text of
    an HTML-only mail (no script or style) are what the Akte's search and Helena read."""
    akte = AkteFactory()
    client.force_login(akte.anwalt)

    antwort = _upload(client, akte, "Mail Müller.eml", MAIL)

    assert antwort.status_code == 201, antwort.content
    dokument = Dokument.objects.get(pk=antwort.json()["id"])
    assert dokument.mime_type == "message/rfc822" and dokument.text_status == Dokument.TextStatus.OK
    assert dokument.text.splitlines()[:4] == [
        "Von: Jörg Müller <mueller@example.org>",
        "An: kanzlei@kanzlei.example",
        "Datum: 03.11.2026 11:15",
        "Betreff: Kündigung zum 31.12.",
    ]
    assert "Sehr geehrte Frau Stein,\nanbei die Kündigung & das Zeugnis.\nGrüße" in dokument.text
    assert "alert" not in dokument.text and "color" not in dokument.text
    assert dokument.text.endswith("Anhänge (nicht gelesen): Kuendigung.pdf")
    html = client.get(reverse("akte-detail", args=[akte.pk])).content.decode()
    assert reverse("api-dokument-download", args=[dokument.pk]) in html
    assert reverse("api-dokument-datei", args=[dokument.pk, "pdf"]) not in html  # no letterhead for a received mail


def test_an_e_mail_is_never_released_to_the_mandantin(client):
    """Its headers and attachments are not cleaned: releasing it is refused in German."""
    akte = AkteFactory()
    client.force_login(akte.anwalt)

    antwort = client.post(
        reverse("api-dokument-list"),
        {"akte": akte.pk, "name": "Mail", "mandant_sichtbar": "true", "datei": SimpleUploadedFile("mail.eml", MAIL)},
    )

    assert antwort.status_code == 400, antwort.content
    assert antwort.json()["datei"].startswith("Diese Datei kann der Mandantschaft nicht ohne ihre Metadaten")
    assert not Dokument.objects.filter(akte=akte).exists()


def _word_online() -> bytes:
    """A .docx as Word Online and SharePoint save it: the main part is word/document2.xml."""
    quelle = zipfile.ZipFile(io.BytesIO(_docx()))
    puffer = io.BytesIO()
    with zipfile.ZipFile(puffer, "w") as ziel:
        for eintrag in quelle.infolist():
            daten = quelle.read(eintrag.filename)
            if eintrag.filename in ("[Content_Types].xml", "_rels/.rels"):
                daten = daten.replace(b"/word/document.xml", b"/word/document2.xml").replace(
                    b'Target="word/document.xml"', b'Target="word/document2.xml"'
                )
            ziel.writestr(eintrag.filename.replace("word/document.xml", "word/document2.xml"), daten)
    return puffer.getvalue()


@pytest.mark.parametrize(
    ("name", "inhalt", "content_type", "mime_type"),
    [
        pytest.param("Vertrag.docx", _word_online(), "application/octet-stream", DOCX_TYPE, id="word-online-document2"),
        pytest.param("IMG_0001", _bild("JPEG"), "application/octet-stream", "image/jpeg", id="no-extension-jpeg-by-bytes"),
        pytest.param("Scan", PDF_BYTES, "application/octet-stream", "application/pdf", id="no-extension-pdf-by-bytes"),
        pytest.param(
            "Fax", b"\r\n" + PDF_BYTES, "application/octet-stream", "application/pdf", id="no-extension-pdf-after-leading-bytes"
        ),
        pytest.param("Foto", _bild("JPEG"), "image/jpg", "image/jpeg", id="alias-image-jpg"),
        pytest.param("Klage", PDF_BYTES, "application/x-pdf", "application/pdf", id="alias-x-pdf"),
        pytest.param("Foto.jfif", _bild("JPEG"), "image/jpeg", "image/jpeg", id="jfif"),
        pytest.param("Brief an Dr.Schulze", PDF_BYTES, "application/pdf", "application/pdf", id="dot-in-name-no-extension"),
        pytest.param(
            "Mail.eml", b"\xef\xbb\xbfFrom: a@b.de\r\nSubject: x\r\n\r\nText", "message/rfc822", "message/rfc822", id="eml-bom"
        ),
        pytest.param(
            "Mail.eml",
            b"From - Thu Nov 05 10:00:00 2026\r\nFrom: a@b.de\r\nSubject: x\r\n\r\nText",
            "message/rfc822",
            "message/rfc822",
            id="eml-mbox-line",
        ),
    ],
)
def test_files_from_phones_scanners_and_office_online_are_accepted(client, name, inhalt, content_type, mime_type):
    akte = AkteFactory()
    client.force_login(akte.anwalt)

    antwort = _upload(client, akte, name, inhalt, content_type)

    assert antwort.status_code == 201, antwort.content
    assert antwort.json()["mime_type"] == mime_type
    dokument = Dokument.objects.get(pk=antwort.json()["id"])
    if mime_type in (DOCX_TYPE, "message/rfc822"):  # read as what it is (PDF_BYTES has no text to read)
        assert dokument.text_status == Dokument.TextStatus.OK, dokument.text_fehler


def test_a_word_online_file_can_be_released():
    akte = AkteFactory()
    dokument = services.dokument_create(
        akte=akte, by=akte.anwalt, name="Vertrag", filename="vertrag.docx", content=_word_online(), mandant_sichtbar=True
    )
    assert dokument.mandant_sichtbar and "Mietvertrag über die Wohnung" in dokument.text


def test_a_heic_photo_is_refused_with_advice_on_jpeg(client):
    akte = AkteFactory()
    client.force_login(akte.anwalt)

    antwort = _upload(client, akte, "IMG_0001.HEIC", b"\x00\x00\x00\x18ftypheic", "image/heic")

    assert antwort.status_code == 400 and "als JPEG" in antwort.json()["datei"]


def test_a_pdf_marker_inside_other_content_decides_nothing(client):
    """Only a file that says it is a PDF may have its header after leading bytes: HTML with a
    "%PDF-" comment named .pdf is no PDF, a note mentioning "%PDF-1.7" stays a text."""
    akte = AkteFactory()
    client.force_login(akte.anwalt)

    assert _upload(client, akte, "notiz.txt", b"Fehlerhafte Datei %PDF-1.7 vom Gericht").status_code == 201
    assert _upload(client, akte, "klage.pdf", b"<html><!-- %PDF-1.4 --></html>").status_code == 201  # header in 1st KiB
    assert _upload(client, akte, "klage.pdf", b"<html>" + b" " * 2000 + b"%PDF-1.4</html>").status_code == 400


def test_a_refused_new_version_leaves_no_file_behind(client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    akte = AkteFactory()
    dokument = services.dokument_create(akte=akte, by=akte.anwalt, name="Brief", filename="brief.txt", content=b"Erste Fassung")
    vorher = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    client.force_login(akte.anwalt)

    for _ in range(2):
        antwort = client.post(
            f"/api/dokumente/{dokument.pk}/versionen/", {"datei": SimpleUploadedFile("t.xlsx", _zip("xl/workbook.xml"))}
        )
        assert antwort.status_code == 400

    assert sorted(p for p in tmp_path.rglob("*") if p.is_file()) == vorher


def test_a_new_version_without_extension_is_judged_like_the_first_upload(client):
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    erste = _upload(client, akte, "Scan", PDF_BYTES, "application/pdf").json()

    antwort = client.post(
        f"/api/dokumente/{erste['id']}/versionen/",
        {"datei": SimpleUploadedFile("Scan", PDF_BYTES, content_type="application/pdf")},
    )

    assert antwort.status_code == 201, antwort.content


def test_markdown_with_a_byte_order_mark_is_read_without_it(client):
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    antwort = _upload(client, akte, "notiz.md", "\ufeff# Sachstand\n\nText".encode())

    dokument = Dokument.objects.get(pk=antwort.json()["id"])
    assert dokument.text.startswith("# Sachstand")
    word = docx.Document(io.BytesIO(client.get(reverse("api-dokument-datei", args=[dokument.pk, "docx"])).content))
    ueberschrift = next(p for p in word.paragraphs if "Sachstand" in p.text)
    assert ueberschrift.text == "Sachstand" and ueberschrift.style.name.startswith("Heading")


def test_a_photo_is_kept_as_an_image_not_as_a_failed_text_recognition(client):
    """A photo was marked "Texterkennung fehlgeschlagen" in red on the upload line and in the list."""
    akte = AkteFactory()
    client.force_login(akte.anwalt)

    antwort = _upload(client, akte, "Quittung.jpg", _bild("JPEG"))

    assert antwort.status_code == 201 and antwort.json()["text_status"] == "BILD"
    dokument = Dokument.objects.get(pk=antwort.json()["id"])
    assert dokument.text == "" and dokument.text_fehler == ""
    html = client.get(reverse("akte-detail", args=[akte.pk])).content.decode()
    assert "nicht unterstützt" not in html
