"""A run that read Akte A and then proposed a draft on Akte B: B's team keeps the draft (a Frist must
not go unnoticed), but who may not see A sees neither its title nor its content, no file of it and
no timeline entry naming it, and cannot review it; whoever sees both reviews it as before. Before,
a Sachbearbeiterin of B alone read A's secret in the draft list."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from django.test import Client

from agent.runs import execution, services
from akten.models import AktenActivity, Role
from drafts.models import HelenaDraft
from tests.factories import AkteFactory, UserFactory

DB = pytest.mark.django_db(transaction=True)
SECRET = "GEHEIM-A-4711 Mandant zahlungsunfähig"


def _draft_on_b_from_a(scripted_llm, *, typ: str = "NOTIZ"):
    lawyer = UserFactory(role=Role.ANWALT)
    colleague = UserFactory(role=Role.SACHBEARBEITER)
    akte_a = AkteFactory(anwalt=lawyer, zusammenfassung=SECRET)
    akte_b = AkteFactory(anwalt=lawyer, sachbearbeiter=colleague)
    call = (
        {"name": "create_notiz", "arguments": {"akte": akte_b.aktenzeichen, "titel": SECRET[:20], "text": SECRET}}
        if typ == "NOTIZ"
        else {
            "name": "create_draft_dokument",
            "arguments": {"akte": akte_b.aktenzeichen, "titel": SECRET[:20], "inhalt_markdown": SECRET},
        }
    )
    scripted_llm.script(
        [
            {"tool_calls": [{"name": "read_akte_detail", "arguments": {"akte": akte_a.aktenzeichen}}]},
            {"tool_calls": [call]},
            {"text": "Entwurf angelegt."},
        ]
    )
    run = services.run_create(user=lawyer, text="Übertrage den Sachstand", akte=akte_a, mode="INLINE")
    async_to_sync(execution.run_execute)(run.pk)
    return lawyer, colleague, akte_b, HelenaDraft.objects.get(akte=akte_b)


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@DB
def test_who_may_not_see_the_akte_read_sees_only_that_a_draft_waits(tier1, scripted_llm):
    lawyer, colleague, akte_b, draft = _draft_on_b_from_a(scripted_llm)
    client = _client(colleague)

    listed = client.get(f"/api/drafts/?akte={akte_b.pk}")
    detail = client.get(f"/api/drafts/{draft.pk}/")
    page = client.get(f"/akten/{akte_b.pk}/")
    start = client.get("/")
    for response in (listed, detail, page, start):
        assert response.status_code == 200
        assert "GEHEIM-A-4711" not in response.content.decode()
    shown = detail.json()
    assert shown["inhalt_verborgen"] is True and shown["payload"] == {} and shown["titel"] == "Notiz – Inhalt verborgen"
    assert "die du nicht siehst" in shown["hinweis_verborgen"]
    assert listed.json()["results"][0]["id"] == draft.pk  # the draft is not hidden, its content is
    # no review, no timeline entry with its title
    refused = client.post(f"/api/drafts/{draft.pk}/accept/", {"version": 0}, content_type="application/json")
    assert refused.status_code == 403 and "alle Akten sehen darf" in refused.json()["detail"]
    assert client.post(f"/api/drafts/{draft.pk}/reject/", {"reason": "x"}, content_type="application/json").status_code == 403
    assert AktenActivity.objects.filter(akte=akte_b, typ="ENTWURF_ERSTELLT").exists()
    assert not AktenActivity.objects.visible_to(colleague).filter(akte=akte_b, typ="ENTWURF_ERSTELLT").exists()
    draft.refresh_from_db()
    assert draft.status == "PENDING"


@DB
def test_who_sees_every_akte_the_run_read_reviews_it_as_before(tier1, scripted_llm):
    lawyer, colleague, akte_b, draft = _draft_on_b_from_a(scripted_llm)
    client = _client(lawyer)
    detail = client.get(f"/api/drafts/{draft.pk}/").json()
    assert detail["inhalt_verborgen"] is False and SECRET in detail["payload"]["text"]
    assert client.post(f"/api/drafts/{draft.pk}/accept/", {"version": 0}, content_type="application/json").status_code == 200
    # once a human approved it, the record is B's like any other
    assert SECRET in _client(colleague).get(f"/api/notizen/?akte={akte_b.pk}").content.decode()


@DB
def test_no_file_of_a_document_draft_with_hidden_content(tier1, scripted_llm):
    lawyer, colleague, akte_b, draft = _draft_on_b_from_a(scripted_llm, typ="DOKUMENT")
    assert _client(colleague).get(f"/api/drafts/{draft.pk}/datei/pdf/").status_code == 404
    assert _client(colleague).get(f"/api/drafts/{draft.pk}/").json()["downloads"] is None
    assert _client(lawyer).get(f"/api/drafts/{draft.pk}/datei/pdf/").status_code == 200


@DB
def test_the_card_on_the_akte_page_of_a_colleague_shows_no_content(tier1, scripted_llm):
    from agent.chat.cards import draft_card
    from drafts.selectors import drafts_pending

    lawyer, colleague, akte_b, _draft = _draft_on_b_from_a(scripted_llm, typ="DOKUMENT")
    (card,) = [draft_card(d, viewer=colleague) for d in drafts_pending(user=colleague, akte=akte_b)]
    assert card["inhalt_verborgen"] and not card["can_review"] and card["payload"] == {}
    assert "preview_html" not in card and "GEHEIM" not in str(card)
    (own,) = [draft_card(d, viewer=lawyer) for d in drafts_pending(user=lawyer, akte=akte_b)]
    assert own["can_review"] and "GEHEIM" in own["preview_html"]


@DB
def test_the_admin_of_a_staff_member_leaves_such_a_draft_out(tier1, scripted_llm):
    """Review 2026-12-05: the admin list and change view showed title and payload to staff with view rights."""
    from django.contrib.auth.models import Permission

    lawyer, colleague, akte_b, draft = _draft_on_b_from_a(scripted_llm)
    colleague.is_staff = True
    colleague.save()
    colleague.user_permissions.set(Permission.objects.filter(codename="view_helenadraft"))
    client = _client(colleague)
    listing = client.get("/admin/drafts/helenadraft/")
    assert listing.status_code == 200 and "GEHEIM-A-4711" not in listing.content.decode()
    assert client.get(f"/admin/drafts/helenadraft/{draft.pk}/change/").status_code in (302, 404)
    boss = UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True)
    assert "GEHEIM-A-4711" in _client(boss).get("/admin/drafts/helenadraft/").content.decode()
