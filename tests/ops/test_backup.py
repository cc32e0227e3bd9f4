"""Backup and restore through the management commands, on the real database server: what is
backed up comes back in a new database and a new document directory, row for row and byte for byte;
a damaged backup, the live database or an existing database are refused without leaving anything
behind; the output names no client data."""

from __future__ import annotations

import io
import json
import re
import stat
import uuid
from pathlib import Path

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from helena import backup
from helena.backup import MANIFEST_NAME, _conninfo, _tool_major, client_tool
from tests.factories import AkteFactory, DokumentFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def data(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    # the document store on disk, as in production (the test settings keep files in memory)
    settings.STORAGES = {**settings.STORAGES, "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"}}
    akte = AkteFactory(kurzrubrum="Vertraulich-Mandantin ./. Gegner")
    dokument = DokumentFactory(akte=akte, datei__data=b"Inhalt des Schriftsatzes \x00\xff")
    return akte, dokument


@pytest.fixture
def new_database():
    name = f"helena_restore_{uuid.uuid4().hex[:10]}"
    yield name
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _database_exists(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
        return cursor.fetchone() is not None


def _backup(tmp_path: Path) -> tuple[Path, str]:
    out = io.StringIO()
    call_command("backup", to=tmp_path / "sicherungen", stdout=out)
    [path] = (tmp_path / "sicherungen").iterdir()
    return path, out.getvalue()


def test_backup_and_restore_bring_back_every_row_and_every_document_byte(data, tmp_path, new_database):
    akte, dokument = data
    path, output = _backup(tmp_path)
    manifest = json.loads((path / MANIFEST_NAME).read_text())
    assert manifest["counts"]["akten_akte"] == 1 and manifest["counts"]["akten_dokument"] == 1
    assert manifest["media"]["files"] == 1
    # client data: only the owner may read the backup
    assert stat.S_IMODE(path.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(item.stat().st_mode) == 0o600 for item in path.iterdir())

    restored_media = tmp_path / "wiederhergestellt"
    out = io.StringIO()
    call_command("restore", str(path), database=new_database, media_root=restored_media, stdout=out)

    with psycopg.connect(_conninfo(connection.settings_dict, new_database)) as restored:
        row = restored.execute("SELECT kurzrubrum FROM akten_akte WHERE id = %s", [akte.pk]).fetchone()
        datei = restored.execute("SELECT datei FROM akten_dokument WHERE id = %s", [dokument.pk]).fetchone()
        counts = {
            table: restored.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]  # noqa: S608 - names from the manifest
            for table in manifest["counts"]
        }
        migrations = restored.execute("SELECT count(*) FROM django_migrations").fetchone()[0]
    assert row == ("Vertraulich-Mandantin ./. Gegner",)
    assert (restored_media / datei[0]).read_bytes() == b"Inhalt des Schriftsatzes \x00\xff"
    assert counts == manifest["counts"]
    assert migrations > 0
    # the output names paths and counts, never a Mandant
    for text in (output, out.getvalue()):
        assert "Vertraulich-Mandantin" not in text and akte.aktenzeichen not in text
    assert new_database in out.getvalue()


def test_a_damaged_backup_is_refused_and_no_database_is_created(data, tmp_path, new_database):
    path, _ = _backup(tmp_path)
    with (path / "datenbank.dump").open("ab") as dump:
        dump.write(b"\x00")
    with pytest.raises(CommandError, match="beschädigt"):
        call_command("restore", str(path), database=new_database, media_root=tmp_path / "leer", stdout=io.StringIO())
    assert not _database_exists(new_database)
    assert not (tmp_path / "leer").exists()


def test_restore_never_touches_the_live_or_an_existing_database(data, tmp_path, new_database):
    path, _ = _backup(tmp_path)
    live = connection.settings_dict["NAME"]
    with pytest.raises(CommandError, match="laufende Datenbank"):
        call_command("restore", str(path), database=live, media_root=tmp_path / "a", stdout=io.StringIO())
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{new_database}"')
    with pytest.raises(CommandError, match="gibt es schon"):
        call_command("restore", str(path), database=new_database, media_root=tmp_path / "b", stdout=io.StringIO())
    assert _database_exists(new_database)  # refused, not dropped


