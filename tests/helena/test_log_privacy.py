"""No client data in any log: everything logged (root logger at DEBUG, SQL logging on) during a full
chat turn through the websocket and during searches for a party's name, and the access log of a
real daphne started the way `make run` starts it, contain no party name, document text or chat text."""

from __future__ import annotations

import contextlib
import copy
import io
import logging
import logging.config
import re
import subprocess
import sys
import time
import traceback
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings as django_settings
from django.test import Client

from agent.models import TierConfig
from helena.log_privacy import PrivacyFilter, scrub_query_strings
from tests.agent.chat.conftest import is_terminal, receive_until, ws_connect
from tests.browser.conftest import free_port
from tests.factories import AkteFactory, BeteiligterFactory, DokumentFactory
from tests.support.scripted_llm import scripted_llm_server
from tests.support.subprocess_env import env_on_test_database

ROOT = Path(__file__).resolve().parents[2]
PARTY = "Wunderlichstein"
DOCUMENT_TEXT = "Geheimklausel Zitronenfalter"
CHAT_TEXT = "Quittenbaumvertrag"
ANSWER_TEXT = "Antwortmarker Holunder"
MARKERS = (PARTY, DOCUMENT_TEXT, "Zitronenfalter", CHAT_TEXT, ANSWER_TEXT, "Holunder")


@pytest.fixture
def captured_logs(settings) -> Iterator[io.StringIO]:
    with captured_project_logs(settings) as buffer:
        yield buffer


@contextlib.contextmanager
def captured_project_logs(settings: Any) -> Iterator[io.StringIO]:
    """The project's LOGGING at DEBUG everywhere (root and django, so SQL is logged), with every
    stream handler of every logger writing into one buffer."""
    import helena.asgi  # noqa: F401  (its django.setup() would configure logging anew mid-test)

    settings.DEBUG = True  # Django logs SQL statements (django.db.backends) only with DEBUG
    buffer = io.StringIO()
    config = copy.deepcopy(django_settings.LOGGING)
    config["root"]["level"] = "DEBUG"
    config["loggers"]["django"] = config["loggers"].get("django", {}) | {"level": "DEBUG"}
    config["loggers"]["factory"] = {"level": "WARNING"}  # the test's own data setup, not the app
    logging.config.dictConfig(config)
    for logger in [logging.getLogger(), *(logging.getLogger(name) for name in logging.root.manager.loggerDict)]:
        for handler in logger.handlers:
            if isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler):
                handler.setStream(buffer)
    try:
        yield buffer
    finally:
        logging.config.dictConfig(django_settings.LOGGING)


def assert_no_client_data(text: str) -> None:
    leaked = [marker for marker in MARKERS if marker in text]
    assert not leaked, f"client data in the log: {leaked}"


@pytest.fixture
def scripted_llm() -> Iterator[Any]:
    yield from scripted_llm_server()


@pytest.fixture
def scripted_tier(scripted_llm: Any) -> TierConfig:
    TierConfig.objects.all().delete()
    return TierConfig.objects.create(
        tier=1, name="Testmodell", provider=TierConfig.Provider.OLLAMA, model="scripted-model",
        base_url=scripted_llm.url, enabled=True, context_window=8192, timeout_seconds=20,
    )  # fmt: skip


