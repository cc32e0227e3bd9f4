"""No client data in any log, also where a library or Django writes the record: Pillow's EXIF tags at
DEBUG, asyncio's reprs of callback arguments and task exceptions, the tool name a model sent in
`helena_run`'s progress, a typed path under /static/, and the raw path in Django's "Not Found",
"Internal Server Error" and CSRF lines."""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from tests.factories import AkteFactory
from tests.helena.test_log_privacy import ROOT, captured_project_logs

MARKER = "Zyxwerth"
SECRET = "GEHEIMTEXT-4711"


@pytest.fixture
def logs(settings) -> Iterator[io.StringIO]:
    with captured_project_logs(settings) as buffer:
        yield buffer


def _tiff_with_artist() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("L", (30, 40), 128).save(buffer, format="TIFF", tiffinfo={315: f"{MARKER} Artist", 270: f"{MARKER} {SECRET}"})
    return buffer.getvalue()


@pytest.mark.django_db
def test_releasing_a_tiff_with_an_artist_logs_no_tag_values_at_debug(logs):
    """Pillow logs every TIFF/EXIF tag with its value at DEBUG ("tag: Artist (315) … value: …")."""
    akte = AkteFactory()
    client = Client()
    client.force_login(akte.anwalt)
    upload = SimpleUploadedFile("scan.tif", _tiff_with_artist(), content_type="image/tiff")

    response = client.post(
        reverse("api-dokument-list"), {"akte": akte.pk, "datei": upload, "name": "Scan", "mandant_sichtbar": "true"}
    )

    assert response.status_code == 201, response.content
    text = logs.getvalue()
    assert "SQL-Abfrage" in text, "DEBUG logging was on"
    assert MARKER not in text and SECRET not in text


def test_at_debug_only_the_project_s_and_django_s_loggers_are_kept():
    """An allowlist, so a library added later is covered too; the project's packages are the root
    packages import-linter checks."""
    import logging
    import tomllib

    from helena.log_privacy import DEBUG_LOGGERS, PrivacyFilter

    def kept(name: str, level: int) -> bool:
        return PrivacyFilter().filter(logging.LogRecord(name, level, __file__, 1, "tag %s", (MARKER,), None))

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert set(DEBUG_LOGGERS) == {*pyproject["tool"]["importlinter"]["root_packages"], "django"}
    for library in ("PIL.TiffImagePlugin", "fontTools.subset", "pypdf", "httpcore.http11", "asyncio", "root", "kuenftig"):
        assert not kept(library, logging.DEBUG), library
    assert kept("PIL.Image", logging.WARNING)
    for own in ("akten.services", "agent.engine.loop", "helena", "django.template"):
        assert kept(own, logging.DEBUG), own
    assert not kept("helenax", logging.DEBUG)


def test_asyncio_s_reports_of_a_failed_callback_and_a_lost_task_exception_carry_no_data(settings):
    """asyncio formats its own message with the reprs of the callback's arguments ("Exception in
    callback deliver({'text': …})") and of the task with its exception ("exception=RuntimeError('…')")."""
    import asyncio
    import gc

    def deliver(frame: dict[str, str]) -> None:
        raise RuntimeError(f"{frame['text']} {SECRET}")

    async def fail() -> None:
        raise RuntimeError(f"{MARKER} {SECRET}")

    async def main() -> None:
        asyncio.get_running_loop().call_soon(deliver, {"text": f"{MARKER} schuldet"})
        task = asyncio.get_running_loop().create_task(fail())
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert task.done()
        del task  # never retrieved: asyncio reports it when the task is collected

    with captured_project_logs(settings) as buffer:
        asyncio.run(main())
        gc.collect()
    text = buffer.getvalue()
    assert "ERROR asyncio Exception in callback " in text and "deliver" in text
    assert "ERROR asyncio Task exception was never retrieved" in text
    assert "RuntimeError (Meldung nicht protokolliert)" in text and "in fail" in text, "type and frames stay"
    assert MARKER not in text and SECRET not in text and "schuldet" not in text


