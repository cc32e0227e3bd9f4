"""Review 2026-12-03 of the draft lifecycle: rules a tool applied that the human path (edit, then
accept through the API or the admin) skipped, and what a draft shows to whom."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from akten.models import Akte, Beteiligter, KalenderEintrag, Role, User, Zeiterfassung
from drafts import services
from drafts.models import HelenaDraft
from rechner.fristen import ist_werktag
from tests.factories import AkteFactory, BeteiligterFactory, UserFactory
from tests.support.dates import next_workday

pytestmark = pytest.mark.django_db


def _mandant_of(akte: Akte) -> User:
    mandant = UserFactory(role=Role.MANDANT)
    BeteiligterFactory(akte=akte, kontakt=mandant.kontakt, rolle=Beteiligter.Rolle.MANDANT)
    assert Akte.objects.visible_to(mandant).filter(pk=akte.pk).exists()
    return mandant


def _frist_payload(**extra: object) -> dict[str, object]:
    return {
        "typ": "TERMIN",
        "titel": "Besprechung",
        "datum": next_workday(10).isoformat(),
        "uhrzeit": "10:00:00",
        **extra,
    }


# --- a client login is never responsible for a calendar entry -------------------------------------


def test_a_mandant_is_never_made_responsible_for_a_calendar_entry(api_client):
    """A Mandant sees her Akte, so "may see the Akte" let her through as the responsible person: the
    Kanzlei's Termin then named a client login as its owner (the admin's person choices, the card's
    list and the API never offer one)."""
    akte = AkteFactory()
    mandant = _mandant_of(akte)
    with pytest.raises(services.DraftInvalid):
        services.draft_create(
            typ="FRIST", akte=akte, requested_by=akte.anwalt, payload=_frist_payload(verantwortlich_id=mandant.pk)
        )

    draft = services.draft_create(typ="FRIST", akte=akte, requested_by=akte.anwalt, payload=_frist_payload())
    api_client.force_login(akte.anwalt)
    response = api_client.patch(
        f"/api/drafts/{draft.pk}/", {"payload": _frist_payload(verantwortlich_id=mandant.pk)}, format="json"
    )
    assert response.status_code == 400, response.content
    assert "verantwortliche Person" in response.json()["detail"]
    assert api_client.post(f"/api/drafts/{draft.pk}/accept/").status_code == 200
    assert KalenderEintrag.objects.get().verantwortlich == akte.anwalt


def test_a_draft_naming_a_mandant_as_responsible_is_not_accepted():
    """A draft stored before the rule (or written past the service) is checked again on approval."""
    akte = AkteFactory()
    mandant = _mandant_of(akte)
    draft = HelenaDraft.objects.create(
        typ="FRIST",
        akte=akte,
        requested_by=akte.anwalt,
        titel="Besprechung",
        payload=_frist_payload(verantwortlich_id=mandant.pk),
    )
    with pytest.raises(services.DraftInvalid):
        services.draft_accept(draft_id=draft.pk, by=akte.anwalt)
    assert not KalenderEintrag.objects.exists()


def test_the_frist_tool_refuses_a_mandant_as_responsible_person():
    from agent.tools.base import ToolContext
    from agent.tools.common import ToolError
    from agent.tools.write import create_draft_frist

    akte = AkteFactory()
    mandant = _mandant_of(akte)
    params = create_draft_frist.CreateDraftFristParams(
        akte=akte.aktenzeichen,
        typ="TERMIN",
        titel="Besprechung",
        datum=next_workday(10),
        verantwortlich_id=mandant.pk,
    )
    with pytest.raises(ToolError):
        create_draft_frist.execute(ToolContext(user=akte.anwalt, akte=akte), params)
    assert not HelenaDraft.objects.exists()


# --- an Akte update edited to empty a required field ----------------------------------------------


@pytest.mark.parametrize("field", ["kurzrubrum", "wegen", "sachgebiet", "status", "notizen", "zusammenfassung", "tags"])
def test_an_akte_update_edited_to_null_is_refused_on_edit_not_a_500_on_accept(api_client, field):
    """update_akte refuses null for these fields; the edit took it, and the approval then failed
    in the Akte's full_clean with a server error (API 500, admin error page)."""
    akte = AkteFactory()
    draft = services.draft_create(
        typ="AKTE_UPDATE", akte=akte, requested_by=akte.anwalt, payload={"changes": {"wegen": "Räumung"}}
    )
    api_client.force_login(akte.anwalt)
    response = api_client.patch(f"/api/drafts/{draft.pk}/", {"payload": {"changes": {field: None}}}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["detail"].startswith("Der Entwurf ist ungültig")
    draft.refresh_from_db()
    assert draft.payload == {"changes": {"wegen": "Räumung"}}


def test_gegenstandswert_may_still_be_emptied_by_an_akte_update():
    akte = AkteFactory()
    draft = services.draft_create(
        typ="AKTE_UPDATE", akte=akte, requested_by=akte.anwalt, payload={"changes": {"gegenstandswert": None}}
    )
    services.draft_accept(draft_id=draft.pk, by=akte.anwalt)
    akte.refresh_from_db()
    assert akte.gegenstandswert is None


# --- time is recorded for days that have happened -------------------------------------------------


def test_a_time_entry_edited_into_the_future_is_refused(api_client):
    """create_draft_zeiterfassung refuses a future day; the edit took one and approval booked it."""
    akte = AkteFactory()
    today = timezone.localdate()
    payload = {"datum": today.isoformat(), "minuten": 30, "beschreibung": "Telefonat"}
    draft = services.draft_create(typ="ZEITERFASSUNG", akte=akte, requested_by=akte.anwalt, payload=payload)
    api_client.force_login(akte.anwalt)
    future = {**payload, "datum": (today + datetime.timedelta(days=3)).isoformat()}
    response = api_client.patch(f"/api/drafts/{draft.pk}/", {"payload": future}, format="json")
    assert response.status_code == 400, response.content
    assert "Zukunft" in response.json()["detail"]
    with pytest.raises(services.DraftInvalid):
        services.draft_create(typ="ZEITERFASSUNG", akte=akte, requested_by=akte.anwalt, payload=future)
    assert api_client.post(f"/api/drafts/{draft.pk}/accept/").status_code == 200
    assert Zeiterfassung.objects.get().datum == today


# --- a client login proposes no draft and sees none ------------------------------------------------


def test_a_mandant_proposes_no_draft_even_where_the_tool_matrix_would_let_her():
    """The matrix is edited in the admin; the rule that a MANDANT proposes nothing is the service's
    (the Fristenrechner and Kostennote pages checked it themselves, the tools did not)."""
    from agent.tools.base import ToolContext
    from agent.tools.common import ToolError
    from agent.tools.write import create_notiz

    akte = AkteFactory()
    mandant = _mandant_of(akte)
    with pytest.raises(services.DraftPermissionDenied):
        services.draft_create(typ="NOTIZ", akte=akte, requested_by=mandant, payload={"text": "Bitte zurückrufen"})
    for akte_ref in (akte.aktenzeichen, None):
        params = create_notiz.CreateNotizParams(akte=akte_ref, allgemein=akte_ref is None, text="Bitte zurückrufen")
        with pytest.raises(ToolError):
            create_notiz.execute(ToolContext(user=mandant, akte=akte), params)
    assert not HelenaDraft.objects.exists()


def test_a_mandant_sees_not_even_a_general_draft_requested_in_her_name(api_client):
    mandant = _mandant_of(AkteFactory())
    draft = HelenaDraft.objects.create(
        typ="NOTIZ", akte=None, requested_by=mandant, titel="Notiz", payload={"text": "INTERN-ENTWURF"}
    )
    api_client.force_login(mandant)
    assert api_client.get("/api/drafts/").json()["results"] == []
    assert api_client.get(f"/api/drafts/{draft.pk}/").status_code == 404
    assert api_client.patch(f"/api/drafts/{draft.pk}/", {"payload": {"text": "x"}}, format="json").status_code == 404


def test_a_deactivated_account_sees_none_of_its_general_drafts_and_alerts_on_a_loaded_user():
    """An open socket holds the user as loaded at connect: the access rule reads the account as it
    is now for Akte-bound drafts, and so for general ones (a card of a general note would otherwise
    still reach the socket when the note is rejected in the admin)."""
    from drafts.selectors import alert_list, draft_list, drafts_by_ids
    from tests.factories import HelenaAlertFactory

    user = UserFactory(role=Role.ANWALT)
    draft = services.draft_create(typ="NOTIZ", akte=None, requested_by=user, payload={"text": "Privat"})
    HelenaAlertFactory(akte=None, recipient=user)
    assert list(draft_list(user=user)) == [draft]
    assert alert_list(user=user).count() == 1

    User.objects.filter(pk=user.pk).update(is_active=False)  # `user` stays as loaded
    assert list(draft_list(user=user)) == []
    assert list(drafts_by_ids(user=user, draft_ids=[draft.pk])) == []
    assert alert_list(user=user).count() == 0


# --- undo -----------------------------------------------------------------------------------------


def test_undo_needs_a_role_that_may_approve():
    akte = AkteFactory()
    draft = services.draft_create(typ="NOTIZ", akte=akte, requested_by=akte.anwalt, payload={"text": "Rückruf"})
    services.draft_accept(draft_id=draft.pk, by=akte.anwalt)
    User.objects.filter(pk=akte.anwalt.pk).update(role=Role.PRAKTIKANT)
    reviewer = User.objects.get(pk=akte.anwalt.pk)
    with pytest.raises(services.DraftPermissionDenied):
        services.draft_undo(draft_id=draft.pk, by=reviewer)
    draft.refresh_from_db()
    assert draft.status == HelenaDraft.Status.ACCEPTED


def test_an_undo_that_rolls_back_keeps_the_documents_file(monkeypatch, django_capture_on_commit_callbacks):
    from akten import services as akten_services
    from akten.models import AktenActivity, Dokument

    akte = AkteFactory()
    draft = services.draft_create(
        typ="DOKUMENT", akte=akte, requested_by=akte.anwalt, payload={"titel": "Brief", "inhalt_markdown": "Text"}
    )
    services.draft_accept(draft_id=draft.pk, by=akte.anwalt)
    dokument = Dokument.objects.get()
    files = [dokument.datei, *(v.datei for v in dokument.versionen.all())]
    assert all(f.storage.exists(f.name) for f in files)

    record = akten_services.activity_record

    def failing_record(**kwargs):
        if kwargs["typ"] == AktenActivity.Typ.ENTWURF_RUECKGAENGIG:
            raise RuntimeError("Datenbank weg")
        return record(**kwargs)

    monkeypatch.setattr(akten_services, "activity_record", failing_record)
    with pytest.raises(RuntimeError):
        services.draft_undo(draft_id=draft.pk, by=akte.anwalt)
    assert Dokument.objects.filter(pk=dokument.pk).exists()
    assert all(f.storage.exists(f.name) for f in files), "the rolled-back Dokument lost its file"

    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        services.draft_undo(draft_id=draft.pk, by=akte.anwalt)
    assert not Dokument.objects.exists()
    assert not any(f.storage.exists(f.name) for f in files), "control: a committed undo deletes the files"


# --- a computed Frist is never moved later by an edit ---------------------------------------------


def _computed_frist(akte: Akte) -> HelenaDraft:
    from agent.tools.base import ToolContext
    from agent.tools.fristen import FristBerechnung
    from agent.tools.write import create_draft_frist

    params = create_draft_frist.CreateDraftFristParams(
        akte=akte.aktenzeichen,
        typ="FRIST",
        titel="Berufungsfrist",
        datum=timezone.localdate(),
        berechnung=FristBerechnung(vorlage="berufung", bundesland="NW"),
    )
    result = create_draft_frist.execute(ToolContext(user=akte.anwalt, akte=akte), params)
    assert result.ok, result.error
    return HelenaDraft.objects.get(pk=result.data["draft_id"])


def _later_workday(day: datetime.date) -> datetime.date:
    later = day + datetime.timedelta(days=7)
    while not ist_werktag(later, "NW"):
        later += datetime.timedelta(days=1)
    return later


def test_an_edit_cannot_move_a_computed_fristablauf_later(api_client):
    """create_draft_frist refuses a Fristablauf that contradicts the Fristenrechner; the edit took any
    later working day (and dropped the Notfrist), and approval entered it in the calendar."""
    akte = AkteFactory()
    draft = _computed_frist(akte)
    computed = datetime.date.fromisoformat(draft.payload["fristablauf"])
    assert draft.payload["notfrist"] is True
    api_client.force_login(akte.anwalt)

    later = {**draft.payload, "fristablauf": _later_workday(computed).isoformat()}
    dropped = {k: v for k, v in later.items() if k != "berechnung"}  # the key left out does not help
    for payload in (later, dropped):
        response = api_client.patch(f"/api/drafts/{draft.pk}/", {"payload": payload}, format="json")
        assert response.status_code == 400, response.content
        assert "nach dem berechneten Fristablauf" in response.json()["detail"]
    for payload, fragment in (
        ({**draft.payload, "notfrist": False}, "Notfrist"),
        ({**draft.payload, "typ": "WIEDERVORLAGE", "fristablauf": None, "notfrist": False}, "bleibt eine Frist"),
    ):
        response = api_client.patch(f"/api/drafts/{draft.pk}/", {"payload": payload}, format="json")
        assert response.status_code == 400, response.content
        assert fragment in response.json()["detail"]

    earlier = computed - datetime.timedelta(days=1)
    while not ist_werktag(earlier, "NW"):
        earlier -= datetime.timedelta(days=1)
    edit = {k: v for k, v in draft.payload.items() if k != "berechnung"} | {"fristablauf": earlier.isoformat(), "vorfrist": None}
    response = api_client.patch(f"/api/drafts/{draft.pk}/", {"payload": edit}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["payload"]["berechnung"] == draft.payload["berechnung"]
    assert api_client.post(f"/api/drafts/{draft.pk}/accept/", {"version": 1}, format="json").status_code == 200
    assert KalenderEintrag.objects.get().fristablauf == earlier


def test_a_stored_frist_later_than_its_computation_is_not_accepted():
    akte = AkteFactory()
    draft = _computed_frist(akte)
    computed = datetime.date.fromisoformat(draft.payload["fristablauf"])
    HelenaDraft.objects.filter(pk=draft.pk).update(payload={**draft.payload, "fristablauf": _later_workday(computed).isoformat()})
    with pytest.raises(services.DraftInvalid):
        services.draft_accept(draft_id=draft.pk, by=akte.anwalt)
    assert not KalenderEintrag.objects.exists()


def test_a_frist_without_computation_carries_no_empty_computation_to_edit():
    akte = AkteFactory()
    payload = {
        "typ": "FRIST",
        "titel": "Frist",
        "datum": timezone.localdate().isoformat(),
        "fristablauf": next_workday(20).isoformat(),
    }
    draft = services.draft_create(typ="FRIST", akte=akte, requested_by=akte.anwalt, payload=payload)
    assert "berechnung" not in draft.payload
    edited = services.draft_edit(
        draft_id=draft.pk, by=akte.anwalt, payload={**payload, "fristablauf": next_workday(25).isoformat()}
    )
    assert "berechnung" not in edited.payload