def test_restore_refuses_a_document_directory_that_is_not_empty(data, tmp_path, new_database):
    path, _ = _backup(tmp_path)
    occupied = tmp_path / "belegt"
    occupied.mkdir()
    (occupied / "datei.txt").write_text("schon da")
    with pytest.raises(CommandError, match="nicht leer"):
        call_command("restore", str(path), database=new_database, media_root=occupied, stdout=io.StringIO())
    assert not _database_exists(new_database)
    assert (occupied / "datei.txt").read_text() == "schon da"


def test_the_client_tools_match_the_server_version():
    """pg_dump/pg_restore of the server's own major version where installed, else a newer one: an
    older client refuses a newer server, and a newer dump can carry settings an older server lacks."""
    connection.ensure_connection()
    major = connection.pg_version // 10000
    for name in ("pg_dump", "pg_restore"):
        assert _tool_major(client_tool(name, major)) == major  # both servers of the suite have theirs
    debian = Path("/usr/lib/postgresql/15/bin/pg_dump")
    if debian.exists():  # the machine's Debian client is chosen for a PostgreSQL 15 server
        assert client_tool("pg_dump", 15) == debian
    assert _tool_major(client_tool("pg_dump", 12)) > 12


def test_a_target_that_is_no_directory_is_a_german_error_not_a_traceback(tmp_path):
    """Seen by an IT provider: `backup --to /tmp/afile` ended in NotADirectoryError."""
    datei = tmp_path / "afile"
    datei.write_text("x")
    with pytest.raises(CommandError, match="lässt sich nicht anlegen"):
        call_command("backup", to=datei, stdout=io.StringIO())


def test_the_backup_counts_as_germans_write_them_and_is_named_in_local_time(data, tmp_path):
    before = f"helena-{timezone.localtime():%Y%m%d-%H%M%S}"
    path, output = _backup(tmp_path)
    after = f"helena-{timezone.localtime():%Y%m%d-%H%M%S}"
    assert re.search(r"Datenbank: \d{1,3}(\.\d{3})+ Bytes", output)  # 339.510, not 339,510
    assert before <= path.name[: len(before)] <= after  # the Kanzlei's time, not UTC


# What pg_restore and pg_dump 18 printed for failures (probed 2026-12-04 in a scratch cluster): rows with
# line breaks in DETAIL, quotes inside a value, the lower-case "detail:" of the tools, statements.
TOOL_FAILURES: dict[str, str] = json.loads((Path(__file__).parent / "data" / "pg_tool_failures.json").read_text("utf-8"))


@pytest.mark.parametrize("name", sorted(TOOL_FAILURES))
def test_a_failing_tool_is_named_by_its_error_never_by_the_rows_it_quotes(name):
    """The last line of pg_restore's message went into the error the command prints (and cron keeps):
    the DETAIL and CONTEXT lines quote the row a COPY failed on, and a value with a line break
    continues on a line of its own."""
    message = backup.tool_message(TOOL_FAILURES[name])
    assert message.startswith(("pg_restore: error: ", "pg_dump: error: ")) and "ERROR:" in message
    for secret in ("Zyxwerth", "Verborgenstadt", "Geheimstraße", "kein-datum", "Zweite Zeile", "99999999999", "LOCK TABLE"):
        assert secret not in message


def test_the_error_keeps_the_names_of_the_objects_it_is_about():
    assert backup.tool_message(TOOL_FAILURES["notnull"]) == (
        'pg_restore: error: COPY failed for table "kontakt": ERROR:  null value in column "extra" of relation '
        '"kontakt" violates not-null constraint'
    )
    assert backup.tool_message(TOOL_FAILURES["q_int"]).endswith('ERROR:  value "…" is out of range for type integer')
    assert backup.tool_message(TOOL_FAILURES["datetype"]).endswith('invalid input syntax for type date: "…"')
    assert backup.tool_message("") == "ohne Meldung"
