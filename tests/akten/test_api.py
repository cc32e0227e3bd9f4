import io

import pytest
from pypdf import PdfWriter
from pypdf.generic import NameObject

from akten.models import AktenActivity, Dokument, Role
from tests.factories import AkteFactory, BeteiligterFactory, UserFactory

pytestmark = pytest.mark.django_db


def make_pdf(text: str) -> bytes:
    """A one-page PDF with real text content (Helvetica), built with pypdf only."""
    from pypdf.generic import DecodedStreamObject, DictionaryObject

    writer = PdfWriter()
    page = writer.add_blank_page(width=595, height=842)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
    )
    stream = DecodedStreamObject()
    stream.set_data(f"BT /F1 12 Tf 72 770 Td ({text}) Tj ET".encode("latin-1"))
    page[NameObject("/Contents")] = writer._add_object(stream)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def upload(api_client, akte, name, data, content_type):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return api_client.post(
        "/api/dokumente/",
        {"akte": akte.pk, "datei": SimpleUploadedFile(name, data, content_type=content_type)},
        format="multipart",
    )


def test_upload_pdf_extracts_text_and_records_activity(api_client):
    akte = AkteFactory()
    api_client.force_login(akte.anwalt)
    response = upload(api_client, akte, "kuendigung.pdf", make_pdf("Kuendigung wegen Eigenbedarf"), "application/pdf")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["text_status"] == "OK"
    assert "Kuendigung wegen Eigenbedarf" in body["text"]
    assert AktenActivity.objects.filter(akte=akte, typ=AktenActivity.Typ.DOKUMENT_HOCHGELADEN).exists()
    download = api_client.get(body["download_url"])
    assert download.status_code == 200
    assert download.content.startswith(b"%PDF")


def test_upload_of_unreadable_file_is_kept_with_visible_reason(api_client):
    akte = AkteFactory()
    api_client.force_login(akte.anwalt)
    response = upload(api_client, akte, "kaputt.pdf", b"%PDF-1.4 kaputt", "application/pdf")
    assert response.status_code == 201
    assert response.json()["text_status"] == "FEHLER"
    assert "konnte nicht gelesen werden" in response.json()["text_fehler"]
    # a photo is kept as a picture without text recognition, not as a failure
    image = upload(api_client, akte, "foto.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 32, "image/png")
    assert image.json()["text_status"] == "BILD" and image.json()["text_fehler"] == ""


def test_upload_into_foreign_akte_is_404_and_stores_nothing(api_client):
    akte = AkteFactory()
    api_client.force_login(UserFactory(role=Role.ANWALT))
    response = upload(api_client, akte, "x.txt", b"Hallo", "text/plain")
    assert response.status_code == 404
    assert not Dokument.objects.exists()


def test_mandant_cannot_upload(api_client):
    mandant = UserFactory(role=Role.MANDANT)
    akte = AkteFactory()
    BeteiligterFactory(akte=akte, kontakt=mandant.kontakt, rolle="MANDANT")
    api_client.force_login(mandant)
    assert upload(api_client, akte, "x.txt", b"Hallo", "text/plain").status_code == 403


def test_empty_upload_is_refused(api_client):
    akte = AkteFactory()
    api_client.force_login(akte.anwalt)
    assert upload(api_client, akte, "leer.txt", b"", "text/plain").status_code == 400


def test_akte_search_and_filters(api_client):
    user = UserFactory(role=Role.ANWALT)
    miete = AkteFactory(anwalt=user, kurzrubrum="Huber ./. Wohnbau GmbH", sachgebiet="MIETRECHT")
    arbeit = AkteFactory(anwalt=user, kurzrubrum="Klein ./. Logistik AG", sachgebiet="ARBEITSRECHT", status="RUHEND")
    BeteiligterFactory(akte=arbeit, kontakt__nachname="Zeugenhaus")
    AkteFactory(kurzrubrum="Huber ./. Fremd")  # not visible
    api_client.force_login(user)

    def ids(**params):
        return {row["id"] for row in api_client.get("/api/akten/", params).json()["results"]}

    assert ids(q="huber") == {miete.pk}
    assert ids(q="Zeugenhaus") == {arbeit.pk}
    assert ids(sachgebiet="ARBEITSRECHT") == {arbeit.pk}
    assert ids(status="RUHEND") == {arbeit.pk}
    assert ids(q=miete.aktenzeichen) >= {miete.pk}


def test_openapi_schema_and_docs(api_client):
    api_client.force_login(UserFactory())
    schema = api_client.get("/api/schema/")
    assert schema.status_code == 200
    text = schema.content.decode()
    for path in ("/api/akten/", "/api/drafts/{id}/accept/", "/api/dokumente/", "/api/alerts/"):
        assert path in text
    assert api_client.get("/api/docs/").status_code == 200
