"""Access that ends in the middle of a run ends its live frames: a deputy whose Vertretung ends, or
an account deactivated, while Helena answers on the Akte gets nothing more of the run on the socket
that follows it, only the notice a missing run gets (agent/chat/tails.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connection

from agent.models import AgentRun
from akten.models import User
from tests.agent.chat.conftest import ws_connect
from tests.confidentiality.test_live import _drain
from tests.confidentiality.world import World, build_world

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def _deactivate(world: World) -> None:
    User.objects.filter(pk=world.deputy.pk).update(is_active=False)


ACCESS_ENDS = {"vertretung_ends": World.end_vertretung, "account_deactivated": _deactivate}


def _run_ended(run_id: int) -> bool:
    return AgentRun.objects.filter(pk=run_id).exclude(status__in=AgentRun.ACTIVE_STATUSES).exists()


@pytest.mark.parametrize("delay", [2.5, 0.0], ids=["after_the_recheck_interval", "at_once"])
@pytest.mark.parametrize("ending", sorted(ACCESS_ENDS))
async def test_live_frames_stop_when_access_to_the_runs_akte_ends(scripted_tier, scripted_llm, ending, delay):
    """`at_once` (review 2026-12-03): the answer streams right after the model call in which access
    ended; the tail asked only every 2 s, so a former deputy got the first deltas. It now asks
    before the first answer text after each model call and tool result."""
    world: World = await sync_to_async(build_world)()
    secret = "GEHEIMVERGLEICHSGRENZE12000"  # what the model read on the Akte and now quotes (one delta)

    def access_ends_then_answer(_body: dict[str, Any]) -> dict[str, Any]:
        ACCESS_ENDS[ending](world)
        connection.close()  # this runs in the scripted server's request thread
        # the answer streams after the tail's last look at the access has aged
        return {"text": f"{secret}. Mehr steht nicht in der Akte.", "delay": delay, "chunk_delay": 0.05}

    read = {"name": "read_akte_detail", "arguments": {"akte": world.akte.aktenzeichen}}
    scripted_llm.script([{"tool_calls": [read]}, access_ends_then_answer])
    async with ws_connect(world.deputy) as (socket, ok, _code):
        assert ok
        await socket.send_json_to({"type": "chat.send", "text": "Was steht in der Akte?", "akte": world.akte.pk})
        accepted = await socket.receive_json_from(timeout=10)
        run_id = accepted["run"]
        frames = [accepted]
        for _ in range(100):
            frames += await _drain(socket, quiet=0.5)
            if await sync_to_async(_run_ended)(run_id):
                break
        frames += await _drain(socket, quiet=1.0)
    assert "tool.result" in [f.get("type") for f in frames], "control: the run was followed live before"
    cut = [f for f in frames if f.get("type") == "error" and f.get("run") == run_id]
    assert [(f["code"], f["message"]) for f in cut] == [("not_found", "Auftrag nicht gefunden.")]
    after = frames[frames.index(cut[0]) :]
    assert [f for f in after if f.get("run") == run_id and "seq" in f] == []
    assert secret not in json.dumps(frames, ensure_ascii=False)
    assert "run.finished" not in [f.get("type") for f in frames]
