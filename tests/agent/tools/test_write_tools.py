"""Write tools: each creates one PENDING HelenaDraft with its origin and returns a preview; none
creates or changes a final record (create_alert writes its notice directly, by design)."""

import datetime
from decimal import Decimal

import pytest
from django.utils import timezone

from agent.tools.base import ToolContext
from akten.models import Akte, AktenActivity, Dokument, KalenderEintrag, Notiz, Role, Zeiterfassung
from drafts.models import HelenaAlert, HelenaDraft
from drafts.services import draft_accept
from tests.factories import AgentRunFactory, AkteFactory, UserFactory

from .conftest import run_call

pytestmark = pytest.mark.django_db


def _workday(days: int) -> datetime.date:
    day = timezone.localdate() + datetime.timedelta(days=days)
    while day.weekday() >= 5 or (day.month, day.day) in ((1, 1), (5, 1), (10, 3), (12, 25), (12, 26)):
        day += datetime.timedelta(days=1)
    return day


@pytest.fixture
def akte(anwalt):
    return AkteFactory(aktenzeichen="12/25", kurzrubrum="Müller ./. Schmidt", anwalt=anwalt, status="OFFEN")


def _no_records(akte: Akte) -> None:
    assert not Dokument.objects.exists()
    assert not KalenderEintrag.objects.exists()
    assert not Notiz.objects.exists()
    assert not Zeiterfassung.objects.exists()


def test_create_draft_dokument_records_its_origin(anwalt, akte):
    from agent.tools.executor import toolbox_for

    run = AgentRunFactory(user=anwalt, akte=akte)
    ctx = ToolContext(user=anwalt, akte=akte, run=run)
    result = run_call(
        toolbox_for(ctx),
        "create_draft_dokument",
        {"titel": "Mahnung", "inhalt_markdown": "# Mahnung\n\nBitte zahlen."},
        "call-42",
    )
    assert result.ok
    draft = HelenaDraft.objects.get(pk=result.data["draft_id"])
    assert (draft.typ, draft.status, draft.akte, draft.requested_by) == ("DOKUMENT", "PENDING", akte, anwalt)
    assert (draft.origin_run, draft.origin_tool_call_id, draft.untrusted_input, draft.origin_step) == (
        run,
        "call-42",
        False,
        None,
    )
    assert draft.payload == {"titel": "Mahnung", "inhalt_markdown": "# Mahnung\n\nBitte zahlen.", "mandant_sichtbar": False}
    assert result.data["vorschau"]["anfang"].startswith("# Mahnung") and result.data["akte"]["aktenzeichen"] == "12/25"
    assert "Prüfung" in result.data["status"]
    assert AktenActivity.objects.filter(akte=akte, typ="ENTWURF_ERSTELLT", actor_run=run).exists()
    _no_records(akte)
    # Only the human approval turns the draft into the Dokument.
    draft_accept(draft_id=draft.pk, by=anwalt)
    assert Dokument.objects.get().name == "Mahnung"


def test_create_draft_dokument_validation(call, anwalt, akte):
    assert (
        "titel darf nicht leer sein"
        in call(anwalt, "create_draft_dokument", {"akte": "12/25", "titel": "", "inhalt_markdown": "x"}).error
    )
    blank = call(anwalt, "create_draft_dokument", {"akte": "12/25", "titel": "T", "inhalt_markdown": "   "})
    assert "inhalt_markdown darf nicht leer sein" in blank.error
    assert not HelenaDraft.objects.exists()


def test_create_draft_frist_with_fristenrechner(call, anwalt, akte):
    ereignis = _workday(1)
    result = call(
        anwalt,
        "create_draft_frist",
        {
            "akte": "12/25",
            "typ": "FRIST",
            "titel": "Berufungsfrist",
            "datum": ereignis.isoformat(),
            "berechnung": {"vorlage": "berufung", "bundesland": "NW"},
        },
    )
    assert result.ok, result.error
    draft = HelenaDraft.objects.get(pk=result.data["draft_id"])
    assert draft.typ == "FRIST" and draft.payload["typ"] == "FRIST" and draft.payload["notfrist"] is True
    fristablauf = datetime.date.fromisoformat(draft.payload["fristablauf"])
    assert fristablauf > ereignis and fristablauf.weekday() < 5
    assert datetime.date.fromisoformat(draft.payload["vorfrist"]) < fristablauf
    assert "§ 517 ZPO" in result.data["vorschau"]["berechnung"]["rechtsgrundlage"]
    _no_records(akte)


