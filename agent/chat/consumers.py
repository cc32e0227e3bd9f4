"""The chat websocket: thin. It validates each message, re-checks access, calls one service and
delivers the run's persisted events (see agent/runs/delivery.py for how events cross processes)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, TypeVar

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.core.exceptions import PermissionDenied, ValidationError
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, field_validator
from pydantic import ValidationError as PydanticValidationError

from agent.chat import announcements, inline, tails
from agent.chat.cards import akte_draft_cursor, akte_new_draft_cards, draft_cards
from agent.chat.tails import RunTail
from agent.models import AgentRun
from agent.runs import selectors
from agent.runs.delivery import akte_group, layer_crosses_processes, run_group, user_group, user_notify_run
from akten.models import Akte, User, user_access_refresh
from akten.selectors import akte_get
from helena.errors import NotFound

logger = logging.getLogger(__name__)
T = TypeVar("T")

MAX_FRAME_BYTES = 16 * 1024
MAX_TEXT_CHARS = 8000
RATE_WINDOW_SECONDS = 10.0
RATE_MAX_MESSAGES = 20
# A socket following an Akte reads its new drafts when woken by `akte.drafts_added` (sent by the
# draft service through the channel layer) and otherwise every so often: often with the in-memory
# layer (the worker's wake-ups do not reach this process), rarely with Redis (a lost wake-up).
AKTE_POLL_SECONDS_LOCAL = 1.0
AKTE_POLL_SECONDS_SHARED_LAYER = 15.0
MAX_WATCHED_AKTEN = 20

ERR_TOO_LARGE = "Die Nachricht ist zu groß."
ERR_INVALID = "Die Nachricht ist ungültig."
ERR_RATE = "Zu viele Nachrichten in kurzer Zeit. Bitte warte einen Moment."
ERR_START_FAILED = "Helena konnte den Auftrag nicht annehmen. Bitte versuche es erneut."
ERR_ACTION_FAILED = "Die Aktion ist fehlgeschlagen. Bitte versuche es erneut."
ERR_NOT_ACTIVE = "Dieser Auftrag läuft nicht mehr."
ERR_RUN_CRASHED = "Helena ist bei diesem Auftrag auf einen internen Fehler gestoßen. Bitte versuche es erneut."
ERR_CONTROL_CHARS = "Das Feld „{field}“ enthält unzulässige Steuerzeichen (z. B. ein NUL-Zeichen). Bitte entferne sie."
# C0/C1 control characters other than tab, line feed and carriage return; PostgreSQL rejects NUL
# in text columns, and the others have no place in a chat message.
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")

CLOSE_UNAUTHENTICATED = 4401
CLOSE_ABUSE = 4429

Id = Annotated[int, Field(gt=0, lt=2**63)]


class _Incoming(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class ChatSend(_Incoming):
    type: Literal["chat.send"]
    text: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_TEXT_CHARS)]
    conversation: Id | None = None
    akte: Id | None = None
    mode: Literal["INLINE", "BACKGROUND"] | None = None

    @field_validator("text")
    @classmethod
    def _no_control_chars(cls, value: str) -> str:
        if CONTROL_CHARS.search(value):
            raise ValueError("control characters")
        return value


def invalid_message_error(exc: PydanticValidationError) -> str:
    """The German error for an incoming frame that failed validation, naming the field when a
    text field carried control characters."""
    for error in exc.errors():
        if error.get("type") == "value_error" and "control characters" in str(error.get("msg", "")):
            return ERR_CONTROL_CHARS.format(field=str(error["loc"][-1]))
    return ERR_INVALID


class RunCancel(_Incoming):
    type: Literal["run.cancel"]
    run: Id


class RunContinueBackground(_Incoming):
    type: Literal["run.continue_background"]
    run: Id


class RunResume(_Incoming):
    type: Literal["run.resume"]
    run: Id
    after_seq: Annotated[int, Field(ge=0, lt=2**31)] = 0


class AkteWatch(_Incoming):
    """Follow draft cards of an Akte (the Akte page and an Akte conversation show them)."""

    type: Literal["akte.watch"]
    akte: Id


Incoming = Annotated[ChatSend | RunCancel | RunContinueBackground | RunResume | AkteWatch, Field(discriminator="type")]
incoming_adapter: TypeAdapter[Any] = TypeAdapter(Incoming)


def german_error(exc: BaseException, default: str) -> str:
    """A user-facing German message for an expected error; never a stack trace."""
    if isinstance(exc, NotFound):
        return exc.message
    if isinstance(exc, ValidationError):
        return " ".join(str(m) for m in exc.messages) or default
    if isinstance(exc, PermissionDenied) and str(exc):
        return str(exc)
    message = getattr(exc, "user_message", None) or getattr(exc, "message", None)
    if isinstance(message, str) and message and getattr(exc, "is_user_facing", True) and type(exc).__module__.startswith("agent"):
        return message
    return default


class ChatConsumer(AsyncJsonWebsocketConsumer):
    """`/ws/helena/`: one socket per tab. Groups: the user's (new runs, draft cards without Akte),
    one per watched run, one per watched Akte (draft cards). The process's announcer
    (agent/chat/announcements.py) also tells it of its user's new runs."""

    user: User
    tails: dict[int, RunTail]
    seen: dict[int, int]
    groups_joined: set[str]
    recent: deque[float]
    akte_watchers: dict[int, asyncio.Task[None]]
    akte_wakes: dict[int, asyncio.Event]
    disconnected: bool

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated or not user.is_active:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.user = user
        self.tails = {}
        self.seen = {}
        self.groups_joined = set()
        self.recent = deque()
        self.akte_watchers = {}
        self.akte_wakes = {}
        self.disconnected = False
        await self._join(user_group(user.pk))
        await self.accept()
        await self.send_json({"type": "hello", "user": user.pk})
        announcements.socket_register(self)

    async def disconnect(self, code: int) -> None:
        self.disconnected = True
        if getattr(self, "user", None) is not None:
            announcements.socket_unregister(self)
        for tail in list(getattr(self, "tails", {}).values()):
            tail.unwatch()
            if tail.task is not None:
                tail.task.cancel()
        for task in getattr(self, "akte_watchers", {}).values():
            task.cancel()
        for group in list(getattr(self, "groups_joined", set())):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        if not self._within_rate():
            await self.send_error(ERR_RATE, code="rate")
            if len(self.recent) > 2 * RATE_MAX_MESSAGES:
                await self.close(code=CLOSE_ABUSE)
            return
        if text_data is None or len(text_data.encode()) > MAX_FRAME_BYTES:
            await self.send_error(ERR_TOO_LARGE if text_data else ERR_INVALID, code="invalid")
            return
        try:
            message = incoming_adapter.validate_python(json.loads(text_data))
        except PydanticValidationError as exc:
            await self.send_error(invalid_message_error(exc), code="invalid")
            return
        except (ValueError, RecursionError):
            # RecursionError: deeply nested JSON ("[[[[…") that still fits under the size limit
            await self.send_error(ERR_INVALID, code="invalid")
            return
        await self.dispatch_message(message)

    async def dispatch_message(self, message: Any) -> None:
        handlers: dict[str, Callable[[Any], Awaitable[None]]] = {
            "chat.send": self.chat_send,
            "run.cancel": self.run_cancel,
            "run.continue_background": self.run_continue_background,
            "run.resume": self.run_resume,
            "akte.watch": self.akte_watch,
        }
        try:
            # the user as they are now: a role changed or an account deactivated since the handshake
            await database_sync_to_async(user_access_refresh)(self.user)
            await handlers[message.type](message)
        except NotFound as exc:
            await self.send_error(exc.message, code="not_found", run=getattr(message, "run", None))
        except Exception as exc:
            logger.exception("chat message %s failed", message.type)
            await self.send_error(german_error(exc, ERR_ACTION_FAILED), code="failed", run=getattr(message, "run", None))

    # -- client → server ---------------------------------------------------------------------

    async def chat_send(self, message: ChatSend) -> None:
        from agent.runs import services

        conversation, akte = await self._access_conversation_and_akte(message)
        checked_at = time.monotonic()
        try:
            run = await database_sync_to_async(services.run_create)(
                user=self.user, text=message.text, conversation=conversation, akte=akte, mode=message.mode
            )
        except Exception as exc:
            logger.info("run_create refused: %s", type(exc).__name__)
            await self.send_error(german_error(exc, ERR_START_FAILED), code="refused")
            return
        title = await database_sync_to_async(
            lambda: selectors.conversation_title(user=self.user, pk=run.conversation_id) if run.conversation_id else ""
        )()
        await self.send_json(
            {
                "type": "run.accepted",
                "run": run.pk,
                "conversation": run.conversation_id,
                "title": title,
                "mode": run.mode,
                "status": run.status,
                "queue_position": await self.queue_position(run),
            }
        )
        if run.status in AgentRun.ACTIVE_STATUSES:
            await self.execute(run)  # first: an inline run is then watched directly (agent/chat/inline.py)
        await self.watch_run(run.pk, after_seq=0, checked_at=checked_at)
        await user_notify_run(user_id=self.user.pk, run_id=run.pk)

    async def run_cancel(self, message: RunCancel) -> None:
        from agent.runs import services

        run = await database_sync_to_async(selectors.run_get)(user=self.user, pk=message.run)
        if not run.is_active:
            await self.send_error(ERR_NOT_ACTIVE, code="not_active", run=run.pk)
            return
        await database_sync_to_async(services.run_request_cancel)(run_id=run.pk, by=self.user)
        await self.send_json({"type": "run.cancel_requested", "run": run.pk})

    async def run_continue_background(self, message: RunContinueBackground) -> None:
        from agent.runs import services

        run = await database_sync_to_async(selectors.run_get)(user=self.user, pk=message.run)
        checked_at = time.monotonic()
        continued = await database_sync_to_async(services.run_continue_background)(run_id=run.pk, by=self.user)
        await self.send_json(
            {
                "type": "run.accepted",
                "run": continued.pk,
                "conversation": continued.conversation_id,
                "mode": continued.mode,
                "status": continued.status,
                "queue_position": await self.queue_position(continued),
            }
        )
        await self.execute(continued)
        await self.watch_run(continued.pk, after_seq=0, checked_at=checked_at)
        await user_notify_run(user_id=self.user.pk, run_id=continued.pk)

    async def run_resume(self, message: RunResume) -> None:
        run = await database_sync_to_async(selectors.run_get)(user=self.user, pk=message.run)
        await self.watch_run(run.pk, after_seq=message.after_seq, restart=True, checked_at=time.monotonic())

    async def akte_watch(self, message: AkteWatch) -> None:
        akte: Akte = await database_sync_to_async(akte_get)(user=self.user, pk=message.akte)
        await self._join(akte_group(akte.pk))
        if akte.pk not in self.akte_watchers and len(self.akte_watchers) < MAX_WATCHED_AKTEN:
            cursor = await database_sync_to_async(akte_draft_cursor)(user=self.user, akte_id=akte.pk)
            self.akte_wakes[akte.pk] = asyncio.Event()
            self.akte_watchers[akte.pk] = asyncio.create_task(self._follow_new_drafts(akte.pk, cursor))

    async def akte_drafts_added(self, message: dict[str, Any]) -> None:
        wake = self.akte_wakes.get(int(message["akte"]))
        if wake is not None:
            wake.set()

    async def _follow_new_drafts(self, akte_id: int, cursor: int) -> None:
        """New drafts of a watched Akte (a background run in the worker creates them) as cards, each
        loaded for this socket's user at delivery time: who lost access gets nothing more."""
        pause = AKTE_POLL_SECONDS_SHARED_LAYER if layer_crosses_processes() else AKTE_POLL_SECONDS_LOCAL
        wake = self.akte_wakes[akte_id]
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), timeout=pause)
            wake.clear()
            try:
                cursor, cards = await database_sync_to_async(_as_user_now)(
                    akte_new_draft_cards, self.user, akte_id=akte_id, after=cursor
                )
            except Exception:
                logger.exception("following new drafts failed")
                continue
            for card in cards:
                await self.send_json({"type": "draft.created", "akte": akte_id, "card": card})

    async def queue_position(self, run: AgentRun) -> int | None:
        """A background run waiting for a worker: its place in the queue, sent with `run.accepted`
        (the page asks the runs API for later places)."""
        if run.mode != AgentRun.Mode.BACKGROUND or run.status != AgentRun.Status.PENDING:
            return None
        positions = await database_sync_to_async(selectors.run_queue_positions)(user=self.user)
        return positions.get(run.pk)

    # -- running -----------------------------------------------------------------------------

    async def execute(self, run: AgentRun) -> None:
        """Background runs go to the task queue; inline runs execute in this process, on its
        engine loop (agent/chat/inline.py)."""
        from agent.runs import tasks

        if run.mode == AgentRun.Mode.BACKGROUND:
            await database_sync_to_async(tasks.run_enqueue)(run_id=run.pk)
            return
        inline.execute_inline(run.pk)

    async def watch_run(self, run_id: int, *, after_seq: int, restart: bool = False, checked_at: float | None = None) -> None:
        """Deliver the run's events to this socket from `after_seq` on. `checked_at`: when the
        caller found the run visible to this socket's user (else the tail asks at its first event)."""
        existing = self.tails.get(run_id)
        if existing is not None and not existing.done:
            if not restart:
                return
            # A resume re-sends from the client's position; the client ignores what it already has.
            async with existing.lock:
                existing.last_seq = min(existing.last_seq, after_seq)
            existing.wake.set()
            return
        if not restart:
            after_seq = max(after_seq, self.seen.get(run_id, 0))
        tail = RunTail(self, run_id, after_seq, access_checked_at=checked_at)
        self.tails[run_id] = tail
        if run_id in inline.executing_here:
            inline.watchers.setdefault(run_id, set()).add(tail)
        else:
            await self._join(run_group(run_id))
            if self.disconnected:
                # The announcer (not this socket's own message loop) called while the socket closed.
                await self.tail_finished(tail)
                return
        tail.task = asyncio.create_task(tail.run())

    async def tail_finished(self, tail: RunTail) -> None:
        tail.unwatch()
        if self.tails.get(tail.run_id) is tail:
            del self.tails[tail.run_id]
            group = run_group(tail.run_id)
            if group in self.groups_joined:
                self.groups_joined.discard(group)
                await self.channel_layer.group_discard(group, self.channel_name)

    # -- channel-layer handlers --------------------------------------------------------------

    async def run_event(self, message: dict[str, Any]) -> None:
        tail = self.tails.get(int(message["event"].get("run", 0)))
        if tail is not None:
            await tail.on_event(message["event"])

    async def enrich(self, event: dict[str, Any]) -> dict[str, Any]:
        return await tails.enrich(event, self.user)

    async def run_crashed(self, message: dict[str, Any]) -> None:
        run_id = int(message["run"])
        tail = self.tails.get(run_id)
        if tail is not None and tail.task is not None:
            tail.unwatch()
            tail.task.cancel()
            self.tails.pop(run_id, None)
        await self.send_error(ERR_RUN_CRASHED, code="failed", run=run_id)

    async def run_announce(self, message: dict[str, Any]) -> None:
        """A run of this socket's user exists: from the user's group or from the process's announcer
        (both may tell of the same run). A run this socket tails or has delivered needs nothing."""
        run_id = int(message["run"])
        if run_id not in self.seen:
            await self.watch_run(run_id, after_seq=0)

    async def draft_changed(self, message: dict[str, Any]) -> None:
        """Checked against this socket's user now, not when it subscribed: a MANDANT watching her
        Akte, a deputy whose Vertretung has ended, or an account deactivated or demoted meanwhile
        (ADMIN included) gets nothing."""
        cards = await database_sync_to_async(_as_user_now)(draft_cards, self.user, draft_ids=[int(message["draft"])])
        if cards:
            await self.send_json({"type": "draft.changed", **cards[0]})

    # -- helpers -----------------------------------------------------------------------------

    async def send_error(self, text: str, *, code: str, run: int | None = None) -> None:
        payload: dict[str, Any] = {"type": "error", "code": code, "message": text}
        if run is not None:
            payload["run"] = run
        await self.send_json(payload)

    async def _join(self, group: str) -> None:
        if group not in self.groups_joined:
            self.groups_joined.add(group)
            await self.channel_layer.group_add(group, self.channel_name)

    def _within_rate(self) -> bool:
        now = time.monotonic()
        self.recent.append(now)
        while self.recent and self.recent[0] < now - RATE_WINDOW_SECONDS:
            self.recent.popleft()
        return len(self.recent) <= RATE_MAX_MESSAGES

    @database_sync_to_async
    def _access_conversation_and_akte(self, message: ChatSend) -> tuple[Any, Akte | None]:
        conversation = selectors.conversation_get(user=self.user, pk=message.conversation) if message.conversation else None
        if message.akte:
            akte: Akte | None = akte_get(user=self.user, pk=message.akte)
        else:
            akte = conversation.akte if conversation is not None else None
        return conversation, akte


def _as_user_now(load: Callable[..., T], user: User, **kwargs: Any) -> T:
    """`load(user=user, **kwargs)` with an ADMIN's (or superuser's) account read again first: frames
    the server pushes (draft cards) come without a client message, which would refresh it, and their
    access is decided from the object alone (`access_scope` reads nothing for them). Everyone else's
    scope query reads role, active and superuser flag itself, so an idle poll costs no extra query."""
    if user.is_admin_role:
        user_access_refresh(user)
    return load(user=user, **kwargs)
