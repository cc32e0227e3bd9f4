"""Helena's runs, Django side: create, execute, cancel, continue, clean up.

The websocket consumer, the background task and `helena_run` call these; the loop itself is
agent/runtime.py and knows nothing of the database. `run_execute` wires it up: the user's ToolBox
(registry), the tier router (classifier result, TierConfig rows, cloud rules, PII layer, demo
fallback), the persona prompt, the earlier turns of the conversation, and a `RunEventSink` that
persists every event before publishing it.

Cancellation reaches a running run two ways: in the same process at once (a registry of the
cancel tokens of the runs executing here), across processes through `AgentRun.cancel_requested`,
which the run polls every `CANCEL_POLL_SECONDS`. The same poll writes `heartbeat_at`, so
`runs_fail_orphaned` can tell a run whose worker died from one that is still working.
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import logging
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from django.core.exceptions import ValidationError
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from akten.models import Akte, Kontakt

from .budget import estimate_tokens
from .events import Publish, Relay, RunEventSink
from .llm.base import DeltaCallback, LLMClient, LLMResponse, Message
from .models import AgentRun, AgentStep, Conversation, EngineConfig, TierConfig
from .models import Message as ChatMessage
from .persona import build_system_prompt, persona_context_load, with_intro
from .pii import Pseudonymizer, PseudonymizingClient, person_values
from .ratelimit import counter_available, ratelimit_hit
from .registry import all_tools
from .runtime import Limits, Route, RunOutcome, RunStatus, response_guard, run_agent
from .selectors import ERR_AKTE_NOT_FOUND, ERR_CONVERSATION_NOT_FOUND, ERR_RUN_NOT_FOUND, NotFound
from .tiers import BACKGROUND, INLINE, TaskType, TierRouter, apply_user_choice, classify_rules, classify_with_llm
from .tools.base import CancelToken, ToolBox, ToolContext

logger = logging.getLogger(__name__)

ERR_TEXT_EMPTY = "Bitte gib einen Auftrag ein."
ERR_HELENA_UNAVAILABLE = "Helena steht dir nicht zur Verfügung. Schreib deiner Anwältin oder deinem Anwalt eine Nachricht."
ERR_MODE_INVALID = "Unbekannter Modus: {mode}."
ERR_TIER_INVALID = "Unbekannte Modellstufe: {tier}."
ERR_NOT_CONTINUABLE = "Dieser Auftrag kann nicht im Hintergrund fortgesetzt werden."
ERR_START = "Der Auftrag konnte nicht starten: {error}"
ERR_ORPHANED = "Der Auftrag wurde unterbrochen: der ausführende Prozess antwortet nicht mehr."
CONTINUE_INSTRUCTION = (
    "Setze die Bearbeitung jetzt im Hintergrund fort: Nutze weitere Werkzeuge, wo nötig, und gib dann eine vollständige Antwort."
)

CANCEL_POLL_SECONDS = 0.2
HEARTBEAT_EVERY_POLLS = 5
# earlier turns of the conversation may fill at most this share of the model's window
HISTORY_SHARE = 0.25
HISTORY_MAX_MESSAGES = 20
PII_MAX_KONTAKTE = 500

# cancel tokens of the runs executing in this process (run id → token)
_local_cancels: dict[int, CancelToken] = {}
_POLL_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="helena-cancel-poll")


# -- create --------------------------------------------------------------------------------------


def _akte_access(*, user: Any, akte: Akte | int | None) -> Akte | None:
    if akte is None:
        return None
    pk = akte.pk if isinstance(akte, Akte) else int(akte)
    try:
        return Akte.objects.visible_to(user).get(pk=pk)
    except Akte.DoesNotExist:
        raise NotFound(ERR_AKTE_NOT_FOUND) from None


def _conversation_access(*, user: Any, conversation: Conversation | int) -> Conversation:
    pk = conversation.pk if isinstance(conversation, Conversation) else int(conversation)
    try:
        return Conversation.objects.get(pk=pk, user=user)
    except Conversation.DoesNotExist:
        raise NotFound(ERR_CONVERSATION_NOT_FOUND) from None


def _classify(text: str, config: EngineConfig) -> Any:
    if not config.llm_classifier:
        return classify_rules(text)
    tier1 = TierConfig.objects.filter(tier=1, enabled=True, is_cloud=False).first()
    if tier1 is None:
        return classify_rules(text)
    return async_to_sync(classify_with_llm)(text, client_for_tier(tier1))


def _limits_for(mode: str, config: EngineConfig) -> tuple[int, int]:
    if mode == BACKGROUND:
        return config.background_max_steps, config.background_timeout_seconds
    return config.inline_max_steps, config.inline_timeout_seconds


def _event_row(run: AgentRun, type: str, **payload: Any) -> None:
    """An event written outside the engine (rate limit, orphan clean-up), numbered after the rest."""
    last = AgentStep.objects.filter(run=run).order_by("-seq").values_list("seq", flat=True).first() or 0
    AgentStep.objects.create(run=run, seq=last + 1, type=type, payload={**payload, "at": timezone.now().isoformat()})


@transaction.atomic
def helena_available(user: Any) -> bool:
    """May `user` start Helena runs at all? Staff always; a MANDANT only when the role × tool
    matrix grants her role at least one tool (`akten.policy`)."""
    from akten.policy import is_mandant

    from .registry import tools_for_user

    return not is_mandant(user) or bool(tools_for_user(user))


def run_create(
    *,
    user: Any,
    text: str,
    conversation: Conversation | int | None = None,
    akte: Akte | int | None = None,
    mode: str | None = None,
    tier: int | None = None,
) -> AgentRun:
    """Create a PENDING run for `text` and store the user's message.

    Checks access to `akte` and `conversation` (NotFound, the same for missing and foreign), counts
    the run against the user's hourly limit (over it, the run is created already finished with
    status RATE_LIMITED and a German message with the reset time), classifies the task (mode and
    starting tier; an explicit `mode` / `tier` wins). Raises ValidationError for empty text or an
    unknown mode/tier. The caller executes the run (inline) or enqueues it (background).
    """
    text = (text or "").strip()
    if not text:
        raise ValidationError(ERR_TEXT_EMPTY)
    if not helena_available(user):
        raise ValidationError(ERR_HELENA_UNAVAILABLE)
    if mode is not None and str(mode).upper() not in (INLINE, BACKGROUND):
        raise ValidationError(ERR_MODE_INVALID.format(mode=mode))
    if tier is not None and tier not in (1, 2, 3):
        raise ValidationError(ERR_TIER_INVALID.format(tier=tier))
    akte_obj = _akte_access(user=user, akte=akte)
    if conversation is not None:
        conv = _conversation_access(user=user, conversation=conversation)
        if akte_obj is None and conv.akte_id is not None:
            akte_obj = Akte.objects.visible_to(user).filter(pk=conv.akte_id).first()
    else:
        conv = Conversation.objects.create(user=user, akte=akte_obj, title=text[:60])
    config = EngineConfig.load()
    classification = apply_user_choice(_classify(text, config), mode=mode, tier=tier)
    max_steps, timeout = _limits_for(classification.mode, config)
    run = AgentRun(
        user=user,
        akte=akte_obj,
        conversation=conv,
        task=text,
        task_type=classification.task_type,
        mode=classification.mode,
        tier=classification.tier,
        max_steps=max_steps,
        timeout_seconds=timeout,
    )
    decision = ratelimit_hit(user=user)
    if not decision.allowed:
        run.status = AgentRun.Status.RATE_LIMITED
        run.finish_reason = "Anfragelimit erreicht"
        run.error = run.answer = decision.message
        run.finished_at = timezone.now()
    run.full_clean()
    run.save()
    ChatMessage.objects.create(conversation=conv, role=ChatMessage.Role.USER, text=text, run=run)
    if not decision.allowed:
        ChatMessage.objects.create(conversation=conv, role=ChatMessage.Role.ASSISTANT, text=decision.message, run=run)
        _event_row(run, "run.failed", status=run.status, answer=decision.message, error=decision.message, usage={})
    conv.save(update_fields=["updated_at"])
    return run


# -- routing -------------------------------------------------------------------------------------


def client_for_tier(tier: TierConfig) -> LLMClient:
    """The client of one configured tier (agent/llm/factory.py)."""
    from .llm.factory import build_client

    return build_client(tier)


class DemoClient:
    """The embedded demo model (agent/llm/demo.py), started only when a run really reaches it.

    Its server takes seconds to start, so building the routes of every run must not start it;
    the first `chat` does. When it cannot start, `DemoModelUnavailable` (an `LLMUnavailable`)
    reaches the loop like any outage.
    """

    is_demo = True

    def __init__(self) -> None:
        from .llm.demo import DEMO_CONTEXT_WINDOW, DEMO_MODEL

        self.model = DEMO_MODEL
        self.context_window = DEMO_CONTEXT_WINDOW
        self._client: LLMClient | None = None

    async def chat(
        self,
        messages: list[Message],
        *,
        tools: list[dict[str, Any]] | None = None,
        on_delta: DeltaCallback | None = None,
    ) -> LLMResponse:
        if self._client is None:
            from .llm.demo import demo_client

            self._client = await demo_client()
            self.context_window = self._client.context_window
        return await self._client.chat(messages, tools=tools, on_delta=on_delta)


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


def known_values_for(*, user: Any, akte: Akte | None) -> list[tuple[str, str]]:
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


# The demo model (135 M parameters, 8 k context) is offered the few tools it can use for a question
# about an Akte or a statute; the full set would not even fit into its window.
DEMO_TOOLS = frozenset({"read_akte", "read_fristen", "read_dokumente", "search_alle_akten", "search_gesetze", "berechne_frist"})


def routes_build(
    *,
    start_tier: int,
    task_type: str,
    user: Any,
    akte: Akte | None,
    client_factory: Callable[[TierConfig], LLMClient] | None = None,
    demo_factory: Callable[[], LLMClient] = DemoClient,
) -> list[Route]:
    """The escalation chain of a run: enabled local tiers from `start_tier` up (all of them if
    none is that high), then the usable cloud tiers (pseudonymised where configured), and the demo
    model: first when no local tier is in the chain (unless the run starts on the cloud tier by
    choice), else last and only for outages."""
    make = client_factory or client_for_tier
    counter_ok = counter_available()
    enabled = list(TierConfig.objects.filter(enabled=True).order_by("tier"))
    local = [t for t in enabled if not t.is_cloud]
    cloud = [t for t in enabled if cloud_usable(t, task_type=task_type, counter_ok=counter_ok)]
    chain = [t for t in local + cloud if t.tier >= start_tier] or local + cloud
    chain.sort(key=lambda t: t.tier)
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
    if not any(route.local for route in routes) and (not routes or start_tier < 3):
        routes.insert(0, Route(client=demo_factory(), tier=1, local=True, demo=True, offer_tools=DEMO_TOOLS))
    else:
        routes.append(Route(client=demo_factory(), tier=1, local=True, demo=True, outage_only=True, offer_tools=DEMO_TOOLS))
    return routes


# -- execute -------------------------------------------------------------------------------------


def toolbox_for(ctx: ToolContext) -> ToolBox:
    from .registry import toolbox_for as registry_toolbox

    return registry_toolbox(ctx)


def _history(conversation_id: int | None, *, before_run: int, context_window: int) -> list[Message]:
    """Earlier turns of the conversation, newest kept first, within HISTORY_SHARE of the window."""
    if conversation_id is None:
        return []
    rows = (
        ChatMessage.objects.filter(conversation_id=conversation_id)
        .exclude(run_id=before_run)
        .order_by("-created_at", "-pk")[:HISTORY_MAX_MESSAGES]
    )
    budget = int(context_window * HISTORY_SHARE)
    kept: list[Message] = []
    for row in rows:
        tokens = estimate_tokens(row.text)
        if tokens > budget:
            break
        budget -= tokens
        kept.append({"role": "user" if row.role == ChatMessage.Role.USER else "assistant", "content": row.text})
    kept.reverse()
    return kept


class _Prepared:
    def __init__(self, **kwargs: Any) -> None:
        self.__dict__.update(kwargs)

    run: AgentRun
    ctx: ToolContext
    tools: ToolBox
    router: TierRouter
    transcript: list[Message]
    limits: Limits
    first_contact: bool


@transaction.atomic
def _run_claim(run_id: int) -> AgentRun | None:
    """Mark a PENDING run RUNNING under a row lock; None if it is not PENDING (someone else has it)."""
    run = AgentRun.objects.select_for_update(of=("self",)).select_related("user", "akte").filter(pk=run_id).first()
    if run is None or run.status != AgentRun.Status.PENDING:
        return None
    run.status = AgentRun.Status.RUNNING
    run.started_at = run.heartbeat_at = timezone.now()
    run.worker_id = f"{os.uname().nodename}:{os.getpid()}"[:100]
    run.save(update_fields=["status", "started_at", "heartbeat_at", "worker_id"])
    return run


@transaction.atomic
def _run_fail_start(run_id: int, error: str) -> None:
    run = AgentRun.objects.select_for_update().get(pk=run_id)
    run.status = AgentRun.Status.FAILED
    run.finish_reason = "Start fehlgeschlagen"
    run.error = ERR_START.format(error=error)
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "finish_reason", "error", "finished_at"])
    _event_row(run, "run.failed", status=run.status, answer="", error=run.error, usage={})


def _run_prepare(run: AgentRun, cancel: CancelToken, client_factory: Callable[[TierConfig], LLMClient] | None) -> _Prepared:
    """Everything the loop needs for a claimed run: tools, routes, prompt, transcript, limits."""
    user, akte = run.user, run.akte
    if akte is not None and not Akte.objects.visible_to(user).filter(pk=akte.pk).exists():
        akte = None  # access lost since the run was created: the run continues without the Akte
    ctx = ToolContext(user=user, akte=akte, run=run, cancel=cancel)
    tools = toolbox_for(ctx)
    task_type = run.task_type or TaskType.FRAGE
    router = TierRouter(
        routes_build(start_tier=run.tier or 1, task_type=task_type, user=user, akte=akte, client_factory=client_factory)
    )
    akte_context, rejections, first_contact = persona_context_load(user=user, akte=akte)
    system = build_system_prompt(
        tools=tools.schemas(),
        akte=akte_context,
        rejections=rejections,
        first_contact=first_contact,
        user_name=user.get_full_name() or "",
        today=timezone.localdate(),
    )
    if run.transcript:
        # a continuation: the same transcript with today's system prompt
        transcript = list(run.transcript)
        if transcript and transcript[0].get("role") == "system":
            transcript[0] = {"role": "system", "content": system}
    else:
        history = _history(run.conversation_id, before_run=run.pk, context_window=router.route.client.context_window)
        transcript = [{"role": "system", "content": system}, *history, {"role": "user", "content": run.task}]
    limits = Limits(
        max_steps=run.max_steps,
        timeout_seconds=run.timeout_seconds,
        max_tokens=EngineConfig.load().max_tokens_per_run,
        offer_continuation=run.mode == AgentRun.Mode.INLINE,
        mode=run.mode.lower(),
    )
    return _Prepared(
        run=run, ctx=ctx, tools=tools, router=router, transcript=transcript, limits=limits, first_contact=first_contact
    )


def _run_finish(run_id: int, outcome: RunOutcome) -> None:
    with transaction.atomic():
        run = AgentRun.objects.select_for_update().get(pk=run_id)
        run.status = AgentRun.Status(str(outcome.status))
        run.finish_reason = outcome.finish_reason[:200]
        run.error = outcome.error
        run.answer = outcome.answer
        run.transcript = outcome.transcript
        run.steps_used = min(outcome.steps, 32767)
        run.model_calls = outcome.model_calls
        run.tool_calls = outcome.tool_calls
        run.tokens_in = outcome.tokens_in
        run.tokens_out = outcome.tokens_out
        run.tier = outcome.tier if outcome.tier in (1, 2, 3) else run.tier
        run.model_name = outcome.model[:200]
        run.finished_at = run.heartbeat_at = timezone.now()
        run.save()
        if outcome.answer and run.conversation_id is not None:
            ChatMessage.objects.create(
                conversation_id=run.conversation_id, role=ChatMessage.Role.ASSISTANT, text=outcome.answer, run=run
            )
            Conversation.objects.filter(pk=run.conversation_id).update(updated_at=run.finished_at)


def _poll(run_id: int, beat: bool) -> bool:
    """Read `cancel_requested` (and write the heartbeat), on the poll thread's own connection."""
    try:
        if beat:
            AgentRun.objects.filter(pk=run_id, status=AgentRun.Status.RUNNING).update(heartbeat_at=timezone.now())
        return bool(AgentRun.objects.filter(pk=run_id).values_list("cancel_requested", flat=True).first())
    except DatabaseError:
        connection.close()  # reconnect at the next poll
        raise


