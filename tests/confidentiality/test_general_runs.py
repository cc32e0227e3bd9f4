"""A run in the general chat (no Akte) that read an Akte, by a search across Akten or by naming it,
is gone for its user once that Akte is: its answer can repeat what it read. Before, such a run
stayed its owner's after the Vertretung ended, and `run.resume`, the conversation page, the
conversation search and the history handed to the next run of the conversation repeated what it
had read on the Akte (a search across Akten was audited without any Akte)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from agent.models import AgentRun, ToolCallAudit
from tests.agent.chat.conftest import is_terminal, receive_until, ws_connect

from .test_history import _replay
from .world import World, build_world

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

QUESTION = "Welche Fristen und Akten habe ich gerade?"


def _echo_tool_results(body: dict[str, Any]) -> dict[str, Any]:
    """The model answers with what the tools gave it, as a model summarising them would."""
    results = [m.get("content", "") for m in body["messages"] if m.get("role") == "tool"]
    return {"text": "Deine Übersicht: " + " | ".join(str(r) for r in results)}


async def _general_run(world: World, scripted_llm: Any) -> tuple[int, int]:
    """The deputy asks in the general chat; Helena lists his Fristen and his Akten across Akten
    (the Akte of the Vertretung among them) and answers with what she read. (run id, conversation id)"""
    scripted_llm.script(
        [
            {"tool_calls": [{"name": "read_fristen", "arguments": {}}, {"name": "search_alle_akten", "arguments": {}}]},
            _echo_tool_results,
        ]
    )
    async with ws_connect(world.deputy) as (socket, ok, _code):
        assert ok
        await socket.send_json_to({"type": "chat.send", "text": QUESTION})
        frames = await receive_until(socket, is_terminal, within=60)
    assert frames[-1]["type"] == "run.finished", frames[-1]
    accepted = next(f for f in frames if f["type"] == "run.accepted")
    return accepted["run"], accepted["conversation"]


def _pages(world: World, run_id: int, conversation_id: int) -> dict[str, Any]:
    client = Client()
    client.force_login(world.deputy)
    conversation = client.get(reverse("helena-conversation", args=[conversation_id]))
    return {
        "conversation_status": conversation.status_code,
        "conversation": conversation.content.decode(),
        "search": client.get(reverse("helena-chat"), {"q": world.markers["frist"]}).content.decode(),
        "runs": client.get(reverse("helena-runs")).content.decode(),
        "run_api": client.get(reverse("api-run-detail", args=[run_id])).status_code,
    }


async def test_a_general_run_that_read_the_akte_is_gone_with_the_vertretung(scripted_tier, scripted_llm):
    world: World = await sync_to_async(build_world)()
    await sync_to_async(world.foreign_akte.delete)()  # the colleague's Akte is not the deputy's anyway
    run_id, conversation_id = await _general_run(world, scripted_llm)

    audits = await sync_to_async(list)(ToolCallAudit.objects.filter(run_id=run_id).order_by("tool"))
    assert [(a.tool, a.akte_id, a.akten) for a in audits] == [
        ("read_fristen", None, [world.akte.pk]),
        ("search_alle_akten", None, [world.akte.pk]),
    ], "a search across Akten records the Akten its result showed"
    answer = (await sync_to_async(AgentRun.objects.get)(pk=run_id)).answer
    assert "frist" in world.leaked(answer), "control: the answer repeats what the run read on the Akte"
    during = await sync_to_async(_pages)(world, run_id, conversation_id)
    assert "frist" in world.leaked(during["conversation"]) and during["run_api"] == 200, "control: while it lasts"
    assert "Deine Übersicht" in during["conversation"]
    assert reverse("helena-conversation", args=[conversation_id]) in during["search"], "control: the search finds it"

    await sync_to_async(world.end_vertretung)()

    frames = await _replay(world.deputy, run_id)
    assert [f.get("code") for f in frames] == ["not_found"], frames
    after = await sync_to_async(_pages)(world, run_id, conversation_id)
    assert after["conversation_status"] == 200, "the general conversation stays his"
    assert after["run_api"] == 404
    for page in ("conversation", "runs"):
        assert world.leaked(after[page]) == [], page
    assert "Deine Übersicht" not in after["conversation"], "the run's turn is gone, and its question with it (also as the title)"
    assert f'"run": {run_id},' not in after["conversation"], "nor does the page follow it as a run without answer"
    # a search for a word of the answer no longer finds the conversation (the page echoes the query)
    assert reverse("helena-conversation", args=[conversation_id]) not in after["search"] and "0 Treffer" in after["search"]

    # The next question in the same conversation: the earlier turn is not in the model's history.
    scripted_llm.script([{"text": "Gern."}])
    async with ws_connect(world.deputy) as (socket, ok, _code):
        assert ok
        await socket.send_json_to({"type": "chat.send", "text": "Danke!", "conversation": conversation_id})
        frames = await receive_until(socket, is_terminal, within=60)
    assert frames[-1]["type"] == "run.finished", frames[-1]
    prompt = json.dumps(scripted_llm.chat_requests[-1].body, ensure_ascii=False)
    assert "Danke!" in prompt
    assert QUESTION not in prompt and "Deine Übersicht" not in prompt and world.leaked(prompt) == []


async def test_control_a_general_run_that_read_no_akte_stays(scripted_tier, scripted_llm):
    """Control: a run that read only the law keeps its turn and its replay after the Vertretung."""
    world: World = await sync_to_async(build_world)()
    scripted_llm.script(
        [{"tool_calls": [{"name": "search_gesetze", "arguments": {"suche": "Mietminderung"}}]}, {"text": "§ 536 BGB."}]
    )
    async with ws_connect(world.deputy) as (socket, ok, _code):
        assert ok
        await socket.send_json_to({"type": "chat.send", "text": "Wann darf man die Miete mindern?"})
        frames = await receive_until(socket, is_terminal, within=60)
    run_id = next(f for f in frames if f["type"] == "run.accepted")["run"]
    await sync_to_async(world.end_vertretung)()
    replay = await _replay(world.deputy, run_id)
    assert replay and replay[-1]["type"] == "run.finished"


def _propose_what_was_read(body: dict[str, Any]) -> dict[str, Any]:
    """The model proposes a general note and a notice that repeat what the tools gave it."""
    read = " | ".join(str(m.get("content", "")) for m in body["messages"] if m.get("role") == "tool")
    note = {"allgemein": True, "titel": "Übersicht", "text": read[:5000]}
    alert = {"typ": "FRIST_KRITISCH", "severity": 5, "titel": "Fristen", "text": read[:3900]}
    return {"tool_calls": [{"name": "create_notiz", "arguments": note}, {"name": "create_alert", "arguments": alert}]}


def _general_proposals(world: World) -> dict[str, Any]:
    client = Client()
    client.force_login(world.deputy)
    drafts = client.get(reverse("api-draft-list"), {"status": "PENDING"}).json()
    alerts = client.get(reverse("api-alert-list")).json()
    return {"drafts": json.dumps(drafts, ensure_ascii=False), "alerts": json.dumps(alerts, ensure_ascii=False)}


async def test_general_drafts_and_alerts_of_such_a_run_are_gone_with_the_vertretung(scripted_tier, scripted_llm):
    world: World = await sync_to_async(build_world)()
    scripted_llm.script(
        [{"tool_calls": [{"name": "read_fristen", "arguments": {}}]}, _propose_what_was_read, {"text": "Erledigt."}]
    )
    async with ws_connect(world.deputy) as (socket, ok, _code):
        assert ok
        await socket.send_json_to({"type": "chat.send", "text": QUESTION})
        frames = await receive_until(socket, is_terminal, within=60)
    assert frames[-1]["type"] == "run.finished", frames[-1]
    during = await sync_to_async(_general_proposals)(world)
    assert "frist" in world.leaked(during["drafts"]), "control: the general draft repeats the Akte's Frist"
    assert "frist" in world.leaked(during["alerts"]), "control: so does the notice"

    await sync_to_async(world.end_vertretung)()
    after = await sync_to_async(_general_proposals)(world)
    assert world.leaked(after["drafts"]) == [] and world.leaked(after["alerts"]) == []


def _repeat_history(body: dict[str, Any]) -> dict[str, Any]:
    """The model repeats the earlier answer it was given as history."""
    earlier = [m.get("content", "") for m in body["messages"] if m.get("role") == "assistant"]
    return {"text": "Wie gesagt: " + " ".join(str(e) for e in earlier)}


async def test_a_later_run_given_such_a_run_as_history_is_gone_with_it(scripted_tier, scripted_llm):
    """A later question in the conversation, asked while the Vertretung lasted, got the earlier
    answer as history and could repeat it: that run goes with the earlier one."""
    world: World = await sync_to_async(build_world)()
    await sync_to_async(world.foreign_akte.delete)()
    first, conversation_id = await _general_run(world, scripted_llm)
    scripted_llm.script([_repeat_history])
    async with ws_connect(world.deputy) as (socket, ok, _code):
        assert ok
        await socket.send_json_to({"type": "chat.send", "text": "Und noch einmal kurz?", "conversation": conversation_id})
        frames = await receive_until(socket, is_terminal, within=60)
    assert frames[-1]["type"] == "run.finished", frames[-1]
    later = next(f for f in frames if f["type"] == "run.accepted")["run"]
    answer = (await sync_to_async(AgentRun.objects.get)(pk=later)).answer
    assert "frist" in world.leaked(answer), "control: the later answer repeats the earlier one"

    await sync_to_async(world.end_vertretung)()
    for run_id in (first, later):
        assert [f.get("code") for f in await _replay(world.deputy, run_id)] == ["not_found"], run_id
    after = await sync_to_async(_pages)(world, later, conversation_id)
    assert after["run_api"] == 404 and world.leaked(after["conversation"]) == []
    assert "Wie gesagt" not in after["conversation"]
