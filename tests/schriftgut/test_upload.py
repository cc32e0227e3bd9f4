"""Upload where lawyers work: the Akte page offers drag and drop; the API stores PDF/DOCX/TXT with
their text and shows a clear German error for broken, encrypted or too large files."""

from __future__ import annotations

import io

import docx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from pypdf import PdfWriter

from akten.models import Role
from tests.factories import AkteFactory, UserFactory

pytestmark = pytest.mark.django_db


def _pdf(text_pdf: bool = True, passwort: str = "") -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(text="Kuendigung vom 1. Maerz")
    data = bytes(pdf.output())
    if not passwort:
        return data
    from pypdf import PdfReader

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=passwort, owner_password=passwort)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def _docx() -> bytes:
    document = docx.Document()
    document.add_paragraph("Mietvertrag über die Wohnung")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _upload(client, akte, name: str, inhalt: bytes):
    return client.post("/api/dokumente/", {"akte": akte.pk, "datei": SimpleUploadedFile(name, inhalt)})


def test_akte_page_has_the_dropzone_and_document_links(client):
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    _upload(client, akte, "vertrag.docx", _docx())
    html = client.get(reverse("akte-detail", args=[akte.pk])).content.decode()
    assert 'id="upload-form"' in html and "js/helena-upload.js" in html
    assert "/datei/docx/" in html and "/datei/pdf/" in html
    assert "<script>" not in html  # CSP: no inline scripts


@pytest.mark.parametrize(
    ("name", "inhalt", "erwartet"),
    [
        ("brief.pdf", _pdf(), "Kuendigung vom 1. Maerz"),
        ("vertrag.docx", _docx(), "Mietvertrag über die Wohnung"),
        ("notiz.txt", "Rückruf am Montag".encode(), "Rückruf am Montag"),
    ],
)
def test_upload_extracts_text(client, name, inhalt, erwartet):
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    antwort = _upload(client, akte, name, inhalt)
    assert antwort.status_code == 201, antwort.content
    assert antwort.json()["text_status"] == "OK" and erwartet in antwort.json()["text"]


def test_broken_and_encrypted_files_keep_a_german_reason(client):
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    kaputt = _upload(client, akte, "kaputt.pdf", b"%PDF-1.4 das ist kein echtes PDF")
    assert kaputt.status_code == 201
    assert kaputt.json()["text_status"] == "FEHLER" and "konnte nicht gelesen werden" in kaputt.json()["text_fehler"]
    geschuetzt = _upload(client, akte, "geheim.pdf", _pdf(passwort="geheim"))
    assert geschuetzt.json()["text_status"] == "FEHLER"
    assert "verschlüsselt" in geschuetzt.json()["text_fehler"]


def test_too_large_file_is_refused(client, settings):
    settings.HELENA_MAX_UPLOAD_BYTES = 1024 * 1024
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    antwort = _upload(client, akte, "gross.txt", b"x" * (1024 * 1024 + 1))
    assert antwort.status_code == 400 and "zu groß" in antwort.content.decode()


def test_no_upload_into_a_foreign_akte(client):
    akte = AkteFactory()
    client.force_login(UserFactory(role=Role.ANWALT))
    assert _upload(client, akte, "brief.txt", b"Hallo").status_code == 404


def test_chat_page_offers_upload_to_staff_not_to_mandanten(client):
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    html = client.get(reverse("helena-chat")).content.decode()
    assert 'id="upload-form"' in html and 'data-akte-select="chat-akte"' in html
    client.force_login(UserFactory(role=Role.MANDANT))
    assert 'id="upload-form"' not in client.get(reverse("helena-chat")).content.decode()