def _poll_connection_close() -> None:
    connection.close()


async def _watch(run_id: int, cancel: CancelToken) -> None:
    """Poll the database for a cancel request every CANCEL_POLL_SECONDS. The polls of all runs of
    this process share one thread with one long-lived connection: opening a connection per poll
    costs more than the query, and the sync thread may be busy with the run's own writes."""
    loop = asyncio.get_running_loop()
    polls = 0
    while not cancel.cancelled:
        await asyncio.sleep(CANCEL_POLL_SECONDS)
        polls += 1
        try:
            requested = await loop.run_in_executor(_POLL_THREAD, _poll, run_id, polls % HEARTBEAT_EVERY_POLLS == 0)
        except Exception:
            logger.warning("Abbruch-Abfrage für Lauf %s fehlgeschlagen", run_id, exc_info=True)
            continue
        if requested:
            cancel.cancel()


async def run_execute(
    run_id: int,
    *,
    publish: Publish | None = None,
    relay: Relay | None = None,
    client_factory: Callable[[TierConfig], LLMClient] | None = None,
) -> AgentRun:
    """Execute a PENDING run to its end and return it with its final status.

    Idempotent: a run that is not PENDING (already claimed, finished, rate-limited) is returned as
    it is. Every event is persisted (AgentStep) before `relay(event)` is called (in the thread that
    wrote it) and `publish(event)` is awaited. The final status, answer, tokens and transcript are
    saved before the terminal event is emitted.
    `client_factory` builds the client of a TierConfig (default: `client_for_tier`).
    """
    cancel = CancelToken()
    claimed = await sync_to_async(_run_claim)(run_id)
    if claimed is None:
        return await sync_to_async(AgentRun.objects.get)(pk=run_id)
    try:
        prepared = await sync_to_async(_run_prepare)(claimed, cancel, client_factory)
    except Exception as exc:
        logger.exception("Lauf %s konnte nicht starten", run_id)
        await sync_to_async(_run_fail_start)(run_id, f"{type(exc).__name__}: {exc}")
        return await sync_to_async(AgentRun.objects.get)(pk=run_id)
    _local_cancels[run_id] = cancel
    watcher = asyncio.create_task(_watch(run_id, cancel))

    async def finish(outcome: RunOutcome) -> None:
        if prepared.first_contact and outcome.answer and outcome.status != RunStatus.CANCELLED:
            outcome.answer = with_intro(outcome.answer)
        await sync_to_async(_run_finish)(run_id, outcome)

    sink = RunEventSink(prepared.run, publish, relay=relay)
    withheld = frozenset(all_tools()) - set(prepared.tools.names())
    try:
        await run_agent(
            transcript=prepared.transcript,
            model=prepared.router,
            tools=prepared.tools,
            sink=sink,
            limits=prepared.limits,
            cancel=cancel,
            guard=functools.partial(response_guard, withheld=withheld),
            on_finish=finish,
        )
    finally:
        try:
            await sink.flush()
        except Exception:
            logger.exception("Lauf %s: letztes Ereignis nicht gespeichert", run_id)
        watcher.cancel()
        _local_cancels.pop(run_id, None)
        if not _local_cancels:
            # no run left to watch: give the poll connection back
            await asyncio.get_running_loop().run_in_executor(_POLL_THREAD, _poll_connection_close)
    return await sync_to_async(AgentRun.objects.get)(pk=run_id)


