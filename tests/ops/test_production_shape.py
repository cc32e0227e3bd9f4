"""The production shape (ops/prod.sh): nginx with TLS in front of two daphne processes, two
db_worker processes, Redis as cache and channel layer, on the test database. A user logs in
through the proxy, has a chat turn over the proxied websocket and a background run that one of
the workers executes; then everything stops."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import ssl
import subprocess
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from asgiref.sync import sync_to_async
from django.db import connection
from websockets.asyncio.client import ClientConnection, connect

from agent.models import AgentRun, TierConfig
from tests.factories import AkteFactory
from tests.support.scripted_llm import ScriptedLLMServer, scripted_llm_server

pytestmark = [pytest.mark.prodshape, pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/14"
TERMINAL = {"run.finished", "run.failed", "run.cancelled"}


def redis_reachable() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def database_url_of_test_db() -> str:
    """DATABASE_URL of the test database, in the embedded shape and behind DATABASE_URL alike."""
    name = str(connection.settings_dict["NAME"])
    if os.environ.get("DATABASE_URL"):
        url = urllib.parse.urlsplit(os.environ["DATABASE_URL"])
        return urllib.parse.urlunsplit(url._replace(path="/" + urllib.parse.quote(name)))
    from helena.embedded_pg.server import ensure_server

    server = ensure_server(connection.settings_dict["DATA_DIR"])
    return f"postgresql://{server.user}@{urllib.parse.quote(server.socket_dir, safe='')}:{server.port}/{name}"


@dataclass
class Shape:
    url: str
    cert: str
    directory: Path

    def pids(self, kind: str) -> set[str]:
        return {path.read_text().strip() for path in (self.directory / "pids").glob(f"{kind}-*.pid")}


def prod(command: str, env: dict[str, str]) -> None:
    subprocess.run([str(ROOT / "ops" / "prod.sh"), command], cwd=ROOT, env=env, check=True, timeout=120)  # noqa: S603


@pytest.fixture
def scripted_llm() -> Iterator[ScriptedLLMServer]:
    yield from scripted_llm_server()


@pytest.fixture
def shape(scripted_llm: ScriptedLLMServer) -> Iterator[Shape]:
    if not redis_reachable():
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")
    TierConfig.objects.all().delete()
    TierConfig.objects.create(
        tier=1, name="Testmodell", provider=TierConfig.Provider.OLLAMA, model="scripted-model",
        base_url=scripted_llm.url, enabled=True, context_window=8192, timeout_seconds=20,
    )  # fmt: skip
    proxy_port, app_1, app_2 = free_ports(3)
    directory = ROOT / "test-artifacts" / "prod-shape"
    env = {
        **os.environ,
        "HELENA_PROD_DIR": str(directory),
        "HELENA_PROD_PORT": str(proxy_port),
        "HELENA_PROD_APP_PORTS": f"{app_1} {app_2}",
        "DJANGO_SETTINGS_MODULE": "tests.ops.prod_settings",
        "DATABASE_URL": database_url_of_test_db(),
        "REDIS_URL": REDIS_URL,
        "HELENA_ORPHAN_SWEEP_SECONDS": "5",
    }
    env.pop("HELENA_EMBEDDED_DB_NAME", None)
    # The test database belongs to this process: the shape must not stop its server.
    try:
        prod("up", env)
        yield Shape(url=f"https://127.0.0.1:{proxy_port}", cert=str(directory / "tls" / "cert.pem"), directory=directory)
    finally:
        prod("down", env)


def login(shape: Shape, email: str, password: str) -> str:
    """The login form through the proxy (CSRF cookie and token, HTTPS Referer): the session id."""
    with httpx.Client(base_url=shape.url, verify=ssl.create_default_context(cafile=shape.cert), timeout=20) as client:
        page = client.get("/anmelden/")
        assert page.status_code == 200
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token is not None
        answer = client.post(
            "/anmelden/",
            data={"csrfmiddlewaretoken": token.group(1), "username": email, "password": password},
            headers={"Referer": f"{shape.url}/anmelden/"},
        )
        assert answer.status_code == 302, answer.status_code
        assert client.get("/").status_code == 200
        return str(client.cookies["sessionid"])


async def receive_until_terminal(ws: ClientConnection, within: float = 60) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    async with asyncio.timeout(within):
        while True:
            message = json.loads(await ws.recv())
            messages.append(message)
            if message.get("type") in TERMINAL:
                return messages


async def test_login_chat_turn_and_background_run_through_the_proxy(shape: Shape, scripted_llm: ScriptedLLMServer):
    akte = await sync_to_async(AkteFactory)()
    scripted_llm.script(
        [
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
            {"text": "Die Akte ist angelegt."},
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
            {"text": "Im Hintergrund geprüft."},
        ]
    )
    session = await sync_to_async(login)(shape, akte.anwalt.email, "geheim-1234")
    tls = ssl.create_default_context(cafile=shape.cert)
    ws_url = shape.url.replace("https://", "wss://") + "/ws/helena/"
    async with connect(ws_url, ssl=tls, origin=shape.url, additional_headers={"Cookie": f"sessionid={session}"}) as ws:  # type: ignore[arg-type]
        assert json.loads(await ws.recv())["type"] == "hello"
        await ws.send(json.dumps({"type": "chat.send", "text": "Was steht in der Akte?", "akte": akte.pk}))
        inline = await receive_until_terminal(ws)
        assert inline[-1]["type"] == "run.finished" and "Die Akte ist angelegt." in inline[-1]["answer"]
        assert any(m.get("type") == "tool.result" for m in inline)

        await ws.send(json.dumps({"type": "chat.send", "text": "Prüfe die Akte.", "akte": akte.pk, "mode": "BACKGROUND"}))
        background = await receive_until_terminal(ws)
        assert background[-1]["type"] == "run.finished" and "Im Hintergrund geprüft." in background[-1]["answer"]

    run_id = next(m["run"] for m in background if m.get("mode") == "BACKGROUND" and "run" in m)
    run = await sync_to_async(AgentRun.objects.get)(pk=run_id)
    assert run.status == AgentRun.Status.DONE
    assert run.worker_id.rsplit(":", 1)[1] in shape.pids("worker"), "a worker of the shape ran it"
    inline_run = await sync_to_async(AgentRun.objects.exclude(pk=run_id).get)()
    assert inline_run.status == AgentRun.Status.DONE
    assert inline_run.worker_id.rsplit(":", 1)[1] in shape.pids("daphne"), "a daphne process of the shape ran it"
