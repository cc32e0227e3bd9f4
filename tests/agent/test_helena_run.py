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
