"""A new conversation takes its first question as title (agent/runs/services.py). When that run is
gone for its user (it read an Akte of a Vertretung that has ended since), its question is gone
too, and so is the title: a probe found the question in the conversation list, the conversation
search, the conversation page and the `run.accepted` frame of the next question, though the run
and its messages were hidden. A title the user gave the conversation, and the title of a run they
still see, stay. Each test failed before the fix."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from agent.models import Conversation, ToolCallAudit
from agent.runs.selectors import TITLE_HIDDEN
from akten.models import Beteiligter
from tests.agent.chat.conftest import is_terminal, receive_until, ws_connect

from .world import World, build_world

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def _marker(kind: str) -> str:
    return f"{kind}MARK{uuid.uuid4().hex[:6]}"


def _reading_the_akte(world: World) -> list[dict[str, Any]]:
    """The model reads the world's Akte (the represented lawyer's, the Mandantin's), then answers."""
    return [{"tool_calls": [{"name": "read_akte", "arguments": {"akte": world.akte.aktenzeichen}}]}, {"text": "Nichts Neues."}]


async def _ask(user: Any, text: str, scripted_llm: Any, script: list[Any], **target: int) -> dict[str, Any]:
    """`user` asks `text` over the websocket (`target`: conversation or akte id); the model follows
    `script`. The `run.accepted` frame, with all frames of the run under "frames"."""
    scripted_llm.script(script)
    async with ws_connect(user) as (socket, ok, _code):
        assert ok
        await socket.send_json_to({"type": "chat.send", "text": text, **target})
        frames = await receive_until(socket, is_terminal, within=60)
    assert frames[-1]["type"] == "run.finished", frames[-1]
    return next(f for f in frames if f["type"] == "run.accepted") | {"frames": frames}


def _responses(user: Any, conversation_id: int, marker: str) -> dict[str, str]:
    """Every page and API response of `user` that names conversations; the searches are for
    `marker` without its last character (a search page repeats the query)."""
    query = marker[:-1]
    client = Client()
    client.force_login(user)
    pages = {
        "list": client.get(reverse("helena-chat")),
        "search": client.get(reverse("helena-chat"), {"q": query}),
        "conversation": client.get(reverse("helena-conversation", args=[conversation_id])),
        "conversation_search": client.get(reverse("helena-conversation", args=[conversation_id]), {"q": query}),
        "delete": client.get(reverse("helena-conversation-delete", args=[conversation_id])),
        "runs": client.get(reverse("helena-runs")),
        "runs_api": client.get(reverse("api-run-list")),
    }
    assert {name: response.status_code for name, response in pages.items()} == dict.fromkeys(pages, 200)
    return {name: response.content.decode() for name, response in pages.items()}


def _rename(user: Any, conversation_id: int, title: str) -> None:
    client = Client()
    client.force_login(user)
    response = client.post(reverse("helena-conversation-rename", args=[conversation_id]), {"title": title})
    assert response.status_code == 302


async def test_the_question_of_a_hidden_run_is_no_longer_the_title_anywhere(scripted_tier, scripted_llm):
    """The probe's scenario: the deputy asks in the general chat, Helena reads the represented
    lawyer's Akte, the Vertretung ends."""
    world: World = await sync_to_async(build_world)()
    marker = _marker("TITLE")
    question = f"Was gibt es Neues bei Klein Eigenbedarf {marker}?"
    accepted = await _ask(world.deputy, question, scripted_llm, _reading_the_akte(world))
    conversation_id = accepted["conversation"]
    assert accepted["title"] == question
    audits = await sync_to_async(list)(ToolCallAudit.objects.filter(run_id=accepted["run"]).values_list("akte_id", flat=True))
    assert audits == [world.akte.pk], "the run read the represented lawyer's Akte"
    during = await sync_to_async(_responses)(world.deputy, conversation_id, marker)
    assert marker in during["list"] and reverse("helena-conversation", args=[conversation_id]) in during["search"]

    await sync_to_async(world.end_vertretung)()

    after = await sync_to_async(_responses)(world.deputy, conversation_id, marker)
    assert [name for name, text in after.items() if marker in text] == []
    assert f'<h1 id="chat-h">{TITLE_HIDDEN}</h1>' in after["conversation"] and TITLE_HIDDEN in after["delete"]
    link = reverse("helena-conversation", args=[conversation_id])
    assert link in after["list"], "the conversation stays, under a neutral title"
    assert link not in after["search"] and "0 Treffer" in after["search"]
    assert await sync_to_async(Conversation.objects.filter(pk=conversation_id).exists)()

    # the next question in the conversation: the socket echoes its title
    later = await _ask(world.deputy, "Und sonst?", scripted_llm, [{"text": "Sonst nichts."}], conversation=conversation_id)
    assert later["conversation"] == conversation_id and later["title"] == TITLE_HIDDEN
    assert marker not in json.dumps(later["frames"], ensure_ascii=False)
    again = await sync_to_async(_responses)(world.deputy, conversation_id, marker)
    assert [name for name, text in again.items() if marker in text] == []
    assert "Sonst nichts." in again["conversation"], "the later turn he may see stays"


