"""Clients from the admin's tier configuration, connection tests and the embedded fallback.

- `build_client(tier)` makes the provider client a `TierConfig` row describes.
- `probe(client)` is the "Verbindung testen" of the admin and the outage check of the router: it
  lists the server's models and says in German whether the configured model is there.
- `resolve_client(tier)` is what the engine calls: the tier's client, or — for a local Ollama tier
  when no Ollama answers — the embedded demo model (`agent.llm.demo`), marked `is_demo`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import httpx

from agent.llm.base import LLMError
from agent.llm.ollama import DEFAULT_HOST, OllamaClient
from agent.llm.openai_compat import OpenAICompatClient

if TYPE_CHECKING:
    from agent.models import TierConfig

ProviderClient = OllamaClient | OpenAICompatClient
logger = logging.getLogger(__name__)

# How long a "no Ollama here" answer is trusted before asking again.
REACHABILITY_TTL_SECONDS = 30.0
_reachability: dict[str, tuple[float, bool]] = {}


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


def build_client(tier: TierConfig) -> ProviderClient:
    """The client for a tier row. An Ollama tier with an empty base URL uses `OLLAMA_HOST`; the
    API key is read from the environment variable the tier names, never from the database."""
    if tier.provider == "OPENAI":
        return OpenAICompatClient(
            model=tier.model,
            base_url=tier.base_url,
            api_key_env=tier.api_key_env,
            context_window=tier.context_window,
            timeout=float(tier.timeout_seconds),
        )
    return OllamaClient(
        model=tier.model,
        host=ollama_host(tier.base_url or None),
        context_window=tier.context_window,
        timeout=float(tier.timeout_seconds),
    )


@dataclass
class ProbeResult:
    ok: bool
    detail: str
    models: list[str] = field(default_factory=list)
    latency_ms: float = 0.0
    error: str = ""


async def probe(client: ProviderClient, *, within_seconds: float = 5.0) -> ProbeResult:
    """Whether the server answers and has the client's model. Never raises."""
    started = time.monotonic()
    try:
        async with asyncio.timeout(within_seconds):
            models = await client.list_models()
    except (LLMError, TimeoutError) as exc:
        kind = type(exc).__name__ if isinstance(exc, LLMError) else "LLMTimeout"
        reason = str(exc) or f"keine Antwort innerhalb von {within_seconds:g} s"
        return ProbeResult(False, f"Keine Verbindung: {reason}", error=kind, latency_ms=_ms(started))
    latency = _ms(started)
    if not _has_model(client.model, models):
        available = ", ".join(models[:10]) or "keine"
        return ProbeResult(
            False,
            f"Server erreichbar, aber das Modell „{client.model}“ fehlt. Vorhanden: {available}.",
            models,
            latency,
            error="model_missing",
        )
    return ProbeResult(True, f"Verbindung in Ordnung ({latency:.0f} ms), Modell „{client.model}“ vorhanden.", models, latency)


def _has_model(model: str, models: list[str]) -> bool:
    # Ollama lists "qwen3:latest" for a model configured as "qwen3".
    return model in models or (":" not in model and f"{model}:latest" in models)


def _ms(started: float) -> float:
    return (time.monotonic() - started) * 1000


async def ollama_reachable(host: str | None = None, *, within_seconds: float = 1.0, use_cache: bool = True) -> bool:
    """Whether an Ollama server answers at `host` (default `OLLAMA_HOST`); a negative answer is
    remembered for `REACHABILITY_TTL_SECONDS` so the engine does not probe at every step."""
    base = ollama_host(host)
    cached = _reachability.get(base)
    if use_cache and cached and time.monotonic() - cached[0] < REACHABILITY_TTL_SECONDS:
        return cached[1]
    try:
        async with httpx.AsyncClient(timeout=within_seconds) as http:
            answer = await http.get(base + "/api/version")
        reachable = answer.status_code == 200 and "version" in answer.json()
    except (httpx.HTTPError, ValueError):
        reachable = False
    _reachability[base] = (time.monotonic(), reachable)
    return reachable


async def resolve_client(tier: TierConfig, *, allow_demo: bool = True) -> ProviderClient:
    """The client the engine should use for `tier`. A local Ollama tier whose server does not
    answer falls back to the embedded demo model (when `allow_demo` and it is installed); raises
    `agent.llm.demo.DemoModelUnavailable` if that cannot start either. Cloud and OpenAI-compatible
    tiers are returned as configured: their outages are the router's to escalate."""
    client = build_client(tier)
    if not allow_demo or tier.is_cloud or not isinstance(client, OllamaClient):
        return client
    if await ollama_reachable(client.host):
        return client
    from agent.llm.demo import DemoModelUnavailable, demo_client

    try:
        return await demo_client()
    except DemoModelUnavailable as exc:
        # The Ollama client then fails with LLMUnavailable at its first call: an outage to escalate.
        logger.warning("Kein Ollama unter %s und kein Demo-Modell: %s", client.host, exc)
        return client
