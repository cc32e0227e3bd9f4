"""read_norm: the full text of one norm by its citation."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from recherche import citations
from recherche.models import Norm

from ..base import Tool, ToolContext, ToolResult
from ..common import Params, ToolError, cut, ok

ERR_ZITAT = (
    "Das Zitat „{zitat}“ wurde nicht erkannt. Schreibe es wie „§ 573c BGB“, „§ 253 Abs. 2 BGB“ oder „Art. 1 GG“; "
    "nutze search_gesetze, um die Norm zu finden."
)
ERR_NORM = "{grund} Nicht im Bestand – nutze search_gesetze, um die passende Norm zu finden."
ERR_OFFSET = "offset {offset} liegt hinter dem Ende des Normtextes ({length} Zeichen)."


class ReadNormParams(Params):
    zitat: Annotated[
        str,
        Field(min_length=3, max_length=100, description="The citation, e.g. '§ 573c BGB', '§ 253 II BGB', 'Nr. 3100 VV RVG'."),
    ]
    offset: Annotated[int, Field(ge=0, description="Character offset to continue reading a cut text.")] = 0


def execute(ctx: ToolContext, params: ReadNormParams) -> ToolResult:
    targets = citations.extract(params.zitat, citations.law_names(), bare_numbers=True)
    if not targets:
        raise ToolError(ERR_ZITAT.format(zitat=params.zitat))
    (resolved,) = citations.resolve(targets[:1])
    if not resolved.ok or resolved.norm_id is None:
        raise ToolError(ERR_NORM.format(grund=resolved.grund))
    norm = Norm.objects.select_related("gesetz").get(pk=resolved.norm_id)
    if params.offset and params.offset >= len(norm.text):
        raise ToolError(ERR_OFFSET.format(offset=params.offset, length=len(norm.text)))
    text, gekuerzt = cut(norm.text, offset=params.offset)
    data = {
        "zitat": norm.zitat,
        "ueberschrift": norm.titel,
        "gesetz": f"{norm.gesetz.abkuerzung} – {norm.gesetz.titel}",
        "stand": norm.gesetz.stand,
        "gliederung": norm.gliederung,
        "text": text,
        "gekuerzt": gekuerzt,
        "url": norm.official_url,
        "reader_url": resolved.reader_url,
    }
    if resolved.anker:
        data["anker"] = resolved.anker
    if len(targets) > 1:
        data["hinweis"] = "Nur die erste zitierte Norm wurde gelesen; rufe read_norm für jede weitere einzeln auf."
    source = {"zitat": norm.zitat, "table": "recherche_norm", "id": norm.pk, "url": norm.official_url, "stand": norm.gesetz.stand}
    return ok(data, sources=[source], count=1)


TOOL = Tool(
    name="read_norm",
    description=(
        "Read the full text of one norm (statutory provision) by its citation.\n"
        "Use it when you need the exact wording, e.g. after search_gesetze. One norm per call; for several norms "
        "call it several times.\n"
        "Returns {zitat, ueberschrift, gesetz, stand, gliederung, text, gekuerzt, url, anker?}; 'stand' is the "
        "version of the statute you read (say it when you cite); long texts are cut with a visible marker, "
        "continue with 'offset'.\n"
        "Errors: citation not recognised; norm, Absatz or law not in the corpus, or repealed (the message says "
        "which): say so, never cite it.\n"
        'Example: {"zitat": "§ 573c BGB"}'
    ),
    params=ReadNormParams,
    execute=execute,
)
