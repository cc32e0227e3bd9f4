"""What a run has read, as the access rule of agent/runs/selectors.py (`runs_of`) asks it: the
Akten its tool results showed (ToolCallAudit.akte, ToolCallAudit.akten). A run that read an Akte its
user may no longer see is gone for them, because its answer can repeat what it read.

Some runs carry what other runs read without a tool call of their own: a later run of a
conversation gets the earlier turns as history, a continued run the transcript of the run it
continues, a run on an Akte the titles and reasons of its rejected drafts (their runs' reads).
Each gets one audit row (tool CARRIED_OVER) with the Akten of those runs, so that it is gone when
they are. Pruned traces (manage.py prune_run_traces) keep the same one row per run.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent.models import AgentRun, ToolCallAudit

# The audit rows that are no tool call: what a run was given or kept of other runs' reads.
CARRIED_OVER = "(übernommen)"
SUMMARY_HISTORY = "Gesprächsverlauf früherer Läufe"
SUMMARY_CONTINUED = "Verlauf des fortgesetzten Laufs"
SUMMARY_PRUNED = "Gelesene Akten des gelöschten Werkzeugprotokolls"
SUMMARY_REJECTIONS = "Abgelehnte Entwürfe im Prompt"


def akten_read(*, run_ids: Iterable[int]) -> dict[int, set[int]]:
    """{run id: the ids of the Akten its tool results showed, and its own Akte}, for the runs of
    `run_ids` that read any."""
    ids = list(set(run_ids))
    read: dict[int, set[int]] = {}
    for run_id, akte_id, akten in ToolCallAudit.objects.filter(run_id__in=ids).values_list("run_id", "akte_id", "akten"):
        shown = read.setdefault(run_id, set())
        shown.update(akten)
        if akte_id is not None:
            shown.add(akte_id)
    for run_id, akte_id in AgentRun.objects.filter(pk__in=ids, akte__isnull=False).values_list("pk", "akte_id"):
        read.setdefault(run_id, set()).add(akte_id)
    return read


def reads_carry_over(*, run: AgentRun, from_run_ids: Iterable[int], summary: str) -> None:
    """Record on `run` the Akten the runs of `from_run_ids` read (one audit row, none if nothing)."""
    shown = set().union(*akten_read(run_ids=from_run_ids).values())
    if shown:
        ToolCallAudit.objects.create(run=run, user_id=run.user_id, tool=CARRIED_OVER, akten=sorted(shown), summary=summary)
