"""Websocket helpers for the chat tests: a real session cookie through AuthMiddlewareStack and the
origin check of the production ASGI application (helena.asgi)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from agent.models import TierConfig

ORIGIN = b"http://testserver"


def session_cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


@asynccontextmanager
async def ws_connect(
    user: Any = None, *, origin: bytes | None = ORIGIN
) -> AsyncIterator[tuple[WebsocketCommunicator, bool, Any]]:
    """Connect to /ws/helena/ as `user` (None: anonymous); always disconnects."""
    from helena.asgi import application

    headers = []
    if origin is not None:
        headers.append((b"origin", origin))
    if user is not None:
        cookie = await sync_to_async(session_cookie)(user)
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    communicator = WebsocketCommunicator(application, "/ws/helena/", headers=headers)
    connected, code = await communicator.connect(timeout=10)
    try:
        if connected:
            hello = await communicator.receive_json_from(timeout=5)
            assert hello["type"] == "hello"
        yield communicator, connected, code
    finally:
        await communicator.disconnect()


async def receive_until(communicator: WebsocketCommunicator, stop: Any, *, within: float = 20.0) -> list[dict[str, Any]]:
    """Messages until `stop(message)` is true (inclusive)."""
    received: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        message = await communicator.receive_json_from(timeout=max(0.1, deadline - loop.time()))
        received.append(message)
        if stop(message):
            return received


def is_terminal(message: dict[str, Any]) -> bool:
    return message.get("type") in {"run.finished", "run.failed", "run.cancelled"}


@pytest.fixture(autouse=True)
def _fresh_channel_layer() -> Iterator[None]:
    """Each test gets its own channel-layer instance: a Redis layer keeps connections and locks
    bound to the event loop that first used it, and every async test runs on a new loop."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture
def scripted_tier(scripted_llm: Any) -> TierConfig:
    """Tier 1 is the scripted LLM server (Ollama protocol); the other tiers are off."""
    TierConfig.objects.all().delete()
    return TierConfig.objects.create(
        tier=1, name="Testmodell", provider=TierConfig.Provider.OLLAMA, model="scripted-model",
        base_url=scripted_llm.url, enabled=True, context_window=8192, timeout_seconds=20,
    )  # fmt: skip
