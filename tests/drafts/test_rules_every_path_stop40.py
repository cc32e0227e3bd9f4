"""Rules of a record hold on every path to it (prober, stop 40): the 24 hours of a person's day in
the admin (add and change) and under two concurrent approvals, a released document's own title in
the API upload, the person a time draft books for as they are when it is approved, and the undo's
documentation saying who may undo."""

from __future__ import annotations

import datetime
import threading

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from akten.models import Beteiligter, Dokument, Role, User, Zeiterfassung
from drafts import services
from drafts.models import HelenaDraft
from tests.factories import AkteFactory, BeteiligterFactory, UserFactory, ZeiterfassungFactory

pytestmark = pytest.mark.django_db


def _staff(*codenames: str) -> User:
    user = UserFactory(role=Role.SEKRETARIAT, is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return user


@pytest.fixture
def zeit_admin(client):
    staff = _staff("view_zeiterfassung", "add_zeiterfassung", "change_zeiterfassung")
    akte = AkteFactory(sachbearbeiter=staff)
    client.force_login(staff)
    return staff, akte


def _zeit_daten(akte, user, minuten: int, tag: datetime.date) -> dict[str, object]:
    return {
        "akte": akte.pk,
        "user": user.pk,
        "datum": f"{tag:%d.%m.%Y}",
        "minuten": minuten,
        "beschreibung": "Schriftsatz",
        "abrechenbar": "on",
        "stundensatz": "",
    }


def test_admin_add_refuses_a_day_of_more_than_24_hours(client, zeit_admin):
    staff, akte = zeit_admin
    gestern = timezone.localdate() - datetime.timedelta(days=1)
    url = reverse("admin:akten_zeiterfassung_add")
    assert client.post(url, _zeit_daten(akte, staff, 1000, gestern)).status_code == 302
    antwort = client.post(url, _zeit_daten(akte, staff, 1000, gestern))
    assert antwort.status_code == 200
    assert "mehr als 24 Stunden" in antwort.content.decode()
    assert list(Zeiterfassung.objects.values_list("minuten", flat=True)) == [1000]


def test_admin_change_counts_the_day_without_the_record_changed(client, zeit_admin):
    staff, akte = zeit_admin
    gestern = timezone.localdate() - datetime.timedelta(days=1)
    ZeiterfassungFactory(akte=akte, user=staff, datum=gestern, minuten=1000)
    eintrag = ZeiterfassungFactory(akte=akte, user=staff, datum=gestern, minuten=400)
    url = reverse("admin:akten_zeiterfassung_change", args=[eintrag.pk])
    antwort = client.post(url, _zeit_daten(akte, staff, 1400, gestern))
    assert antwort.status_code == 200 and "mehr als 24 Stunden" in antwort.content.decode()
    eintrag.refresh_from_db()
    assert eintrag.minuten == 400
    # 1000 + 440 is a full day: the record's own 400 stored minutes do not count twice
    assert client.post(url, _zeit_daten(akte, staff, 440, gestern)).status_code == 302
    eintrag.refresh_from_db()
    assert eintrag.minuten == 440


def _zeit_entwurf(akte, person: User, minuten: int) -> HelenaDraft:
    payload = {"datum": f"{timezone.localdate():%Y-%m-%d}", "minuten": minuten, "beschreibung": "Aktenstudium"}
    return services.draft_create(typ=HelenaDraft.Typ.ZEITERFASSUNG, akte=akte, requested_by=person, payload=payload)


def _wartet_auf_sperre(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = %s AND NOT granted)", [pid])
        return bool(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_approvals_never_book_more_than_24_hours_for_one_day():
    """The first approval stays uncommitted until the second has finished or waits for a lock: without
    a lock per person the second sums the day without the first's 1000 minutes and books 2000."""
    akte = AkteFactory()
    erster, zweiter = (_zeit_entwurf(akte, akte.anwalt, 1000) for _ in range(2))
    admin = UserFactory(role=Role.ADMIN)
    erster_gebucht, freigeben = threading.Event(), threading.Event()
    pid_zweiter: list[int] = []
    ergebnis: dict[str, str] = {}

    def erste_uebernahme() -> None:
        try:
            with transaction.atomic():
                services.draft_accept(draft_id=erster.pk, by=akte.anwalt)
                ergebnis["erster"] = "übernommen"
                erster_gebucht.set()
                freigeben.wait(timeout=30)
        finally:
            erster_gebucht.set()
            connection.close()

    def zweite_uebernahme() -> None:
        try:
            erster_gebucht.wait(timeout=30)
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                pid_zweiter.append(cursor.fetchone()[0])
            services.draft_accept(draft_id=zweiter.pk, by=admin)
            ergebnis["zweiter"] = "übernommen"
        except services.DraftInvalid as fehler:
            ergebnis["zweiter"] = fehler.message
        finally:
            connection.close()

    threads = [threading.Thread(target=erste_uebernahme), threading.Thread(target=zweite_uebernahme)]
    for thread in threads:
        thread.start()
    for _ in range(600):  # until the second approval is done or waits for the first's lock
        threads[1].join(timeout=0.05)
        if not threads[1].is_alive() or (pid_zweiter and _wartet_auf_sperre(pid_zweiter[0])):
            break
    freigeben.set()
    for thread in threads:
        thread.join(timeout=30)

    assert ergebnis["erster"] == "übernommen"
    assert "mehr als 24 Stunden" in ergebnis["zweiter"]
    assert sum(Zeiterfassung.objects.filter(user=akte.anwalt).values_list("minuten", flat=True)) == 1000
    assert HelenaDraft.objects.get(pk=zweiter.pk).status == HelenaDraft.Status.PENDING


def _released_upload(api_client, *, name: str, dateiname: str, inhalt: bytes):
    """POST /api/dokumente/ of a text file released to the Mandantschaft, by the Akte's Anwalt."""
    akte = AkteFactory()
    api_client.force_login(akte.anwalt)
    return api_client.post(
        "/api/dokumente/",
        {
            "akte": akte.pk,
            "name": name,
            "mandant_sichtbar": "true",
            "datei": SimpleUploadedFile(dateiname, inhalt, content_type="text/plain"),
        },
        format="multipart",
    )


@pytest.mark.parametrize("name", ["Entwurf_intern_v3.txt", "entwurf_intern_v3.TXT", "Anlage.txt", ""])
def test_api_upload_released_under_the_file_name_is_refused(api_client, name):
    antwort = _released_upload(api_client, name=name, dateiname="Entwurf_intern_v3.txt", inhalt=b"Interner Entwurf.")
    assert antwort.status_code == 400, antwort.content
    assert "Gib dem Dokument einen Titel" in antwort.content.decode()
    assert not Dokument.objects.exists()


def test_api_upload_released_under_a_title_of_its_own_is_stored(api_client):
    antwort = _released_upload(api_client, name="Vergleichsvorschlag", dateiname="Entwurf_intern_v3.txt", inhalt=b"Vergleich.")
    assert antwort.status_code == 201, antwort.content
    assert Dokument.objects.get().mandant_sichtbar


@pytest.mark.parametrize(("name", "status"), [("Vertrag", 201), ("Vertrag.txt", 400)])
def test_a_file_without_extension_is_judged_by_the_name_it_is_stored_under(api_client, name, status):
    """A scan without an extension is stored as "Vertrag.txt": "Vertrag" was refused as its file name
    before the extension was added, while the same title passed for a file named "Vertrag.txt"."""
    antwort = _released_upload(api_client, name=name, dateiname="Vertrag", inhalt=b"Vertragstext.")
    assert antwort.status_code == status, antwort.content
    assert Dokument.objects.filter(mandant_sichtbar=True).count() == (1 if status == 201 else 0)


def _mandantin(person: User, akte) -> None:
    """Now the Mandantin of this Akte: she sees it, but books no time."""
    person.role, person.kontakt = Role.MANDANT, BeteiligterFactory(akte=akte, rolle=Beteiligter.Rolle.MANDANT).kontakt
    person.save()


def _deaktiviert(person: User, akte) -> None:
    person.is_active = False
    person.save()


def _ohne_zugriff(person: User, akte) -> None:
    akte.sachbearbeiter = UserFactory(role=Role.SACHBEARBEITER)
    akte.save()


@pytest.mark.parametrize("aenderung", [_mandantin, _deaktiviert, _ohne_zugriff])
def test_approval_refuses_time_for_a_person_who_may_no_longer_work_on_the_akte(api_client, aenderung):
    person = UserFactory(role=Role.SACHBEARBEITER)
    akte = AkteFactory(sachbearbeiter=person)
    entwurf = _zeit_entwurf(akte, person, 60)
    aenderung(person, akte)
    api_client.force_login(akte.anwalt)
    antwort = api_client.post(f"/api/drafts/{entwurf.pk}/accept/", {}, format="json")
    assert antwort.status_code == 400, antwort.content
    assert "kann keine Zeit erfasst werden" in antwort.content.decode()
    assert not Zeiterfassung.objects.exists()
    entwurf.refresh_from_db()
    assert entwurf.status == HelenaDraft.Status.PENDING


def test_admin_books_no_time_for_someone_outside_the_akte(client, zeit_admin):
    staff, akte = zeit_admin
    gestern = timezone.localdate() - datetime.timedelta(days=1)
    antwort = client.post(reverse("admin:akten_zeiterfassung_add"), _zeit_daten(akte, UserFactory(role=Role.ANWALT), 30, gestern))
    assert antwort.status_code == 200 and "kann keine Zeit erfasst werden" in antwort.content.decode()
    assert not Zeiterfassung.objects.exists()


def test_undo_documentation_names_who_may_undo():
    akte = AkteFactory()
    entwurf = _zeit_entwurf(akte, akte.anwalt, 30)
    services.draft_accept(draft_id=entwurf.pk, by=akte.anwalt)
    # an ADMIN who did not approve may undo: the documentation says so
    assert services.draft_undo(draft_id=entwurf.pk, by=UserFactory(role=Role.ADMIN)).status == HelenaDraft.Status.PENDING
    schema = SchemaGenerator().get_schema(request=None, public=True)
    beschreibung = schema["paths"]["/api/drafts/{id}/undo/"]["post"]["description"]
    assert "Administrator" in beschreibung