async def test_a_title_of_his_own_and_the_titles_of_visible_runs_stay(scripted_tier, scripted_llm):
    """Beside a conversation whose title goes with its run: one he renamed while its run was still
    his keeps his title, and one whose run read no Akte keeps its question; both are found."""
    world: World = await sync_to_async(build_world)()
    hidden, renamed, visible = _marker("HIDDEN"), _marker("RENAMED"), _marker("VISIBLE")
    gone = await _ask(world.deputy, f"Was gibt es Neues bei {hidden}?", scripted_llm, _reading_the_akte(world))
    own = await _ask(world.deputy, f"Wie steht es um {hidden}?", scripted_llm, _reading_the_akte(world))
    await sync_to_async(_rename)(world.deputy, own["conversation"], f"Mein Titel {renamed}")
    law = await _ask(
        world.deputy,
        f"Wann darf man die Miete mindern {visible}?",
        scripted_llm,
        [{"tool_calls": [{"name": "search_gesetze", "arguments": {"suche": "Mietminderung"}}]}, {"text": "§ 536 BGB."}],
    )

    await sync_to_async(world.end_vertretung)()

    after = await sync_to_async(_responses)(world.deputy, gone["conversation"], hidden)
    assert [name for name, text in after.items() if hidden in text] == []
    assert f"Mein Titel {renamed}" in after["list"] and f"Wann darf man die Miete mindern {visible}?" in after["list"]
    titles = {own["conversation"]: f"Mein Titel {renamed}", law["conversation"]: f"Wann darf man die Miete mindern {visible}?"}
    for conversation_id, title in titles.items():
        page = await sync_to_async(_responses)(world.deputy, conversation_id, title.split()[-1].rstrip("?"))
        assert reverse("helena-conversation", args=[conversation_id]) in page["search"], title
        assert f'<h1 id="chat-h">{title}</h1>' in page["conversation"], title
    echo = await _ask(world.deputy, "Und § 543?", scripted_llm, [{"text": "Kündigung."}], conversation=law["conversation"])
    assert echo["title"] == f"Wann darf man die Miete mindern {visible}?"


async def test_a_mandantin_keeps_her_titles_until_her_mandate_ends(scripted_tier, scripted_llm):
    """Her questions about her own Akte keep their titles; once the mandate has ended, the title of
    her general conversation whose run read the Akte goes with that run."""
    world: World = await sync_to_async(build_world)()
    general, on_akte = _marker("GENERAL"), _marker("AKTE")
    first = await _ask(world.mandantin, f"Wie steht meine Sache {general}?", scripted_llm, _reading_the_akte(world))
    second = await _ask(
        world.mandantin, f"Gibt es einen Termin {on_akte}?", scripted_llm, _reading_the_akte(world), akte=world.akte.pk
    )
    during = await sync_to_async(_responses)(world.mandantin, first["conversation"], general)
    assert general in during["list"] and on_akte in during["list"] and TITLE_HIDDEN not in during["list"]
    assert reverse("helena-conversation", args=[first["conversation"]]) in during["search"]
    assert second["title"] == f"Gibt es einen Termin {on_akte}?"

    await sync_to_async(Beteiligter.objects.filter(akte=world.akte, kontakt=world.mandantin.kontakt).delete)()

    after = await sync_to_async(_responses)(world.mandantin, first["conversation"], general)
    assert [name for name, text in after.items() if general in text or on_akte in text] == []
    assert TITLE_HIDDEN in after["list"] and TITLE_HIDDEN in after["conversation"]
