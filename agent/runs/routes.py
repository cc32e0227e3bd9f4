"""The tier routes of a run: which model clients, in which escalation order, behind which privacy
layer; and the tiers an installation starts with."""

from __future__ import annotations

import dataclasses
import socket
import urllib.parse
from collections.abc import Callable
from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings

from agent.engine.pii import Pseudonymizer, PseudonymizingClient, person_values
from agent.engine.routing import (
    Route,
    classify_rules,
    classify_with_llm,
)
from agent.llm.base import DeltaCallback, LLMClient, LLMResponse, LLMUnavailable, Message
from agent.llm.demo_calls import DEMO_TOOLS
from agent.models import EngineConfig, TierConfig
from agent.runs.ratelimit import counter_available
from akten.models import Akte, Kontakt, User

PII_MAX_KONTAKTE = 500


def task_classify(text: str, config: EngineConfig) -> Any:
    if not config.llm_classifier:
        return classify_rules(text)
    tier1 = TierConfig.objects.filter(tier=1, enabled=True, is_cloud=False).first()
    if tier1 is None:
        return classify_rules(text)
    return async_to_sync(classify_with_llm)(text, client_for_tier(tier1))


# -- routing -------------------------------------------------------------------------------------


def client_for_tier(tier: TierConfig) -> LLMClient:
    """The client of one configured tier (agent/llm/factory.py)."""
    from agent.llm.factory import build_client

    return build_client(tier)


class DemoClient:
    """The embedded demo model (agent/llm/demo.py), started only when a run really reaches it.

    Its server takes seconds to start, so building the routes of every run must not start it;
    the first `chat` does. When it cannot start, `DemoModelUnavailable` (an `LLMUnavailable`)
    reaches the loop like any outage.
    """

    is_demo = True

    def __init__(self, *, aktenzeichen: str | None = None) -> None:
        from agent.llm.demo import DEMO_CONTEXT_WINDOW, DEMO_MODEL

        self.model = DEMO_MODEL
        self.context_window = DEMO_CONTEXT_WINDOW
        # the Akte of the conversation: the demo model's calls of read_akte/read_fristen name it
        self.aktenzeichen = aktenzeichen
        self._client: LLMClient | None = None

    async def chat(
        self,
        messages: list[Message],
        *,
        tools: list[dict[str, Any]] | None = None,
        on_delta: DeltaCallback | None = None,
    ) -> LLMResponse:
        if self._client is None:
            from agent.llm.demo import demo_client

            self._client = await demo_client(aktenzeichen=self.aktenzeichen)
            self.context_window = self._client.context_window
        return await self._client.chat(messages, tools=tools, on_delta=on_delta)


class NoModelClient:
    """The one route when no tier is enabled and the demo model is off (production): the run ends
    FAILED, saying that no language model is set up."""

    model = ""
    context_window = 8192

    async def chat(
        self,
        messages: list[Message],
        *,
        tools: list[dict[str, Any]] | None = None,
        on_delta: DeltaCallback | None = None,
    ) -> LLMResponse:
        raise LLMUnavailable(ERR_NO_TIER)


def cloud_usable(tier: TierConfig, *, task_type: str, counter_ok: bool) -> bool:
    """A cloud tier only when enabled with the agreement on file, for an allowed task type, and
    while the rate-limit counter works (fail closed)."""
    if not (tier.is_cloud and tier.enabled and tier.cloud_agreement_on_file and counter_ok):
        return False
    return not tier.cloud_task_types or task_type in tier.cloud_task_types


def pseudonymize_tier(tier: TierConfig) -> bool:
    """Whether client data is pseudonymised for this tier: as configured, and where the tier leaves
    it open (None), on for a cloud tier and off for a local one."""
    return tier.is_cloud if tier.pseudonymize is None else tier.pseudonymize


def known_values_for(*, user: User, akte: Akte | None) -> list[tuple[str, str]]:
    """What the PII layer hides for a run: the Kontakte of the Akte (or, without one, of the user's
    visible Akten), with their addresses, e-mails, phones and external Aktenzeichen."""
    from akten.models import Beteiligter

    if akte is not None:
        beteiligte = Beteiligter.objects.filter(akte=akte)
    else:
        beteiligte = Beteiligter.objects.filter(akte__in=Akte.objects.visible_to(user).values("pk"))
    values: list[tuple[str, str]] = []
    kontakt_ids = beteiligte.values("kontakt_id")
    for kontakt in Kontakt.objects.filter(pk__in=kontakt_ids)[:PII_MAX_KONTAKTE]:
        values += person_values(
            vorname=kontakt.vorname,
            nachname=kontakt.nachname,
            firma=kontakt.firma,
            strasse=kontakt.strasse,
            plz=kontakt.plz,
            ort=kontakt.ort,
        )
        if kontakt.email:
            values.append(("EMAIL", kontakt.email))
        if kontakt.telefon:
            values.append(("TELEFON", kontakt.telefon))
    for aktenzeichen in beteiligte.exclude(aktenzeichen_extern="").values_list("aktenzeichen_extern", flat=True):
        values.append(("AKTENZEICHEN", aktenzeichen))
    return values


