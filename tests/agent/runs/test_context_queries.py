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


def test_a_turn_without_answer_reads_as_such_in_the_history_not_as_helenas_reply():
    """Review of stop 34: the status text of a failed or cancelled turn ("Das Sprachmodell hat einen
    Fehler gemeldet …") went to the model as its own earlier reply."""
    TierConfig.objects.create(tier=1, name="Klein", model="qwen3:4b", enabled=True)
    akte = AkteFactory()
    conversation = Conversation.objects.create(user=akte.anwalt, akte=akte)
    failed = AgentRun.objects.create(
        user=akte.anwalt,
        akte=akte,
        conversation=conversation,
        task="Erste Frage",
        status=AgentRun.Status.FAILED,
        answer="",
        finished_at=timezone.now(),
    )
    done = AgentRun.objects.create(
        user=akte.anwalt,
        akte=akte,
        conversation=conversation,
        task="Zweite Frage",
        status=AgentRun.Status.DONE,
        answer="Ja.",
        finished_at=timezone.now(),
    )
    error_text = "Das Sprachmodell hat einen Fehler gemeldet. Bitte versuche es erneut."
    for run, reply in ((failed, error_text), (done, "Ja.")):
        Message.objects.create(conversation=conversation, role=Message.Role.USER, text=run.task, run=run)
        Message.objects.create(conversation=conversation, role=Message.Role.ASSISTANT, text=reply, run=run)
    prepared = _prepare(akte, conversation)()
    replies = [m["content"] for m in prepared.transcript if m["role"] == "assistant"]
    assert replies == [execution.HISTORY_NO_ANSWER, "Ja."]
    assert error_text not in str(prepared.transcript)
