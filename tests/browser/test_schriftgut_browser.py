"""Work product in a real browser (Debian's Chromium): a Schriftsatz draft filled from the shipped
template, downloaded as Word and PDF from its card, approved and downloaded again from the Akte's
document list; a document uploaded through the Akte page's upload field."""

from __future__ import annotations

from pathlib import Path

import pytest

from akten.models import Dokument, Role
from drafts.services import draft_create
from schriftgut.services import vorlage_waehlen
from tests.factories import UserFactory
from tests.schriftgut.helpers import akte_mit_parteien, docx_text, kanzlei, pdf_text

from .conftest import screenshot
from .test_chat_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _download(page, locator) -> bytes:
    with page.expect_download() as info:
        locator.click()
    return Path(info.value.path()).read_bytes()


def test_download_word_and_pdf_approve_and_upload(helena_server, browser_page, tmp_path):
    page, base = browser_page, helena_server
    kanzlei()
    akte = akte_mit_parteien()
    anwalt = akte.anwalt
    anwalt.email = "katrin@kanzlei.example"
    anwalt.save()
    UserFactory(role=Role.ANWALT)  # someone else, to be sure nothing leaks across
    draft_create(
        typ="DOKUMENT",
        akte=akte,
        requested_by=anwalt,
        payload={
            "titel": "Klageerwiderung",
            "inhalt_markdown": "## Anträge\n\nDie Klage wird abgewiesen.",
            "vorlage": vorlage_waehlen("Klageerwiderung").als_payload(),
        },
    )
    log_in(page, base, anwalt.email)
    page.goto(f"{base}/akten/{akte.pk}/")
    card = page.locator(".draft-card", has_text="Klageerwiderung").first
    word = _download(page, card.get_by_text("Als Word herunterladen"))
    text = docx_text(word)
    assert "Kanzlei Müller & Becker" in text and "– Beklagte –" in text and "Die Klage wird abgewiesen." in text
    assert "{{" not in text
    pdf = _download(page, card.get_by_text("Als PDF herunterladen"))
    assert "Unser Zeichen: 12/26" in pdf_text(pdf) and "Amtsgericht Tempelhof-Kreuzberg" in pdf_text(pdf)
    screenshot(page, "schriftgut-karte")

    card.get_by_text("Übernehmen").click()
    page.wait_for_function("() => document.body.innerText.includes('Übernommen')")
    dokument = Dokument.objects.get(akte=akte)
    page.goto(f"{base}/akten/{akte.pk}/")
    gespeichert = _download(page, page.get_by_label(f"{dokument.name} als PDF"))
    assert "Die Klage wird abgewiesen." in pdf_text(gespeichert)

    datei = tmp_path / "telefonnotiz.txt"
    datei.write_text("Mandantin ruft am Montag zurück.", encoding="utf-8")
    page.set_input_files("#upload-datei", str(datei))
    page.wait_for_function("() => document.getElementById('upload-status').innerText.includes('Text erkannt')")
    assert Dokument.objects.filter(akte=akte, name="telefonnotiz.txt").exists()
    # the Dokumente list shows the new file without a reload
    page.wait_for_selector("#dokument-liste:has-text('telefonnotiz.txt')", timeout=20_000)
    screenshot(page, "schriftgut-upload")

    # In the chat the file goes to the Akte chosen there.
    page.goto(f"{base}/helena/?akte={akte.pk}")
    chat_datei = tmp_path / "vollmacht.txt"
    chat_datei.write_text("Vollmacht für das Verfahren.", encoding="utf-8")
    page.set_input_files("#upload-datei", str(chat_datei))
    page.wait_for_function("() => document.getElementById('upload-status').innerText.includes('Text erkannt')")
    assert Dokument.objects.filter(akte=akte, name="vollmacht.txt").exists()
