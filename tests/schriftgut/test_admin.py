"""Admin: Kanzleiprofil with letterhead fields; firm templates refused with a German reason or
accepted with a preview."""

from __future__ import annotations

import io

import docx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from akten.models import DokumentVorlage, KanzleiProfil, Role
from tests.factories import UserFactory

from .helpers import docx_text, kanzlei, pdf_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_user(client):
    user = UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True)
    client.force_login(user)
    return user


def _docx(*absaetze: str) -> bytes:
    document = docx.Document()
    for text in absaetze:
        document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _hochladen(client, name: str, inhalt: bytes):
    return client.post(
        "/admin/akten/dokumentvorlage/add/",
        {"name": name, "art": "BRIEF", "aktiv": "on", "datei": SimpleUploadedFile(f"{name}.docx", inhalt)},
    )


def test_kanzleiprofil_admin_has_letterhead_and_bank_fields(client, admin_user):
    antwort = client.post(
        "/admin/akten/kanzleiprofil/add/",
        {
            "name": "Kanzlei Muster",
            "sitz_ort": "Köln",
            "sitz_bundesland": "NW",
            "iban": "DE89 3704 0044 0532 0130 01",
            "briefkopf_ausrichtung": "LINKS",
            "briefkopf_schrift": "SERIF",
        },
    )
    assert antwort.status_code == 200 and "Prüfziffer der IBAN" in antwort.content.decode()
    assert not KanzleiProfil.objects.exists()


@pytest.mark.parametrize(
    ("inhalt", "meldung"),
    [
        (b"kein Word", "keine Word-Datei im DOCX-Format"),
        (_docx("{{ mandant "), "Fehler in der Platzhalter-Syntax"),
        (_docx("{{ klaeger }}"), "unbekannte Platzhalter: klaeger"),
    ],
)
def test_bad_templates_are_refused_with_the_reason(client, admin_user, inhalt, meldung):
    antwort = _hochladen(client, "Kaputt", inhalt)
    assert antwort.status_code == 200 and meldung in antwort.content.decode()
    assert not DokumentVorlage.objects.exists()


def test_good_template_is_saved_with_a_preview_on_letterhead(client, admin_user):
    kanzlei()
    antwort = _hochladen(client, "Anschreiben", _docx("Sehr geehrte/r {{ mandant }},", "{{p freitext }}", "{{ unterschrift }}"))
    assert antwort.status_code == 302
    vorlage = DokumentVorlage.objects.get(name="Anschreiben")
    assert vorlage.hochgeladen_von == admin_user
    pdf = client.get(f"/admin/akten/dokumentvorlage/{vorlage.pk}/vorschau/pdf/")
    assert pdf.status_code == 200 and "Sehr geehrte/r Erika Mustermann," in pdf_text(pdf.content)
    word = client.get(f"/admin/akten/dokumentvorlage/{vorlage.pk}/vorschau/docx/")
    text = docx_text(word.content)
    assert "Kanzlei Müller & Becker" in text and "Dr. Maria Muster" in text


def test_a_letterhead_too_tall_for_the_din_address_field_is_reported_when_the_profile_is_saved(client, admin_user):
    profil = kanzlei()
    formular = {
        "name": profil.name,
        "partner": "\n".join(f"Dr. Rechtsanwältin Nummer {n}, Fachanwältin für Bau- und Architektenrecht" for n in range(40)),
        "strasse": profil.strasse,
        "plz": profil.plz,
        "ort": profil.ort,
        "sitz_ort": profil.sitz_ort,
        "sitz_bundesland": profil.sitz_bundesland,
        "briefkopf_ausrichtung": "RECHTS",
        "briefkopf_schrift": "SANS",
    }

    antwort = client.post(f"/admin/akten/kanzleiprofil/{profil.pk}/change/", formular, follow=True)

    assert antwort.status_code == 200
    assert "höher als die 45 mm über dem Anschriftfeld (DIN 5008)" in antwort.content.decode()
    profil.refresh_from_db()
    assert profil.partner.count("\n") == 39  # saved as given

    formular["partner"] = "Eva Klein"
    antwort = client.post(f"/admin/akten/kanzleiprofil/{profil.pk}/change/", formular, follow=True)
    assert "Anschriftfeld (DIN 5008)" not in antwort.content.decode()
