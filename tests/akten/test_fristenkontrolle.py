"""Fristenkontrolle on the start page: the open Fristen (with Vorfristen) and Wiedervorlagen of the
user and their Dezernat, by date, overdue ones marked, "erledigt" with who and when."""

from __future__ import annotations

import datetime

import pytest
from django.http import Http404
from django.test import Client
from django.utils import timezone

from akten import selectors, services
from akten.models import Akte, AktenActivity, KalenderEintrag, Role
from tests.factories import AkteFactory, DezernatFactory, KalenderEintragFactory, UserFactory

pytestmark = pytest.mark.django_db

TODAY = datetime.date(2026, 11, 24)


def _frist(akte, titel, ablauf, **extra):
    return KalenderEintragFactory(akte=akte, titel=titel, datum=ablauf - datetime.timedelta(days=30), fristablauf=ablauf, **extra)


def test_lines_are_sorted_by_date_with_vorfristen_and_overdue_marked_and_active_akten_first():
    anwalt = UserFactory(role=Role.ANWALT)
    akte = AkteFactory(anwalt=anwalt)
    archived = AkteFactory(anwalt=anwalt, status=Akte.Status.ARCHIVIERT)
    _frist(akte, "Berufungsbegründung", TODAY + datetime.timedelta(days=10), vorfrist=TODAY + datetime.timedelta(days=3))
    _frist(akte, "Klageerwiderung", TODAY - datetime.timedelta(days=1))
    KalenderEintragFactory(akte=akte, typ=KalenderEintrag.Typ.WIEDERVORLAGE, titel="WV Akte", datum=TODAY, fristablauf=None)
    _frist(archived, "Alte Frist", TODAY - datetime.timedelta(days=20))
    _frist(akte, "Erledigt", TODAY + datetime.timedelta(days=2), erledigt=True, erledigt_at=timezone.now())
    KalenderEintragFactory(akte=akte, typ=KalenderEintrag.Typ.TERMIN, titel="Termin", fristablauf=None)

    lines = selectors.fristenkontrolle(user=anwalt, today=TODAY)
    assert [(z.art, z.eintrag.titel) for z in lines] == [
        ("Frist", "Klageerwiderung"),
        ("Wiedervorlage", "WV Akte"),
        ("Vorfrist", "Berufungsbegründung"),
        ("Frist", "Berufungsbegründung"),
        ("Frist", "Alte Frist"),
    ]
    assert [z.ueberfaellig for z in lines] == [True, False, False, False, True]
    assert lines[1].heute


def test_dezernat_entries_for_lawyer_and_sekretariat_but_not_foreign_ones():
    dezernat = DezernatFactory()
    sekretariat = UserFactory(role=Role.SEKRETARIAT)
    dezernat.members.add(sekretariat)
    colleague = UserFactory(role=Role.ANWALT)
    dezernat.members.add(colleague)
    akte = AkteFactory(anwalt=colleague)
    akte.dezernate.add(dezernat)
    _frist(akte, "Dezernatsfrist", TODAY + datetime.timedelta(days=5))
    _frist(AkteFactory(), "Fremde Frist", TODAY + datetime.timedelta(days=5))

    assert [z.eintrag.titel for z in selectors.fristenkontrolle(user=sekretariat, today=TODAY)] == ["Dezernatsfrist"]
    filtered = selectors.fristenkontrolle(user=sekretariat, person_id=colleague.pk, today=TODAY)
    assert [z.eintrag.titel for z in filtered] == ["Dezernatsfrist"]
    foreign_filter = selectors.fristenkontrolle(user=sekretariat, dezernat_id=DezernatFactory().pk, today=TODAY)
    assert foreign_filter == []


def test_start_page_shows_the_kontrolle_and_erledigt_records_who_and_when():
    anwalt = UserFactory(role=Role.ANWALT, first_name="Karla", last_name="Kontrolle")
    akte = AkteFactory(anwalt=anwalt)
    overdue = _frist(akte, "Replik einreichen", timezone.localdate() - datetime.timedelta(days=2))
    client = Client()
    client.force_login(anwalt)
    page = client.get("/").content.decode()
    assert "Fristenkontrolle" in page and "Replik einreichen" in page and 'class="overdue"' in page

    response = client.post(f"/kalender/{overdue.pk}/erledigt/", {"next": "/?person=" + str(anwalt.pk)})
    assert response.status_code == 302 and response["Location"] == f"/?person={anwalt.pk}"
    overdue.refresh_from_db()
    assert overdue.erledigt and overdue.erledigt_von == anwalt and overdue.erledigt_at is not None
    assert AktenActivity.objects.filter(akte=akte, typ=AktenActivity.Typ.KALENDER_ERLEDIGT, actor_user=anwalt).exists()
    assert "Replik einreichen" not in client.get("/").content.decode().split("Meine Akten")[0]
    again = client.post(f"/kalender/{overdue.pk}/erledigt/", follow=True)
    assert "bereits erledigt" in again.content.decode()


