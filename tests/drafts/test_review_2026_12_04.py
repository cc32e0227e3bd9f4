"""Drafts review of 2026-12-04: German validation messages, a Kostennote's amounts stay the
calculator's, no 500 where the record or the template makes approval impossible, ids from user input,
and no accept of an edited draft without the version reviewed."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.test import Client
from django.utils import timezone

from akten.models import Dokument, Notiz, Role
from drafts import services
from drafts.models import HelenaDraft
from tests.factories import AkteFactory, UserFactory

pytestmark = pytest.mark.django_db


def _draft(typ, payload, akte=None):
    akte = akte or AkteFactory()
    return services.draft_create(typ=typ, akte=akte, requested_by=akte.anwalt, payload=payload)


def _client(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def test_an_invalid_edit_is_explained_in_german():
    draft = _draft("ZEITERFASSUNG", {"datum": timezone.localdate().isoformat(), "minuten": 30, "beschreibung": "Telefonat"})
    response = _client(draft.akte.anwalt).patch(
        f"/api/drafts/{draft.pk}/", {"payload": {"datum": "kein-datum", "minuten": -5, "foo": 1}}, content_type="application/json"
    )
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert not any(english in detail for english in ("Input should", "Field required", "Extra inputs")), detail
    assert "datum: muss ein Datum" in detail and "beschreibung: fehlt" in detail and "foo: ist kein" in detail


def test_a_kostennote_keeps_the_calculators_amounts_through_an_edit():
    """The card's edit form offered Gegenstandswert, netto, USt-Satz, USt and brutto as free fields:
    50.000 € and 0 % USt were issued under fee lines computed from 5.400 €."""
    from tests.schriftgut.helpers import akte_mit_parteien, kanzlei
    from tests.schriftgut.test_kostennote import _entwurf

    kanzlei()
    akte = akte_mit_parteien()
    client = _client(akte.anwalt)
    _entwurf(client, akte)
    draft = HelenaDraft.objects.get(typ="KOSTENNOTE")
    changed = dict(draft.payload, gegenstandswert="50000.00", ust_satz="0.0000", ust="0.00", brutto=draft.payload["netto"])
    edited = client.patch(f"/api/drafts/{draft.pk}/", {"payload": changed}, content_type="application/json")
    assert edited.status_code == 400 and "RVG-Rechner" in edited.json()["detail"] and "gegenstandswert" in edited.json()["detail"]
    text_only = dict(draft.payload, text="Wir bitten um Ausgleich binnen 14 Tagen.")
    assert client.patch(f"/api/drafts/{draft.pk}/", {"payload": text_only}, content_type="application/json").status_code == 200
    accepted = client.post(f"/api/drafts/{draft.pk}/accept/", {"version": 1}, content_type="application/json")
    assert accepted.status_code == 200 and Dokument.objects.count() == 1


def test_undo_after_the_record_was_deleted_elsewhere_is_a_conflict_not_a_500():
    draft = _draft("NOTIZ", {"text": "x"})
    services.draft_accept(draft_id=draft.pk, by=draft.akte.anwalt)
    Notiz.objects.all().delete()
    response = _client(draft.akte.anwalt).post(f"/api/drafts/{draft.pk}/undo/")
    assert response.status_code == 409 and "gelöscht" in response.json()["detail"]


def _docx_mit_einbettung() -> bytes:
    from docx import Document
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    doc = Document()
    doc.add_paragraph("{{ kanzlei }}")
    doc.add_paragraph("{{p freitext }}")
    part = Part(
        PackURI("/word/embeddings/Microsoft_Excel_Worksheet1.xlsx"),
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        b"PK\x03\x04xx",
        doc.part.package,
    )
    doc.part.relate_to(part, RT.PACKAGE)
    puffer = io.BytesIO()
    doc.save(puffer)
    return puffer.getvalue()


def test_a_template_with_an_embedded_workbook_releases_a_document_without_it():
    """First refused at release (German, not a 500); since 2026-12-04 the generated document
    carries no embedded file of the template at all, so the release succeeds without it."""
    from schriftgut.services import vorlage_stand_sichern
    from tests.schriftgut.helpers import akte_mit_parteien, kanzlei

    kanzlei()
    akte = akte_mit_parteien()
    stand = vorlage_stand_sichern(name="Eigener Brief", inhalt=_docx_mit_einbettung())
    vorlage = {"sha256": stand.sha256, "name": stand.name, "mandant_partei": "", "art": "BRIEF"}
    draft = _draft(
        "DOKUMENT", {"titel": "Schreiben", "inhalt_markdown": "Text", "mandant_sichtbar": True, "vorlage": vorlage}, akte
    )
    response = _client(akte.anwalt).post(f"/api/drafts/{draft.pk}/accept/", {"version": 0}, content_type="application/json")
    assert response.status_code == 200, response.content
    dokument = Dokument.objects.get(akte=akte)
    assert dokument.mandant_sichtbar
    with zipfile.ZipFile(dokument.datei.open("rb")) as paket:
        assert not [name for name in paket.namelist() if "embeddings" in name or name.endswith(".xlsx")]


def test_a_template_error_names_the_problem_in_german_not_the_engines_objects():
    from schriftgut.services import vorlage_waehlen
    from tests.schriftgut.helpers import akte_mit_parteien, kanzlei

    kanzlei()
    akte = akte_mit_parteien()
    # a document draft filled into the Kostennote's template (an edit can no longer change the template)
    vorlage = vorlage_waehlen("Kostennote").als_payload()
    draft = _draft("DOKUMENT", {"titel": "Brief", "inhalt_markdown": "Hallo", "vorlage": vorlage}, akte)
    client = _client(akte.anwalt)
    response = client.post(f"/api/drafts/{draft.pk}/accept/", {"version": 0}, content_type="application/json")
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert "object" not in detail and "attribute" not in detail and "Platzhalter" in detail


def test_unicode_digits_in_ids_are_refused_not_a_500():
    """ "²".isdigit() is True and int("²") raises: four pages answered 500."""
    admin = UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True)
    draft = _draft("NOTIZ", {"text": "x"})
    client = _client(admin)
    codes = {
        "admin": client.post(f"/admin/drafts/helenadraft/{draft.pk}/uebernehmen/", {"version": "²"}).status_code,
        "rechner": client.post("/rechner/fristen/entwurf/", {"akte": "²", "titel": "x"}).status_code,
        "start": client.get("/?person=²").status_code,
        "chat": client.get("/helena/?akte=²").status_code,
        "api": client.get("/api/drafts/?akte=99999999999999999999999").status_code,
    }
    assert 500 not in codes.values(), codes


def test_no_day_holds_more_than_24_hours_of_time_records():
    """Each entry was capped at 1,440 minutes, but any number of them fitted one day."""
    akte = AkteFactory()
    heute = timezone.localdate().isoformat()
    erste = _draft("ZEITERFASSUNG", {"datum": heute, "minuten": 1000, "beschreibung": "Akte durchgesehen"}, akte)
    zweite = _draft("ZEITERFASSUNG", {"datum": heute, "minuten": 500, "beschreibung": "Schriftsatz"}, akte)
    services.draft_accept(draft_id=erste.pk, by=akte.anwalt)
    response = _client(akte.anwalt).post(f"/api/drafts/{zweite.pk}/accept/", {"version": 0}, content_type="application/json")
    assert response.status_code == 400 and "24 Stunden" in response.json()["detail"]
    zweite.refresh_from_db()
    assert zweite.status == HelenaDraft.Status.PENDING
