"""`manage.py helena_run` against the scripted LLM server: one task, a batch, exit codes."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from agent.models import AgentRun
from tests.factories import AkteFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def results(out: StringIO) -> list[dict]:
    return [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]


def test_one_task_prints_progress_and_a_json_result(tier1, scripted_llm):
    akte = AkteFactory()
    scripted_llm.script(
        [
            {"tool_calls": [{"name": "read_akte", "arguments": {"akte": akte.aktenzeichen}}]},
            {"text": "Es geht um eine Kündigung."},
        ]
    )
    out, err = StringIO(), StringIO()

    call_command(
        "helena_run", "Worum geht es?", user=akte.anwalt.email, akte=akte.aktenzeichen, mode="inline", stdout=out, stderr=err
    )

    [result] = results(out)
    assert result["ok"] and result["status"] == "DONE" and result["akte"] == akte.aktenzeichen
    assert "Es geht um eine Kündigung." in result["answer"]
    assert (result["steps"], result["tool_calls"]) == (2, 1)
    progress = err.getvalue()
    assert "Schritt 1/5" in progress and "→ read_akte" in progress and "fertig" in progress


def test_batch_from_jsonl_fails_when_any_task_fails(tier1, scripted_llm, tmp_path: Path):
    user = UserFactory()
    foreign = AkteFactory()
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        "\n".join(
            [
                json.dumps({"text": "Was ist § 193 BGB?", "mode": "inline"}),
                json.dumps({"text": "Fremde Akte?", "akte": foreign.aktenzeichen}),
                json.dumps({"text": "Noch eine Frage", "mode": "background"}),
            ]
        ),
        encoding="utf-8",
    )
    scripted_llm.script([{"text": "Fristende am nächsten Werktag."}, {"status": 503, "error": {"error": "überlastet"}}])
    out, err = StringIO(), StringIO()

    with pytest.raises(CommandError) as failed:
        call_command("helena_run", user=user.email, file=tasks, stdout=out, stderr=err)

    assert failed.value.returncode == 1 and "2 von 3" in str(failed.value)
    first, second, third = results(out)
    assert first["ok"] and first["status"] == "DONE"
    assert not second["ok"] and "nicht gefunden" in second["error"]
    assert not third["ok"] and third["status"] == "FAILED" and third["mode"] == "BACKGROUND"
    assert AgentRun.objects.filter(user=user).count() == 2


def test_unknown_user_is_reported_per_task(tier1):
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("helena_run", "Hallo", user="niemand@kanzlei.example", stdout=out, stderr=StringIO())
    assert results(out)[0] == {"task": "Hallo", "ok": False, "error": "Benutzer niemand@kanzlei.example nicht gefunden."}


def test_missing_task_is_a_usage_error():
    with pytest.raises(CommandError):
        call_command("helena_run", user="a@b.example", stdout=StringIO(), stderr=StringIO())


@pytest.fixture
def only_the_demo_model_answers(monkeypatch, scripted_llm):
    """No model server is reached (tier 1 on a closed port): the demo model stands in, played here
    by the scripted server (starting the real one would take its seconds in every test)."""
    from agent.llm import demo
    from agent.llm.factory import build_client
    from agent.models import TierConfig

    async def scripted_demo(**kwargs):
        return build_client(TierConfig(tier=1, provider="OLLAMA", model="scripted", base_url=scripted_llm.url))

    monkeypatch.setattr(demo, "demo_client", scripted_demo)
    TierConfig.objects.all().delete()
    TierConfig.objects.create(tier=1, name="Lokal", model="qwen", base_url="http://127.0.0.1:9", enabled=True)
    scripted_llm.script([{"text": "Am 20.13.2026 endet die Wirbelnacht."}])


def test_an_answer_of_the_demo_model_is_no_work_result_of_a_batch(only_the_demo_model_answers):
    """Seen by an IT provider: with the model server down a nightly batch printed "1 von 1 Aufträgen
    erledigt", exit code 0, "ok": true - for the nonsense of the 135 M demo model."""
    user = UserFactory()
    out, err = StringIO(), StringIO()

    with pytest.raises(CommandError) as failed:
        call_command("helena_run", "Welche Fristen laufen?", user=user.email, mode="inline", stdout=out, stderr=err)

    assert failed.value.returncode == 1
    [result] = results(out)
    assert result["status"] == "DONE" and result["demo"] is True and result["ok"] is False
    assert "Nur das eingebaute Demo-Modell hat geantwortet" in err.getvalue()


def test_allow_demo_lets_the_demo_model_s_answer_count(only_the_demo_model_answers):
    out, err = StringIO(), StringIO()
    call_command("helena_run", "Hallo", user=UserFactory().email, mode="inline", allow_demo=True, stdout=out, stderr=err)
    [result] = results(out)
    assert result["ok"] is True and result["demo"] is True
    assert "1 von 1 Aufträgen erledigt" in err.getvalue()


def test_an_unreadable_tasks_file_is_a_german_usage_error(tmp_path: Path):
    with pytest.raises(CommandError, match="lässt sich nicht lesen"):
        call_command("helena_run", user="a@b.example", file=tmp_path / "fehlt.jsonl", stdout=StringIO(), stderr=StringIO())