# -- cancel, continue, clean up ------------------------------------------------------------------


def _run_of(*, run_id: int, by: Any, lock: bool = False) -> AgentRun:
    qs = AgentRun.objects.select_for_update() if lock else AgentRun.objects.all()
    if not getattr(by, "is_admin_role", False):
        qs = qs.filter(user=by)
    try:
        return qs.get(pk=run_id)
    except AgentRun.DoesNotExist:
        raise NotFound(ERR_RUN_NOT_FOUND) from None


@transaction.atomic
def run_request_cancel(*, run_id: int, by: Any) -> AgentRun:
    """Ask a run to stop (its owner or an admin; NotFound otherwise).

    A PENDING run is cancelled right here; a RUNNING one gets `cancel_requested` and stops within a
    second (at once when it executes in this process). A finished run is returned unchanged.
    """
    run = _run_of(run_id=run_id, by=by, lock=True)
    if run.status == AgentRun.Status.PENDING:
        run.status = AgentRun.Status.CANCELLED
        run.cancel_requested = True
        run.finish_reason = "vom Benutzer abgebrochen"
        run.finished_at = timezone.now()
        run.save(update_fields=["status", "cancel_requested", "finish_reason", "finished_at"])
        _event_row(run, "run.cancelled", status=run.status, answer="", error="", usage={})
    elif run.status == AgentRun.Status.RUNNING:
        run.cancel_requested = True
        run.save(update_fields=["cancel_requested"])
        token = _local_cancels.get(run.pk)
        if token is not None:
            token.cancel()
    return run