def test_create_draft_frist_termin_and_wiedervorlage(call, anwalt, akte):
    day = _workday(10)
    termin = call(
        anwalt,
        "create_draft_frist",
        {"akte": "12/25", "typ": "TERMIN", "titel": "Verhandlung", "datum": day.isoformat(), "uhrzeit": "09:30"},
    )
    assert termin.ok and HelenaDraft.objects.get(pk=termin.data["draft_id"]).payload["uhrzeit"] == "09:30:00"
    wv = call(
        anwalt,
        "create_draft_frist",
        {"akte": "12/25", "typ": "WIEDERVORLAGE", "titel": "Zahlungseingang prüfen", "datum": day.isoformat()},
    )
    assert wv.ok and wv.data["vorschau"]["verantwortlich"]
    _no_records(akte)


def test_create_draft_frist_validates_dates(call, anwalt, akte):
    base = {"akte": "12/25", "typ": "FRIST", "titel": "Frist"}
    today = timezone.localdate()
    saturday = today + datetime.timedelta(days=(5 - today.weekday()) % 7 or 7)
    weekend = call(anwalt, "create_draft_frist", {**base, "datum": today.isoformat(), "fristablauf": saturday.isoformat()})
    assert "fällt auf ein Wochenende" in weekend.error and "§ 193 BGB" in weekend.error
    past = call(anwalt, "create_draft_frist", {**base, "datum": "2020-01-02", "fristablauf": "2020-01-03"})
    assert "Der Fristablauf Freitag, 03.01.2020 liegt in der Vergangenheit" in past.error
    assert (
        "braucht 'fristablauf' oder 'berechnung'"
        in call(anwalt, "create_draft_frist", {**base, "datum": today.isoformat()}).error
    )
    monday = _workday(14)
    late_vorfrist = call(
        anwalt,
        "create_draft_frist",
        {
            **base,
            "datum": today.isoformat(),
            "fristablauf": monday.isoformat(),
            "vorfrist": (monday + datetime.timedelta(days=3)).isoformat(),
        },
    )
    assert "liegt nach dem Fristablauf" in late_vorfrist.error
    assert (
        "gilt nur für typ FRIST"
        in call(
            anwalt,
            "create_draft_frist",
            {**base, "typ": "TERMIN", "datum": monday.isoformat(), "berechnung": {"vorlage": "berufung"}},
        ).error
    )
    conflict = call(
        anwalt,
        "create_draft_frist",
        {
            **base,
            "datum": today.isoformat(),
            "fristablauf": _workday(2).isoformat(),
            "berechnung": {"dauer": 1, "einheit": "monate", "bundesland": "NW"},
        },
    )
    assert "widerspricht der Berechnung" in conflict.error
    old_termin = call(anwalt, "create_draft_frist", {**base, "typ": "TERMIN", "datum": "2020-05-05"})
    assert old_termin.error == "Das Datum Dienstag, 05.05.2020 liegt in der Vergangenheit. Prüfe das Datum (auch das Jahr)."
    assert not HelenaDraft.objects.exists()


def test_create_notiz_bound_general_and_from_run(call, anwalt, akte):
    bound = call(anwalt, "create_notiz", {"akte": "12/25", "titel": "Telefonat", "text": "Mandant ruft zurück."})
    general = call(anwalt, "create_notiz", {"text": "Fortbildung buchen"})
    from_run = call(anwalt, "create_notiz", {"text": "Zur Akte"}, akte=akte)
    forced_general = call(anwalt, "create_notiz", {"text": "Privat", "allgemein": True}, akte=akte)
    drafts = HelenaDraft.objects.in_bulk([r.data["draft_id"] for r in (bound, general, from_run, forced_general)])
    assert [drafts[r.data["draft_id"]].akte for r in (bound, general, from_run, forced_general)] == [akte, None, akte, None]
    assert general.data["akte"] == "allgemein (keine Akte)"
    _no_records(akte)


