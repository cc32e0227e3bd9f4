"""The admin shows client data only through `visible_to`: every registered model is checked for a
staff user (not ADMIN) who holds every view permission; /admin/ never loops for non-staff; drafts
are approved one at a time from their change view and never deleted."""

from __future__ import annotations

import datetime

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from agent.models import AgentRun, AgentStep
from akten.models import Notiz, Role
from drafts.models import DraftRevision, HelenaDraft
from tests.agent.factories import ToolCallAuditFactory
from tests.factories import (
    AkteFactory,
    AktenActivityFactory,
    BeteiligterFactory,
    DokumentFactory,
    HelenaAlertFactory,
    HelenaDraftFactory,
    KalenderEintragFactory,
    NotizFactory,
    UserFactory,
    VertretungFactory,
    ZeiterfassungFactory,
)

pytestmark = pytest.mark.django_db

FOREIGN = "Fremdmarker"


@pytest.fixture
def staff():
    user = UserFactory(role=Role.SACHBEARBEITER, is_staff=True, first_name="Sabine", last_name="Sachbearbeiterin")
    user.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    return user


@pytest.fixture
def world(staff):
    """The staff user's own Akte and a foreign Akte whose every row carries FOREIGN; one foreign
    Akte was visible during a Vertretung that has ended, and holds the staff user's own old run."""
    own = AkteFactory(anwalt=staff, kurzrubrum="Eigen ./. Gegner")
    BeteiligterFactory(akte=own, kontakt__nachname="Eigenmandant", rolle="MANDANT")
    foreign = AkteFactory(kurzrubrum=f"{FOREIGN}Rubrum ./. X", wegen=f"{FOREIGN}Wegen")
    mandant_contact = BeteiligterFactory(akte=foreign, kontakt__nachname=f"{FOREIGN}Partei", rolle="MANDANT").kontakt
    UserFactory(role=Role.MANDANT, kontakt=mandant_contact, first_name=f"{FOREIGN}Login", email="fremd@mandant.example")
    DokumentFactory(akte=foreign, name=f"{FOREIGN}Dokument")
    KalenderEintragFactory(akte=foreign, titel=f"{FOREIGN}Frist")
    ZeiterfassungFactory(akte=foreign, beschreibung=f"{FOREIGN}Zeit")
    NotizFactory(akte=foreign, text=f"{FOREIGN}Notiz")
    Notiz.objects.create(akte=None, autor=foreign.anwalt, text=f"{FOREIGN}AllgemeineNotiz")
    AktenActivityFactory(akte=foreign, beschreibung=f"{FOREIGN}Verlauf")
    HelenaDraftFactory(akte=foreign, titel=f"{FOREIGN}Entwurf")
    HelenaAlertFactory(akte=foreign, titel=f"{FOREIGN}Hinweis")
    other_run = AgentRun.objects.create(user=foreign.anwalt, akte=foreign, task=f"{FOREIGN}Auftrag", answer=f"{FOREIGN}Antwort")
    AgentStep.objects.create(run=other_run, seq=1, type="answer", payload={"text": f"{FOREIGN}Schritt"})
    ToolCallAuditFactory(run=other_run, user=foreign.anwalt, akte=foreign, summary=f"{FOREIGN}Audit")
    # A Vertretung for the foreign Anwalt that has ended: what the staff user ran then is foreign now.
    VertretungFactory(
        vertreter=staff,
        vertretener=foreign.anwalt,
        beginn=timezone.localdate() - datetime.timedelta(days=20),
        ende=timezone.localdate() - datetime.timedelta(days=10),
    )
    old_run = AgentRun.objects.create(user=staff, akte=foreign, task=f"{FOREIGN}AlterAuftrag", answer=f"{FOREIGN}AlteAntwort")
    AgentStep.objects.create(run=old_run, seq=1, type="answer", payload={"text": f"{FOREIGN}AlterSchritt"})
    ToolCallAuditFactory(run=old_run, user=staff, akte=foreign, summary=f"{FOREIGN}AltesAudit")
    return {"own": own, "foreign": foreign}


def _foreign_objects(model):
    """Rows of `model` that carry FOREIGN data (by their string form or any text field)."""
    from django.db import models as m

    text_fields = [f.name for f in model._meta.get_fields() if isinstance(f, m.CharField | m.TextField | m.JSONField)]
    rows = []
    for obj in model._default_manager.all():
        values = [str(obj), *(str(getattr(obj, name, "")) for name in text_fields)]
        if hasattr(obj, "akte_id") and obj.akte_id is not None and FOREIGN in str(obj.akte):
            rows.append(obj)
        elif any(FOREIGN in value for value in values):
            rows.append(obj)
    return rows