@transaction.atomic
def run_continue_background(*, run_id: int, by: Any) -> AgentRun:
    """A new BACKGROUND run that continues a run which stopped at the inline step cap, from its
    transcript (`continued_from` points back). The caller enqueues it. Raises NotFound for a run
    of someone else and ValidationError for a run that cannot be continued."""
    previous = _run_of(run_id=run_id, by=by, lock=True)
    if previous.status != AgentRun.Status.CAP_REACHED or previous.mode != AgentRun.Mode.INLINE or not previous.transcript:
        raise ValidationError(ERR_NOT_CONTINUABLE)
    if previous.continuations.exists():
        return previous.continuations.order_by("pk").first()  # type: ignore[return-value]
    config = EngineConfig.load()
    transcript = [*previous.transcript, {"role": "user", "content": CONTINUE_INSTRUCTION}]
    run = AgentRun(
        user=previous.user,
        akte=previous.akte,
        conversation=previous.conversation,
        task=previous.task,
        task_type=previous.task_type,
        mode=AgentRun.Mode.BACKGROUND,
        tier=previous.tier,
        max_steps=config.background_max_steps,
        timeout_seconds=config.background_timeout_seconds,
        transcript=transcript,
        continued_from=previous,
    )
    run.full_clean()
    run.save()
    return run


