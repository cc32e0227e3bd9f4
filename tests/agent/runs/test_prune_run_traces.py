"""`manage.py prune_run_traces`: the traces of runs finished before the retention period go;
running runs, recent runs and the runs themselves stay."""

import datetime
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from agent.models import AgentRun, AgentStep, ToolCallAudit
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def run_with_trace(user, status, finished_days_ago):
    finished = timezone.now() - datetime.timedelta(days=finished_days_ago) if finished_days_ago is not None else None
    run = AgentRun.objects.create(user=user, task="t", status=status, finished_at=finished)
    AgentStep.objects.create(run=run, seq=1, type="run.started")
    ToolCallAudit.objects.create(run=run, user=user, tool="read_akte")
    return run


def test_prunes_old_finished_traces_and_keeps_the_rest(settings):
    settings.HELENA_TRACE_RETENTION_DAYS = 30
    user = UserFactory()
    old = run_with_trace(user, AgentRun.Status.DONE, 31)
    old_failed = run_with_trace(user, AgentRun.Status.FAILED, 400)
    recent = run_with_trace(user, AgentRun.Status.DONE, 29)
    running = run_with_trace(user, AgentRun.Status.RUNNING, None)

    out = StringIO()
    call_command("prune_run_traces", stdout=out)

    assert "2 Schritte und 2 Protokolleinträge gelöscht" in out.getvalue()
    for gone in (old, old_failed):
        assert not AgentStep.objects.filter(run=gone).exists()
        assert not ToolCallAudit.objects.filter(run=gone).exists()
        assert AgentRun.objects.filter(pk=gone.pk).exists()
    for kept in (recent, running):
        assert AgentStep.objects.filter(run=kept).count() == 1
        assert ToolCallAudit.objects.filter(run=kept).count() == 1


def test_dry_run_and_days_option_count_without_deleting():
    user = UserFactory()
    run_with_trace(user, AgentRun.Status.DONE, 10)
    out = StringIO()
    call_command("prune_run_traces", "--days", "5", "--dry-run", stdout=out)
    assert "1 Schritte und 1 Protokolleinträge würden gelöscht" in out.getvalue()
    assert AgentStep.objects.count() == 1


def test_pruning_keeps_which_akten_a_run_read_so_it_stays_hidden(settings):
    """Before, a run that read an Akte its user may no longer see came back once its audit rows
    were pruned (agent/runs/reads.py)."""
    from agent.runs.reads import CARRIED_OVER
    from agent.runs.selectors import runs_of
    from akten.models import Akte, Role
    from tests.factories import AkteFactory

    settings.HELENA_TRACE_RETENTION_DAYS = 30
    lawyer = UserFactory(role=Role.ANWALT)
    akte, other = AkteFactory(anwalt=lawyer), AkteFactory(anwalt=lawyer)
    run = run_with_trace(lawyer, AgentRun.Status.DONE, 31)
    ToolCallAudit.objects.create(run=run, user=lawyer, tool="read_akte", akte=akte)
    ToolCallAudit.objects.create(run=run, user=lawyer, tool="search_alle_akten", akten=[akte.pk, other.pk])
    call_command("prune_run_traces", stdout=StringIO())
    kept = list(ToolCallAudit.objects.filter(run=run).values_list("tool", "akten"))
    assert kept == [(CARRIED_OVER, sorted([akte.pk, other.pk]))]
    assert run in runs_of(lawyer)
    Akte.objects.filter(pk=other.pk).update(anwalt=UserFactory(role=Role.ANWALT))  # another Dezernat now
    assert run not in runs_of(lawyer)
    call_command("prune_run_traces", stdout=StringIO())  # a second pass keeps the kept row
    assert ToolCallAudit.objects.filter(run=run, tool=CARRIED_OVER).count() == 1


def test_a_run_whose_draft_is_still_open_keeps_its_trace_until_the_draft_is_decided(settings):
    """Seen by an IT provider: pruning a run 40 days old set the open draft's origin_step to NULL and
    deleted the steps the reviewer opens to see where the draft came from."""
    from drafts.models import HelenaDraft
    from tests.factories import AkteFactory

    settings.HELENA_TRACE_RETENTION_DAYS = 30
    akte = AkteFactory()
    run = run_with_trace(akte.anwalt, AgentRun.Status.DONE, 40)
    step = AgentStep.objects.get(run=run)
    draft = HelenaDraft.objects.create(
        typ="NOTIZ", akte=akte, titel="Vermerk", payload={"text": "x"}, requested_by=akte.anwalt, origin_run=run, origin_step=step
    )
    call_command("prune_run_traces", stdout=StringIO())
    draft.refresh_from_db()
    assert draft.origin_step_id == step.pk and ToolCallAudit.objects.filter(run=run).exists()

    HelenaDraft.objects.filter(pk=draft.pk).update(
        status=HelenaDraft.Status.REJECTED, reviewer=akte.anwalt, reviewed_at=timezone.now(), rejection_reason="Nicht nötig."
    )
    call_command("prune_run_traces", stdout=StringIO())
    assert not AgentStep.objects.filter(run=run).exists()
