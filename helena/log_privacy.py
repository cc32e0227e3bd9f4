"""No client data in any log (§ 203 StGB): one filter on every handler of the project's LOGGING.

Whatever a logger was given, the record leaves the process without:
- query strings: `/api/akten/?q=Müller` is logged as `/api/akten/?…` (search terms are client data);
- SQL text and parameters (django.db.backends at DEBUG logs the query with its values inlined);
- exception messages: a traceback keeps its frames (file, line, function) and the exception types,
  never the texts, which may quote names, prompts or document text;
- DEBUG records of libraries: only Helena's own loggers and Django's (whose SQL is scrubbed here)
  are kept at DEBUG. Libraries log content there (Pillow every EXIF/TIFF tag with its value,
  fontTools, pypdf, HTTP clients whole requests), and a rule by allowlist also covers a library
  added later, which a list of library loggers set to INFO in LOGGING would miss;
- paths as typed: Django's "Not Found: <path>", "Internal Server Error: <path>" and
  "Forbidden (CSRF cookie not set.): <path>" (records that carry the `request`), and the dev
  server's "HTTP GET <path>" (a `path` argument), log the path as the access log does
  (helena/access_log.py `loggable_path`): a typed /akten/<Name>/ is /akten/…/;
- asyncio's reprs: asyncio writes the reprs of a callback's arguments, of the handle and of a task
  with its exception into its own message ("Exception in callback deliver({'text': …})",
  "future: <Task … exception=RuntimeError('…')>"). Its records keep the first words of the message
  and the callback's qualified name; the exception is logged as for every record (type and frames).
"""

from __future__ import annotations

import logging
import re
import traceback
from types import TracebackType
from typing import Any

# A path or URL followed by a query string: keep the path, drop everything after "?".
_QUERY = re.compile(r"((?:https?://[^\s/\"'?]+)?/[^\s\"'?]*)\?[^\s\"']*")
SQL_LOGGERS = ("django.db.backends",)
# The loggers kept at DEBUG: the project's packages (the root packages of [tool.importlinter] in
# pyproject.toml, which a test compares) and Django.
DEBUG_LOGGERS = ("helena", "akten", "drafts", "agent", "recherche", "rechner", "schriftgut", "django")


TRACEBACK_HEADERS = (
    "Traceback (most recent call last):",
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)


def scrub_query_strings(text: str) -> str:
    return _QUERY.sub(r"\1?…", text)


# Lines of a formatted traceback, also inside the boxes of an ExceptionGroup (prefixed "  | "): a
# frame ("  File ..."), the decoration of a group, and an exception line ("pkg.Error: message").
_GROUP_PREFIX = re.compile(r"^(?: *\| ?)*")
_DECORATION = re.compile(r"^[\s|+\-]*(?:-+ \d+ -+|\.\.\. and \d+ more exceptions?)?[\s|+\-]*$")
_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*)(?::|$)")


# asyncio's "Exception in callback <qualified name>(<argument reprs>) at <file>:<line>"; the name of a
# nested function holds "<locals>" or "<lambda>".
_NAME_PART = r"(?:[A-Za-z_]\w*|<\w+>)"
_ASYNCIO_CALLBACK = re.compile(rf"^(Exception in callback)(?: ({_NAME_PART}(?:\.{_NAME_PART})*)\()?")
# Elsewhere the words before the first repr, quote, mapping or "key: value".
_ASYNCIO_WORDS = re.compile(r"^[^\n(<'\"{\[=:]*")


def asyncio_message(message: str) -> str:
    """What of an asyncio message carries no data: the callback's qualified name or the first words."""
    if (callback := _ASYNCIO_CALLBACK.match(message)) is not None:  # a callable's own repr may say anything
        return " ".join(part for part in callback.groups() if part)
    return _ASYNCIO_WORDS.match(message).group(0).rstrip() or "asyncio-Meldung (Text nicht protokolliert)"  # type: ignore[union-attr]


def _loggable_path(path: str) -> str:
    from helena.access_log import REDACTED, loggable_path

    try:
        return loggable_path(path)
    except Exception:  # a log line must not fail (e.g. URLconf not loadable): the path goes entirely
        return "/" + REDACTED


