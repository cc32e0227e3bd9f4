"""What a Mandant and a former deputy receive live: websocket frames while a lawyer works on the
Akte, and everything that goes into and comes out of a Helena run they start (the whole prompt
and every tool result the model is sent)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.utils import timezone

from drafts import services as draft_services
from tests.agent.chat.conftest import is_terminal, receive_until, ws_connect

from .world import World, build_world

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

QUIET_SECONDS = 2.0


async def _drain(communicator: Any, *, quiet: float = QUIET_SECONDS) -> list[dict[str, Any]]:
    """Every frame until the socket has been quiet for `quiet` seconds (`receive_nothing` does not
    cancel the application the way a timed-out receive does)."""
    frames: list[dict[str, Any]] = []
    while not await communicator.receive_nothing(timeout=quiet):
        frames.append(await communicator.receive_json_from(timeout=5))
    return frames


def _lawyer_works_on_drafts(world: World) -> None:
    """Edit, reject (with an internal reason) and accept a draft of the Akte, as the lawyer does."""
    first, second, third = world.pending_drafts
    draft_services.draft_edit(draft_id=first.pk, by=world.lawyer, payload={"titel": "Notiz", "text": world.markers["notiz"]})
    draft_services.draft_reject(draft_id=second.pk, by=world.lawyer, reason=world.markers["ablehnungsgrund"])
    draft_services.draft_accept(draft_id=third.pk, by=world.lawyer)


async def test_draft_cards_reach_only_who_may_see_them_at_delivery_time():
    world: World = await sync_to_async(build_world)()
    async with (
        ws_connect(world.mandantin) as (mandantin, ok_m, _c1),
        ws_connect(world.deputy) as (deputy, ok_d, _c2),
        ws_connect(world.colleague) as (colleague, ok_c, _c3),
    ):
        assert ok_m and ok_d and ok_c
        for socket in (mandantin, deputy, colleague):
            await socket.send_json_to({"type": "akte.watch", "akte": world.akte.pk})
        await asyncio.sleep(0.5)  # the watches are registered (no reply is sent for a watch)
        await sync_to_async(world.end_vertretung)()
        await sync_to_async(_lawyer_works_on_drafts)(world)

        seen = await receive_until(colleague, lambda f: f.get("status") == "ACCEPTED", within=20)
        assert {f["id"] for f in seen if f["type"] == "draft.changed"} == {d.pk for d in world.pending_drafts}
        assert "ablehnungsgrund" in world.leaked(json.dumps(seen)), "control: the colleague sees the card's reason"

        for frames in (await _drain(mandantin), await _drain(deputy)):
            assert [f for f in frames if f.get("type") == "draft.changed"] == []
            assert world.leaked(json.dumps(frames)) == []


def _background_run_creates_a_draft(world: World) -> int:
    """What a background run in the worker process does: a new draft, no channel-layer message."""
    draft = draft_services.draft_create(
        typ="NOTIZ", akte=world.akte, requested_by=world.lawyer, payload={"titel": "Neu", "text": world.markers["notiz"]}
    )
    return draft.pk


async def test_drafts_created_elsewhere_appear_only_for_who_may_see_them_at_delivery_time():
    world: World = await sync_to_async(build_world)()
    async with (
        ws_connect(world.mandantin) as (mandantin, ok_m, _c1),
        ws_connect(world.deputy) as (deputy, ok_d, _c2),
        ws_connect(world.colleague) as (colleague, ok_c, _c3),
    ):
        assert ok_m and ok_d and ok_c
        for socket in (mandantin, deputy, colleague):
            await socket.send_json_to({"type": "akte.watch", "akte": world.akte.pk})
        await asyncio.sleep(0.5)
        await sync_to_async(world.end_vertretung)()
        draft_id = await sync_to_async(_background_run_creates_a_draft)(world)

        seen = await receive_until(colleague, lambda f: f.get("type") == "draft.created", within=20)
        created = [f for f in seen if f["type"] == "draft.created"]
        assert [f["card"]["id"] for f in created] == [draft_id], "control: the colleague gets the new card"
        assert "notiz" in world.leaked(json.dumps(created))

        for frames in (await _drain(mandantin), await _drain(deputy)):
            assert [f for f in frames if f.get("type") == "draft.created"] == []
            assert world.leaked(json.dumps(frames)) == []


async def test_mandant_cannot_follow_a_lawyers_run():
    world: World = await sync_to_async(build_world)()
    from agent.models import AgentRun

    run = await sync_to_async(AgentRun.objects.create)(
        user=world.lawyer, akte=world.akte, task=world.markers["notiz"], status=AgentRun.Status.DONE, finished_at=timezone.now()
    )
    async with ws_connect(world.mandantin) as (socket, ok, _code):
        assert ok
        await socket.send_json_to({"type": "run.resume", "run": run.pk, "after_seq": 0})
        error = await socket.receive_json_from(timeout=10)
        assert error["type"] == "error" and error["code"] == "not_found"
        assert world.leaked(json.dumps(await _drain(socket, quiet=1.0))) == []


def _arguments_for(name: str, world: World) -> list[dict[str, Any]]:
    """Plausible arguments for each tool a Mandant may call: her Akte, the foreign Akte, ids of
    internal and released documents, and search words that appear in the internal data."""
    from akten.models import Dokument

    az, foreign = world.akte.aktenzeichen, world.foreign_akte.aktenzeichen
    if name == "read_dokument_detail":
        return [{"dokument_id": pk} for pk in Dokument.objects.values_list("pk", flat=True)]
    if name == "read_fristen":
        return [{"akte": az, "zeitraum": "alle"}, {"akte": foreign, "zeitraum": "alle"}]
    if name == "read_norm":
        return [{"zitat": "§ 573 BGB"}]
    if name.startswith("search_"):
        return [{"suche": "Notiz Frist Entwurf"}]
    if name == "get_kosten_rules":
        return [{"gegenstandswert": 5000, "akte": az}]
    if name == "berechne_frist":
        return [{"ereignis_datum": timezone.localdate().isoformat(), "akte": az}]
    return [{"akte": az}, {"akte": foreign}]


def _granted_tools(user: Any) -> list[str]:
    from agent.tools.permissions import tools_for_user

    return sorted(tools_for_user(user))


async def _run_as(user: Any, world: World, scripted_llm: Any, tool_names: list[str]) -> list[dict[str, Any]]:
    """One run of `user` on the world's Akte calling every tool in `tool_names`. The tier's context
    window is made large enough that no tool result is shortened before it goes back to the model."""
    from agent.models import TierConfig

    await sync_to_async(TierConfig.objects.filter(tier=1).update)(context_window=1_000_000)
    calls = []
    for name in tool_names:
        calls += [{"name": name, "arguments": args} for args in await sync_to_async(_arguments_for)(name, world)]
    scripted_llm.script([{"tool_calls": calls}, {"text": "Hier ist die Übersicht."}])
    async with ws_connect(user) as (socket, ok, _code):
        assert ok
        await socket.send_json_to({"type": "chat.send", "text": "Was gibt es Neues in meiner Akte?", "akte": world.akte.pk})
        frames = await receive_until(socket, is_terminal, within=60)
        frames += await _drain(socket, quiet=1.0)
    return frames


async def test_mandant_run_prompt_tool_results_and_frames_carry_no_internal_data(scripted_tier, scripted_llm):
    world: World = await sync_to_async(build_world)()
    tools = await sync_to_async(_granted_tools)(world.mandantin)
    assert tools, "the default matrix grants the Mandant read tools on her own Akte"
    frames = await _run_as(world.mandantin, world, scripted_llm, tools)
    assert frames[-1]["type"] == "run.finished", frames[-1]
    sent_to_model = json.dumps([r.body for r in scripted_llm.chat_requests], ensure_ascii=False)
    assert len(scripted_llm.chat_requests) == 2, "the tool results went back to the model"
    assert "gekürzt" not in sent_to_model and "Freigegebenes Schreiben" in sent_to_model
    assert world.akte.aktenzeichen in sent_to_model
    assert world.leaked(sent_to_model) == []
    assert world.leaked(json.dumps(frames, ensure_ascii=False)) == []


async def test_lawyer_run_control_sees_the_internal_data(scripted_tier, scripted_llm):
    """Control for the test above: the same run as the lawyer sends the internal data to the model."""
    world: World = await sync_to_async(build_world)()
    await _run_as(world.lawyer, world, scripted_llm, ["read_akte_detail", "read_fristen"])
    sent_to_model = json.dumps([r.body for r in scripted_llm.chat_requests], ensure_ascii=False)
    assert {"sachstand", "ablehnungsgrund", "frist"} <= set(world.leaked(sent_to_model))


def _tool_results_once_ended(run_id: int) -> list[dict[str, Any]]:
    from agent.models import AgentRun, AgentStep

    for _ in range(300):
        if not AgentRun.objects.filter(pk=run_id, status__in=AgentRun.ACTIVE_STATUSES).exists():
            break
        time.sleep(0.1)
    return list(AgentStep.objects.filter(run_id=run_id, type="tool.result").order_by("seq").values_list("payload", flat=True))


async def test_cached_tool_result_is_not_served_after_the_vertretung_ended(scripted_tier, scripted_llm):
    """The repeated call differs in its raw arguments (a default spelled out), so the engine's
    repeat detection lets it through, but validates to the same parameters: the cache's key."""
    world: World = await sync_to_async(build_world)()
    first = {"name": "read_fristen", "arguments": {"akte": world.akte.aktenzeichen}}
    again = {"name": "read_fristen", "arguments": {"akte": world.akte.aktenzeichen, "zeitraum": "aktiv"}}

    def end_vertretung_then_repeat(_body: dict[str, Any]) -> dict[str, Any]:
        world.end_vertretung()
        connection.close()  # this runs in the scripted server's request thread
        return {"tool_calls": [again]}

    def cut(frame: dict[str, Any]) -> bool:
        return frame.get("type") == "error" and frame.get("code") == "not_found"

    scripted_llm.script([{"tool_calls": [first]}, end_vertretung_then_repeat, {"text": "Fertig."}])
    async with ws_connect(world.deputy) as (socket, ok, _code):
        assert ok
        await socket.send_json_to({"type": "chat.send", "text": "Was steht in der Akte?", "akte": world.akte.pk})
        frames = await receive_until(socket, lambda f: is_terminal(f) or cut(f), within=60)
    assert cut(frames[-1]), "the socket follows the run no further than the Vertretung (test_live_access.py)"
    results = await sync_to_async(_tool_results_once_ended)(frames[-1]["run"])
    assert len(results) == 2
    assert results[0]["ok"] and not results[0]["cached"]
    assert not results[1]["ok"] and not results[1]["cached"], results[1]
    last_tool_message = scripted_llm.chat_requests[-1].body["messages"][-1]
    assert world.leaked(json.dumps(last_tool_message, ensure_ascii=False)) == []


