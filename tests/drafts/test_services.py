import datetime
import threading
from decimal import Decimal

import pytest
from django.db import connection
from django.utils import timezone

from akten.models import Akte, AktenActivity, Dokument, KalenderEintrag, Notiz, Role, Zeiterfassung
from drafts import services
from drafts.models import HelenaDraft
from tests.factories import AgentRunFactory, AkteFactory, UserFactory
from tests.support.dates import next_workday

pytestmark = pytest.mark.django_db

TODAY = datetime.date(2026, 11, 23)


FRISTABLAUF = next_workday(30)
VORFRIST = FRISTABLAUF - datetime.timedelta(days=7)


def make_draft(typ, payload, akte=None, **kwargs):
    akte = akte if akte is not None else AkteFactory()
    return services.draft_create(typ=typ, akte=akte, requested_by=akte.anwalt, payload=payload, **kwargs)


def test_accept_dokument_stores_docx_with_title_content_and_markdown_source():
    run = AgentRunFactory()
    draft = make_draft("DOKUMENT", {"titel": "Klageerwiderung", "inhalt_markdown": "Die Klage ist **abzuweisen**."}, run=run)
    accepted = services.draft_accept(draft_id=draft.pk, by=draft.akte.anwalt)

    dokument = Dokument.objects.get(pk=accepted.result_object_id)
    assert dokument.akte == draft.akte
    assert dokument.mime_type == "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    assert dokument.datei.name.endswith(".docx")
    assert dokument.erstellt_von_helena
    with dokument.datei.open("rb") as handle:
        stored = handle.read()
    assert "Die Klage ist abzuweisen." in dokument.text
    assert "Klageerwiderung" in dokument.text
    assert dokument.groesse == len(stored)
    assert dokument.versionen.get().quelle_markdown == "Die Klage ist **abzuweisen**."
    assert accepted.status == HelenaDraft.Status.ACCEPTED
    assert accepted.reviewer == draft.akte.anwalt
    activity = AktenActivity.objects.get(akte=draft.akte, typ=AktenActivity.Typ.ENTWURF_UEBERNOMMEN)
    assert activity.actor_user == draft.akte.anwalt
    assert activity.data["origin_run"] == run.pk


@pytest.mark.parametrize("typ", ["FRIST", "TERMIN", "WIEDERVORLAGE"])
def test_accept_kalender_keeps_its_own_typ_and_dates(typ):
    payload = {"typ": typ, "titel": f"{typ} Test", "datum": "2026-11-23"}
    if typ == "FRIST":
        payload |= {"fristablauf": FRISTABLAUF.isoformat(), "vorfrist": VORFRIST.isoformat(), "notfrist": True}
    if typ == "TERMIN":
        payload |= {"uhrzeit": "09:30:00", "beschreibung": "Saal 12"}
    draft = make_draft("FRIST", payload)
    accepted = services.draft_accept(draft_id=draft.pk, by=draft.akte.anwalt)

    eintrag = KalenderEintrag.objects.get(pk=accepted.result_object_id)
    assert eintrag.typ == typ
    assert eintrag.titel == f"{typ} Test"
    assert eintrag.datum == TODAY
    if typ == "FRIST":
        assert (eintrag.fristablauf, eintrag.vorfrist, eintrag.notfrist) == (FRISTABLAUF, VORFRIST, True)
    if typ == "TERMIN":
        assert eintrag.uhrzeit == datetime.time(9, 30)
        assert eintrag.beschreibung == "Saal 12"


def test_accept_notiz_akte_bound_and_general():
    draft = make_draft("NOTIZ", {"titel": "Rückruf", "text": "Mandantin bittet um Rückruf."})
    notiz = Notiz.objects.get(pk=services.draft_accept(draft_id=draft.pk, by=draft.akte.anwalt).result_object_id)
    assert (notiz.akte, notiz.titel, notiz.text) == (draft.akte, "Rückruf", "Mandantin bittet um Rückruf.")

    user = UserFactory(role=Role.ANWALT)
    general = services.draft_create(typ="NOTIZ", akte=None, requested_by=user, payload={"text": "Allgemeiner Hinweis"})
    notiz = Notiz.objects.get(pk=services.draft_accept(draft_id=general.pk, by=user).result_object_id)
    assert notiz.akte is None and notiz.autor == user and notiz.text == "Allgemeiner Hinweis"