def test_create_draft_zeiterfassung(call, anwalt, akte):
    result = call(
        anwalt,
        "create_draft_zeiterfassung",
        {"akte": "12/25", "minuten": 45, "beschreibung": "Klageentwurf", "stundensatz": "250"},
    )
    draft = HelenaDraft.objects.get(pk=result.data["draft_id"])
    assert draft.payload == {
        "datum": timezone.localdate().isoformat(),
        "minuten": 45,
        "beschreibung": "Klageentwurf",
        "abrechenbar": True,
        "stundensatz": "250.00",
    }
    future = (timezone.localdate() + datetime.timedelta(days=1)).isoformat()
    assert (
        "liegt in der Zukunft"
        in call(anwalt, "create_draft_zeiterfassung", {"akte": "12/25", "minuten": 5, "beschreibung": "x", "datum": future}).error
    )
    assert (
        "minuten muss höchstens 1440 sein"
        in call(anwalt, "create_draft_zeiterfassung", {"akte": "12/25", "minuten": 2000, "beschreibung": "x"}).error
    )
    _no_records(akte)


def test_update_akte_proposes_and_changes_nothing(call, anwalt, akte):
    result = call(
        anwalt,
        "update_akte",
        {
            "akte": "12/25",
            "changes": {"status": "RUHEND", "gegenstandswert": "7500", "zusammenfassung": "Vergleich angeboten."},
            "begruendung": "Gespräch",
        },
    )
    assert result.ok, result.error
    aenderungen = {a["feld"]: (a["vorher"], a["nachher"]) for a in result.data["vorschau"]["aenderungen"]}
    assert aenderungen["Status"] == ("OFFEN", "RUHEND") and aenderungen["Gegenstandswert (EUR)"] == ("5400.00", "7500")
    akte.refresh_from_db()
    assert (akte.status, akte.gegenstandswert, akte.zusammenfassung) == ("OFFEN", Decimal("5400.00"), "")
    draft = HelenaDraft.objects.get(pk=result.data["draft_id"])
    assert draft.typ == "AKTE_UPDATE" and draft.payload["changes"]["status"] == "RUHEND"
    assert "Der Entwurf ändert kein Feld der Akte." in call(anwalt, "update_akte", {"akte": "12/25", "changes": {}}).error
    assert "Unbekanntes Sachgebiet" in call(anwalt, "update_akte", {"akte": "12/25", "changes": {"sachgebiet": "WELTRAUM"}}).error
    assert (
        "aktenzeichen ist kein Argument"
        in call(anwalt, "update_akte", {"akte": "12/25", "changes": {"aktenzeichen": "1/1"}}).error
    )


def test_create_alert_writes_the_notice_for_the_user_only(call, anwalt, akte):
    run = AgentRunFactory(user=anwalt)
    result = call(
        anwalt, "create_alert", {"typ": "FRIST_KRITISCH", "severity": 9, "titel": "Frist übermorgen", "akte": "12/25"}, run=run
    )
    alert = HelenaAlert.objects.get(pk=result.data["alert_id"])
    assert (alert.recipient, alert.akte, alert.origin_run, alert.severity) == (anwalt, akte, run, 9)
    assert not HelenaDraft.objects.exists()
    assert (
        "severity muss höchstens 10 sein"
        in call(anwalt, "create_alert", {"typ": "WIDERSPRUCH", "severity": 11, "titel": "x"}).error
    )
    _no_records(akte)


def test_sachbearbeiter_may_not_update_akte_but_may_draft(call):
    user = UserFactory(role=Role.SACHBEARBEITER)
    akte = AkteFactory(sachbearbeiter=user)
    assert (
        "steht dir nicht zur Verfügung"
        in call(user, "update_akte", {"akte": akte.aktenzeichen, "changes": {"status": "RUHEND"}}).error
    )
    assert call(user, "create_notiz", {"akte": akte.aktenzeichen, "text": "ok"}).ok
