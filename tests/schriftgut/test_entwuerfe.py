"""Document drafts from templates: the tool, downloads as Word and PDF, approval to DOCX in the
Akte, versions, and access (another user's Akte: 404)."""

from __future__ import annotations

import io

import docx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from agent.models import ToolCallAudit
from agent.tools.base import ToolContext
from agent.tools.executor import toolbox_for
from akten.models import Dokument, DokumentVorlage, Role
from drafts.models import HelenaDraft
from drafts.services import draft_accept
from tests.agent.tools.conftest import run_call
from tests.factories import AgentRunFactory, AkteFactory, UserFactory

from .helpers import akte_mit_parteien, docx_text, kanzlei, pdf_text

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _tools_in_test_thread(settings):
    """Tools run in the test's own thread so they see the test transaction (as in tests/agent/tools)."""
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True


BEGRUENDUNG = "## Anträge\n\nDie Klage wird abgewiesen.\n\n## Begründung\n\nDie Miete wurde **vollständig** gezahlt."


def _tool(akte, arguments):
    run = AgentRunFactory(user=akte.anwalt, akte=akte)
    return run_call(toolbox_for(ToolContext(user=akte.anwalt, akte=akte, run=run)), "create_draft_dokument", arguments, "c1")


def test_tool_fills_the_template_and_the_downloads_carry_every_field(client):
    kanzlei()
    akte = akte_mit_parteien()
    result = _tool(akte, {"titel": "Klageerwiderung", "vorlage": "Klageerwiderung", "inhalt_markdown": BEGRUENDUNG})
    assert result.ok, result.error
    assert result.data["vorschau"]["vorlage"] == "Klageerwiderung"
    assert result.data["vorschau"]["fehlende_felder"] == []
    draft = HelenaDraft.objects.get(pk=result.data["draft_id"])
    client.force_login(akte.anwalt)

    word = client.get(result.data["downloads"]["docx"])
    assert word.status_code == 200
    assert word["Content-Type"].startswith("application/vnd.openxmlformats")
    text = docx_text(word.content)
    for erwartet in (
        "Kanzlei Müller & Becker",
        "Unser Zeichen: 12/26",
        "Amtsgericht Tempelhof-Kreuzberg",
        "7 C 123/26",
        "Erika Mustermann, Musterweg 1, 10115 Berlin",
        "– Beklagte –",
        "– Kläger –",
        "Die Miete wurde vollständig gezahlt.",
        "Katrin Müller",
    ):
        assert erwartet in text, erwartet
    assert "{{" not in text and "[fehlt" not in text

    pdf = client.get(f"/api/drafts/{draft.pk}/datei/pdf/")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    pdf_inhalt = pdf_text(pdf.content)
    # DIN 5008: page 1 names „Unser Zeichen“ once, in the information block („Seite X von Y“ from page 2)
    assert "Klageerwiderung" in pdf_inhalt and pdf_inhalt.count("Unser Zeichen: 12/26") == 1


def test_missing_court_aktenzeichen_is_listed_on_the_card_payload(client):
    kanzlei()
    akte = akte_mit_parteien()
    akte.gericht_aktenzeichen = ""
    akte.save()
    result = _tool(akte, {"titel": "Klageerwiderung", "vorlage": "Klageerwiderung", "inhalt_markdown": "Text."})
    draft = HelenaDraft.objects.get(pk=result.data["draft_id"])
    assert draft.payload["fehlende_felder"] == ["Aktenzeichen des Gerichts"]
    client.force_login(akte.anwalt)
    api = client.get(f"/api/drafts/{draft.pk}/").json()
    assert api["payload"]["fehlende_felder"] == ["Aktenzeichen des Gerichts"]
    assert api["downloads"] == {"docx": f"/api/drafts/{draft.pk}/datei/docx/", "pdf": f"/api/drafts/{draft.pk}/datei/pdf/"}


def test_unknown_template_is_an_actionable_tool_error():
    akte = akte_mit_parteien()
    result = _tool(akte, {"titel": "Testament", "vorlage": "Testament", "inhalt_markdown": "Text."})
    assert not result.ok and "Keine Vorlage „Testament“" in result.error and "Mahnschreiben" in result.error


