"""What a request may carry into Helena, checked once for every page and API view.

- Query parameters: no control characters (PostgreSQL refuses NUL in text, and no filter or search
  term ever needs one), at most MAX_PARAM_CHARS characters.
- Form and JSON bodies: no NUL and no lone surrogates (they cannot be stored); JSON must parse.
- API query parameters: the types the OpenAPI schema (/api/schema/) declares for them (integer,
  boolean, enum). The schema is the one written contract; a value it does not allow is a 400
  naming the parameter, never a silent default and never a database error.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, QueryDict

MAX_PARAM_CHARS = 1000
# PostgreSQL's bigint: larger ids cannot exist and must not reach a query.
MAX_INT = 2**63 - 1
TRUE_WORDS = frozenset({"true", "1", "ja"})
FALSE_WORDS = frozenset({"false", "0", "nein"})

MSG_CONTROL_PARAM = "Der Parameter „{field}“ enthält unzulässige Steuerzeichen."
MSG_CONTROL_BODY = "Das Feld „{field}“ enthält unzulässige Zeichen (Nullbyte oder ungültiges Unicode)."
MSG_TOO_LONG = "Der Parameter „{field}“ ist zu lang (höchstens {limit} Zeichen)."
MSG_EMPTY = "Der Parameter „{field}“ darf nicht leer sein."
MSG_INTEGER = "Der Parameter „{field}“ muss eine ganze Zahl sein."
MSG_INTEGER_RANGE = "Der Parameter „{field}“ liegt außerhalb des erlaubten Bereichs."
MSG_NUMBER = "Der Parameter „{field}“ muss eine Zahl sein."
MSG_BOOLEAN = "Der Parameter „{field}“ muss ja oder nein sein (true/false, 1/0)."
MSG_ENUM = "Der Parameter „{field}“ hat einen unbekannten Wert. Erlaubt: {allowed}."
MSG_JSON = "Der Inhalt der Anfrage ist kein gültiges JSON."

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
_INT = re.compile(r"-?\d{1,20}")
_PATH_PARAM = re.compile(r"\{[^/}]+\}")


@dataclass(frozen=True)
class InputError(Exception):
    """A request value Helena does not accept; `field` names it for the person (or None)."""

    field: str | None
    message: str


def _bad_param_char(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cs")


def _bad_body_char(char: str) -> bool:
    return char == "\x00" or unicodedata.category(char) == "Cs"


def field_label(name: str) -> str:
    """The field name as it may be shown and logged: printable characters only, shortened."""
    label = "".join(char for char in name if not _bad_param_char(char))[:60]
    return label or "?"


def check_query(params: QueryDict) -> None:
    """Raise InputError for the first query parameter with a control character or an overlong value."""
    for key, values in params.lists():
        for text in (key, *values):
            if any(_bad_param_char(char) for char in text):
                raise InputError(field_label(key), MSG_CONTROL_PARAM.format(field=field_label(key)))
            if len(text) > MAX_PARAM_CHARS:
                raise InputError(field_label(key), MSG_TOO_LONG.format(field=field_label(key), limit=MAX_PARAM_CHARS))


def _json_strings(data: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(field path, text) of every key and string in a decoded JSON document, without recursion."""
    stack: list[tuple[str, Any]] = [(path, data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            yield where, value
        elif isinstance(value, dict):
            for key, item in value.items():
                child = f"{where}.{key}" if where else str(key)
                yield child, str(key)
                stack.append((child, item))
        elif isinstance(value, list):
            stack.extend((f"{where}[{index}]", item) for index, item in enumerate(value))


def _first_bad(pairs: Iterable[tuple[str, str]]) -> str | None:
    for field, text in pairs:
        if any(_bad_body_char(char) for char in text):
            return field
    return None


def check_body(request: HttpRequest) -> None:
    """Raise InputError for a form or JSON body that carries NUL or a lone surrogate, or bad JSON."""
    if request.method not in ("POST", "PUT", "PATCH", "DELETE"):
        return
    content_type = request.content_type or ""
    field = None
    if content_type in FORM_TYPES:
        field = _first_bad((key, text) for key, values in request.POST.lists() for text in (key, *values))
    elif content_type == "application/json" or content_type.endswith("+json"):
        if not request.body:
            return
        try:
            data = json.loads(request.body)
        except (ValueError, RecursionError):
            raise InputError(None, MSG_JSON) from None
        field = _first_bad(_json_strings(data))
    if field is not None:
        label = field_label(field)
        raise InputError(label, MSG_CONTROL_BODY.format(field=label))


@functools.cache
def api_parameters() -> tuple[tuple[re.Pattern[str], dict[str, list[dict[str, Any]]]], ...]:
    """(path pattern, {method: query parameters}) of every operation of the OpenAPI schema."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = []
    for path, item in schema.get("paths", {}).items():
        pattern = re.compile("[^/]+".join(re.escape(part) for part in _PATH_PARAM.split(path)) + "$")
        by_method = {
            method.upper(): [p for p in operation.get("parameters", []) if p.get("in") == "query"]
            for method, operation in item.items()
            if isinstance(operation, dict)
        }
        operations.append((pattern, by_method))
    return tuple(operations)


def _check_value(name: str, value: str, schema: dict[str, Any]) -> None:
    kind = schema.get("type")
    enum = schema.get("enum")
    if value == "" and (kind in ("integer", "number", "boolean") or enum):
        raise InputError(name, MSG_EMPTY.format(field=name))
    if enum and value not in [str(option) for option in enum]:
        raise InputError(name, MSG_ENUM.format(field=name, allowed=", ".join(str(option) for option in enum)))
    if kind == "integer":
        if not _INT.fullmatch(value):
            raise InputError(name, MSG_INTEGER.format(field=name))
        number = int(value)
        low, high = schema.get("minimum", -MAX_INT), schema.get("maximum", MAX_INT)
        if not max(low, -MAX_INT) <= number <= min(high, MAX_INT):
            raise InputError(name, MSG_INTEGER_RANGE.format(field=name))
    elif kind == "number":
        try:
            float(value)
        except ValueError:
            raise InputError(name, MSG_NUMBER.format(field=name)) from None
    elif kind == "boolean" and value.lower() not in TRUE_WORDS | FALSE_WORDS:
        raise InputError(name, MSG_BOOLEAN.format(field=name))


def check_api_params(path: str, method: str, params: QueryDict) -> None:
    """Raise InputError for a query parameter whose value the schema's type for it does not allow.
    Parameters the schema does not declare are left to the view."""
    for pattern, by_method in api_parameters():
        if pattern.match(path):
            declared = {p["name"]: p.get("schema", {}) for p in by_method.get(method, [])}
            for name, values in params.lists():
                if name in declared:
                    for value in values:
                        _check_value(name, value, declared[name])
            return
