"""Helena's one access log (logger "helena.access"), written around the whole ASGI application.

A line holds the method, the path without its query string, the status, the duration and the id
of the logged-in user; never the query string, a header, a body or a name. daphne's own access log
(which prints the full request URI) is switched off wherever we start daphne (`-v 0`).

The path keeps only what Helena's routes themselves write: their literal words ("akten",
"dokumente", "admin"), numbers (ids) and the app's static files. Any other segment is "…": a typed or pasted URL such as
/akten/Zacharias Quellenberg/ or a file name in a download link may carry client data. A path under
STATIC_URL is kept only when it names a static file Helena has (plain characters, found in the
collected files or by the finders), else it is "/static/…".
"""

from __future__ import annotations

import functools
import logging
import re
import time
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger("helena.access")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
USER_KEY = "helena.user_id"
REDACTED = "…"
_WORD = re.compile(r"[A-Za-z0-9_.-]+")
_ID = re.compile(r"[0-9]{1,20}")
_STATIC_NAME = re.compile(r"[A-Za-z0-9_.\-/]{1,300}")


def route_words(patterns: Sequence[Any]) -> frozenset[str]:
    """The literal segments of `patterns` and the patterns they include ("akten", "api", "ws")."""
    words: set[str] = set()

    def walk(items: Sequence[Any]) -> None:
        for pattern in items:
            words.update(part for part in re.split(r"[/^$]", str(pattern.pattern)) if _WORD.fullmatch(part))
            walk(getattr(pattern, "url_patterns", []))

    walk(patterns)
    return frozenset(words)


@functools.cache
def _http_route_words() -> frozenset[str]:
    from django.urls import get_resolver

    return route_words(list(get_resolver().url_patterns))


def loggable_path(path: str, extra_words: frozenset[str] = frozenset()) -> str:
    """`path` with every segment that is neither a literal word of an HTTP route (or of
    `extra_words`: the websocket routes) nor an id replaced by "…" (the app's own static files as
    they are)."""
    from django.conf import settings

    static_url = "/" + str(settings.STATIC_URL).lstrip("/")
    if path.startswith(static_url):
        return path if _is_static_file(path.removeprefix(static_url)) else static_url + REDACTED
    words = _http_route_words() | extra_words
    return "/".join(part if not part or part in words or _ID.fullmatch(part) else REDACTED for part in path.split("/"))


def _is_static_file(name: str) -> bool:
    """Whether `name` (relative to STATIC_URL) is one of Helena's static files: the collected ones
    (STATIC_ROOT, hashed names in production) or those the finders serve without collecting."""
    from django.conf import settings
    from django.contrib.staticfiles import finders
    from django.contrib.staticfiles.storage import staticfiles_storage

    if not _STATIC_NAME.fullmatch(name) or ".." in name.split("/") or name.startswith("/"):
        return False
    try:
        if settings.STATIC_ROOT and staticfiles_storage.exists(name):
            return True
        return bool(finders.find(name))
    except (OSError, SuspiciousOperation):  # not a file of ours
        return False


class AccessLogMiddleware:
    """ASGI middleware: one line per HTTP request and per websocket session."""

    def __init__(self, app: ASGIApp, *, websocket_patterns: Sequence[Any] = ()) -> None:
        self.app = app
        self.websocket_words = route_words(websocket_patterns)

    async def __call__(
        self, scope: Scope, receive: Callable[[], Awaitable[Message]], send: Callable[[Message], Awaitable[None]]
    ) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        started = time.monotonic()
        outcome: dict[str, Any] = {"status": None}

        async def send_and_note(message: Message) -> None:
            kind = message.get("type")
            if kind == "http.response.start":
                outcome["status"] = message.get("status")
            elif kind == "websocket.accept":
                outcome["status"] = 101
            elif kind == "websocket.close" and outcome["status"] is None:
                outcome["status"] = 403
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            method = scope.get("method", "WS") if scope["type"] == "http" else "WS"
            user = scope.get(USER_KEY) or (getattr(scope.get("user"), "pk", None))
            logger.info(
                "%s %s %s %dms user=%s",
                method,
                loggable_path(scope.get("path", ""), self.websocket_words),
                outcome["status"] or "-",
                round((time.monotonic() - started) * 1000),
                user or "-",
            )


class AccessLogUserMiddleware:
    """Django middleware: hands the logged-in user's id to the access log (ASGI requests only)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        scope = getattr(request, "scope", None)
        user = getattr(request, "user", None)
        if scope is not None and user is not None and user.is_authenticated:
            scope[USER_KEY] = user.pk
        return self.get_response(request)
