"""Helpers shared by the tool modules: Akte resolution through the access chokepoint, semantic
labels, source attribution and the cut of long texts.

Every Akte a tool touches is resolved here, through `Akte.objects.visible_to(ctx.user)`, at the
moment the tool runs: the run's own Akte, Akten named in the arguments and Akten reached through a
Dokument or KalenderEintrag (whose querysets go through the same chokepoint). "Missing" and "no
access" produce the same message.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from decimal import Decimal
from typing import Annotated, Any

from django.db.models import Model
from django.utils import timezone
from pydantic import BaseModel, ConfigDict, Field

from agent.engine.tools import ToolResult
from agent.tools.base import ToolContext
from akten.models import Akte, User
from helena.text import as_id

ERR_AKTE = "Akte {ref} nicht gefunden oder kein Zugriff. Nutze search_alle_akten, um die richtige Akte zu finden."
ERR_AKTE_MISSING = (
    "Keine Akte angegeben, und dieses Gespräch gehört zu keiner Akte. Gib die Akte an (ID oder Aktenzeichen, z. B. „12/25“); "
    "search_alle_akten hilft beim Finden."
)

# Long texts (documents, norms, Urteile) are cut at this many characters; the marker says how to
# read on with `offset`.
TEXT_LIMIT = 6000
# A fee calculation without a date (get_kosten_rules, calc_prozesskostenrisiko) says which version
# it used: an instruction or a claim before 01.06.2025 follows the old tables.
ANNAHME_KOSTEN_DATUM = (
    "Kein Datum angegeben: gerechnet nach der Fassung am {datum}{fassung}. Für einen Auftrag (§ 60 RVG) oder eine "
    "Klage bzw. Einreichung (§ 71 GKG) vor dem 01.06.2025 gilt die alte Fassung; bitte das Datum erfragen."
)
CUT_MARKER = "\n[… gekürzt: {rest} weitere Zeichen. Rufe das Werkzeug mit offset={next} auf, um weiterzulesen.]"

AKTE_FIELD_DESCRIPTION = (
    "The Akte: its numeric id or its Aktenzeichen (e.g. '12/25'). Omit it to use the Akte of the current conversation."
)

AkteRef = Annotated[str | None, Field(description=AKTE_FIELD_DESCRIPTION, max_length=40)]
Limit = Annotated[int, Field(ge=1, le=50, description="Maximum number of entries to return.")]


class ToolError(Exception):
    """An expected, actionable problem; the registry turns it into an error result (German text)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Params(BaseModel):
    """Base of every tool's parameter model: unknown arguments are errors the model can fix;
    numbers given for text fields (an Akte id as 12 instead of "12") are accepted."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, coerce_numbers_to_str=True)


def akte_resolve(ctx: ToolContext, ref: str | None) -> Akte:
    """The Akte named by `ref` (id or Aktenzeichen), or the run's Akte, if the user may see it.

    Raises ToolError (the same text for missing and forbidden Akten).
    """
    visible = Akte.objects.visible_to(ctx.user).select_related("anwalt", "sachbearbeiter")
    if ref is None or not str(ref).strip():
        if ctx.akte is None:
            raise ToolError(ERR_AKTE_MISSING)
        akte = visible.filter(pk=ctx.akte.pk).first()
        if akte is None:
            raise ToolError(ERR_AKTE.format(ref=ctx.akte.pk))
        ctx.akten_resolved.add(akte.pk)
        return akte
    ref = str(ref).strip()
    akte = visible.filter(aktenzeichen__iexact=ref).first()
    if akte is None and (pk := as_id(ref)) is not None:
        akte = visible.filter(pk=pk).first()
    if akte is None:
        raise ToolError(ERR_AKTE.format(ref=ref))
    ctx.akten_resolved.add(akte.pk)
    return akte


def akte_optional(ctx: ToolContext, ref: str | None) -> Akte | None:
    """Like akte_resolve, but None when neither the arguments nor the run name an Akte."""
    if (ref is None or not str(ref).strip()) and ctx.akte is None:
        return None
    return akte_resolve(ctx, ref)


def akte_ref(akte: Akte) -> dict[str, Any]:
    return {"akte_id": akte.pk, "aktenzeichen": akte.aktenzeichen, "kurzrubrum": akte.kurzrubrum}


def akte_label(akte: Akte) -> str:
    return f"Akte {akte.aktenzeichen} {akte.kurzrubrum}"


def person(user: User | None) -> str | None:
    if user is None:
        return None
    return user.get_full_name() or user.email


def source(obj: Model, label: str) -> dict[str, Any]:
    """Attribution of a database record: table, id and the name a lawyer would cite."""
    return {"table": obj._meta.db_table, "id": obj.pk, "label": label}


def akte_source(akte: Akte) -> dict[str, Any]:
    return source(akte, akte_label(akte))


def cut(text: str, *, offset: int = 0, limit: int = TEXT_LIMIT) -> tuple[str, bool]:
    """`text` from `offset`, at most `limit` characters, with a visible marker when cut."""
    piece = text[offset : offset + limit]
    rest = len(text) - offset - len(piece)
    if rest > 0:
        return piece + CUT_MARKER.format(rest=rest, next=offset + len(piece)), True
    return piece, False


def iso(value: datetime.date | datetime.time | None) -> str | None:
    return value.isoformat() if value is not None else None


def day(moment: datetime.datetime) -> str:
    """The date of a timestamp in the firm's time zone (Europe/Berlin), ISO formatted."""
    return timezone.localdate(moment).isoformat()


def moment(value: datetime.datetime) -> str:
    return timezone.localtime(value).isoformat(timespec="minutes")


def money(value: Decimal | None) -> str | None:
    return f"{value:.2f}" if value is not None else None


def today() -> datetime.date:
    return timezone.localdate()


def ok(
    data: Any,
    *,
    sources: list[dict[str, Any]],
    count: int | None = None,
    akte: Akte | None = None,
    akten: Iterable[int] = (),
    **extra: Any,
) -> ToolResult:
    """A successful result; `count`, `akte` (the one Akte it is about) and `akten` (the ids of the
    Akten a search across Akten showed) are hints the registry moves into `_meta` and the audit."""
    meta: dict[str, Any] = {}
    if count is not None:
        meta["count"] = count
    if akte is not None:
        meta["akte_id"] = akte.pk
    else:
        shown = sorted(set(akten))
        if shown:
            meta["akten_ids"] = shown
    return ToolResult(data=data, source=sources, meta=meta, **extra)
