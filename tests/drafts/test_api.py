import pytest

from agent.chat.cards import draft_card
from akten.models import Notiz, Role
from drafts import services
from tests.factories import AkteFactory, HelenaAlertFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft():
    akte = AkteFactory()
    return services.draft_create(typ="NOTIZ", akte=akte, requested_by=akte.anwalt, payload={"text": "Rückruf"})


def test_accept_then_second_accept_conflicts(api_client, draft):
    api_client.force_login(draft.akte.anwalt)
    first = api_client.post(f"/api/drafts/{draft.pk}/accept/")
    assert first.status_code == 200
    assert first.json()["status"] == "ACCEPTED"
    assert first.json()["result"] == {"type": "notiz", "id": Notiz.objects.get().pk}
    second = api_client.post(f"/api/drafts/{draft.pk}/accept/")
    assert second.status_code == 409
    assert "bereits übernommen" in second.json()["detail"]


def test_foreign_user_gets_404_for_every_draft_action(api_client, draft):
    api_client.force_login(UserFactory(role=Role.ANWALT))
    for action in ("accept", "reject", "undo"):
        assert api_client.post(f"/api/drafts/{draft.pk}/{action}/", {"reason": "x"}, format="json").status_code == 404
    assert api_client.patch(f"/api/drafts/{draft.pk}/", {"payload": {"text": "y"}}, format="json").status_code == 404
    assert not Notiz.objects.exists()


def test_praktikant_may_see_but_not_approve(api_client, draft):
    praktikant = UserFactory(role=Role.PRAKTIKANT)
    draft.akte.dezernate.create(name="D").members.add(praktikant)
    api_client.force_login(praktikant)
    assert api_client.get(f"/api/drafts/{draft.pk}/").status_code == 200
    response = api_client.post(f"/api/drafts/{draft.pk}/accept/")
    assert response.status_code == 403
    assert "nicht übernehmen" in response.json()["detail"]


def test_edit_reject_undo_through_the_api(api_client, draft):
    api_client.force_login(draft.akte.anwalt)
    edited = api_client.patch(f"/api/drafts/{draft.pk}/", {"payload": {"text": "Neu"}}, format="json")
    assert edited.status_code == 200
    assert edited.json()["payload"] == {"titel": "", "text": "Neu"}
    assert len(edited.json()["revisions"]) == 1
    invalid = api_client.patch(f"/api/drafts/{draft.pk}/", {"payload": {"text": ""}}, format="json")
    assert invalid.status_code == 400

    unversioned = api_client.post(f"/api/drafts/{draft.pk}/accept/")
    assert unversioned.status_code == 409 and "Fassung" in unversioned.json()["detail"]  # edited: the version reviewed
    accepted = api_client.post(f"/api/drafts/{draft.pk}/accept/", {"version": 1}, format="json")
    assert Notiz.objects.get(pk=accepted.json()["result"]["id"]).text == "Neu"
    undone = api_client.post(f"/api/drafts/{draft.pk}/undo/")
    assert undone.status_code == 200 and undone.json()["status"] == "PENDING"
    assert not Notiz.objects.exists()

    bad = api_client.post(f"/api/drafts/{draft.pk}/reject/", {"categories": ["ERFUNDEN"]}, format="json")
    assert bad.status_code == 400
    rejected = api_client.post(
        f"/api/drafts/{draft.pk}/reject/", {"reason": "Passt nicht", "categories": ["UNVOLLSTAENDIG"]}, format="json"
    )
    assert rejected.status_code == 200
    assert rejected.json()["rejection_categories"] == ["UNVOLLSTAENDIG"]


def test_undo_cannot_be_pointed_at_another_record(api_client, draft):
    """Undo takes no record id from the client: it deletes what the draft created, nothing else."""
    api_client.force_login(draft.akte.anwalt)
    other = Notiz.objects.create(akte=draft.akte, autor=draft.akte.anwalt, text="Fremd")
    api_client.post(f"/api/drafts/{draft.pk}/accept/")
    api_client.post(f"/api/drafts/{draft.pk}/undo/", {"result_object_id": other.pk, "id": other.pk}, format="json")
    assert Notiz.objects.filter(pk=other.pk).exists()
    assert Notiz.objects.count() == 1


def test_write_rate_limit_answers_429_in_german(api_client, draft, settings):
    settings.HELENA_RATELIMIT_WRITE = "2/m"
    api_client.force_login(draft.akte.anwalt)
    codes = [api_client.post(f"/api/drafts/{draft.pk}/accept/").status_code for _ in range(3)]
    assert codes == [200, 409, 429]
    response = api_client.post(f"/api/drafts/{draft.pk}/accept/")
    assert response.status_code == 429
    assert response.json()["detail"].startswith("Zu viele Anfragen")


