"""A general note (no Akte) accepted from a Helena draft whose run read an Akte: once its author no
longer sees that Akte (a deputy after the Vertretung), the note is gone for them as the run, its
answer and the draft are; it repeats what the run read. Before, `/api/notizen/` kept showing it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from agent.models import AgentRun, ToolCallAudit
from akten.models import Notiz, Role, Vertretung
from drafts.models import HelenaDraft
from tests.factories import AkteFactory, HelenaDraftFactory, UserFactory

pytestmark = pytest.mark.django_db

SECRET = "SACHSTAND-GEHEIM-4711"


def _accepted_general_note(deputy, akte, *, read_akte: bool) -> Notiz:
    now = timezone.now()
    run = AgentRun.objects.create(
        user=deputy,
        akte=None,
        task="Fasse die Akte zusammen",
        answer=f"Sachstand: {SECRET}",
        status=AgentRun.Status.DONE,
        started_at=now,
        finished_at=now,
    )
    if read_akte:
        ToolCallAudit.objects.create(run=run, user=deputy, akte=akte, tool="read_akte")
    draft = HelenaDraftFactory(
        akte=None,
        typ=HelenaDraft.Typ.NOTIZ,
        requested_by=deputy,
        origin_run=run,
        titel="Merkzettel",
        payload={"titel": "Merkzettel", "text": f"Merken: {SECRET}"},
    )
    client = Client()
    client.force_login(deputy)
    assert client.post(f"/api/drafts/{draft.pk}/accept/", {"version": 0}, content_type="application/json").status_code == 200
    draft.refresh_from_db()
    return Notiz.objects.get(pk=draft.result_object_id)


def test_a_general_note_from_a_run_that_read_an_akte_is_gone_with_the_vertretung():
    lawyer, deputy = UserFactory(role=Role.ANWALT), UserFactory(role=Role.ANWALT)
    today = timezone.localdate()
    vertretung = Vertretung.objects.create(
        vertretener=lawyer, vertreter=deputy, beginn=today - timedelta(days=5), ende=today + timedelta(days=5)
    )
    akte = AkteFactory(anwalt=lawyer, zusammenfassung=SECRET)
    from_akte = _accepted_general_note(deputy, akte, read_akte=True)
    own = _accepted_general_note(deputy, akte, read_akte=False)
    client = Client()
    client.force_login(deputy)
    assert SECRET in client.get("/api/notizen/").content.decode()

    Vertretung.objects.filter(pk=vertretung.pk).update(ende=today - timedelta(days=1))

    listed = client.get("/api/notizen/").json()
    assert [n["id"] for n in listed["results"]] == [own.pk]
    assert client.get(f"/api/notizen/{from_akte.pk}/").status_code == 404
    assert set(Notiz.objects.visible_to(deputy)) == {own}
    # the Akte's team never had the general note: it stays its author's alone
    assert not Notiz.objects.visible_to(lawyer).exists()