def test_approved_draft_is_docx_in_the_akte_and_downloads_as_pdf(client):
    kanzlei()
    akte = akte_mit_parteien()
    result = _tool(akte, {"titel": "Mahnung Miete", "vorlage": "Mahnschreiben", "inhalt_markdown": "Bitte zahlen Sie 1.200 €."})
    accepted = draft_accept(draft_id=result.data["draft_id"], by=akte.anwalt)
    dokument = Dokument.objects.get(pk=accepted.result_object_id)
    assert dokument.mime_type.endswith("wordprocessingml.document")
    assert dokument.versionen.get().quelle_markdown == "Bitte zahlen Sie 1.200 €."
    client.force_login(akte.anwalt)
    stored = client.get(f"/api/dokumente/{dokument.pk}/download/")
    text = docx_text(stored.content)
    assert "Hans Schmidt" in text and "Bitte zahlen Sie 1.200 €." in text and "Kanzlei Müller & Becker" in text
    pdf = client.get(f"/api/dokumente/{dokument.pk}/datei/pdf/")
    assert "Bitte zahlen Sie 1.200 €." in pdf_text(pdf.content)


def test_draft_renders_from_its_stored_copy_after_the_firm_template_is_deleted(client, admin_client):
    kanzlei()
    akte = akte_mit_parteien()
    vorlage_docx = docx.Document()
    vorlage_docx.add_paragraph("Eigene Vorlage der Kanzlei für {{ mandant }}")
    vorlage_docx.add_paragraph("{{p freitext }}")
    buffer = io.BytesIO()
    vorlage_docx.save(buffer)
    vorlage = DokumentVorlage(name="Anschreiben Mandant", datei=SimpleUploadedFile("a.docx", buffer.getvalue()))
    vorlage.full_clean()
    vorlage.save()
    result = _tool(akte, {"titel": "Info", "vorlage": str(vorlage.pk), "inhalt_markdown": "Stand der Sache."})
    vorlage.delete()
    client.force_login(akte.anwalt)
    text = docx_text(client.get(f"/api/drafts/{result.data['draft_id']}/datei/docx/").content)
    assert "Eigene Vorlage der Kanzlei für Erika Mustermann" in text and "Stand der Sache." in text


def test_edit_of_an_approved_document_makes_a_new_version_and_keeps_the_old(client):
    kanzlei()
    akte = akte_mit_parteien()
    result = _tool(
        akte, {"titel": "Schreiben", "vorlage": "Brief", "empfaenger": "GEGENSEITE", "inhalt_markdown": "Erste Fassung."}
    )
    dokument_id = draft_accept(draft_id=result.data["draft_id"], by=akte.anwalt).result_object_id
    client.force_login(akte.anwalt)
    antwort = client.post(
        f"/api/dokumente/{dokument_id}/versionen/", {"inhalt_markdown": "Zweite Fassung."}, content_type="application/json"
    )
    assert antwort.status_code == 201, antwort.content
    versionen = antwort.json()
    assert [v["nummer"] for v in versionen] == [2, 1]
    assert versionen[0]["erstellt_von"] == str(akte.anwalt) and versionen[0]["created_at"]
    assert "Zweite Fassung." in docx_text(client.get(f"/api/dokumente/{dokument_id}/download/").content)
    alt = client.get(versionen[1]["download"])
    assert "Erste Fassung." in docx_text(alt.content)
    # named after the document and its version, not the stored file
    assert 'filename="Schreiben (Version 1).docx"' in alt["Content-Disposition"]
    assert Dokument.objects.get(pk=dokument_id).text.count("Zweite Fassung.") == 1
    page = client.get(f"/akten/{akte.pk}/").content.decode()
    assert "2 Versionen" in page and f"/api/dokumente/{dokument_id}/versionen/1/download/" in page


def test_mandant_gets_the_released_document_but_no_earlier_versions(client):
    from akten.models import Beteiligter

    kanzlei()
    akte = akte_mit_parteien()
    result = _tool(
        akte, {"titel": "Schreiben", "vorlage": "Brief", "empfaenger": "MANDANT", "inhalt_markdown": "Interner Entwurfstext."}
    )
    dokument_id = draft_accept(draft_id=result.data["draft_id"], by=akte.anwalt).result_object_id
    client.force_login(akte.anwalt)
    client.post(f"/api/dokumente/{dokument_id}/versionen/", {"inhalt_markdown": "Freigegeben."}, content_type="application/json")
    Dokument.objects.filter(pk=dokument_id).update(mandant_sichtbar=True)
    mandantin = UserFactory(role=Role.MANDANT)
    Beteiligter.objects.create(akte=akte, kontakt=mandantin.kontakt, rolle=Beteiligter.Rolle.MANDANT)
    client.force_login(mandantin)
    assert client.get(f"/api/dokumente/{dokument_id}/download/").status_code == 200
    assert client.get(f"/api/dokumente/{dokument_id}/versionen/1/download/").status_code == 404
    listing = client.get(f"/api/dokumente/{dokument_id}/versionen/")
    assert listing.status_code == 200 and listing.json() == []