def _world() -> tuple[Any, Any, Any]:
    akte = AkteFactory(kurzrubrum=f"{PARTY} ./. Ostwald")
    BeteiligterFactory(akte=akte, kontakt__nachname=PARTY, rolle="MANDANT")
    dokument = DokumentFactory(akte=akte, name="Vertrag", text=f"§ 7 {DOCUMENT_TEXT}: gilt.")
    return akte, dokument, akte.anwalt


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_chat_turn_logs_no_client_data_at_debug(captured_logs, scripted_tier, scripted_llm):
    akte, dokument, anwalt = await sync_to_async(_world)()
    scripted_llm.script(
        [
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
            {"tool_calls": [{"name": "read_dokument_detail", "arguments": {"dokument_id": dokument.pk}}]},
            {"tool_calls": [{"name": "search_alle_akten", "arguments": {"query": PARTY}}]},
            {"text": f"{PARTY}: {DOCUMENT_TEXT}. {ANSWER_TEXT}."},
        ]
    )
    async with ws_connect(anwalt) as (comm, _connected, _code):
        await comm.send_json_to({"type": "chat.send", "text": f"Was steht im {CHAT_TEXT}?", "akte": akte.pk, "mode": "INLINE"})
        events = await receive_until(comm, is_terminal, within=40)
    assert events[-1]["type"] == "run.finished" and PARTY in events[-1]["answer_html"]
    text = captured_logs.getvalue()
    assert "SQL-Abfrage" in text, "SQL logging was on"
    assert re.search(r"helena\.access WS /ws/helena/ 101 \d+ms", text), "the websocket session is in the access log"
    assert_no_client_data(text)


@pytest.mark.django_db
def test_searches_and_failures_log_no_client_data_at_debug(captured_logs, monkeypatch):
    akte, _dokument, anwalt = _world()
    client = Client(raise_request_exception=False)
    client.force_login(anwalt)
    assert client.get("/api/akten/", {"q": PARTY}).json()["count"] == 1
    assert PARTY in client.get("/", {"q": PARTY}).content.decode()
    assert client.get("/api/akten/", {"q": PARTY + "\x00"}).status_code == 400
    assert client.get("/api/akten/gibt-es-nicht/", {"q": PARTY}).status_code == 404

    def broken(**kwargs: Any) -> None:
        raise RuntimeError(f"Abfrage nach {kwargs.get('q')} gescheitert")

    monkeypatch.setattr("akten.selectors.akte_list", broken)
    assert client.get("/api/akten/", {"q": PARTY}).status_code == 500
    text = captured_logs.getvalue()
    assert "SQL-Abfrage" in text and "Internal Server Error: /api/akten/" in text
    assert "RuntimeError (Meldung nicht protokolliert)" in text, "the traceback keeps its frames and type"
    assert_no_client_data(text)


def test_the_filter_scrubs_query_strings_sql_and_exception_messages():
    def record(name: str, msg: str, args: Any = (), exc: BaseException | None = None, **extra: Any) -> logging.LogRecord:
        level = logging.DEBUG if name.startswith("django.") else logging.ERROR  # a library's DEBUG record is dropped
        rec = logging.LogRecord(name, level, __file__, 1, msg, args, (type(exc), exc, exc.__traceback__) if exc else None)
        rec.__dict__.update(extra)
        return rec

    line = record("django.channels.server", "HTTP %(method)s %(path)s", {"method": "GET", "path": f"/api/akten/?q={PARTY}"})
    PrivacyFilter().filter(line)
    assert line.getMessage() == "HTTP GET /api/akten/?…"
    typed = record("django.channels.server", "HTTP %(method)s %(path)s", {"method": "GET", "path": f"/akten/{PARTY}/?q=1"})
    PrivacyFilter().filter(typed)
    assert typed.getMessage() == "HTTP GET /akten/…/?…"  # the dev server's line, the path as the access log has it
    sql = record("django.db.backends", "(%.3f) %s; args=%s", (0.002, f"SELECT 1 WHERE x = '{PARTY}'", (PARTY,)), duration=0.002)
    PrivacyFilter().filter(sql)
    assert PARTY not in sql.getMessage() and "(0.002) SQL-Abfrage" in sql.getMessage()
    try:
        try:
            raise KeyError(PARTY)
        except KeyError as inner:
            raise ValueError(f"kein {PARTY}") from inner
    except ValueError as exc:
        failed = record("x", "failed", exc=exc)
    PrivacyFilter().filter(failed)
    formatted = logging.Formatter().format(failed)
    assert PARTY not in formatted and "builtins.KeyError" in formatted and "builtins.ValueError" in formatted
    assert scrub_query_strings("Wirklich? Ja.") == "Wirklich? Ja."
    try:
        raise ValueError(f"kein {PARTY}")
    except ValueError:
        as_text = record("daphne.http_protocol", traceback.format_exc())  # how daphne logs failures
    PrivacyFilter().filter(as_text)
    assert PARTY not in as_text.getMessage() and "ValueError (Meldung nicht protokolliert)" in as_text.getMessage()


