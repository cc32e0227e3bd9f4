"""Rules of a record hold on every path to it (prober, stop 40): the 24 hours of a person's day in
the admin (add and change) and under two concurrent approvals, a released document's own title in
the API upload, the person a time draft books for as they are when it is approved, and the undo's
documentation saying who may undo."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from akten.models import Role, User, Zeiterfassung
from tests.factories import AkteFactory, UserFactory, ZeiterfassungFactory

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
