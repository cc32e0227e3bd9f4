"""PII pseudonymisation for cloud tiers, both ways, and what the cloud server really received."""

from __future__ import annotations

import json

import pytest

from agent.engine.loop import RunStatus
from agent.engine.pii import Pseudonymizer, PseudonymizingClient, person_values
from agent.engine.routing import Route, TierRouter

from .support import MemoryToolBox, call, echo, openai, run

KNOWN = [
    *person_values(vorname="Erika", nachname="Mustermann", firma="", strasse="Hauptstraße 5", plz="10115", ort="Berlin"),
    *person_values(vorname="", nachname="", firma="Wohnbau Süd GmbH", strasse="", plz="", ort=""),
    ("AKTENZEICHEN", "3 C 123/25"),
]
ORIGINALS = [
    "Erika Mustermann",
    "Mustermann",
    "Hauptstraße 5",
    "10115 Berlin",
    "Wohnbau Süd GmbH",
    "3 C 123/25",
    "erika@example.org",
    "+49 30 1234567",
    "DE89 3704 0044 0532 0130 00",
    "12.03.1981",
]
TEXT = (
    "Mandantin Erika Mustermann (geb. 12.03.1981), Hauptstraße 5, 10115 Berlin, erika@example.org, Tel. +49 30 1234567, "
    "IBAN DE89 3704 0044 0532 0130 00, gegen Wohnbau Süd GmbH, Az. des Gerichts 3 C 123/25. Frau Mustermann bittet um Rückruf."
)


def pseudonymizer() -> Pseudonymizer:
    p = Pseudonymizer()
    p.add_known(KNOWN)
    return p


def test_every_original_value_is_replaced():
    out = pseudonymizer().pseudonymize(TEXT)
    for value in ORIGINALS:
        assert value not in out, value
    for token in ("[PERSON_1]", "[ADRESSE_1]", "[EMAIL_1]", "[TELEFON_1]", "[IBAN_1]", "[GEBURTSDATUM_1]", "[AKTENZEICHEN_1]"):
        assert token in out
    assert "geb. [GEBURTSDATUM_1]" in out


def test_placeholders_are_stable_and_map_back_exactly():
    p = pseudonymizer()
    once = p.pseudonymize(TEXT)
    assert p.pseudonymize(TEXT) == once
    assert p.restore(once) == TEXT


def test_unrelated_text_and_unknown_placeholders_stay():
    p = pseudonymizer()
    assert p.pseudonymize("§ 573 BGB, Frist bis 31.03.2026") == "§ 573 BGB, Frist bis 31.03.2026"
    assert p.restore("[PERSON_99] bleibt") == "[PERSON_99] bleibt"


def test_restore_in_nested_tool_arguments():
    p = pseudonymizer()
    token = p.pseudonymize("Erika Mustermann")
    assert p.restore_obj({"payload": {"titel": f"Frist für {token}"}, "ids": [1]}) == {
        "payload": {"titel": "Frist für Erika Mustermann"},
        "ids": [1],
    }


@pytest.mark.asyncio
async def test_cloud_tier_never_receives_an_original_and_the_answer_and_drafts_get_them_back(scripted_llm):
    p = pseudonymizer()

    def answer_with_placeholders(body):
        sent = json.dumps(body["messages"], ensure_ascii=False)
        person = "[PERSON_1]" if "[PERSON_1]" in sent else "?"
        return {"text": f"Der Entwurf für {person} liegt bereit."}

    def draft_for_person(body):
        sent = json.dumps(body["messages"], ensure_ascii=False)
        assert "[PERSON_1]" in sent
        return {"tool_calls": [call("create_draft_notiz", text="Rückruf bei [PERSON_1], [TELEFON_1]")]}

    scripted_llm.script([draft_for_person, answer_with_placeholders])
    tools = MemoryToolBox({"create_draft_notiz": echo})
    cloud = PseudonymizingClient(openai(scripted_llm), p)
    transcript = [{"role": "system", "content": "Du bist Helena."}, {"role": "user", "content": TEXT}]

    outcome, sink = await run(TierRouter([Route(client=cloud, tier=3, local=False)]), tools, transcript=transcript)

    assert outcome.status == RunStatus.DONE
    recorded = json.dumps([r.body for r in scripted_llm.chat_requests], ensure_ascii=False)
    for value in ORIGINALS:
        assert value not in recorded, value
    assert tools.executed[0][1] == {"text": "Rückruf bei Erika Mustermann, +49 30 1234567"}
    assert outcome.answer == "Der Entwurf für Erika Mustermann liegt bereit."
    streamed = "".join(e["text"] for e in sink.of_type("answer.delta"))
    assert "Erika Mustermann" in streamed and "[PERSON_" not in streamed
    # the firm's own transcript keeps the real values
    assert outcome.transcript[1]["content"] == TEXT