def runs_fail_orphaned(*, stale_after_seconds: int = 60) -> int:
    """Mark RUNNING runs whose heartbeat is older than `stale_after_seconds` as FAILED (their
    events and transcript stay). Returns how many. Safe to call from every worker at start-up."""
    cutoff = timezone.now() - datetime.timedelta(seconds=stale_after_seconds)
    failed = 0
    candidates = AgentRun.objects.filter(status=AgentRun.Status.RUNNING, heartbeat_at__lt=cutoff) | AgentRun.objects.filter(
        status=AgentRun.Status.RUNNING, heartbeat_at__isnull=True, started_at__lt=cutoff
    )
    for run_id in candidates.values_list("pk", flat=True):
        with transaction.atomic():
            run = AgentRun.objects.select_for_update().get(pk=run_id)
            if run.status != AgentRun.Status.RUNNING or (run.heartbeat_at and run.heartbeat_at >= cutoff):
                continue
            run.status = AgentRun.Status.FAILED
            run.finish_reason = "Prozess nicht mehr erreichbar"
            run.error = ERR_ORPHANED
            run.finished_at = timezone.now()
            run.save(update_fields=["status", "finish_reason", "error", "finished_at"])
            _event_row(run, "run.failed", status=run.status, answer=run.answer, error=ERR_ORPHANED, usage={})
            failed += 1
    return failed


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