def test_erledigt_of_a_foreign_entry_is_404_and_a_mandant_cannot_mark_anything():
    akte = AkteFactory()
    frist = _frist(akte, "Fremd", TODAY + datetime.timedelta(days=3))
    stranger = Client()
    stranger.force_login(UserFactory(role=Role.ANWALT))
    assert stranger.post(f"/kalender/{frist.pk}/erledigt/").status_code == 404
    with pytest.raises(Http404):  # a Mandant does not even see a Frist
        services.kalender_eintrag_erledigen(eintrag_id=frist.pk, by=UserFactory(role=Role.MANDANT))
    frist.refresh_from_db()
    assert not frist.erledigt
    # opening again: the same for a done entry of someone else's Akte
    services.kalender_eintrag_erledigen(eintrag_id=frist.pk, by=akte.anwalt)
    assert stranger.post(f"/kalender/{frist.pk}/wieder-offen/").status_code == 404
    with pytest.raises(Http404):
        services.kalender_eintrag_wieder_oeffnen(eintrag_id=frist.pk, by=UserFactory(role=Role.MANDANT))
    frist.refresh_from_db()
    assert frist.erledigt


def test_open_redirect_is_refused():
    anwalt = UserFactory(role=Role.ANWALT)
    frist = _frist(AkteFactory(anwalt=anwalt), "F", TODAY + datetime.timedelta(days=3))
    client = Client()
    client.force_login(anwalt)
    response = client.post(f"/kalender/{frist.pk}/erledigt/", {"next": "https://evil.example/"})
    assert response["Location"] == "/"


def test_each_erledigt_button_on_the_start_page_names_its_akte_and_date():
    """40 of 42 buttons of the demo Kanzlei shared their label ("Stellungnahme … als erledigt
    markieren" for three Akten): a screen reader user could not tell which she closes."""
    import re

    lawyer = UserFactory(role=Role.ANWALT)
    first, second = AkteFactory(anwalt=lawyer), AkteFactory(anwalt=lawyer)
    tag = timezone.localdate() + datetime.timedelta(days=3)
    for akte, ablauf in ((first, tag), (second, tag), (first, tag + datetime.timedelta(days=1))):
        _frist(akte, "Stellungnahme", ablauf)
    client = Client()
    client.force_login(lawyer)
    labels = re.findall(r'aria-label="([^"]*als erledigt markieren)"', client.get("/").content.decode())
    assert len(labels) == len(set(labels)) == 3
    assert all(re.search(r"Stellungnahme \(\S+, \d\d\.\d\d\.\d{4}\)", label) for label in labels)


def test_a_deputy_watches_the_fristen_of_the_colleague_he_stands_in_for(client):
    """Daily-use probe 2026-12-05: during a Vertretung the deputy could open the Akten of the absent
    colleague but his Fristenkontrolle did not list their Fristen - the dangerous way to miss one."""
    from tests.factories import VertretungFactory

    zivil, arbeit = DezernatFactory(name="Zivil"), DezernatFactory(name="Arbeit")
    mueller = UserFactory(role=Role.ANWALT, last_name="Müller")
    becker = UserFactory(role=Role.ANWALT, last_name="Becker")
    zivil.members.add(mueller)
    arbeit.members.add(becker)
    heute = timezone.localdate()
    akte = AkteFactory(anwalt=mueller)
    dezernatsakte = AkteFactory(anwalt=UserFactory(role=Role.ANWALT))
    dezernatsakte.dezernate.add(zivil)
    _frist(akte, "Berufungsbegründung Müller", heute + datetime.timedelta(days=2), verantwortlich=mueller)
    _frist(dezernatsakte, "Dezernatsfrist Zivil", heute + datetime.timedelta(days=3))

    def titel():
        return [z.eintrag.titel for z in selectors.fristenkontrolle(user=becker)]

    assert titel() == []
    vertretung = VertretungFactory(
        vertreter=becker, vertretener=mueller, beginn=heute - datetime.timedelta(days=1), ende=heute + datetime.timedelta(days=7)
    )
    assert titel() == ["Berufungsbegründung Müller", "Dezernatsfrist Zivil"]
    client.force_login(becker)
    seite = client.get("/").content.decode()
    assert "Berufungsbegründung Müller" in seite and "und meiner Vertretungen" in seite
    vertretung.ende = heute - datetime.timedelta(days=1)  # over: his own list again
    vertretung.save()
    assert titel() == []


