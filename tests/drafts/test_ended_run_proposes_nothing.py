"""A run that ended elsewhere (swept as FAILED while its process still works, or cancelled before its
local token trips) proposes no draft through its write tools (review 2026-12-03)."""

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone

from agent.models import AgentRun
from agent.tools.base import ToolContext
from agent.tools.executor import toolbox_for
from drafts.models import HelenaDraft
from tests.factories import AgentRunFactory, AkteFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("status", "cancel"), [("FAILED", False), ("CANCELLED", True), ("RUNNING", True)])
def test_a_run_that_ended_proposes_no_draft(settings, status, cancel):
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True
    akte = AkteFactory()
    run = AgentRunFactory(user=akte.anwalt, akte=akte, status="RUNNING")
    ctx = ToolContext(user=akte.anwalt, akte=akte, run=run)  # its local cancel token never tripped
    AgentRun.objects.filter(pk=run.pk).update(status=status, cancel_requested=cancel, finished_at=timezone.now())

    result = async_to_sync(toolbox_for(ctx).execute)("create_notiz", {"text": "Nach dem Ende vorgeschlagen"}, call_id="c1")

    assert not result.ok and "keine Entwürfe mehr" in result.error
    assert not HelenaDraft.objects.filter(origin_run=run).exists()


def test_a_running_run_still_proposes(settings):
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True
    akte = AkteFactory()
    run = AgentRunFactory(user=akte.anwalt, akte=akte, status="RUNNING")
    result = async_to_sync(toolbox_for(ToolContext(user=akte.anwalt, akte=akte, run=run)).execute)(
        "create_notiz", {"text": "Rückruf vereinbart"}, call_id="c1"
    )
    assert result.ok, result.error
    assert HelenaDraft.objects.filter(origin_run=run, status="PENDING").count() == 1