def test_another_users_akte_cannot_be_filled_or_downloaded(client):
    kanzlei()
    akte = akte_mit_parteien()
    result = _tool(akte, {"titel": "Klage", "vorlage": "Klage", "inhalt_markdown": "Text."})
    dokument_id = draft_accept(draft_id=result.data["draft_id"], by=akte.anwalt).result_object_id
    fremd = UserFactory(role=Role.ANWALT)
    client.force_login(fremd)
    for url in (
        f"/api/drafts/{result.data['draft_id']}/datei/docx/",
        f"/api/drafts/{result.data['draft_id']}/datei/pdf/",
        f"/api/dokumente/{dokument_id}/datei/docx/",
        f"/api/dokumente/{dokument_id}/datei/pdf/",
        f"/api/dokumente/{dokument_id}/versionen/",
        f"/api/dokumente/{dokument_id}/versionen/1/download/",
    ):
        assert client.get(url).status_code == 404, url
    assert client.post(f"/api/dokumente/{dokument_id}/versionen/", {"inhalt_markdown": "x"}).status_code == 404
    run = AgentRunFactory(user=fremd)
    fremder_aufruf = run_call(
        toolbox_for(ToolContext(user=fremd, akte=None, run=run)),
        "create_draft_dokument",
        {"akte": akte.aktenzeichen, "titel": "Klage", "vorlage": "Klage", "inhalt_markdown": "Text."},
        "c2",
    )
    assert not fremder_aufruf.ok and HelenaDraft.objects.filter(requested_by=fremd).count() == 0


def test_chat_answer_saved_as_word_becomes_a_document_draft(client):
    kanzlei()
    akte = akte_mit_parteien()
    run = AgentRunFactory(
        user=akte.anwalt,
        akte=akte,
        status="DONE",  # saved after the run ended
        finished_at=timezone.now(),
        answer="Hi, ich bin Helena! Ich helfe dir bei Akten.\n\n## Ergebnis\n\nDie Kündigung ist **unwirksam**.",
    )
    client.force_login(akte.anwalt)
    antwort = client.post(f"/api/antworten/{run.pk}/als-dokument/", {}, content_type="application/json")
    assert antwort.status_code == 201, antwort.content
    draft = HelenaDraft.objects.get(pk=antwort.json()["id"])
    assert (draft.typ, draft.status, draft.akte) == ("DOKUMENT", "PENDING", akte)
    assert draft.origin_run_id == run.pk, "the answer repeats what its run read: the draft follows the run"
    text = docx_text(client.get(antwort.json()["downloads"]["docx"]).content)
    assert "Die Kündigung ist unwirksam." in text
    assert "Hi, ich bin Helena" not in text  # the chat greeting is no part of the document
    assert not Dokument.objects.exists()

    ohne_akte = AgentRunFactory(user=akte.anwalt, akte=None, answer="Text")
    fehler = client.post(f"/api/antworten/{ohne_akte.pk}/als-dokument/", {}, content_type="application/json")
    assert fehler.status_code == 400 and "keiner Akte" in fehler.json()["detail"]
    client.force_login(UserFactory(role=Role.ANWALT))
    assert client.post(f"/api/antworten/{run.pk}/als-dokument/", {}, content_type="application/json").status_code == 404

    # A run on her Akte that also read an Akte she may no longer see: its answer can repeat it.
    andere = AkteFactory()
    ToolCallAudit.objects.create(run=run, user=akte.anwalt, tool="search_alle_akten", akten=[akte.pk, andere.pk])
    client.force_login(akte.anwalt)
    assert client.post(f"/api/antworten/{run.pk}/als-dokument/", {}, content_type="application/json").status_code == 404