# The demo model (135 M parameters) is offered the four tools of DEMO_TOOLS, for a question about an
# Akte, its Fristen or a statute (agent/llm/demo_calls.py: which one is picked by the question's
# cue words, and its call is written under a grammar).
NO_OLLAMA = "Kein Ollama erreichbar – das eingebaute Demo-Modell antwortet."
NO_TIER = "Kein Sprachmodell eingerichtet – das eingebaute Demo-Modell antwortet."
ERR_NO_TIER = "Kein Sprachmodell eingerichtet. Bitte die Verwaltung bitten, eine Modellstufe einzurichten."
# A local model server either accepts the connection at once or is not there.
PROBE_SECONDS = 0.5


def tier_reachable(tier: TierConfig) -> bool:
    """Whether the tier's server accepts a TCP connection (within PROBE_SECONDS). Only a probe: a
    server that accepts but then fails is handled by the loop's error policy."""
    from agent.llm.factory import ollama_host

    url = tier.base_url if tier.provider == TierConfig.Provider.OPENAI else ollama_host(tier.base_url or None)
    parts = urllib.parse.urlsplit(url)
    if not parts.hostname:
        return False
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        with socket.create_connection((parts.hostname, port), timeout=PROBE_SECONDS):
            return True
    except (OSError, ValueError):
        return False


def routes_build(
    *,
    start_tier: int,
    task_type: str,
    user: User,
    akte: Akte | None,
    client_factory: Callable[[TierConfig], LLMClient] | None = None,
    demo_factory: Callable[[], LLMClient] | None = None,
    demo_prompt: str | None = None,
    probe: Callable[[TierConfig], bool] = tier_reachable,
) -> list[Route]:
    """The escalation chain of a run: enabled local tiers from `start_tier` up (all of them if
    none is that high), then the usable cloud tiers (pseudonymised where configured), and the demo
    model: first when no local tier is in the chain (unless the run starts on the cloud tier by
    choice), else last and only for outages. When no server of the chain's local tiers answers
    (`probe`) and there is no cloud tier, the demo model is the only route and says so (`note`),
    instead of each run waiting for its connection errors first. The demo model gets its own
    compact system prompt (`demo_prompt`)."""
    make = client_factory or client_for_tier
    counter_ok = counter_available()
    enabled = list(TierConfig.objects.filter(enabled=True).order_by("tier"))
    local = [t for t in enabled if not t.is_cloud]
    cloud = [t for t in enabled if cloud_usable(t, task_type=task_type, counter_ok=counter_ok)]
    chain = [t for t in local + cloud if t.tier >= start_tier] or local + cloud
    chain.sort(key=lambda t: t.tier)
    with_demo = bool(getattr(settings, "HELENA_DEMO_MODEL", True))
    if not chain and not with_demo:
        return [Route(client=NoModelClient(), tier=1)]
    demo_model = demo_factory() if demo_factory else DemoClient(aktenzeichen=akte.aktenzeichen if akte else None)
    demo = Route(client=demo_model, tier=1, demo=True, offer_tools=DEMO_TOOLS, system_prompt=demo_prompt)
    if not chain:
        return [dataclasses.replace(demo, note=NO_TIER)]
    if with_demo and all(not t.is_cloud for t in chain) and not any(probe(t) for t in chain):
        return [dataclasses.replace(demo, note=NO_OLLAMA)]
    routes: list[Route] = []
    pseudonymizer: Pseudonymizer | None = None
    for tier in chain:
        client = make(tier)
        if pseudonymize_tier(tier):
            if pseudonymizer is None:
                pseudonymizer = Pseudonymizer()
                pseudonymizer.add_known(known_values_for(user=user, akte=akte))
            client = PseudonymizingClient(client, pseudonymizer)
        routes.append(Route(client=client, tier=tier.tier, local=not tier.is_cloud, demo=bool(getattr(client, "is_demo", False))))
    if not with_demo:  # without a reachable server the run fails with the servers' errors
        return routes
    if not any(route.local for route in routes) and start_tier < 3:
        routes.insert(0, demo)
    else:
        routes.append(dataclasses.replace(demo, outage_only=True))
    return routes


DEFAULT_TIERS: tuple[dict[str, Any], ...] = (
    {"tier": 1, "name": "Klein (lokal)", "model": "qwen2.5:7b-instruct", "context_window": 32768, "enabled": True},
    {"tier": 2, "name": "Groß (lokal)", "model": "qwen2.5:32b-instruct", "context_window": 32768, "enabled": True},
    {
        "tier": 3,
        "name": "Cloud (nur nach Freigabe)",
        "provider": TierConfig.Provider.OPENAI,
        "model": "gpt-4.1",
        "base_url": "https://api.openai.com/v1",
        "api_key_env": "OPENAI_API_KEY",
        "context_window": 128000,
        "is_cloud": True,
        "enabled": False,
    },
)


def tiers_ensure_defaults() -> int:
    """Create the tiers an installation starts with, where none exists yet: two local Ollama tiers
    at OLLAMA_HOST (empty base URL; without an answering Ollama the demo model stands in) and a
    disabled cloud tier that an admin can enable only with the agreement on file. Returns how many
    were created; existing rows are never changed."""
    created = 0
    for defaults in DEFAULT_TIERS:
        _tier, made = TierConfig.objects.get_or_create(tier=defaults["tier"], defaults=defaults)
        created += made
    return created
