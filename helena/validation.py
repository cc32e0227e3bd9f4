"""German messages for pydantic validation errors: what a user or the model reads when a tool's
arguments or a draft's payload do not validate (pydantic's own messages are English)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

PYDANTIC_DE = {
    "missing": "fehlt (Pflichtangabe)",
    "extra_forbidden": "ist kein Argument dieses Werkzeugs",
    "int_parsing": "muss eine ganze Zahl sein",
    "int_type": "muss eine ganze Zahl sein",
    "int_from_float": "muss eine ganze Zahl sein",
    "float_parsing": "muss eine Zahl sein",
    "decimal_parsing": "muss eine Zahl sein",
    "decimal_type": "muss eine Zahl sein",
    "bool_parsing": "muss true oder false sein",
    "bool_type": "muss true oder false sein",
    "string_type": "muss ein Text sein",
    "date_parsing": "muss ein Datum im Format JJJJ-MM-TT sein",
    "date_from_datetime_parsing": "muss ein Datum im Format JJJJ-MM-TT sein",
    "date_from_datetime_inexact": "muss ein Datum ohne Uhrzeit sein",
    "date_type": "muss ein Datum im Format JJJJ-MM-TT sein",
    "time_parsing": "muss eine Uhrzeit im Format HH:MM sein",
    "time_type": "muss eine Uhrzeit im Format HH:MM sein",
    "list_type": "muss eine Liste sein",
    "dict_type": "muss ein Objekt sein",
    "model_type": "muss ein Objekt sein",
    "model_attributes_type": "muss ein Objekt sein",
    "finite_number": "muss eine endliche Zahl sein",
    "string_pattern_mismatch": "hat nicht das erwartete Format",
    "uuid_parsing": "hat nicht das erwartete Format",
    "enum": "ist kein zulässiger Wert",
}


def german_error(item: Any) -> str:
    """One pydantic error item in German (without its location)."""
    kind, ctx = item["type"], item.get("ctx") or {}
    if kind in PYDANTIC_DE:
        return PYDANTIC_DE[kind]
    if kind == "literal_error":
        return f"muss einer dieser Werte sein: {str(ctx.get('expected', '')).replace(' or ', ' oder ')}"
    if kind in ("greater_than_equal", "greater_than"):
        return f"muss {'mindestens' if kind == 'greater_than_equal' else 'größer als'} {ctx.get('ge', ctx.get('gt'))} sein"
    if kind in ("less_than_equal", "less_than"):
        return f"muss {'höchstens' if kind == 'less_than_equal' else 'kleiner als'} {ctx.get('le', ctx.get('lt'))} sein"
    if kind == "string_too_short":
        return "darf nicht leer sein" if ctx.get("min_length") == 1 else f"braucht mindestens {ctx.get('min_length')} Zeichen"
    if kind == "string_too_long":
        return f"darf höchstens {ctx.get('max_length')} Zeichen lang sein"
    if kind == "too_long":
        return f"darf höchstens {ctx.get('max_length')} Einträge haben"
    if kind == "too_short":
        return "darf nicht leer sein" if ctx.get("min_length") == 1 else f"braucht mindestens {ctx.get('min_length')} Einträge"
    if kind in ("decimal_max_digits", "decimal_max_places", "decimal_whole_digits"):
        return "hat zu viele Stellen"
    if kind == "value_error":
        return str(item["msg"]).removeprefix("Value error, ")
    return "ist ungültig"  # pydantic's own message is English: it never reaches a person


def german_errors(error: ValidationError) -> str:
    """Every error of `error` as "ort: Meldung", separated by "; " (German)."""
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"])
        message = german_error(item)
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)
