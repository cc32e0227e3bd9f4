"""A norm cited in Helena's answer opens in a side panel next to the chat, with its text and Stand,
at the cited Absatz; a citation of a norm that is not in the corpus is marked."""

from __future__ import annotations

import pytest

from agent.models import Conversation, Message
from akten.models import Role
from recherche.models import Gesetz, Norm
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_cited_norm_opens_in_the_side_panel(helena_server, browser_page):
    page, base = browser_page, helena_server
    user = UserFactory(email="nora@kanzlei.example", role=Role.ANWALT)
    stand = "zuletzt geändert durch Art. 1 G v. 1.1.2026"
    gesetz, _ = Gesetz.objects.get_or_create(
        abkuerzung="BGB", defaults={"titel": "Bürgerliches Gesetzbuch", "slug": "bgb", "stand": stand}
    )
    text = (
        "(1) Der Vermieter kann nur kündigen, wenn er ein berechtigtes Interesse hat.\n\n"
        "(2) Ein berechtigtes Interesse liegt insbesondere vor, wenn der Vermieter die Räume benötigt."
    )
    Norm.objects.get_or_create(
        gesetz=gesetz,
        art="§",
        nummer="573",
        defaults={"titel": "Ordentliche Kündigung des Vermieters", "position": 90_000, "text": text},
    )
    conversation = Conversation.objects.create(user=user, title="Eigenbedarf")
    Message.objects.create(conversation=conversation, role=Message.Role.USER, text="Darf der Vermieter kündigen?")
    Message.objects.create(
        conversation=conversation, role=Message.Role.ASSISTANT, text="Nach § 573 Abs. 2 BGB ja; § 9999 BGB gibt es nicht."
    )
    page.goto(base + "/anmelden/")
    page.fill("input[name=username]", "nora@kanzlei.example")
    page.fill("input[name=password]", "geheim-1234")
    page.click("button[type=submit]")
    page.wait_for_url(base + "/")
    page.goto(base + f"/helena/gespraeche/{conversation.pk}/")
    assert "nicht im Bestand" in page.inner_text(".turn-helena")
    page.click("a[data-norm-panel]")
    panel = page.wait_for_selector("#norm-panel:not([hidden]) h2")
    assert "573" in panel.inner_text()
    text = page.inner_text("#norm-panel")
    assert "berechtigtes Interesse" in text
    assert "Stand:" in text
    assert page.url.endswith(f"/helena/gespraeche/{conversation.pk}/"), "the chat stays open"
    page.keyboard.press("Escape")
    page.wait_for_selector("#norm-panel", state="hidden")