def test_the_filter_leaves_out_further_message_lines_group_members_and_exceptions_given_as_arguments():
    """daphne logs `"Exception inside application: %s", exception` and `traceback.format_exc()`; the
    text of the exception reached the log when it was an argument, when the message had more than one
    line, and for the exceptions inside an ExceptionGroup."""

    def fail(betrag: str = "9000 €") -> None:
        raise ValueError(f"Mandant\n{PARTY} schuldet {betrag}")

    try:
        fail()
    except ValueError as exc:
        mehrzeilig, als_argument = traceback.format_exc(), exc
    try:
        raise ExceptionGroup("Gruppe", [KeyError(PARTY), ValueError(f"kein {PARTY}")])
    except ExceptionGroup:
        gruppe = traceback.format_exc()
    for name, msg, args in (
        ("daphne.http_protocol", mehrzeilig, ()),
        ("daphne.http_protocol", gruppe, ()),
        ("daphne.server", "Exception inside application: %s", (als_argument,)),
    ):
        rec = logging.LogRecord(name, logging.ERROR, __file__, 1, msg, args, None)
        PrivacyFilter().filter(rec)
        text = rec.getMessage()
        assert PARTY not in text and "9000" not in text, text
        assert "ValueError (Meldung nicht protokolliert)" in text
    # the frames stay: where it failed, with the failing line of code
    rec = logging.LogRecord("daphne.http_protocol", logging.ERROR, __file__, 1, mehrzeilig, (), None)
    PrivacyFilter().filter(rec)
    assert "in fail" in rec.getMessage() and "raise ValueError" in rec.getMessage()


def _make_run_daphne_args(port: int) -> list[str]:
    """The daphne command of `make run` (the last line of the target), as it would run."""
    lines = (ROOT / "Makefile").read_text().split("\nrun:", 1)[1].split("\n\n", 1)[0].splitlines()
    command = lines[-1].strip()
    assert "$(BIN)/daphne" in command
    command = command.replace("$(BIN)/daphne", "DAPHNE").replace("$(HOST)", "127.0.0.1").replace("$(PORT)", str(port))
    args = command.split()
    return [sys.executable, "-m", "daphne", *args[1:]]


def _daphne_flags(args: list[str]) -> list[str]:
    return [a for a in args if a.startswith("-") and a not in ("-b", "-p", "-m")]


def test_dockerfile_starts_daphne_with_the_same_logging_flags_as_make_run():
    dockerfile = (ROOT / "Dockerfile").read_text()
    command = re.search(r"daphne ([^\"]*)helena\.asgi:application", dockerfile)
    assert command is not None
    docker_flags = [a for a in command.group(1).split() if a.startswith("-")]
    for flag in _daphne_flags(_make_run_daphne_args(8000)):
        assert flag in docker_flags
    compose = (ROOT / "docker-compose.yml").read_text()
    assert "command:" not in compose.split("  web:", 1)[1], "docker-compose's web service runs the image's command"


