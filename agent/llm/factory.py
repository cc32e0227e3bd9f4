"""The provider client of a configured tier (`build_client`), and the Ollama address.

The demo model stands in for unreachable local tiers as the last route of a run
(agent/runs/routes.py), not here: an outage reaches the loop as LLMUnavailable and escalates.

Clients are kept per process: building one costs an SSL context (about 15–20 ms of CPU, even for
plain http on localhost), and a run builds one per tier. `build_client` returns the same client
for the same tier row as long as the row is unchanged (its `updated_at` is part of the key, so an
edit in the admin gives the next run a new client) and the API key in the environment is the same.

The clients are used from several event loops: inline runs on the process's engine loop, worker
runs each on a loop of their own (`async_to_sync`), classifications and connection tests on
short-lived loops. An httpx connection pool must not cross loops (its connections belong to the
loop that opened them), so all clients share a transport, `PerLoopTransport`, that keeps a pool
per running loop (one SSL context for all; the `ollama` client speaks through httpx, `openai`
through its fork httpx2, so there is one such transport for each): the engine loop keeps its connections alive across
runs, a short-lived loop gets a fresh pool, which `llm_connections_close` closes at its end; the
pools of loops closed without it are dropped on the next request.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import ssl
import threading
from typing import TYPE_CHECKING, Any

import httpx
import httpx2

from agent.llm.ollama import DEFAULT_HOST, OllamaClient
from agent.llm.openai_compat import OpenAICompatClient

if TYPE_CHECKING:
    from agent.models import TierConfig

ProviderClient = OllamaClient | OpenAICompatClient


def ollama_host(host: str | None = None) -> str:
    """The Ollama base URL: the given host, else `OLLAMA_HOST`, else http://127.0.0.1:11434.
    Accepts Ollama's own short forms ("0.0.0.0", "localhost:11434")."""
    value = (host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST).strip().rstrip("/")
    if "://" not in value:
        value = "http://" + value
    scheme, rest = value.split("://", 1)
    hostport, _, path = rest.partition("/")
    if hostport.startswith("0.0.0.0"):  # noqa: S104 - a listen address; the client connects locally
        hostport = "127.0.0.1" + hostport[len("0.0.0.0") :]  # noqa: S104
    if ":" not in hostport.rsplit("]", 1)[-1]:
        hostport += ":11434"
    return f"{scheme}://{hostport}" + (f"/{path}" if path else "")


_ssl_context: ssl.SSLContext | None = None
_ssl_lock = threading.Lock()


def shared_ssl_context() -> ssl.SSLContext:
    """One SSL context for every connection pool of the process (httpx's defaults: certifi, or
    SSL_CERT_FILE / SSL_CERT_DIR)."""
    global _ssl_context
    with _ssl_lock:
        if _ssl_context is None:
            _ssl_context = httpx.create_ssl_context()
        return _ssl_context


class PerLoopTransport(httpx.AsyncBaseTransport, httpx2.AsyncBaseTransport):
    """A transport with one connection pool per running event loop, for clients of `module`
    (httpx or httpx2: the requests it gets are that module's)."""

    def __init__(self, module: Any = httpx) -> None:
        self._module = module
        self._pools: dict[asyncio.AbstractEventLoop, Any] = {}
        self._lock = threading.Lock()

    def _pool(self) -> Any:
        loop = asyncio.get_running_loop()
        with self._lock:
            pool = self._pools.get(loop)
            if pool is None:
                # a closed loop's connections can no longer be closed properly; drop them
                for closed in [other for other in self._pools if other.is_closed()]:
                    del self._pools[closed]
                pool = self._pools[loop] = self._module.AsyncHTTPTransport(verify=shared_ssl_context())
            return pool

    def pools(self) -> int:
        """How many loops have a pool (for tests and diagnosis)."""
        with self._lock:
            return len(self._pools)

    async def handle_async_request(self, request: Any) -> Any:
        return await self._pool().handle_async_request(request)

    async def aclose(self) -> None:
        """Close the running loop's pool (the other loops' pools stay)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            pool = self._pools.pop(loop, None)
        if pool is not None:
            await pool.aclose()


_transport = PerLoopTransport(httpx)
_transport_openai = PerLoopTransport(httpx2)
_clients: dict[tuple[Any, ...], ProviderClient] = {}
_clients_lock = threading.Lock()


async def llm_connections_close() -> None:
    """Close the connections the model clients opened on the running loop; call it at the end of
    a short-lived loop (a worker's run)."""
    await _transport.aclose()
    await _transport_openai.aclose()


def _key_fingerprint(env_name: str) -> str:
    value = os.environ.get(env_name, "") if env_name else ""
    return hashlib.sha256(value.encode()).hexdigest() if value else ""


def build_client(tier: TierConfig) -> ProviderClient:
    """The client for a tier row (kept per process, see above). An Ollama tier with an empty base
    URL uses `OLLAMA_HOST`; the API key is read from the environment variable the tier names,
    never from the database."""
    address = tier.base_url if tier.provider == "OPENAI" else ollama_host(tier.base_url or None)
    key = (
        tier.pk,
        tier.updated_at,
        tier.provider,
        tier.model,
        address,
        tier.context_window,
        tier.timeout_seconds,
        tier.api_key_env,
        _key_fingerprint(tier.api_key_env),
    )
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = _new_client(tier, address)
            # the same row in an older version: its client is not handed out again
            for stale in [k for k in _clients if k[0] == tier.pk and k != key and tier.pk is not None]:
                del _clients[stale]
        return client


def _new_client(tier: TierConfig, address: str) -> ProviderClient:
    if tier.provider == "OPENAI":
        return OpenAICompatClient(
            model=tier.model,
            base_url=address,
            api_key_env=tier.api_key_env,
            context_window=tier.context_window,
            timeout=float(tier.timeout_seconds),
            http_client=httpx2.AsyncClient(transport=_transport_openai, follow_redirects=True),
        )
    return OllamaClient(
        model=tier.model,
        host=address,
        context_window=tier.context_window,
        timeout=float(tier.timeout_seconds),
        transport=_transport,
    )
