"""Browser tests: a real daphne server and a real db_worker (subprocesses on the test database),
the scripted LLM server as the model, and Debian's Chromium driven by Playwright (never a
downloaded browser). Screenshots go to test-artifacts/ (git-ignored)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.subprocess_env import env_on_test_database

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env() -> dict[str, str]:
    return env_on_test_database("tests.browser.settings")


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture
def helena_server(transactional_db: Any) -> Iterator[str]:
    """daphne + db_worker on the test database; yields the base URL."""
    port = free_port()
    daphne = subprocess.Popen(  # noqa: S603
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "helena.asgi:application"],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = subprocess.Popen(  # noqa: S603
        [sys.executable, "manage.py", "db_worker", "--no-reload", "--interval", "0.1", "--no-startup-delay"],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "/anmelden/", timeout=2) as response:  # noqa: S310
                    if response.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        yield base
    finally:
        _stop(daphne)
        _stop(worker)


@pytest.fixture
def browser_page(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    # Playwright's sync API runs an event loop in this thread; the test's own ORM reads are
    # plain synchronous code all the same.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium fehlt: `make chromium` installiert das Debian-Paket.")
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="de-DE")
        page.set_default_timeout(30_000)
        try:
            yield page
        finally:
            browser.close()


def screenshot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.fixture
def scripted_llm() -> Iterator[Any]:
    from tests.support.scripted_llm import scripted_llm_server

    yield from scripted_llm_server()


@pytest.fixture
def scripted_tier(scripted_llm: Any, transactional_db: Any) -> Any:
    from agent.models import TierConfig

    TierConfig.objects.all().delete()
    return TierConfig.objects.create(
        tier=1, name="Testmodell", provider=TierConfig.Provider.OLLAMA, model="scripted-model",
        base_url=scripted_llm.url, enabled=True, context_window=8192, timeout_seconds=60,
    )  # fmt: skip