def _request_paths(record: logging.LogRecord) -> list[tuple[str, str]]:
    """(path as typed, path as the access log writes it) for the request a record carries, the
    longest first (path_info is part of path); a `path` argument is replaced in place."""
    if isinstance(record.args, dict) and isinstance(record.args.get("path"), str):
        path, query, _ = record.args["path"].partition("?")  # daphne's URI with its query string
        record.args = {**record.args, "path": _loggable_path(path) + (query and "?…")}
    request = getattr(record, "request", None)
    replaced: dict[str, str] = {}
    for path in {getattr(request, "path", None), getattr(request, "path_info", None)}:
        if isinstance(path, str) and path and (safe := _loggable_path(path)) != path:
            replaced[path] = safe
            # django.utils.log.log_response escapes its arguments ("M\\xfcller")
            replaced[path.encode("unicode_escape").decode("ascii")] = safe
    return sorted(replaced.items(), key=lambda item: -len(item[0]))


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def scrub_traceback_text(text: str) -> str:
    """A traceback already formatted into a message (daphne logs `traceback.format_exc()`): frames
    (file, line, function, source line) and exception types stay; every message goes, also its
    further lines and those of the exceptions inside an ExceptionGroup."""
    if "Traceback" not in text:
        return text
    lines: list[str] = []
    frame_indent: int | None = None
    for line in text.split("\n"):
        prefix = _GROUP_PREFIX.match(line).group(0)  # type: ignore[union-attr]
        inhalt = line[len(prefix) :]
        if frame_indent is not None and inhalt.strip() and _indent(inhalt) > frame_indent:
            lines.append(line)  # the source line (or its markers) of the frame above: code, not data
            continue
        frame_indent = None
        if inhalt.lstrip().startswith('File "'):
            frame_indent = _indent(inhalt)
            lines.append(line)
        elif "Traceback (most recent call last):" in inhalt or inhalt.strip() in TRACEBACK_HEADERS or _DECORATION.match(line):
            lines.append(line)
        elif _indent(inhalt) == 0 and (exception := _EXCEPTION.match(inhalt)) is not None:
            lines.append(f"{prefix}{exception.group(1)} (Meldung nicht protokolliert)")
        # anything else is a further line of a message: left out
    return "\n".join(lines)


def format_exception_without_messages(
    exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
) -> str:
    """The traceback as Python prints it, with every exception's message left out (chains included)."""
    lines: list[str] = []
    seen: set[int] = set()
    chain: list[tuple[BaseException, str]] = []
    current, link = exc, ""
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        chain.append((current, link))
        if current.__cause__ is not None:
            current, link = current.__cause__, "The above exception was the direct cause of the following exception:"
        elif current.__context__ is not None and not current.__suppress_context__:
            current, link = current.__context__, "During handling of the above exception, another exception occurred:"
        else:
            current = None
    for index, (item, _) in enumerate(reversed(chain)):
        if index:
            lines.append("\n" + chain[len(chain) - index][1] + "\n\n")
        lines.append("Traceback (most recent call last):\n")
        lines.extend(traceback.format_tb(item.__traceback__))
        lines.append(f"{type(item).__module__}.{type(item).__qualname__} (Meldung nicht protokolliert)\n")
    if exc is None and exc_type is not None:
        lines.append(f"{exc_type.__qualname__} (Meldung nicht protokolliert)\n")
    return "".join(lines).rstrip("\n")


def _exception_name(value: Any) -> Any:
    if isinstance(value, BaseException):
        return f"{type(value).__module__}.{type(value).__qualname__} (Meldung nicht protokolliert)"
    return value


def _without_exception_messages(args: Any) -> Any:
    """Arguments of a message with every exception replaced by its type (daphne logs
    "Exception inside application: %s" with the exception, whose text may quote client data)."""
    if isinstance(args, tuple):
        return tuple(_exception_name(arg) for arg in args)
    if isinstance(args, dict):
        return {key: _exception_name(value) for key, value in args.items()}
    return _exception_name(args)


class PrivacyFilter(logging.Filter):
    """Rewrites every record so that it carries no client data (see the module docstring)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno <= logging.DEBUG and record.name.split(".", 1)[0] not in DEBUG_LOGGERS:
            return False
        if record.name.startswith(SQL_LOGGERS) and record.levelno <= logging.DEBUG:
            duration = getattr(record, "duration", None)
            record.msg = "SQL-Abfrage (Text und Parameter nicht protokolliert)"
            if isinstance(duration, float):
                record.msg = f"({duration:.3f}) {record.msg}"
            record.args = None
            for name in ("sql", "params"):
                if hasattr(record, name):
                    setattr(record, name, None)
        else:
            paths = _request_paths(record)
            record.args = _without_exception_messages(record.args)
            try:
                message = record.getMessage()
            except Exception:  # a broken format string must not break logging
                message = str(record.msg)
            for path, safe in paths:
                message = message.replace(path, safe)
            if record.name == "asyncio" or record.name.startswith("asyncio."):
                message = asyncio_message(message)
            record.msg = scrub_traceback_text(scrub_query_strings(message))
            record.args = None
        if record.exc_info and record.exc_info != (None, None, None):
            exc_type, exc, tb = record.exc_info
            record.exc_text = format_exception_without_messages(exc_type, exc, tb)
        elif record.exc_text:
            record.exc_text = "(Ausnahme ohne Meldung)"
        return True
