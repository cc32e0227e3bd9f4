"""Accessibility of the main pages, checked with axe-core (the engine ships inside the pinned
`axe-playwright-python` package of requirements-dev.txt, MPL-2.0) in Debian's Chromium, on the demo
Kanzlei: start page with the Fristenkontrolle, Akte, chat with an answer, Meine Aufträge,
notifications, the calculators, the Mandantin's pages and the admin (index, role × tool grid, a
tier, rate limits, configuration changes), each at 1,280 and at
390 px. Zero violations, and at 390 px no page scrolls sideways; a full-page screenshot of every
page and width is kept as an artifact (test-artifacts/a11y/, the path is printed)."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from agent.models import AgentRun, Conversation, Message, TierConfig
from akten.models import Akte, User
from helena.demo import DEMO_PASSWORD, seed_demo

from .conftest import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (1280, 390)
CALCULATORS = ("rvg", "gkg", "famgkg", "rahmengebuehren", "fristen", "zinsen", "prozesskostenrisiko")
ANSWER = "## Ergebnis\n\nDie Frist endet am **15.12.2026**.\n\n- Zustellung am 15.11.2026\n- § 188 Abs. 2 BGB"


# the elements that stick out to the right, for the failure message
WIDEST = """[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
  .slice(-3).map(e => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className).join(', ')"""


def log_in(page: Any, base: str, email: str) -> None:
    page.context.clear_cookies()
    page.goto(base + "/anmelden/")
    page.fill("input[name=username]", email)
    page.fill("input[name=password]", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(base + "/")


def violations(page: Any) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    result = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} – " + "; ".join(", ".join(n["target"]) for n in v["nodes"][:5])
        for v in result.response["violations"]
    ]


def check_pages(page: Any, base: str, who: str, paths: list[str], found: dict[str, list[str]]) -> None:
    folder = ARTIFACTS / "a11y"
    folder.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for path in paths:
            response = page.goto(base + path)
            assert response is not None and response.status == 200, path
            page.wait_for_load_state("load")
            name = f"{who}-{path.strip('/').replace('/', '-') or 'start'}-{width}.png"
            page.screenshot(path=str(folder / name), full_page=True)
            problems = violations(page)
            if width < 400 and page.evaluate("document.documentElement.scrollWidth > window.innerWidth"):
                problems.append("scrolls sideways at 390 px: " + page.evaluate(WIDEST))
            if problems:
                found[f"{who} {path} @{width}px"] = problems
    print(f"\nScreenshots: {folder}")


def test_main_pages_have_no_accessibility_violations(helena_server, browser_page):
    page, base = browser_page, helena_server
    seed_demo()
    lawyer = User.objects.get(email="k.mueller@kanzlei.example")
    akte = Akte.objects.visible_to(lawyer).order_by("pk").first()
    conversation = Conversation.objects.create(user=lawyer, akte=akte, title="Frist der Berufung")
    run = AgentRun.objects.create(
        user=lawyer, akte=akte, conversation=conversation, task="Wann endet die Frist?", status="DONE", finished_at=timezone.now()
    )
    Message.objects.create(conversation=conversation, role="USER", text="Wann endet die Frist?", run=run)
    Message.objects.create(conversation=conversation, role="ASSISTANT", text=ANSWER, run=run)
    mandantin = User.objects.get(email="erika.mustermann@example.org")
    mandanten_akte = Akte.objects.visible_to(mandantin).order_by("pk").first()
    assert akte is not None and mandanten_akte is not None

    # the check itself finds what it should (an unlabelled field, an image without a text)
    page.set_content('<html lang="de"><body><main><input type="text"><img src="x.png"></main></body></html>')
    assert {line.split(" ")[0] for line in violations(page)} >= {"label", "image-alt"}

    found: dict[str, list[str]] = {}
    log_in(page, base, lawyer.email)
    staff_pages = [
        "/",
        f"/akten/{akte.pk}/",
        "/helena/",
        f"/helena/gespraeche/{conversation.pk}/",
        "/helena/auftraege/",
        "/helena/benachrichtigungen/",
        "/rechner/",
        *(f"/rechner/{name}/" for name in CALCULATORS),
        # with their results: the tables made the whole page scroll sideways at 375 px
        "/rechner/prozesskostenrisiko/?streitwert=10.000&instanzen=2&gericht=zivil&datum=2024-01-01",
        "/rechner/zinsen/?hauptforderung=10.000,00&von=2024-01-01&bis=2024-12-31&art=verbraucher",
    ]
    check_pages(page, base, "anwaeltin", staff_pages, found)
    log_in(page, base, mandantin.email)
    check_pages(page, base, "mandantin", ["/", f"/akten/{mandanten_akte.pk}/"], found)
    log_in(page, base, "admin@kanzlei.example")
    tier, _created = TierConfig.objects.get_or_create(tier=1, defaults={"name": "Lokal", "model": "qwen2.5:7b-instruct"})
    admin_pages = [
        "/admin/",
        "/admin/agent/toolpermission/",
        f"/admin/agent/tierconfig/{tier.pk}/change/",
        "/admin/agent/ratelimit/",
        "/admin/agent/configchange/",
    ]
    check_pages(page, base, "admin", admin_pages, found)

    assert found == {}