def test_asyncio_messages_keep_their_first_words_and_a_callback_s_qualified_name_only():
    from helena.log_privacy import asyncio_message

    assert asyncio_message(f"Exception in callback f.<locals>.deliver({{'text': '{MARKER}'}}) at x.py:1") == (
        "Exception in callback f.<locals>.deliver"
    )
    assert asyncio_message(f"Exception in callback {MARKER} schuldet()") == "Exception in callback"  # an object's own repr
    assert asyncio_message(f"Executing <Handle deliver({{'text': '{MARKER}'}})> took 0.200 seconds") == "Executing"
    assert asyncio_message(f"Task was destroyed but it is pending!\ntask: <Task pending coro=<{MARKER}()>>") == (
        "Task was destroyed but it is pending!"
    )
    assert MARKER not in asyncio_message(f"<_SelectorSocketTransport fd=7 {MARKER}>: Fatal error on transport")


@pytest.mark.django_db(transaction=True)
def test_helena_run_names_only_registered_tools_in_its_progress():
    """A model may build a tool name from the prompt; the progress on stderr (a cron log) names only
    Helena's own tools, the result on stdout keeps everything."""
    from django.core.management import call_command

    from agent.models import TierConfig
    from tests.support.scripted_llm import scripted_llm_server

    akte = AkteFactory()
    with contextlib.contextmanager(scripted_llm_server)() as scripted_llm:
        TierConfig.objects.create(
            tier=1, name="Klein", provider="OLLAMA", model="scripted-model", base_url=scripted_llm.url, enabled=True
        )
        scripted_llm.script(
            [
                {"tool_calls": [{"name": f"{MARKER}_tool", "arguments": {}}]},
                {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
                {"text": "Erledigt."},
            ]
        )
        out, err = io.StringIO(), io.StringIO()
        call_command("helena_run", "Worum geht es?", user=akte.anwalt.email, mode="inline", stdout=out, stderr=err)
    progress = err.getvalue()
    assert "→ unbekanntes Werkzeug" in progress and "→ read_akte" in progress
    assert MARKER not in progress


@pytest.mark.django_db
@pytest.mark.asyncio
async def test_the_access_log_keeps_a_static_path_only_for_a_file_helena_serves(settings):
    """A typed or pasted URL under /static/ (a document's name, a party's) was logged as it was."""
    from channels.testing import HttpCommunicator

    from helena.asgi import application

    paths = {
        f"/static/{MARKER} Quorrelbach/Klage.pdf": "/static/…",
        f"/static/{MARKER}/Klage.pdf": "/static/…",  # plain characters, but no file of Helena's
        "/static/../akten/12": "/static/…",
        "/static/css/helena.css": "/static/css/helena.css",
        "/static/admin/css/base.css": "/static/admin/css/base.css",  # an app's static file (the finders)
    }
    with captured_project_logs(settings) as buffer:
        for path in paths:
            communicator = HttpCommunicator(application, "GET", path)
            await communicator.send_input({"type": "http.request", "body": b""})
            message: dict[str, Any] = {}
            while message.get("type") != "http.response.body" or message.get("more_body"):
                message = await communicator.receive_output(timeout=10)  # a file's last message has no body
            await communicator.wait()
    text = buffer.getvalue()
    for logged in paths.values():
        assert re.search(rf"helena\.access GET {re.escape(logged)} \d{{3}} ", text), logged
    assert MARKER not in text


@pytest.mark.django_db
def test_django_s_csrf_not_found_and_server_error_lines_carry_the_logged_path_only(settings, monkeypatch):
    """Django logs "Forbidden (CSRF cookie not set.): <path>", "Not Found: <path>" and "Internal
    Server Error: <path>" with the path as it was typed."""
    import logging

    from django.contrib import admin

    akte = AkteFactory()
    anwalt = akte.anwalt
    anwalt.is_staff = anwalt.is_superuser = True
    anwalt.save()
    path = f"/admin/akten/akte/{MARKER} {SECRET}/change/"

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("Akte nicht lesbar")

    with captured_project_logs(settings) as buffer:
        logging.getLogger("django.request").setLevel(logging.WARNING)  # "Not Found" too
        client = Client(enforce_csrf_checks=True, raise_request_exception=False)
        client.force_login(anwalt)
        assert client.post(path, {"kurzrubrum": "x"}).status_code == 403
        assert client.get(f"/akten/{MARKER} Müller/").status_code == 404  # Django escapes it: "M\\xfcller"
        monkeypatch.setattr(admin.ModelAdmin, "get_object", broken)
        assert client.get(path).status_code == 500
    text = buffer.getvalue()
    assert "Forbidden (CSRF cookie not set.): /admin/akten/akte/…/change/" in text
    assert "Not Found: /akten/…/" in text
    assert "Internal Server Error: /admin/akten/akte/…/change/" in text
    assert MARKER not in text and SECRET not in text and "xfcller" not in text