def test_accept_zeiterfassung_books_for_the_requesting_user():
    draft = make_draft(
        "ZEITERFASSUNG",
        {"datum": "2026-11-20", "minuten": 42, "beschreibung": "Schriftsatz", "abrechenbar": False, "stundensatz": "250.00"},
    )
    approver = UserFactory(role=Role.ANWALT)
    draft.akte.dezernate.create(name="Zivil").members.add(approver)
    eintrag = Zeiterfassung.objects.get(pk=services.draft_accept(draft_id=draft.pk, by=approver).result_object_id)
    assert (eintrag.user, eintrag.minuten, eintrag.beschreibung, eintrag.abrechenbar, eintrag.stundensatz) == (
        draft.akte.anwalt,
        42,
        "Schriftsatz",
        False,
        Decimal("250.00"),
    )
    assert eintrag.datum == datetime.date(2026, 11, 20)


def test_accept_akte_update_applies_exactly_the_proposed_fields():
    akte = AkteFactory(wegen="alt", gegenstandswert=Decimal("100.00"))
    draft = make_draft(
        "AKTE_UPDATE",
        {"changes": {"zusammenfassung": "Neuer Sachstand", "gegenstandswert": "2500.50", "status": "RUHEND"}},
        akte=akte,
    )
    services.draft_accept(draft_id=draft.pk, by=akte.anwalt)
    akte.refresh_from_db()
    assert (akte.zusammenfassung, akte.gegenstandswert, akte.status, akte.wegen) == (
        "Neuer Sachstand",
        Decimal("2500.50"),
        "RUHEND",
        "alt",
    )


@pytest.mark.parametrize(
    ("typ", "payload", "fragment"),
    [
        ("FRIST", {"typ": "FRIST", "titel": "x", "datum": "2026-11-23"}, "Fristablauf"),
        ("FRIST", {"typ": "TERMIN", "titel": "x", "datum": "2026-11-23", "notfrist": True}, "Notfrist"),
        ("FRIST", {"typ": "FRIST", "titel": "x", "datum": "2026-11-23", "fristablauf": "2026-11-01"}, "vor dem Datum"),
        (
            "FRIST",
            {
                "typ": "FRIST",
                "titel": "x",
                "datum": "2026-11-23",
                "fristablauf": FRISTABLAUF.isoformat(),
                "vorfrist": (FRISTABLAUF + datetime.timedelta(days=4)).isoformat(),
            },
            "Vorfrist",
        ),
        ("ZEITERFASSUNG", {"datum": "2026-11-23", "minuten": 0, "beschreibung": "x"}, "minuten"),
        ("AKTE_UPDATE", {"changes": {}}, "kein Feld"),
        ("AKTE_UPDATE", {"changes": {"aktenzeichen": "1/99"}}, "aktenzeichen"),
        ("DOKUMENT", {"titel": "", "inhalt_markdown": "x"}, "titel"),
    ],
)
def test_invalid_payloads_are_refused_in_german(typ, payload, fragment):
    with pytest.raises(services.DraftInvalid) as excinfo:
        make_draft(typ, payload)
    assert fragment in excinfo.value.message
    assert "ungültig" in excinfo.value.message


def test_second_accept_is_a_conflict_and_creates_nothing_more():
    draft = make_draft("NOTIZ", {"text": "Einmal"})
    services.draft_accept(draft_id=draft.pk, by=draft.akte.anwalt)
    with pytest.raises(services.DraftConflict):
        services.draft_accept(draft_id=draft.pk, by=draft.akte.anwalt)
    assert Notiz.objects.filter(text="Einmal").count() == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("typ", ["NOTIZ", "DOKUMENT", "AKTE_UPDATE"])
