"""Refusals say what they are: a tool not granted to the role is "nicht erlaubt", a role that may
not review drafts sees no buttons and gets the refusal of the action it tried."""

from __future__ import annotations

import pytest
from django.test import Client

from agent.engine.guard import guard_response
from agent.llm.base import LLMResponse, ToolCall
from akten.models import Role
from drafts.models import HelenaDraft
from tests.factories import AkteFactory, HelenaDraftFactory, UserFactory


def _call(name: str) -> LLMResponse:
    return LLMResponse(text="", tool_calls=[ToolCall(id="c1", name=name, arguments={})])


def test_a_withheld_tool_is_not_allowed_for_the_role_not_unknown():
    outcome = guard_response(_call("update_akte"), ["read_akte"], withheld=frozenset({"update_akte"}))
    assert outcome.errors[0].message.startswith("Das Werkzeug „update_akte“ ist für deine Rolle nicht erlaubt.")
    unknown = guard_response(_call("fliegen"), ["read_akte"], withheld=frozenset({"update_akte"}))
    assert "gibt es nicht" in unknown.errors[0].message


@pytest.mark.django_db
@pytest.mark.parametrize(("role", "can_review"), [(Role.PRAKTIKANT, False), (Role.SEKRETARIAT, False), (Role.ANWALT, True)])
def test_draft_card_tells_whether_the_viewer_may_review(role, can_review):
    from agent.chat.cards import draft_cards

    viewer = UserFactory(role=role)
    akte = AkteFactory(anwalt=viewer) if role == Role.ANWALT else AkteFactory(sachbearbeiter=viewer)
    draft = HelenaDraftFactory(akte=akte)
    (card,) = draft_cards(user=viewer, draft_ids=[draft.pk])
    assert card["can_review"] is can_review


@pytest.mark.django_db
def test_praktikant_rejecting_gets_the_reject_refusal_not_the_accept_one():
    praktikant = UserFactory(role=Role.PRAKTIKANT)
    akte = AkteFactory(sachbearbeiter=praktikant)
    draft = HelenaDraftFactory(akte=akte)
    client = Client()
    client.force_login(praktikant)
    response = client.post(f"/api/drafts/{draft.pk}/reject/", {"reason": "falsch"}, content_type="application/json")
    assert response.status_code == 403
    assert response.json()["detail"].startswith("Du darfst Entwürfe nicht ablehnen.")
    response = client.post(f"/api/drafts/{draft.pk}/accept/")
    assert response.json()["detail"].startswith("Du darfst Entwürfe nicht übernehmen.")
    draft.refresh_from_db()
    assert draft.status == HelenaDraft.Status.PENDING


@pytest.mark.django_db
def test_mandant_without_granted_tools_gets_no_helena_run_and_a_german_notice():
    from django.core.exceptions import ValidationError

    from agent.models import AgentRun, ToolPermission
    from agent.runs.services import ERR_HELENA_UNAVAILABLE, run_create
    from agent.tools.permissions import tool_matrix_changed, tool_matrix_ensure_defaults

    tool_matrix_ensure_defaults()
    # a queryset update sends no signals: it announces the change itself
    ToolPermission.objects.filter(role=Role.MANDANT).update(allowed=False)
    tool_matrix_changed()
    mandantin = UserFactory(role=Role.MANDANT)
    with pytest.raises(ValidationError) as refused:
        run_create(user=mandantin, text="Wie steht mein Verfahren?")
    assert refused.value.messages == [ERR_HELENA_UNAVAILABLE]
    assert not AgentRun.objects.filter(user=mandantin).exists()
    client = Client()
    client.force_login(mandantin)
    page = client.get("/helena/").content.decode()
    assert "Helena steht dir nicht zur Verfügung" in page and 'id="chat-form"' not in page
    ToolPermission.objects.filter(role=Role.MANDANT, tool="read_akte").update(allowed=True)
    tool_matrix_changed()
    assert 'id="chat-form"' in client.get("/helena/").content.decode()