@pytest.mark.django_db(transaction=True)
def test_daphne_as_make_run_starts_it_writes_an_access_log_without_query_strings(tmp_path):
    _akte, _dokument, anwalt = _world()
    helper = Client()
    helper.force_login(anwalt)
    cookie = helper.cookies["sessionid"].value
    port = free_port()
    env = env_on_test_database("tests.browser.settings") | {"LOG_LEVEL": "DEBUG"}
    out, err = (tmp_path / "stdout.log").open("w"), (tmp_path / "stderr.log").open("w")
    daphne = subprocess.Popen(_make_run_daphne_args(port), cwd=ROOT, env=env, stdout=out, stderr=err)  # noqa: S603
    base = f"http://127.0.0.1:{port}"

    def get(path: str) -> int:
        request = urllib.request.Request(base + path, headers={"Cookie": f"sessionid={cookie}"})  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
                return int(response.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)

    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                get("/anmelden/")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        assert get(f"/api/akten/?q={PARTY}") == 200
        assert get(f"/?q={PARTY}") == 200
        assert get(f"/api/akten/?q={PARTY}%00") == 400
        # a typed or pasted URL with a name in its path (the app's own links carry ids)
        assert get(f"/akten/{PARTY}%20Meier/") == 404
        assert get(f"/api/akten/{PARTY}/") == 404
    finally:
        daphne.terminate()
        daphne.wait(timeout=20)
        out.close(), err.close()
    text = (tmp_path / "stdout.log").read_text() + (tmp_path / "stderr.log").read_text()
    assert "helena.access GET /api/akten/ 200" in text and f"user={anwalt.pk}" in text
    assert "helena.access GET /api/akten/ 400" in text
    assert "helena.access GET /akten/…/ 404" in text and "helena.access GET /api/akten/…/ 404" in text
    assert_no_client_data(text)


def test_the_access_log_keeps_route_words_ids_and_static_files_of_a_path_and_nothing_else():
    from helena.access_log import loggable_path

    assert loggable_path("/api/akten/12/") == "/api/akten/12/"
    assert loggable_path("/admin/akten/akte/12/change/") == "/admin/akten/akte/12/change/"
    from agent.chat.routing import websocket_urlpatterns
    from helena.access_log import route_words

    assert loggable_path("/ws/helena/", route_words(websocket_urlpatterns)) == "/ws/helena/"
    assert loggable_path("/static/css/helena.css") == "/static/css/helena.css"
    assert loggable_path(f"/akten/{PARTY} Meier/") == "/akten/…/"
    assert loggable_path("/dokumente/3/download/Klage Müller.pdf") == "/dokumente/3/download/…"
    assert loggable_path("/akten/²/") == "/akten/…/"
    assert loggable_path("/static/../akten/Müller") == "/static/…"
    assert loggable_path("/static/css/nicht-da.css") == "/static/…"


@pytest.mark.django_db(transaction=True)
def test_the_embedded_database_logs_a_failing_statement_without_its_values():
    """PostgreSQL logged a failing statement with its values inlined and the failing key in its
    DETAIL line ("Key (aktenzeichen)=(…) already exists") into var/pg/log."""
    from pathlib import Path

    from django.conf import settings
    from django.db import IntegrityError, connection

    if settings.DATABASES["default"]["ENGINE"] != "helena.embedded_pg":
        pytest.skip("the embedded database only: an external server's log is its operator's (README, Betrieb)")
    log = Path(settings.DATABASES["default"]["DATA_DIR"]) / "log"  # pg_ctl's log file
    before = log.stat().st_size
    marke = f"Vertraulich{uuid.uuid4().hex}"
    with connection.cursor() as cursor:
        cursor.execute("SHOW log_min_error_statement")
        assert cursor.fetchone()[0] == "panic"
        cursor.execute("CREATE TEMP TABLE privat (name text PRIMARY KEY)")
        cursor.execute("INSERT INTO privat VALUES (%s)", [marke])
        with pytest.raises(IntegrityError):
            cursor.execute("INSERT INTO privat VALUES (%s)", [marke])
    deadline, written = time.monotonic() + 10, b""
    while b"duplicate key value" not in written and time.monotonic() < deadline:  # the error itself is logged
        time.sleep(0.1)
        with log.open("rb") as handle:
            handle.seek(before)
            written = handle.read()
    assert b"duplicate key value" in written  # the test reads what the server wrote
    assert marke.encode() not in written
