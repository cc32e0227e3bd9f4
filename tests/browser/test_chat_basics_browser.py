"""Chat basics in a real browser: Enter sends and Shift+Enter adds a line, Markdown appears while
the answer streams (as elements, never as raw asterisks), sources are links, the heading names the
new conversation, copy, feedback and regenerate work; at 390 px nothing scrolls sideways."""

from __future__ import annotations

import pytest

from agent.models import AgentRun, AnswerFeedback
from akten.models import Role
from tests.factories import AkteFactory, UserFactory

from .conftest import screenshot
from .test_chat_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def no_sideways_scroll(page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_enter_streaming_markdown_sources_copy_feedback_regenerate(helena_server, browser_page, scripted_tier, scripted_llm):
    page, base = browser_page, helena_server
    user = UserFactory(email="ben@kanzlei.example", role=Role.ANWALT, first_name="Ben", last_name="Kurz")
    akte = AkteFactory(anwalt=user, kurzrubrum="Sommer ./. Winter")
    answer = "## Ergebnis\n\nDie Akte betrifft **Sommer**.\n\n- erster Punkt\n- zweiter Punkt"
    scripted_llm.script(
        [
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
            {"text": answer, "chunk_delay": 0.15},
            {"text": "Zweite Fassung der Antwort."},
        ]
    )
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    log_in(page, base, "ben@kanzlei.example")
    page.goto(f"{base}/helena/?akte={akte.pk}")
    page.wait_for_selector("body[data-ws=open]")

    page.click("#chat-text")
    page.keyboard.type("Worum geht es")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("in der Akte?")
    assert page.input_value("#chat-text") == "Worum geht es\nin der Akte?"
    page.keyboard.press("Enter")

    # while streaming, Markdown is already structure: a bold element, never literal asterisks
    page.wait_for_selector("li.turn-helena .answer.streaming strong:has-text('Sommer')")
    assert "**" not in page.inner_text("li.turn-helena .answer")
    page.wait_for_selector("li.turn-helena.finished")
    assert page.locator("li.turn-helena.finished .answer li").count() == 2
    assert page.inner_text("#chat-h") == "Worum geht es in der Akte?"
    assert page.title() == "Worum geht es in der Akte? – Helena"
    assert page.inner_text("li.turn-user .question-text") == "Worum geht es\nin der Akte?"

    source = page.locator(".sources-details").first
    source.locator("summary").click()
    link = source.locator("a").first
    assert link.get_attribute("href") == f"/akten/{akte.pk}/"
    assert akte.aktenzeichen in link.inner_text()
    assert "{" not in source.inner_text()

    page.click("li.turn-helena.finished button.copy-answer")
    page.wait_for_selector("li.turn-helena.finished button.copy-answer:has-text('Kopiert')")
    assert "Die Akte betrifft Sommer." in page.evaluate("navigator.clipboard.readText()")

    page.click("li.turn-helena.finished button.feedback-down")
    page.wait_for_selector("li.turn-helena.finished .feedback-status:has-text('Danke')")
    assert page.get_attribute("li.turn-helena.finished button.feedback-down", "aria-pressed") == "true"
    feedback = AnswerFeedback.objects.get()
    assert (feedback.user, feedback.rating) == (user, "DOWN")
    screenshot(page, "10-chat-markdown-quellen-bewertung-1280")

    page.click("li.turn-helena.finished button.regenerate")
    page.wait_for_selector("li.turn-helena.finished .answer:has-text('Zweite Fassung der Antwort.')")
    assert list(AgentRun.objects.order_by("pk").values_list("task", flat=True)) == ["Worum geht es\nin der Akte?"] * 2

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.wait_for_selector("body[data-ws=open]")
    assert no_sideways_scroll(page)
    assert not page.is_visible(".conv-items"), "the conversation list is collapsed on a phone"
    box = page.locator("#chat-text").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 844, "the input is on screen without scrolling"
    page.click(".conv-collapse summary")
    assert page.is_visible(".conv-items")
    screenshot(page, "11-chat-390")
