"""`manage.py helena_run`: run Helena from the command line, one task or a batch.

    python manage.py helena_run --user anwalt@kanzlei.example --akte 12/25 "Welche Fristen laufen?"
    python manage.py helena_run --user anwalt@kanzlei.example --file tasks.jsonl

A tasks file holds one JSON object per line: {"text": "...", "akte": "12/25", "mode": "inline",
"user": "other@kanzlei.example"} (only "text" is required; the options are the defaults). Progress
goes to stderr, one JSON result per task to stdout. The exit code is 1 when any task failed:
status FAILED, TIMEOUT, CANCELLED or RATE_LIMITED, a run that ended without an answer, or a task
that could not start (unknown user, Akte not found or not visible). DONE, CAP_REACHED and STALLED
runs with an answer count as done, unless only the embedded demo model answered (no model server
reached): its answer is no work result, so it fails the task ("demo": true in its result) unless
`--allow-demo` says it may (trying Helena out on the embedded defaults). The progress on stderr
names steps and Helena's tools, never the task's text, a tool's arguments or a tool name the model
made up (client data in a cron log); the results on stdout carry them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from asgiref.sync import async_to_sync
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser

from agent.engine.events import EventType
from agent.models import AgentRun
from agent.runs.execution import run_execute
from agent.runs.services import run_create
from agent.tools.discovery import all_tools
from akten.models import Akte, User
from helena.command_base import GermanBaseCommand
from helena.errors import NotFound

DEMO_ANSWERED = (
    "Nur das eingebaute Demo-Modell hat geantwortet: kein Modellserver erreicht. Die Antwort ist kein Arbeitsergebnis "
    "(--allow-demo lässt sie gelten)."
)
UNKNOWN_TOOL = "unbekanntes Werkzeug"
OK_STATUSES = frozenset({AgentRun.Status.DONE, AgentRun.Status.CAP_REACHED, AgentRun.Status.STALLED})
PROGRESS_EVENTS = {
    EventType.STEP_STARTED,
    EventType.TOOL_CALL,
    EventType.ESCALATION,
    EventType.DRAFT_CREATED,
    EventType.RUN_CAP_REACHED,
}


class Command(GermanBaseCommand):
    help = "Führt Helena-Aufträge aus (einzeln oder als Stapel aus einer JSONL-Datei) und gibt je Auftrag ein JSON-Ergebnis aus."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("auftrag", nargs="?", help="Der Auftrag an Helena.")
        parser.add_argument(
            "--user", required=True, metavar="E-MAIL", help="E-Mail-Adresse des Benutzers, in dessen Namen Helena arbeitet."
        )
        parser.add_argument("--akte", metavar="AKTENZEICHEN", help="Aktenzeichen der Akte (optional).")
        parser.add_argument("--mode", choices=["inline", "background"], help="Modus (sonst entscheidet der Klassifikator).")
        parser.add_argument("--file", type=Path, metavar="DATEI", help="JSONL-Datei mit Aufträgen.")
        parser.add_argument(
            "--allow-demo",
            action="store_true",
            help="Antworten des eingebauten Demo-Modells gelten als erledigt (sonst: kein Modellserver = fehlgeschlagen).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        tasks = self._tasks(options)
        self.allow_demo = bool(options.get("allow_demo"))
        failed = 0
        for index, task in enumerate(tasks, start=1):
            result = self._run_one(index, len(tasks), task)
            self.stdout.write(json.dumps(result, ensure_ascii=False))
            if not result["ok"]:
                failed += 1
        if failed:
            raise CommandError(f"{failed} von {len(tasks)} Aufträgen fehlgeschlagen.", returncode=1)
        self.stderr.write(f"{len(tasks)} von {len(tasks)} Aufträgen erledigt.")

    def _tasks(self, options: dict[str, Any]) -> list[dict[str, Any]]:
        defaults = {"user": options["user"], "akte": options.get("akte"), "mode": options.get("mode")}
        if options.get("file"):
            if options.get("auftrag"):
                raise CommandError("Entweder einen Auftrag oder --file angeben, nicht beides.")
            tasks = []
            try:
                lines = options["file"].read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError) as exc:
                raise CommandError(f"Die Datei {options['file']} lässt sich nicht lesen ({type(exc).__name__}).") from None
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise CommandError(f"Zeile {number}: kein gültiges JSON ({exc.msg}).") from None
                if not isinstance(entry, dict) or not str(entry.get("text") or "").strip():
                    raise CommandError(f'Zeile {number}: ein Objekt mit "text" erwartet.')
                tasks.append({**defaults, **{k: v for k, v in entry.items() if v is not None}})
            return tasks
        if not options.get("auftrag"):
            raise CommandError("Bitte einen Auftrag angeben oder --file verwenden.")
        return [{**defaults, "text": options["auftrag"]}]

    def _run_one(self, index: int, total: int, task: dict[str, Any]) -> dict[str, Any]:
        prefix = f"[{index}/{total}]"
        self.stderr.write(f"{prefix} Auftrag gestartet")
        try:
            user = User.objects.get(email__iexact=task["user"], is_active=True)
            akte = None
            if task.get("akte"):
                akte = Akte.objects.visible_to(user).filter(aktenzeichen=task["akte"]).first()
                if akte is None:
                    raise NotFound(f"Akte {task['akte']} nicht gefunden.")
            mode = str(task["mode"]).upper() if task.get("mode") else None
            run = run_create(user=user, text=task["text"], akte=akte, mode=mode)
        except User.DoesNotExist:
            return {"task": task["text"], "ok": False, "error": f"Benutzer {task['user']} nicht gefunden."}
        except (NotFound, ValidationError) as exc:
            message = "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
            return {"task": task["text"], "ok": False, "error": message}

        answered_by_demo: list[bool] = []

        async def progress(event: dict[str, Any]) -> None:
            if event.get("demo"):  # the terminal event says whether the demo model answered
                answered_by_demo.append(True)
            if event["type"] == "step.started":
                self.stderr.write(f"{prefix}   {event['label']}")
            elif event["type"] == "tool.call":
                # the name as the model sent it: a name it made up may carry words of the prompt
                tool = event["tool"] if event["tool"] in all_tools() else UNKNOWN_TOOL
                self.stderr.write(f"{prefix}     → {tool}")
            elif event["type"] in PROGRESS_EVENTS:
                self.stderr.write(f"{prefix}   {event['type']}")

        if run.is_active:
            run = async_to_sync(run_execute)(run.pk, publish=progress)
        self.stderr.write(f"{prefix}   {run.get_status_display()} ({run.steps_used} Schritte, {run.tool_calls} Werkzeugaufrufe)")
        demo = bool(answered_by_demo)
        if demo:
            self.stderr.write(f"{prefix}   {DEMO_ANSWERED}")
        return {
            "task": task["text"],
            "ok": run.status in OK_STATUSES and bool(run.answer.strip()) and (self.allow_demo or not demo),
            "demo": demo,
            "run": run.pk,
            "status": run.status,
            "finish_reason": run.finish_reason,
            "answer": run.answer,
            "error": run.error,
            "akte": run.akte.aktenzeichen if run.akte else None,
            "mode": run.mode,
            "tier": run.tier,
            "model": run.model_name,
            "steps": run.steps_used,
            "model_calls": run.model_calls,
            "tool_calls": run.tool_calls,
            "tokens_in": run.tokens_in,
            "tokens_out": run.tokens_out,
            "drafts": list(run.drafts.values_list("pk", flat=True)),
        }
