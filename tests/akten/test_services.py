"""The writes of the Kanzlei domain: every service validates, saves and records the Aktenverlauf."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from akten import services
from akten.models import Akte, AktenActivity, Beteiligter, Dokument, KalenderEintrag, Notiz
from tests.factories import AgentRunFactory, AkteFactory, KontaktFactory, UserFactory

pytestmark = pytest.mark.django_db


def activities(akte: Akte) -> list[tuple[str, int | None]]:
    return list(AktenActivity.objects.filter(akte=akte).order_by("pk").values_list("typ", "actor_user_id"))


def test_akte_create_records_who_created_it():
    by = UserFactory()
    akte = services.akte_create(by=by, aktenzeichen="77/26", kurzrubrum="Müller ./. Schmidt", sachgebiet="MIETRECHT", anwalt=by)
    assert Akte.objects.get(pk=akte.pk).kurzrubrum == "Müller ./. Schmidt"
    assert activities(akte) == [(AktenActivity.Typ.AKTE_ANGELEGT, by.pk)]


def test_akte_create_refuses_an_invalid_sachgebiet_and_writes_nothing():
    with pytest.raises(ValidationError):
        services.akte_create(by=UserFactory(), aktenzeichen="78/26", kurzrubrum="X ./. Y", sachgebiet="UNBEKANNT")
    assert not Akte.objects.filter(aktenzeichen="78/26").exists()
    assert not AktenActivity.objects.exists()


def test_akte_update_returns_the_previous_values_and_records_before_and_after():
    akte = AkteFactory(wegen="Mietminderung", gegenstandswert=Decimal("1200.00"))
    before = services.akte_update(akte=akte, by=akte.anwalt, changes={"wegen": "Räumung", "gegenstandswert": Decimal("9600.00")})

    assert before == {"wegen": "Mietminderung", "gegenstandswert": "1200.00"}
    akte.refresh_from_db()
    assert (akte.wegen, akte.gegenstandswert) == ("Räumung", Decimal("9600.00"))
    activity = AktenActivity.objects.get(akte=akte, typ=AktenActivity.Typ.AKTE_GEAENDERT)
    assert activity.data["after"] == {"wegen": "Räumung", "gegenstandswert": "9600.00"}
    assert activity.actor_user == akte.anwalt


def test_akte_update_refuses_fields_that_are_not_editable():
    akte = AkteFactory()
    with pytest.raises(ValueError, match="aktenzeichen"):
        services.akte_update(akte=akte, by=akte.anwalt, changes={"aktenzeichen": "1/99"})
    assert not AktenActivity.objects.filter(akte=akte).exists()


def test_kalender_eintrag_create_defaults_the_responsible_person_to_the_author():
    akte = AkteFactory()
    eintrag = services.kalender_eintrag_create(
        akte=akte,
        by=akte.anwalt,
        typ=KalenderEintrag.Typ.FRIST,
        titel="Berufungsbegründung",
        datum=datetime.date(2026, 11, 23),
        fristablauf=datetime.date(2027, 1, 25),
        notfrist=True,
    )
    assert eintrag.verantwortlich == akte.anwalt and eintrag.notfrist
    assert activities(akte) == [(AktenActivity.Typ.KALENDER_ANGELEGT, akte.anwalt.pk)]


def test_notiz_create_records_activity_only_for_notes_on_an_akte():
    akte = AkteFactory()
    services.notiz_create(akte=akte, by=akte.anwalt, text="Mandantin ruft zurück")
    general = services.notiz_create(akte=None, by=akte.anwalt, text="Kanzleiausflug planen")
    assert general.akte is None and Notiz.objects.count() == 2
    assert activities(akte) == [(AktenActivity.Typ.NOTIZ_ANGELEGT, akte.anwalt.pk)]


def test_activity_record_names_the_run_when_helena_acted():
    akte = AkteFactory()
    run = AgentRunFactory(user=akte.anwalt, akte=akte)
    services.activity_record(akte=akte, typ=AktenActivity.Typ.ENTWURF_ERSTELLT, beschreibung="Entwurf", run=run)
    activity = AktenActivity.objects.get(akte=akte)
    assert activity.actor_run == run and activity.actor_user is None


def test_zeiterfassung_create_books_for_the_author_unless_someone_else_is_named():
    kollegin = UserFactory()
    akte = AkteFactory(sachbearbeiter=kollegin)  # time is booked only for someone who works on the Akte
    own = services.zeiterfassung_create(
        akte=akte, by=akte.anwalt, datum=datetime.date(2026, 11, 23), minuten=30, beschreibung="Telefonat"
    )
    other = services.zeiterfassung_create(
        akte=akte, by=akte.anwalt, user=kollegin, datum=datetime.date(2026, 11, 23), minuten=15, beschreibung="Akte gelesen"
    )
    assert (own.user, other.user) == (akte.anwalt, kollegin)
    assert [typ for typ, _ in activities(akte)] == [AktenActivity.Typ.ZEIT_ERFASST, AktenActivity.Typ.ZEIT_ERFASST]


def test_dokument_create_extracts_the_text_and_records_the_upload(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    akte = AkteFactory()
    dokument = services.dokument_create(
        akte=akte, by=akte.anwalt, name="Kündigung", filename="kuendigung.txt", content="Hiermit kündige ich.".encode()
    )
    assert dokument.text_status == Dokument.TextStatus.OK and "kündige" in dokument.text
    assert dokument.groesse == len("Hiermit kündige ich.".encode())
    assert activities(akte) == [(AktenActivity.Typ.DOKUMENT_HOCHGELADEN, akte.anwalt.pk)]


def test_dokument_create_refuses_an_empty_file():
    akte = AkteFactory()
    with pytest.raises(ValueError):
        services.dokument_create(akte=akte, by=akte.anwalt, name="Leer", filename="leer.txt", content=b"")
    assert not Dokument.objects.exists()


def test_dokument_create_keeps_a_failed_extraction_visible(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    akte = AkteFactory()
    dokument = services.dokument_create(
        akte=akte, by=akte.anwalt, name="Kaputt", filename="kaputt.pdf", content=b"%PDF-1.4 kein echtes PDF"
    )
    assert dokument.text_status == Dokument.TextStatus.FEHLER and dokument.text_fehler


def test_beteiligter_add_names_the_role_in_the_aktenverlauf():
    akte = AkteFactory()
    kontakt = KontaktFactory(vorname="Erika", nachname="Mustermann")
    beteiligter = services.beteiligter_add(akte=akte, by=akte.anwalt, kontakt=kontakt, rolle=Beteiligter.Rolle.MANDANT)
    assert beteiligter.akte == akte
    activity = AktenActivity.objects.get(akte=akte)
    assert "Mustermann" in activity.beschreibung and activity.data == {"beteiligter": beteiligter.pk}