def test_concurrent_accepts_on_two_connections_create_exactly_one_record(typ):
    payloads = {
        "NOTIZ": {"text": "Parallel"},
        "DOKUMENT": {"titel": "Parallel", "inhalt_markdown": "Text"},
        "AKTE_UPDATE": {"changes": {"zusammenfassung": "Parallel"}},
    }
    draft = make_draft(typ, payloads[typ])
    approvers = [draft.akte.anwalt, UserFactory(role=Role.ADMIN)]
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def accept(user):
        try:
            barrier.wait()
            services.draft_accept(draft_id=draft.pk, by=user)
            outcomes.append("ok")
        except services.DraftConflict:
            outcomes.append("conflict")
        finally:
            connection.close()  # each thread has its own database connection

    threads = [threading.Thread(target=accept, args=(user,)) for user in approvers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(outcomes) == ["conflict", "ok"]
    assert AktenActivity.objects.filter(akte=draft.akte, typ=AktenActivity.Typ.ENTWURF_UEBERNOMMEN).count() == 1
    if typ == "NOTIZ":
        assert Notiz.objects.filter(text="Parallel").count() == 1
    if typ == "DOKUMENT":
        assert Dokument.objects.filter(name="Parallel").count() == 1
    if typ == "AKTE_UPDATE":
        assert AktenActivity.objects.filter(akte=draft.akte, typ=AktenActivity.Typ.AKTE_GEAENDERT).count() == 1


def test_approver_roles_are_enforced_and_configurable(settings):
    akte = AkteFactory()
    draft = make_draft("NOTIZ", {"text": "x"}, akte=akte)
    sekretariat = UserFactory(role=Role.SEKRETARIAT)
    akte.dezernate.create(name="D").members.add(sekretariat)
    with pytest.raises(services.DraftPermissionDenied):
        services.draft_accept(draft_id=draft.pk, by=sekretariat)
    settings.HELENA_APPROVER_ROLES = ["SEKRETARIAT"]
    services.draft_accept(draft_id=draft.pk, by=sekretariat)


def test_approver_of_another_akte_gets_not_found():
    draft = make_draft("NOTIZ", {"text": "x"})
    stranger = UserFactory(role=Role.ANWALT)
    with pytest.raises(services.DraftNotFound):
        services.draft_accept(draft_id=draft.pk, by=stranger)
    assert not Notiz.objects.filter(text="x").exists()


def test_edit_keeps_revision_history():
    draft = make_draft("NOTIZ", {"titel": "v1", "text": "erste Fassung"})
    services.draft_edit(draft_id=draft.pk, by=draft.akte.anwalt, payload={"titel": "v2", "text": "zweite Fassung"})
    edited = services.draft_edit(draft_id=draft.pk, by=draft.akte.anwalt, payload={"titel": "v3", "text": "dritte Fassung"})
    assert edited.payload == {"titel": "v3", "text": "dritte Fassung"}
    assert [(r.number, r.payload["text"]) for r in edited.revisions.all()] == [(1, "erste Fassung"), (2, "zweite Fassung")]
    with pytest.raises(services.DraftConflict, match="bearbeitet"):  # edited: only with the version reviewed
        services.draft_accept(draft_id=draft.pk, by=draft.akte.anwalt)
    notiz = Notiz.objects.get(pk=services.draft_accept(draft_id=draft.pk, by=draft.akte.anwalt, version=2).result_object_id)
    assert notiz.text == "dritte Fassung"


def test_reject_records_reason_and_categories_and_blocks_accept():
    draft = make_draft("NOTIZ", {"text": "x"})
    rejected = services.draft_reject(
        draft_id=draft.pk, by=draft.akte.anwalt, reason="Falsche Norm", categories=["INHALTLICH_FALSCH", "TON_STIL"]
    )
    assert rejected.status == HelenaDraft.Status.REJECTED
    assert rejected.rejection_categories == ["INHALTLICH_FALSCH", "TON_STIL"]
    assert rejected.rejection_reason == "Falsche Norm"
    with pytest.raises(services.DraftConflict):
        services.draft_accept(draft_id=draft.pk, by=draft.akte.anwalt)
    with pytest.raises(services.DraftInvalid):
        services.draft_reject(draft_id=make_draft("NOTIZ", {"text": "y"}).pk, by=draft.akte.anwalt)
    with pytest.raises(services.DraftInvalid):
        services.draft_reject(draft_id=draft.pk, by=draft.akte.anwalt, categories=["ERFUNDEN"])


@pytest.mark.parametrize("typ", ["DOKUMENT", "FRIST", "NOTIZ", "ZEITERFASSUNG"])
def test_undo_deletes_exactly_the_created_record(typ):
    payloads = {
        "DOKUMENT": {"titel": "Brief", "inhalt_markdown": "Text"},
        "FRIST": {"typ": "FRIST", "titel": "F", "datum": "2026-11-23", "fristablauf": FRISTABLAUF.isoformat()},
        "NOTIZ": {"text": "Notiz"},
        "ZEITERFASSUNG": {"datum": "2026-11-23", "minuten": 10, "beschreibung": "Telefonat"},
    }
    draft = make_draft(typ, payloads[typ])
    models = {"DOKUMENT": Dokument, "FRIST": KalenderEintrag, "NOTIZ": Notiz, "ZEITERFASSUNG": Zeiterfassung}
    model = models[typ]
    bystander = make_draft(typ, payloads[typ], akte=draft.akte)
    services.draft_accept(draft_id=bystander.pk, by=draft.akte.anwalt)
    accepted = services.draft_accept(draft_id=draft.pk, by=draft.akte.anwalt)
    created_pk = accepted.result_object_id
    before = model.objects.count()

    undone = services.draft_undo(draft_id=draft.pk, by=draft.akte.anwalt)

    assert undone.status == HelenaDraft.Status.PENDING and undone.result_object_id is None
    assert not model.objects.filter(pk=created_pk).exists()
    assert model.objects.count() == before - 1
    bystander.refresh_from_db()
    assert model.objects.filter(pk=bystander.result_object_id).exists()


def test_undo_restores_akte_fields_and_refuses_after_window(settings):
    akte = AkteFactory(zusammenfassung="vorher")
    draft = make_draft("AKTE_UPDATE", {"changes": {"zusammenfassung": "nachher"}}, akte=akte)
    services.draft_accept(draft_id=draft.pk, by=akte.anwalt)
    services.draft_undo(draft_id=draft.pk, by=akte.anwalt)
    akte.refresh_from_db()
    assert akte.zusammenfassung == "vorher"

    services.draft_accept(draft_id=draft.pk, by=akte.anwalt)
    HelenaDraft.objects.filter(pk=draft.pk).update(reviewed_at=timezone.now() - datetime.timedelta(seconds=121))
    with pytest.raises(services.DraftConflict) as excinfo:
        services.draft_undo(draft_id=draft.pk, by=akte.anwalt)
    assert "120 Sekunden" in excinfo.value.message


def test_undo_refuses_when_akte_changed_since():
    akte = AkteFactory(zusammenfassung="vorher")
    draft = make_draft("AKTE_UPDATE", {"changes": {"zusammenfassung": "nachher"}}, akte=akte)
    services.draft_accept(draft_id=draft.pk, by=akte.anwalt)
    Akte.objects.filter(pk=akte.pk).update(zusammenfassung="von Hand geändert")
    with pytest.raises(services.DraftConflict):
        services.draft_undo(draft_id=draft.pk, by=akte.anwalt)
    akte.refresh_from_db()
    assert akte.zusammenfassung == "von Hand geändert"


def test_only_the_reviewer_may_undo():
    draft = make_draft("NOTIZ", {"text": "x"})
    services.draft_accept(draft_id=draft.pk, by=draft.akte.anwalt)
    colleague = UserFactory(role=Role.ANWALT)
    draft.akte.dezernate.create(name="D").members.add(colleague)
    with pytest.raises(services.DraftPermissionDenied):
        services.draft_undo(draft_id=draft.pk, by=colleague)


def test_creation_and_each_status_change_are_announced_once_after_commit(django_capture_on_commit_callbacks):
    from drafts.events import draft_changed

    heard = []

    def listener(sender, *, draft_id, akte_id, requested_by_id, created, **kwargs):
        heard.append((draft_id, akte_id, requested_by_id, created))

    draft_changed.connect(listener, dispatch_uid="test-listener")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            draft = make_draft("NOTIZ", {"text": "Rückruf Mandantin"})
        assert heard == [(draft.pk, draft.akte_id, draft.requested_by_id, True)]
        heard.clear()
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            services.draft_reject(draft_id=draft.pk, by=draft.akte.anwalt, reason="falsche Akte")
        assert heard == []  # nothing before the commit
        for callback in callbacks:
            callback()
        assert heard == [(draft.pk, draft.akte_id, draft.requested_by_id, False)]
    finally:
        draft_changed.disconnect(dispatch_uid="test-listener")


def test_draft_titles_name_fields_in_german_and_are_never_cut_mid_word():
    akte = AkteFactory()
    update = make_draft("AKTE_UPDATE", {"changes": {"zusammenfassung": "Neu", "gegenstandswert": "10.00"}}, akte=akte)
    notiz = make_draft("NOTIZ", {"text": "Mandantin hat angerufen und bittet um Rückruf wegen der Räumungsfrist " * 3}, akte=akte)
    zeit = make_draft(
        "ZEITERFASSUNG",
        {
            "datum": "2026-11-20",
            "minuten": 30,
            "beschreibung": "Telefonat mit der Gegenseite über den Vergleichsvorschlag vom Montag",
        },
        akte=akte,
    )

    assert update.titel == "Änderung: Gegenstandswert (EUR), Sachstand / Zusammenfassung"
    assert notiz.titel.endswith("…") and len(notiz.titel) <= 80
    assert (
        notiz.titel[:-1] == " ".join(notiz.titel[:-1].split()) and notiz.titel[:-1].split()[-1] in notiz.payload["text"].split()
    )
    assert zeit.titel == "30 Min.: Telefonat mit der Gegenseite über den Vergleichsvorschlag…"


def test_the_verlauf_names_the_approver_once_and_helena_once(client):
    lawyer = UserFactory(role=Role.ANWALT, first_name="Anna", last_name="Berger", email="anna@kanzlei.example")
    akte = AkteFactory(anwalt=lawyer)
    run = AgentRunFactory(user=lawyer, akte=akte)
    draft = services.draft_create(
        typ="NOTIZ", akte=akte, requested_by=lawyer, run=run, payload={"titel": "Rückruf", "text": "Bitte zurückrufen."}
    )
    services.draft_accept(draft_id=draft.pk, by=lawyer)
    client.force_login(lawyer)

    html = client.get(f"/akten/{akte.pk}/").content.decode()
    verlauf = html.split('data-live="verlauf">')[1].split("</ol>")[0]

    entries = verlauf.split("</li>")[:-1]
    assert entries and "anna@kanzlei.example" not in verlauf
    for entry in entries:
        assert entry.count("Anna Berger") <= 1 and entry.count("Helena") <= 1, entry
    accepted = next(e for e in entries if "übernommen" in e)
    assert "Entwurf „Rückruf“ übernommen (Endkontrolle)" in accepted and "(Anna Berger)" in accepted


def test_undo_refuses_to_delete_a_frist_that_was_marked_erledigt_since():
    """Undo deleted the record whatever had happened to it within the undo window: a Frist marked
    erledigt by a colleague (with who and when) vanished with the undo."""
    from akten.services import kalender_eintrag_erledigen

    draft = make_draft(
        "FRIST", {"typ": "FRIST", "titel": "Berufungsfrist", "datum": "2026-11-23", "fristablauf": FRISTABLAUF.isoformat()}
    )
    accepted = services.draft_accept(draft_id=draft.pk, by=draft.akte.anwalt)
    kalender_eintrag_erledigen(eintrag_id=accepted.result_object_id, by=draft.akte.anwalt)

    with pytest.raises(services.DraftConflict) as excinfo:
        services.draft_undo(draft_id=draft.pk, by=draft.akte.anwalt)

    assert "„Berufungsfrist“ wurde seit der Übernahme geändert" in excinfo.value.message
    assert KalenderEintrag.objects.get(pk=accepted.result_object_id).erledigt
    draft.refresh_from_db()
    assert draft.status == HelenaDraft.Status.ACCEPTED


def test_undo_refuses_to_delete_a_document_that_got_a_new_version_since():
    from schriftgut.services import dokument_version_anlegen

    draft = make_draft("DOKUMENT", {"titel": "Brief", "inhalt_markdown": "Erste Fassung."})
    accepted = services.draft_accept(draft_id=draft.pk, by=draft.akte.anwalt)
    dokument = Dokument.objects.get(pk=accepted.result_object_id)
    dokument_version_anlegen(dokument=dokument, by=draft.akte.anwalt, markdown="Zweite Fassung.")

    with pytest.raises(services.DraftConflict):
        services.draft_undo(draft_id=draft.pk, by=draft.akte.anwalt)

    assert Dokument.objects.get(pk=dokument.pk).versionen.count() == 2


def test_undo_of_an_akte_change_is_refused_once_the_akte_was_saved_again():
    """Two drafts set the same status; undoing the first after the second was accepted would silently
    undo the second too (review 2026-12-03)."""
    akte = AkteFactory(status="OFFEN")
    erster = services.draft_create(
        typ="AKTE_UPDATE", akte=akte, requested_by=akte.anwalt, payload={"changes": {"status": "GESCHLOSSEN"}}
    )
    zweiter = services.draft_create(
        typ="AKTE_UPDATE", akte=akte, requested_by=akte.anwalt, payload={"changes": {"status": "GESCHLOSSEN"}}
    )
    services.draft_accept(draft_id=erster.pk, by=akte.anwalt)
    services.draft_accept(draft_id=zweiter.pk, by=akte.anwalt)
    with pytest.raises(services.DraftConflict):
        services.draft_undo(draft_id=erster.pk, by=akte.anwalt)
    akte.refresh_from_db()
    assert akte.status == "GESCHLOSSEN"
    services.draft_undo(draft_id=zweiter.pk, by=akte.anwalt)  # the last one can still be undone,
    akte.refresh_from_db()
    assert akte.status == "GESCHLOSSEN"  # back to what it was before it: the first one's value
