"""A run that fails on a model server's error keeps a German category as its error, never the
server's text (it can name internal hosts or echo the prompt): not in the terminal frame, its
replay, "Meine Aufträge", the conversation's reply, the admin or the logs."""

from __future__ import annotations

import json
import logging

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from agent.engine.loop import BROKEN_CLIENT, MODEL_ERROR_POLICIES
from agent.models import AgentRun
from akten.models import Role
from tests.agent.chat.conftest import is_terminal, receive_until, ws_connect
from tests.confidentiality.world import build_world
from tests.factories import UserFactory

INFRA = "upstream gpu-node-7.kanzlei.intern:11434 hat GEHEIMPROMPT Erika Mustermann nicht verarbeitet"


def _pages_of(run: AgentRun, user) -> list[str]:
    client = Client()
    client.force_login(user)
    pages = [
        client.get(reverse("helena-runs")).content.decode(),
        client.get(reverse("helena-conversation", args=[run.conversation_id])).content.decode(),
        json.dumps(client.get(reverse("api-run-detail", args=[run.pk])).json(), ensure_ascii=False),
    ]
    client.force_login(UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True))
    pages.append(client.get(reverse("admin:agent_agentrun_change", args=[run.pk])).content.decode())
    return pages


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_run_failed_by_the_model_server_shows_a_category_not_the_servers_text(scripted_tier, scripted_llm, caplog):
    world = await sync_to_async(build_world)()
    scripted_llm.script([{"status": 500, "error": {"error": INFRA}}] * 3)
    caplog.set_level(logging.DEBUG)
    async with ws_connect(world.lawyer) as (socket, ok, _code):
        assert ok
        await socket.send_json_to({"type": "chat.send", "text": "Wie ist der Stand?", "akte": world.akte.pk})
        frames = await receive_until(socket, is_terminal, within=60)
        run_id = frames[-1]["run"]
        await socket.send_json_to({"type": "run.resume", "run": run_id, "after_seq": 0})
        frames += await receive_until(socket, is_terminal, within=20)
    run = await sync_to_async(AgentRun.objects.get)(pk=run_id)
    assert run.status == AgentRun.Status.FAILED
    seen = [json.dumps(frames, ensure_ascii=False), run.error, *await sync_to_async(_pages_of)(run, world.lawyer)]
    seen.append("\n".join(record.getMessage() for record in caplog.records))
    assert [text for text in seen if "gpu-node-7" in text or "GEHEIMPROMPT" in text] == []

    from agent.runs.failures import FAILURE_TEXTS

    assert run.error == FAILURE_TEXTS["Modellfehler"]
    assert [f["error"] for f in frames if f["type"] == "run.failed"] == [run.error, run.error]


def test_every_failure_category_of_the_engine_has_a_german_text():
    from agent.runs.failures import FAILURE_TEXTS

    reasons = {policy.finish_reason for _kinds, policy in MODEL_ERROR_POLICIES} | {BROKEN_CLIENT.finish_reason}
    assert reasons <= set(FAILURE_TEXTS)
