"""CSP: `connect-src 'self'` only (no blanket ws:/wss:), and the chat websocket still connects in
the real Chromium (CSP Level 3: 'self' covers the page's own ws:/wss: origin)."""

from __future__ import annotations

import pytest

from akten.models import Role
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_chat_websocket_connects_under_connect_src_self(helena_server, browser_page):
    page, base = browser_page, helena_server
    UserFactory(email="anna@kanzlei.example", role=Role.ANWALT)
    violations: list[str] = []
    page.on("console", lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None)
    page.goto(base + "/anmelden/")
    page.fill("input[name=username]", "anna@kanzlei.example")
    page.fill("input[name=password]", "geheim-1234")
    page.click("button[type=submit]")
    page.wait_for_url(base + "/")
    response = page.goto(base + "/helena/")
    policy = response.headers["content-security-policy"]
    connect = next(d for d in policy.split(";") if d.strip().startswith("connect-src")).split()
    assert connect == ["connect-src", "'self'"]
    page.wait_for_selector("body[data-ws=open]")
    assert violations == []
