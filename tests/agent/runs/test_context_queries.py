"""Building a run's context (tools, routes, prompt with Akte, Beteiligte and rejections, earlier
turns) costs a fixed number of queries, however long the conversation and the Akte are."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from agent.engine.tools import CancelToken
from agent.models import AgentRun, Conversation, Message, TierConfig
from agent.runs import execution
from drafts.models import HelenaDraft
from tests.factories import AkteFactory, BeteiligterFactory, HelenaDraftFactory

pytestmark = pytest.mark.django_db


def _grow(akte, conversation, n):
    for _ in range(n):
        BeteiligterFactory(akte=akte)
        HelenaDraftFactory(
            akte=akte,
            status=HelenaDraft.Status.REJECTED,
            rejection_reason="falsch",
            reviewed_at=timezone.now(),
            reviewer=akte.anwalt,
        )
        Message.objects.create(conversation=conversation, role=Message.Role.USER, text="Frage")
        Message.objects.create(conversation=conversation, role=Message.Role.ASSISTANT, text="Antwort")


def _prepare(akte, conversation):
    run = AgentRun.objects.create(user=akte.anwalt, akte=akte, conversation=conversation, task="Welche Fristen laufen?")
    claimed = execution._run_claim(run.pk)
    return lambda: execution._run_prepare(claimed, CancelToken(), None)


def test_context_building_queries_do_not_grow_with_history_beteiligte_and_rejections(django_assert_num_queries):
    TierConfig.objects.create(tier=1, name="Klein", model="qwen3:4b", enabled=True)
    akte = AkteFactory()
    conversation = Conversation.objects.create(user=akte.anwalt, akte=akte)
    _grow(akte, conversation, 2)
    prepare = _prepare(akte, conversation)
    prepare()  # seeds the role × tool matrix once
    with CaptureQueriesContext(connection) as small:
        prepared = prepare()
    assert len(prepared.transcript) == 2 + 4  # system prompt, four earlier turns, the task
    _grow(akte, conversation, 4)
    prepare = _prepare(akte, conversation)
    with django_assert_num_queries(len(small.captured_queries)):
        prepared = prepare()
    assert len(prepared.transcript) == 2 + 12