def test_every_admin_page_hides_foreign_client_data_from_staff_with_all_view_permissions(client, staff, world):
    client.force_login(staff)
    checked = 0
    for model in admin.site._registry:
        info = (model._meta.app_label, model._meta.model_name)
        listing = client.get(reverse("admin:{}_{}_changelist".format(*info)))
        assert listing.status_code in (200, 302, 403), info
        assert FOREIGN not in listing.content.decode(), f"changelist {info}"
        for obj in _foreign_objects(model):
            page = client.get(reverse("admin:{}_{}_change".format(*info), args=[obj.pk]), follow=True)
            assert FOREIGN not in page.content.decode(), f"change view {info} #{obj.pk}"
            checked += 1
    assert checked >= 12  # every kind of foreign row above was tried


def test_own_akten_data_stays_visible_in_the_admin(client, staff, world):
    client.force_login(staff)
    assert "Eigenmandant" in client.get(reverse("admin:akten_kontakt_changelist")).content.decode()
    assert "Eigen ./. Gegner" in client.get(reverse("admin:akten_akte_changelist")).content.decode()


def test_autocomplete_lists_no_foreign_parties(client, staff, world):
    client.force_login(staff)
    response = client.get(
        "/admin/autocomplete/",
        {"app_label": "akten", "model_name": "beteiligter", "field_name": "kontakt", "term": FOREIGN[:5]},
    )
    assert response.status_code in (200, 403)
    assert FOREIGN not in response.content.decode()


def test_admin_role_sees_every_kontakt(client, world):
    boss = UserFactory(role=Role.ADMIN, is_staff=True)
    boss.user_permissions.set(Permission.objects.filter(codename="view_kontakt"))
    client.force_login(boss)
    assert f"{FOREIGN}Partei" in client.get(reverse("admin:akten_kontakt_changelist")).content.decode()


def test_admin_does_not_loop_for_a_logged_in_non_staff_user(client):
    client.force_login(UserFactory(role=Role.ANWALT, is_staff=False))
    response = client.get("/admin/", follow=True)
    assert response.status_code == 403
    assert "Verwaltung ist nur für Mitarbeitende" in response.content.decode()


def test_admin_login_still_logs_staff_in(client):
    UserFactory(email="chefin@kanzlei.example", role=Role.ADMIN, is_staff=True)
    response = client.post("/admin/login/?next=/admin/", {"username": "chefin@kanzlei.example", "password": "geheim-1234"})
    assert response.status_code == 302 and response.url == "/admin/"
    assert client.get("/admin/").status_code == 200


@pytest.fixture
def approver():
    return UserFactory(role=Role.ANWALT, is_staff=True, is_superuser=True)


def test_drafts_have_no_bulk_approval_and_cannot_be_deleted(client, approver):
    drafts = [HelenaDraftFactory(akte=AkteFactory(anwalt=approver)) for _ in range(2)]
    client.force_login(approver)
    listing = client.get(reverse("admin:drafts_helenadraft_changelist"))
    assert "accept_selected" not in listing.content.decode() and "übernehmen (Endkontrolle)" not in listing.content.decode()
    client.post(
        reverse("admin:drafts_helenadraft_changelist"),
        {"action": "accept_selected", "_selected_action": [d.pk for d in drafts]},
    )
    client.post(
        reverse("admin:drafts_helenadraft_changelist"),
        {"action": "delete_selected", "_selected_action": [d.pk for d in drafts], "post": "yes"},
    )
    assert client.post(reverse("admin:drafts_helenadraft_delete", args=[drafts[0].pk]), {"post": "yes"}).status_code == 403
    assert HelenaDraft.objects.filter(status="PENDING").count() == 2


def test_a_draft_is_approved_from_its_change_view_one_at_a_time(client, approver):
    akte = AkteFactory(anwalt=approver)
    draft, other = HelenaDraftFactory(akte=akte, titel="Rückruf"), HelenaDraftFactory(akte=akte)
    client.force_login(approver)
    page = client.get(reverse("admin:drafts_helenadraft_change", args=[draft.pk])).content.decode()
    accept_url = reverse("admin:drafts_helenadraft_accept", args=[draft.pk])
    assert accept_url in page and "Übernehmen (Endkontrolle)" in page
    assert client.get(accept_url).status_code == 405
    assert 'name="version" value="0"' in page  # the version she sees is the version she approves
    DraftRevision.objects.create(draft=draft, number=1, titel=draft.titel, payload=draft.payload, edited_by=approver)
    client.post(accept_url, {"version": "0"})  # edited meanwhile (another tab): refused, nothing created
    draft.refresh_from_db()
    assert draft.status == "PENDING" and akte.notiz_set.count() == 0
    client.post(accept_url, {"version": "1"})
    draft.refresh_from_db(), other.refresh_from_db()
    assert draft.status == "ACCEPTED" and draft.reviewer == approver and other.status == "PENDING"
    assert akte.notiz_set.count() == 1


def test_draft_approval_in_the_admin_follows_the_access_rule(client, staff):
    foreign = HelenaDraftFactory()
    client.force_login(staff)
    assert client.post(reverse("admin:drafts_helenadraft_accept", args=[foreign.pk])).status_code == 404
    foreign.refresh_from_db()
    assert foreign.status == "PENDING"