def test_a_frist_struck_by_mistake_opens_again_and_a_praktikant_strikes_none(client):
    """Daily-use probe 2026-12-05: "erledigt" could not be undone anywhere (not even in the admin),
    and a Praktikant, read-only elsewhere, could strike a Notfrist."""
    anwalt = UserFactory(role=Role.ANWALT, first_name="Lea", last_name="Lang")
    praktikant = UserFactory(role=Role.PRAKTIKANT)
    akte = AkteFactory(anwalt=anwalt, sachbearbeiter=praktikant)
    frist = _frist(akte, "Klageerwiderung", timezone.localdate() + datetime.timedelta(days=5), notfrist=True)

    client.force_login(praktikant)
    client.post(f"/kalender/{frist.pk}/erledigt/", {"next": "/"})
    frist.refresh_from_db()
    assert not frist.erledigt

    client.force_login(anwalt)
    antwort = client.post(f"/kalender/{frist.pk}/erledigt/", {"next": "/"}, follow=True)
    assert "wieder öffnen" in antwort.content.decode()
    assert selectors.fristenkontrolle(user=anwalt) == []
    seite = client.get(f"/akten/{akte.pk}/").content.decode()
    assert "erledigt am" in seite and "von Lea Lang" in seite and "wieder öffnen" in seite
    api = client.get(f"/api/fristen/{frist.pk}/").json()
    assert api["erledigt"] and api["erledigt_von"]["name"] == "Lea Lang"

    client.post(f"/kalender/{frist.pk}/wieder-offen/", {"next": f"/akten/{akte.pk}/"})
    frist.refresh_from_db()
    assert not frist.erledigt and frist.erledigt_von is None
    assert [z.eintrag.pk for z in selectors.fristenkontrolle(user=anwalt)] == [frist.pk]
    assert AktenActivity.objects.filter(akte=akte, typ="KALENDER_WIEDER_OFFEN", actor_user=anwalt).exists()
    client.force_login(praktikant)
    client.post(f"/kalender/{frist.pk}/erledigt/", {"next": "/"})
    frist.refresh_from_db()
    assert not frist.erledigt


def test_the_akte_page_lists_its_calendar_by_the_day_that_counts_with_times(client):
    """Daily-use probe 2026-12-05: Termine and Wiedervorlagen (no Fristablauf) came after every
    Frist, erledigte first; a Termin showed no time; an author without a name showed as "()"."""
    from akten.models import Notiz

    anwalt = UserFactory(role=Role.ANWALT, first_name="", last_name="", email="ohne.namen@kanzlei.example")
    akte = AkteFactory(anwalt=anwalt)
    heute = timezone.localdate()
    _frist(akte, "Frist in 60 Tagen", heute + datetime.timedelta(days=60))
    _frist(akte, "Alte erledigte Frist", heute - datetime.timedelta(days=5), erledigt=True, erledigt_at=timezone.now())
    KalenderEintragFactory(
        akte=akte, typ="TERMIN", titel="Güteverhandlung", datum=heute + datetime.timedelta(days=2), uhrzeit=datetime.time(9, 30)
    )
    Notiz.objects.create(akte=akte, autor=anwalt, text="Rückruf")
    client.force_login(anwalt)
    seite = client.get(f"/akten/{akte.pk}/").content.decode()
    kalender = seite[seite.index('id="kal-h"') :]
    assert kalender.index("Güteverhandlung") < kalender.index("Frist in 60 Tagen") < kalender.index("Alte erledigte Frist")
    assert "09:30 Uhr Güteverhandlung" in kalender
    assert ", ohne.namen@kanzlei.example)" in seite and ", )" not in seite


def test_a_photo_or_mail_downloads_without_a_doubled_extension():
    from akten.models import download_filename

    assert download_filename("Unfallfoto.jpg", ".jpg") == "Unfallfoto.jpg"
    assert download_filename("Mail vom Vermieter.eml", ".eml") == "Mail vom Vermieter.eml"
    assert download_filename("Skizze.PNG", ".png") == "Skizze.png"


def test_a_praktikant_releases_nothing_to_the_mandantschaft(client):
    """Daily-use probe 2026-12-05: a Praktikant's upload with mandant_sichtbar reached the
    Mandantin at once ("Interner Vermerk"); she receives what a lawyer or the Sachbearbeitung releases."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from akten.models import Beteiligter, Dokument
    from tests.factories import BeteiligterFactory, KontaktFactory

    praktikant = UserFactory(role=Role.PRAKTIKANT)
    akte = AkteFactory(sachbearbeiter=praktikant)
    mandantin = UserFactory(role=Role.MANDANT, kontakt=KontaktFactory())
    BeteiligterFactory(akte=akte, kontakt=mandantin.kontakt, rolle=Beteiligter.Rolle.MANDANT)

    def upload(user):
        client.force_login(user)
        datei = SimpleUploadedFile("vermerk.txt", b"Interner Vermerk", content_type="text/plain")
        return client.post("/api/dokumente/", {"akte": akte.pk, "datei": datei, "name": "Vermerk", "mandant_sichtbar": "true"})

    refused = upload(praktikant)
    assert refused.status_code == 400 and "Praktikant" in refused.content.decode()
    assert not Dokument.objects.exists()
    client.force_login(praktikant)
    datei = SimpleUploadedFile("notiz.txt", b"Interner Vermerk", content_type="text/plain")
    assert client.post("/api/dokumente/", {"akte": akte.pk, "datei": datei, "name": "Notiz"}).status_code == 201
    assert upload(akte.anwalt).status_code == 201
    client.force_login(mandantin)
    assert [d["name"] for d in client.get("/api/dokumente/").json()["results"]] == ["Vermerk"]
