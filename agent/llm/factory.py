"""The provider client of a configured tier (`build_client`), and the Ollama address.

The demo model stands in for unreachable local tiers as the last route of a run
(agent/runs/routes.py), not here: an outage reaches the loop as LLMUnavailable and escalates.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

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
