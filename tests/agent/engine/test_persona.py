"""The system prompt is generated from what is true for the run."""

from __future__ import annotations

import datetime

from agent.engine.loop import UNTRUSTED_CLOSE, UNTRUSTED_OPEN
from agent.engine.prompt import INTRO, AkteContext, Rejection, build_system_prompt, tool_guidance, with_intro

TOOLS = [
    {"type": "function", "function": {"name": "read_fristen", "description": "Liest die Fristen einer Akte. Nutze es, wenn ..."}},
    {"type": "function", "function": {"name": "search_gesetze", "description": "Durchsucht Gesetze nach Normen."}},
]


def test_tool_guidance_comes_from_the_offered_tools_only():
    text = tool_guidance(TOOLS)
    assert "- read_fristen: Liest die Fristen einer Akte." in text
    assert "search_gesetze" in text and "create_draft_frist" not in text
    assert "keine Werkzeuge" in tool_guidance([])


def test_prompt_has_du_form_limits_untrusted_rules_akte_and_rejections():
    prompt = build_system_prompt(
        tools=TOOLS,
        akte=AkteContext(
            aktenzeichen="12/25",
            kurzrubrum="Müller ./. Schmidt",
            sachgebiet="Mietrecht",
            status="offen",
            beteiligte=("Mandant/in: Anna Müller",),
        ),
        rejections=[
            Rejection(titel="Frist 3.3.", reason="Falsches Fristende, § 193 BGB beachten", categories=("INHALTLICH_FALSCH",))
        ],
        first_contact=True,
        today=datetime.date(2026, 2, 1),
    )
    assert "Du bist Helena" in prompt and "duzt" in prompt
    assert "keine E-Mails" in prompt and "löschst nichts" in prompt and "Entwurf" in prompt
    assert UNTRUSTED_OPEN in prompt and UNTRUSTED_CLOSE in prompt
    assert "12/25 – Müller ./. Schmidt" in prompt and "Anna Müller" in prompt
    assert "Falsches Fristende, § 193 BGB beachten" in prompt
    assert INTRO in prompt and "01.02.2026" in prompt


def test_intro_is_prepended_once():
    assert with_intro("Die Frist läuft.").startswith(INTRO)
    assert with_intro(INTRO + " Die Frist läuft.").count("Hi, ich bin Helena") == 1