async def test_deeply_nested_json_frame_is_refused_and_the_socket_stays_usable():
    world: World = await sync_to_async(build_world)()
    frame = "[" * 8000 + "]" * 8000  # under the 16 KiB limit, beyond the JSON parser's recursion limit
    async with ws_connect(world.lawyer) as (socket, ok, _code):
        assert ok
        await socket.send_to(text_data=frame)
        error = await socket.receive_json_from(timeout=10)
        assert error["type"] == "error" and error["code"] == "invalid"
        await socket.send_json_to({"type": "run.resume", "run": 999999, "after_seq": 0})
        assert (await socket.receive_json_from(timeout=10))["code"] == "not_found"


@pytest.mark.parametrize("change", [{"is_active": False}, {"role": "SEKRETARIAT"}])
async def test_an_admin_deactivated_or_demoted_after_watching_gets_no_more_draft_cards(change):
    """An ADMIN's access was decided from the socket's user object alone (`access_scope` reads
    nothing for ADMIN) and server-pushed frames never refreshed it: a deactivated or demoted ADMIN
    kept receiving new and changed draft cards of the Akte she watched."""
    from akten.models import Role, User
    from tests.factories import UserFactory

    world: World = await sync_to_async(build_world)()
    leaving = await sync_to_async(UserFactory)(role=Role.ADMIN)
    async with (
        ws_connect(leaving) as (socket, ok_l, _c1),
        ws_connect(world.colleague) as (colleague, ok_c, _c2),
    ):
        assert ok_l and ok_c
        for watcher in (socket, colleague):
            await watcher.send_json_to({"type": "akte.watch", "akte": world.akte.pk})
        await asyncio.sleep(0.5)
        await sync_to_async(User.objects.filter(pk=leaving.pk).update)(**change)
        await sync_to_async(_background_run_creates_a_draft)(world)
        await sync_to_async(_lawyer_works_on_drafts)(world)

        seen = await receive_until(colleague, lambda f: f.get("status") == "ACCEPTED", within=20)
        assert any(f["type"] == "draft.created" for f in seen + await _drain(colleague, quiet=1.0)), "control"
        frames = await _drain(socket)
        assert [f for f in frames if f.get("type") in ("draft.created", "draft.changed")] == []
        assert world.leaked(json.dumps(frames)) == []
