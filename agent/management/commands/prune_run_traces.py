"""Delete the traces (AgentStep rows, ToolCallAudit rows) of runs that finished more than
HELENA_TRACE_RETENTION_DAYS days ago. The run itself (task, status, answer, times) stays, and so
does one audit row per run with the Akten its tool calls showed: who may no longer see one of them
must not see the run again once its trace is gone (agent/runs/reads.py). A run with a draft still
open keeps its trace until the draft is decided: the reviewer reads where it came from."""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError, CommandParser
from django.db import transaction
from django.utils import timezone

from agent.models import AgentRun, AgentStep, ToolCallAudit
from agent.runs.reads import CARRIED_OVER, SUMMARY_PRUNED, akten_read
from drafts.models import HelenaDraft
from helena.command_base import GermanBaseCommand

MAX_DAYS = 36_500


class Command(GermanBaseCommand):
    help = "Verlaufsdaten (Schritte, Werkzeugprotokoll) beendeter Läufe nach der Aufbewahrungsfrist löschen."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days", type=int, default=None, metavar="TAGE", help="Aufbewahrung in Tagen (Standard: HELENA_TRACE_RETENTION_DAYS)"
        )
        parser.add_argument("--dry-run", action="store_true", help="nur zählen, nichts löschen")

    def handle(self, *args: Any, days: int | None, dry_run: bool, **options: Any) -> None:
        keep_days = settings.HELENA_TRACE_RETENTION_DAYS if days is None else days
        if keep_days < 1:
            raise CommandError("Die Aufbewahrung muss mindestens einen Tag betragen.", returncode=2)
        if keep_days > MAX_DAYS:
            raise CommandError(f"Die Aufbewahrung kann höchstens {MAX_DAYS} Tage (100 Jahre) betragen.", returncode=2)
        cutoff = timezone.now() - datetime.timedelta(days=keep_days)
        runs = (
            AgentRun.objects.filter(finished_at__lt=cutoff)
            .exclude(status__in=[AgentRun.Status.PENDING, AgentRun.Status.RUNNING])
            .exclude(drafts__status=HelenaDraft.Status.PENDING)
        )
        steps = AgentStep.objects.filter(run__in=runs)
        # The carried-over rows hold nothing but the Akten read: they stay as they are.
        audits = ToolCallAudit.objects.filter(run__in=runs).exclude(tool=CARRIED_OVER)
        if dry_run:
            self.stdout.write(f"{steps.count()} Schritte und {audits.count()} Protokolleinträge würden gelöscht.")
            return
        with transaction.atomic():
            pruned = list(AgentRun.objects.filter(pk__in=audits.values("run_id")).values_list("pk", "user_id"))
            kept = akten_read(run_ids=[pk for pk, _user in pruned])
            # what the steps said of the text of others outlives them (agent.runs.execution)
            untrusted = steps.filter(type="tool.result", payload__untrusted=True).values("run_id")
            AgentRun.objects.filter(pk__in=untrusted).update(read_untrusted=True)
            deleted_steps, _ = steps.delete()
            deleted_audits, _ = audits.delete()
            ToolCallAudit.objects.bulk_create(
                ToolCallAudit(run_id=pk, user_id=user_id, tool=CARRIED_OVER, akten=sorted(kept[pk]), summary=SUMMARY_PRUNED)
                for pk, user_id in pruned
                if kept.get(pk)
            )
        self.stdout.write(
            f"{deleted_steps} Schritte und {deleted_audits} Protokolleinträge gelöscht (älter als {keep_days} Tage)."
        )
