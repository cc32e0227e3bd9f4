"""What the browser shows for Helena's output: answers as sanitised HTML with linked citations, and
draft cards as plain dicts that one piece of JavaScript renders in the chat and on the Akte page."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.html import escape

from akten.models import Akte, Dokument, User
from drafts.models import HIDDEN_NOTE, HelenaDraft
from drafts.schemas import draft_prose
from drafts.selectors import draft_list, drafts_by_ids
from drafts.services import draft_hinweis, draft_version, user_may_review
from helena.markdown import external_links_shown, render_markdown
from recherche.citations import check_texts, link_citations

# Aktenzeichen as Helena writes them: "Akte 12/25"
AKTE_RE = re.compile(r"\bAkte\s+(?P<az>\d{1,6}/\d{2,4})\b")
# Document titles as Helena quotes them: „Klageschrift vom 03.05.2026“
DOKUMENT_RE = re.compile(r"„(?P<name>[^„“\n]{3,200})“")
TAG_RE = re.compile(r"(<[^>]+>)")
AKTE_FIELDS = {f.name: str(f.verbose_name) for f in Akte._meta.concrete_fields}


def _akte_links(text: str, user: User) -> dict[str, str]:
    numbers = {m["az"] for m in AKTE_RE.finditer(text)}
    if not numbers:
        return {}
    visible = Akte.objects.visible_to(user).filter(aktenzeichen__in=numbers).values_list("aktenzeichen", "pk")
    return {f"Akte {az}": reverse("akte-detail", args=[pk]) for az, pk in visible}


def _dokument_links(text: str, user: User) -> dict[str, str]:
    """Quoted titles of Dokumente the user may see → their download (the same rule as the API)."""
    names = {m["name"].strip() for m in DOKUMENT_RE.finditer(text)}
    if not names:
        return {}
    visible = Dokument.objects.visible_to(user).filter(name__in=names).order_by("-pk").values_list("name", "pk")
    links: dict[str, str] = {}
    for name, pk in visible:
        links.setdefault(f"„{name}“", reverse("api-dokument-download", args=[pk]))
    return links


def _link_text_nodes(html: str, links: dict[str, str]) -> str:
    """Wrap citations in links, only in text outside existing links (the HTML is already sanitised)."""
    if not links:
        return html
    pattern = re.compile("|".join(re.escape(escape(cite)) for cite in sorted(links, key=len, reverse=True)))
    by_escaped = {escape(cite): url for cite, url in links.items()}
    out: list[str] = []
    in_link = 0
    for part in TAG_RE.split(html):
        if part.startswith("<"):
            if part.startswith("<a"):
                in_link += 1
            elif part.startswith("</a"):
                in_link = max(0, in_link - 1)
            out.append(part)
        elif in_link:
            out.append(part)
        else:
            out.append(pattern.sub(lambda m: f'<a href="{by_escaped[m.group(0)]}">{m.group(0)}</a>', part))
    return "".join(out)


def answer_html(text: str, *, user: User) -> str:
    """Helena's answer as sanitised HTML; norm and decision citations are checked against the
    corpus (linked to the section and Absatz, or marked "nicht im Bestand – bitte prüfen"), Akten
    link to their page and quoted document titles to the document, each only where the user may
    see it."""
    html = external_links_shown(link_citations(render_markdown(text)))
    return _link_text_nodes(html, {**_akte_links(text, user), **_dokument_links(text, user)})


def _result_url(draft: HelenaDraft) -> str:
    if draft.result_content_type is None or draft.result_object_id is None:
        return ""
    kind = draft.result_content_type.model
    if kind == "dokument":
        return reverse("api-dokument-download", args=[draft.result_object_id])
    if draft.akte_id is None:
        return ""
    anchors = {"kalendereintrag": "#kal-h", "zeiterfassung": "#zeit-h", "notiz": "#not-h"}
    return reverse("akte-detail", args=[draft.akte_id]) + anchors.get(kind, "")


def draft_card(draft: HelenaDraft, *, viewer: User) -> dict[str, Any]:
    """Everything a draft card shows to `viewer` (who must be allowed to see the draft). The
    payload is data, never HTML; only `preview_html` is HTML (sanitised Markdown of a document
    draft). `can_review` says whether the viewer may accept, edit, reject or undo: other roles see
    the card without buttons. A draft whose run read an Akte the viewer may not see
    (`HelenaDraft.hides_content`) shows that a draft of its type waits on its Akte (a Frist must not
    go unnoticed), not what it says, and no buttons."""
    hidden = draft.hides_content
    payload = draft.payload if isinstance(draft.payload, dict) and not hidden else {}
    card: dict[str, Any] = {
        "id": draft.pk,
        "typ": draft.typ,
        "typ_label": str(draft.get_typ_display()),
        "status": draft.status,
        "status_label": str(draft.get_status_display()),
        "titel": draft.shown_titel,
        "akte": draft.akte_id,
        "aktenzeichen": draft.akte.aktenzeichen if draft.akte_id and draft.akte else "",
        "akte_url": reverse("akte-detail", args=[draft.akte_id]) if draft.akte_id else "",
        "untrusted": draft.untrusted_input,
        "payload": payload,
        "run": None if hidden else draft.origin_run_id,
        "result_url": "" if hidden else _result_url(draft),
        "reviewed_at": draft.reviewed_at.isoformat() if draft.reviewed_at else "",
        "undo_seconds": settings.HELENA_DRAFT_UNDO_SECONDS,
        "rejection_reason": "" if hidden else draft.rejection_reason,
        "can_review": user_may_review(viewer, draft),  # never for a hidden one
        "version": draft_version(draft),
    }
    if hidden:
        return {**card, "inhalt_verborgen": True, "hinweis_verborgen": HIDDEN_NOTE}
    if draft.typ == HelenaDraft.Typ.FRIST and draft.akte is not None:
        card["people"] = _responsible_choices(draft.akte, payload.get("verantwortlich_id"))
        # A Wiedervorlage on a weekend or holiday: shown, never refused (drafts.services.draft_hinweis).
        card["hinweis"] = draft_hinweis(draft)
    if draft.typ == HelenaDraft.Typ.DOKUMENT:
        card["preview_html"] = external_links_shown(link_citations(render_markdown(str(payload.get("inhalt_markdown", "")))))
    if draft.typ == HelenaDraft.Typ.AKTE_UPDATE and draft.akte is not None:
        changes = payload.get("changes") or {}
        # After approval the Akte already holds the new values; the draft kept the old ones for undo.
        before = (draft.undo_data or {}).get("before") or {}
        card["diff"] = [
            {
                "field": AKTE_FIELDS.get(name, name),
                "before": _plain(before[name] if name in before else getattr(draft.akte, name, "")),
                "after": _plain(value),
            }
            for name, value in changes.items()
        ]
    return card


def _person_name(user: User) -> str:
    return user.get_full_name() or user.email


def _responsible_choices(akte: Akte, current: Any) -> list[dict[str, Any]]:
    """Who can be made responsible for a Frist, by name (the card never asks for a numeric id):
    the Akte's lawyer and Sachbearbeitung, and whoever the draft already names if that person may
    see the Akte (the draft services refuse anyone else; a name is never shown for a mere id)."""
    people = [u for u in (akte.anwalt, akte.sachbearbeiter) if u is not None]
    if isinstance(current, int) and current not in {u.pk for u in people}:
        named = User.objects.filter(pk=current, is_active=True).first()
        if named is not None and Akte.objects.visible_to(named).filter(pk=akte.pk).exists():
            people.append(named)
    return [{"id": u.pk, "name": _person_name(u)} for u in dict.fromkeys(people)]


def _plain(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def with_open_citations(cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each card without a document preview gets `zitate_offen`: the citations of its text that
    are not in the corpus (a document's preview marks them in its text). All cards in one lookup."""
    prose = {
        index: draft_prose(card["typ"], card["payload"])
        for index, card in enumerate(cards)
        if card["typ"] != HelenaDraft.Typ.DOKUMENT
    }
    reports = check_texts({index: text for index, text in prose.items() if text})
    for index in prose:
        cards[index]["zitate_offen"] = reports[index].offen() if index in reports else []
    return cards


def draft_cards(*, user: User, draft_ids: list[int]) -> list[dict[str, Any]]:
    return with_open_citations([draft_card(d, viewer=user) for d in drafts_by_ids(user=user, draft_ids=draft_ids)])


def akte_draft_cursor(*, user: User, akte_id: int) -> int:
    """The newest draft id of the Akte that `user` may see (0 if none): new ones come after it."""
    return draft_list(user=user, akte_id=akte_id).order_by("-pk").values_list("pk", flat=True).first() or 0


def akte_new_draft_cards(*, user: User, akte_id: int, after: int, limit: int = 20) -> tuple[int, list[dict[str, Any]]]:
    """Open drafts of the Akte created after draft id `after`, as far as `user` may see them now;
    and the new cursor. Drafts of a background run are created in the worker process, so the Akte
    page learns of them from the database, not from the channel layer."""
    ids = list(
        draft_list(user=user, akte_id=akte_id, status=HelenaDraft.Status.PENDING)
        .filter(pk__gt=after)
        .order_by("pk")
        .values_list("pk", flat=True)[:limit]
    )
    if not ids:
        return after, []
    return max(ids), draft_cards(user=user, draft_ids=ids)
