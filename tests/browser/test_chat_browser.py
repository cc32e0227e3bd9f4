"""The chat in a real browser: log in, ask about a demo Akte, watch the steps, approve a Frist card
and find the Frist in the Akte, reject a document card with a reason, cancel a background run,
reload mid-run and see it continue."""

from __future__ import annotations

import pytest
from django.utils import timezone

from agent.models import AgentRun
from akten.models import KalenderEintrag, Role
from drafts.models import HelenaDraft
from tests.factories import AkteFactory, UserFactory
from tests.support.dates import next_workday

from .conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in(page, base: str, email: str) -> None:
    page.goto(base + "/anmelden/")
    page.fill("input[name=username]", email)
    page.fill("input[name=password]", "geheim-1234")
    page.click("button[type=submit]")
    page.wait_for_url(base + "/")


@pytest.fixture
def anwalt_akte():
    user = UserFactory(email="anna@kanzlei.example", role=Role.ANWALT, first_name="Anna", last_name="Berger")
    return AkteFactory(anwalt=user, kurzrubrum="Sommer ./. Winter", wegen="Kaufpreis")


def test_ask_watch_steps_approve_frist_and_reject_document(helena_server, browser_page, scripted_tier, scripted_llm, anwalt_akte):
    page, base, akte = browser_page, helena_server, anwalt_akte
    due = next_workday()
    scripted_llm.script(
        [
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
            {
                "tool_calls": [
                    {
                        "name": "create_draft_frist",
                        "arguments": {
                            "akte": akte.aktenzeichen, "typ": "FRIST", "titel": "Berufungsbegründungsfrist",
                            "datum": timezone.localdate().isoformat(), "fristablauf": due.isoformat(),
                        },
                    },
                    {
                        "name": "create_draft_dokument",
                        "arguments": {
                            "akte": akte.aktenzeichen, "titel": "Mahnschreiben",
                            "inhalt_markdown": "Sehr geehrte Damen und Herren,\n\n**bitte zahlen** Sie.",
                        },
                    },
                ]
            },
            {"text": "Die Akte betrifft den **Kaufpreis**. Ich habe eine Frist und ein Schreiben entworfen."},
        ]
    )  # fmt: skip
    log_in(page, base, "anna@kanzlei.example")
    page.click("text=Helena fragen")
    page.select_option("#chat-akte", str(akte.pk))
    page.wait_for_selector("body[data-ws=open]")
    page.fill("#chat-text", "Worum geht es in der Akte?")
    page.click("#chat-send")
    page.wait_for_selector(".steps .step-label:has-text('Schritt 1/')")
    page.wait_for_selector(".tool-call:has-text('read_akte')")
    page.wait_for_selector("li.turn-helena.finished")
    assert "Kaufpreis" in page.inner_text("li.turn-helena.finished .answer")
    assert page.locator(".mode-badge").first.inner_text().strip() in {"Inline", "Hintergrund"}
    screenshot(page, "01-chat-antwort-mit-entwuerfen")

    frist_card = page.locator("article.draft-card:has-text('Berufungsbegründungsfrist')")
    frist_card.locator("text=Übernehmen").focus()
    page.keyboard.press("Enter")  # by keyboard: the focus stays on the card, on "Rückgängig"
    page.wait_for_selector("article.draft-card:has-text('Berufungsbegründungsfrist'):has-text('übernommen')")
    assert page.evaluate("document.activeElement.textContent") == "Rückgängig"
    assert KalenderEintrag.objects.filter(akte=akte, titel="Berufungsbegründungsfrist").exists()

    doc_card = page.locator("article.draft-card:has-text('Mahnschreiben')")
    assert "bitte zahlen" in doc_card.locator(".doc-preview strong").inner_text()
    doc_card.locator("button.act-reject").click()
    doc_card.locator("label:has-text('Ton/Stil')").click()
    doc_card.locator("textarea[name=reason]").fill("Zu forsch formuliert.")
    doc_card.locator("text=Ablehnung senden").click()
    page.wait_for_selector("article.draft-card:has-text('Mahnschreiben'):has-text('abgelehnt')")
    screenshot(page, "02-frist-uebernommen-dokument-abgelehnt")
    rejected = HelenaDraft.objects.get(titel="Mahnschreiben")
    assert rejected.status == "REJECTED" and rejected.rejection_categories == ["TON_STIL"]
    assert rejected.rejection_reason == "Zu forsch formuliert."

    page.locator("article.draft-card:has-text('Berufungsbegründungsfrist') a:has-text('Zum Eintrag')").click()
    page.wait_for_url(f"{base}/akten/{akte.pk}/#kal-h")
    assert "Berufungsbegründungsfrist" in page.inner_text("section[aria-labelledby=kal-h]")
    screenshot(page, "03-frist-in-der-akte")


def test_background_run_survives_reload_and_another_is_cancelled(
    helena_server, browser_page, scripted_tier, scripted_llm, anwalt_akte
):
    page, base, akte = browser_page, helena_server, anwalt_akte
    scripted_llm.script(
        [
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
            {"text": "Die Prüfung ist abgeschlossen.", "delay": 4},
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
            {"text": "Das hier dauert sehr lange.", "delay": 60},
        ]
    )
    log_in(page, base, "anna@kanzlei.example")
    page.goto(f"{base}/helena/?akte={akte.pk}")
    page.wait_for_selector("body[data-ws=open]")
    page.check("#chat-background")
    page.fill("#chat-text", "Prüfe die Akte auf offene Punkte.")
    page.click("#chat-send")
    page.wait_for_selector(".mode-badge:has-text('Hintergrund')")
    page.wait_for_selector(".steps .step-label:has-text('Schritt 2/')")
    screenshot(page, "04-hintergrund-laeuft")
    page.reload()
    page.wait_for_selector("body[data-ws=open]")
    page.wait_for_selector("li.turn-helena.finished .answer:has-text('Die Prüfung ist abgeschlossen.')", timeout=45_000)
    screenshot(page, "05-nach-neuladen-fertig")

    page.check("#chat-background")
    page.fill("#chat-text", "Prüfe die Akte noch einmal gründlich.")
    page.click("#chat-send")
    page.wait_for_selector("li.turn-helena.live .steps .step-label:has-text('Schritt 2/')", timeout=45_000)
    page.click("li.turn-helena.live button.cancel-run")
    page.wait_for_selector("li.turn-helena .run-status:has-text('abgebrochen')", timeout=10_000)
    screenshot(page, "06-abgebrochen")
    statuses = sorted(AgentRun.objects.filter(user=akte.anwalt).values_list("status", flat=True))
    assert statuses == ["CANCELLED", "DONE"]

    page.click("text=Meine Aufträge")
    assert "abgebrochen" in page.inner_text("table.runs-table") and "fertig" in page.inner_text("table.runs-table")
    screenshot(page, "07-meine-auftraege")
