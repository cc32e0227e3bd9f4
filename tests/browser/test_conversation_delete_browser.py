"""Deleting a conversation with undo in a real browser: it disappears at once with a „Rückgängig“
toast; undo brings it back and nothing is deleted; without undo the delete is sent only after the
undo time; a tab closed within that time deletes nothing."""

from __future__ import annotations

import time

import pytest

from agent.models import Conversation
from akten.models import Role
from tests.factories import UserFactory

from .conftest import screenshot
from .test_chat_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def wait_until(condition, timeout: float = 60.0) -> bool:
    """Polls a database condition (the server runs in another process); generous on a busy machine."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return False


def test_delete_hides_at_once_offers_undo_and_deletes_only_afterwards(helena_server, browser_page):
    page, base = browser_page, helena_server
    user = UserFactory(email="dora@kanzlei.example", role=Role.ANWALT)
    keep = Conversation.objects.create(user=user, title="Mietminderung Schulze")
    gone = Conversation.objects.create(user=user, title="Kündigung Weber")
    log_in(page, base, "dora@kanzlei.example")
    page.goto(f"{base}/helena/")

    # delete, then undo: the entry comes back and the conversation stays
    page.click(f'.conv-items li[data-conversation="{keep.pk}"] a.conv-delete')
    page.wait_for_selector(f'.conv-items li[data-conversation="{keep.pk}"]', state="hidden")
    page.wait_for_selector("#undo-toast:has-text('Mietminderung Schulze') button:has-text('Rückgängig')")
    screenshot(page, "conversation-delete-undo-toast")
    page.click("#undo-toast button.toast-undo")
    page.wait_for_selector(f'.conv-items li[data-conversation="{keep.pk}"]', state="visible")
    page.wait_for_selector("#undo-toast:has-text('bleibt erhalten')")

    # delete and wait: gone from the page at once, from the database only after the undo time
    page.click(f'.conv-items li[data-conversation="{gone.pk}"] a.conv-delete')
    page.wait_for_selector(f'.conv-items li[data-conversation="{gone.pk}"]', state="hidden")
    assert Conversation.objects.filter(pk=gone.pk).exists()
    assert wait_until(lambda: not Conversation.objects.filter(pk=gone.pk).exists())
    page.wait_for_selector("#undo-toast:has-text('wurde gelöscht')")
    page.wait_for_selector(f'.conv-items li[data-conversation="{gone.pk}"]', state="detached")
    assert Conversation.objects.filter(pk=keep.pk).exists()

    # the open conversation: its view is hidden at once; after the undo time the empty chat page
    page.goto(f"{base}/helena/gespraeche/{keep.pk}/")
    page.click("summary:has-text('umbenennen oder löschen')")
    page.click("a.delete-conversation")
    page.wait_for_selector(".deleted-note", state="visible")
    page.wait_for_selector("#chat-feed", state="hidden")
    page.wait_for_url(f"{base}/helena/", timeout=60_000)
    assert not Conversation.objects.filter(pk=keep.pk).exists()


def test_closing_the_tab_within_the_undo_time_deletes_nothing(helena_server, browser_page):
    base = helena_server
    user = UserFactory(email="emil@kanzlei.example", role=Role.ANWALT)
    closed = Conversation.objects.create(user=user, title="Unfall Krause")
    control = Conversation.objects.create(user=user, title="Kontrolle")
    context = browser_page.context.browser.new_context(viewport={"width": 1280, "height": 900}, locale="de-DE")
    try:
        first = context.new_page()
        log_in(first, base, "emil@kanzlei.example")
        first.goto(f"{base}/helena/")
        first.click(f'.conv-items li[data-conversation="{closed.pk}"] a.conv-delete')
        first.wait_for_selector("#undo-toast:has-text('Unfall Krause')")
        first.close()

        # a deletion started after the tab was closed goes through: the undo time of the closed tab
        # has passed by then, and its deletion was never sent
        second = context.new_page()
        second.goto(f"{base}/helena/")
        second.click(f'.conv-items li[data-conversation="{control.pk}"] a.conv-delete')
        assert wait_until(lambda: not Conversation.objects.filter(pk=control.pk).exists())
        assert Conversation.objects.filter(pk=closed.pk).exists()
        second.reload()
        second.wait_for_selector(f'.conv-items li[data-conversation="{closed.pk}"]')
    finally:
        context.close()