def test_alerts_are_per_recipient_and_follow_akte_visibility(api_client):
    alert = HelenaAlertFactory()
    recipient = alert.recipient
    api_client.force_login(recipient)
    assert [a["id"] for a in api_client.get("/api/alerts/").json()["results"]] == [alert.pk]
    read = api_client.post(f"/api/alerts/{alert.pk}/read/")
    assert read.status_code == 200 and read.json()["read_at"]
    assert api_client.post(f"/api/alerts/{alert.pk}/dismiss/").json()["dismissed_at"]
    assert api_client.get("/api/alerts/", {"aktiv": "1"}).json()["results"] == []

    other = UserFactory(role=Role.ANWALT)
    api_client.force_login(other)
    assert api_client.get("/api/alerts/").json()["results"] == []
    assert api_client.get(f"/api/alerts/{alert.pk}/").status_code == 404
    assert api_client.post(f"/api/alerts/{alert.pk}/dismiss/").status_code == 404

    # The recipient loses access to the Akte: the alert disappears with it.
    alert.akte.anwalt = other
    alert.akte.save()
    api_client.force_login(recipient)
    assert api_client.get(f"/api/alerts/{alert.pk}/").status_code == 404


def test_a_sekretariats_general_note_can_be_resolved_by_her_and_by_nobody_outside(api_client):
    """A general note draft (no Akte) is visible to its requester only; a Sekretariat could neither
    accept nor reject it, so it waited for ever. It becomes her own note: she resolves it; an Akte's
    drafts still need an approver role."""
    sekretariat = UserFactory(role=Role.SEKRETARIAT)
    notiz = services.draft_create(typ="NOTIZ", akte=None, requested_by=sekretariat, payload={"text": "Toner bestellen"})
    verworfen = services.draft_create(typ="NOTIZ", akte=None, requested_by=sekretariat, payload={"text": "alt"})
    akte = AkteFactory()
    akte.dezernate.create(name="D").members.add(sekretariat)
    auf_akte = services.draft_create(typ="NOTIZ", akte=akte, requested_by=sekretariat, payload={"text": "Rückruf"})
    api_client.force_login(sekretariat)

    assert draft_card(notiz, viewer=sekretariat)["can_review"] is True
    assert api_client.post(f"/api/drafts/{notiz.pk}/accept/").status_code == 200
    assert Notiz.objects.get(akte=None).text == "Toner bestellen"
    assert api_client.post(f"/api/drafts/{notiz.pk}/undo/").status_code == 200
    assert api_client.post(f"/api/drafts/{verworfen.pk}/reject/", {"reason": "erledigt"}, format="json").status_code == 200
    assert api_client.post(f"/api/drafts/{auf_akte.pk}/accept/").status_code == 403
    assert draft_card(auf_akte, viewer=sekretariat)["can_review"] is False
    api_client.force_login(UserFactory(role=Role.ANWALT))
    assert api_client.post(f"/api/drafts/{notiz.pk}/accept/").status_code == 404


def test_accept_of_a_version_edited_since_is_refused(api_client, draft):
    """Endkontrolle: the approver's click applies to the version she saw; a colleague's edit in between
    makes it a 409 and creates nothing (review 2026-12-03)."""
    api_client.force_login(draft.akte.anwalt)  # the edit comes from her second tab (or a colleague)
    gesehen = api_client.get(f"/api/drafts/{draft.pk}/").json()["version"]
    assert gesehen == 0
    bearbeitet = api_client.patch(f"/api/drafts/{draft.pk}/", {"payload": {"text": "Mandant verzichtet."}}, format="json")
    assert bearbeitet.status_code == 200 and bearbeitet.json()["version"] == 1

    veraltet = api_client.post(f"/api/drafts/{draft.pk}/accept/", {"version": gesehen}, format="json")
    assert veraltet.status_code == 409 and "inzwischen geändert" in veraltet.json()["detail"]
    draft.refresh_from_db()
    assert draft.status == "PENDING"

    aktuell = api_client.post(f"/api/drafts/{draft.pk}/accept/", {"version": 1}, format="json")
    assert aktuell.status_code == 200 and aktuell.json()["status"] == "ACCEPTED"
    assert Notiz.objects.get(pk=aktuell.json()["result"]["id"]).text == "Mandant verzichtet."


def test_a_superuser_in_a_role_that_may_not_approve_does_not_approve(api_client, draft, settings):
    """Endkontrolle by role only (review 2026-12-03): a technical superuser in the Sekretariat role
    was allowed to approve whatever HELENA_APPROVER_ROLES said."""
    settings.HELENA_APPROVER_ROLES = ["ANWALT"]
    technik = UserFactory(role=Role.SEKRETARIAT, is_superuser=True, is_staff=True)
    api_client.force_login(technik)
    assert api_client.post(f"/api/drafts/{draft.pk}/accept/").status_code == 403
    draft.refresh_from_db()
    assert draft.status == "PENDING"
