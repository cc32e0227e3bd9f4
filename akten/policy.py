"""What a user may see *of* an Akte they can reach: the one written field-level policy.

`Akte.objects.visible_to(user)` decides *which* Akten (and Akte-bound rows, through
`AkteBoundQuerySet.mandant_filter`) a user reaches. This module decides which *parts* of them a
role sees. Every output channel asks it: API serializers, pages, draft cards and websocket frames,
agent tools, prompt context and the admin.

The policy, in words (the README's "Zugriffsregel" repeats it):

- Staff (ANWALT, SACHBEARBEITER, SEKRETARIAT, PRAKTIKANT) and ADMIN see every field of the Akten
  they reach. A deputy sees the Akten of the person they stand in for only while the Vertretung is
  active; every check is made at the time of output, so an ended Vertretung ends access at once.
- A MANDANT sees of her own Akten only the client-facing facts: Aktenzeichen, Kurzrubrum, wegen,
  Sachgebiet, Status, Gegenstandswert, the court (name, Ort, Land, its Aktenzeichen), the lawyer
  (name and e-mail) and the parties (name and role, no addresses); the documents released to her
  (`Dokument.mandant_sichtbar`: the current file only, no earlier versions, under its name, never
  the uploaded file's name, and without what a Word or PDF file or image says about its making:
  comments, tracked changes, authors, notes, EXIF; `akten.selectors.dokument_inhalt`; a file of
  another kind is neither released nor delivered to her, `akten.metadaten.freigabe_pruefen`) and her Termine (date, time,
  title; not their description, who handles them, or whether the firm marked them erledigt: for her
  "open" means not yet past). Searching her Akten matches a party only by the name she is shown.
  Never: internal notes (the Akte's `notizen`, `Notiz` rows), the Sachstand (`zusammenfassung`),
  Schlagworte, Dezernate, Fristen, Wiedervorlagen, Zeiten, Helena's drafts and their rejection
  reasons, alerts, the Aktenverlauf, Helena runs unless the role × tool matrix grants tools to
  MANDANT, and never anything of other clients. Nor anything of the firm's workload: a background
  run of hers that waits for a worker says "in der Warteschlange", never its place (which tells
  how many runs of others wait ahead), and a finished one never when it started (created → started
  is the time it waited behind others; her duration counts from her request). Nor the firm's own
  tools: the Recherche (search page and API, the firm's Muster) and the Rechner answer her 404
  (`firm_tools_page`), and Helena never searches the Muster for her (`Tool.firm_only`); the
  readers of a norm and a court decision, public texts her answers link to, stay open to her.
- Nobody sees a row they may not reach: "missing" and "forbidden" both answer 404.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse

from .models import Role

# Akte fields a MANDANT may receive, by the names of the API serializers, the pages and the agent
# tools' results (the tools say "akte_id", "gegenstandswert_eur", "angelegt" …).
MANDANT_AKTE_FIELDS = frozenset(
    {
        "id",
        "akte_id",
        "aktenzeichen",
        "kurzrubrum",
        "wegen",
        "sachgebiet",
        "sachgebiet_label",
        "status",
        "status_label",
        "gegenstandswert",
        "gegenstandswert_eur",
        "gericht_name",
        "gericht_ort",
        "gericht_bundesland",
        "gericht_aktenzeichen",
        "anwalt",
        "beteiligte",
        "offene_kalendereintraege",  # counted over what she may see: her Termine
        "naechster_eintrag",
        "dokumente",  # counted over the documents released to her
        "created_at",
        "angelegt",
        # not changed_at / geaendert: it moves when the firm edits what she does not see (Sachstand,
        # notes, tags), and so tells her when her lawyer worked on her matter internally
    }
)
# Fields of a Beteiligter a MANDANT may receive (no addresses, no contact data, no file numbers).
MANDANT_BETEILIGTER_FIELDS = frozenset({"id", "rolle", "rolle_label", "name"})
# Fields of a user reference (anwalt) a MANDANT may receive.
MANDANT_USER_FIELDS = frozenset({"id", "name", "email"})
# Fields of a Dokument a MANDANT may receive (not the extraction errors or internal flags). Not its
# size: that is the stored original's, comments and tracked changes included, and the difference to
# the cleaned file she downloads tells that something was taken out, and how much.
MANDANT_DOKUMENT_FIELDS = frozenset({"id", "akte", "aktenzeichen", "name", "mime_type", "created_at", "download_url", "text"})
# The same for Helena's document tools (read_dokumente, read_dokument_detail), in their names: no
# status ("Entwurf"), no author, no "drafted by Helena", no release flag, no extraction state, no size.
MANDANT_DOKUMENT_TOOL_FIELDS = frozenset({"id", "titel", "akte", "datum", "typ", "text", "gekuerzt", "text_laenge", "hinweis"})
# Fields of a Termin (KalenderEintrag) a MANDANT may receive, in the API's and the tools' names: what
# her page shows (date, time, title), never the internal description or who in the firm handles it.
MANDANT_TERMIN_FIELDS = frozenset({"id", "akte", "aktenzeichen", "typ", "typ_label", "titel", "datum", "uhrzeit"})
# A MANDANT's message to the responsible lawyer (drafts.services.mandant_message_send).
MANDANT_MESSAGE_MAX_CHARS = 5000


def is_mandant(user: Any) -> bool:
    """True for a client login (never for ADMIN or a superuser)."""
    return (
        user is not None
        and getattr(user, "is_authenticated", False)
        and getattr(user, "role", None) == Role.MANDANT
        and not getattr(user, "is_superuser", False)
    )


def firm_tools_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A page of the firm's own tools (Recherche, Rechner): signed-in staff only; a MANDANT gets
    404, as for a page that does not exist (her navigation does not offer them either)."""

    @functools.wraps(view)
    @login_required
    def page(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if is_mandant(request.user):
            raise Http404
        return view(request, *args, **kwargs)

    return page


def sees_internal(user: Any) -> bool:
    """May `user` see the internal side of the Akten they reach (notes, drafts, Fristen, Zeiten …)?"""
    return (
        user is not None
        and getattr(user, "is_authenticated", False)
        and getattr(user, "is_active", False)
        and not is_mandant(user)
    )


def allowed_fields(user: Any, kind: str) -> frozenset[str] | None:
    """The fields of `kind` ("akte", "beteiligter", "user", "dokument", "dokument_tool", "termin") that
    `user` may receive; None means all of them."""
    if not is_mandant(user):
        return None
    return {
        "akte": MANDANT_AKTE_FIELDS,
        "beteiligter": MANDANT_BETEILIGTER_FIELDS,
        "user": MANDANT_USER_FIELDS,
        "dokument": MANDANT_DOKUMENT_FIELDS,
        "dokument_tool": MANDANT_DOKUMENT_TOOL_FIELDS,
        "termin": MANDANT_TERMIN_FIELDS,
    }[kind]


def filter_fields(user: Any, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """`data` without the keys `user` may not receive."""
    allowed = allowed_fields(user, kind)
    if allowed is None:
        return data
    return {key: value for key, value in data.items() if key in allowed}
