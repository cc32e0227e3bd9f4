"""The Basiszinssatz history: shipped up to 30.06.2026, continued by a Kanzlei admin in the admin
(Verwaltung → Rechner → Basiszinssätze), used at once by the Zinsrechner page."""

from __future__ import annotations

import threading
from datetime import date
from decimal import Decimal
from html import unescape

import pytest
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.urls import reverse

from akten.models import Role
from rechner.models import Basiszinssatz
from rechner.selectors import basiszins_historie
from rechner.zinsen import Basiszins, ZinsError, basiszinssaetze, historie_ergaenzt, verzugszinsen
from tests.factories import BasiszinssatzFactory, UserFactory

ADD_URL = "/admin/rechner/basiszinssatz/add/"
ZINSEN_2026_H2 = {"hauptforderung": "10.000", "von": "2026-07-01", "bis": "2026-07-31", "art": "verbraucher"}


def test_erstes_halbjahr_2026_mit_1_27_prozent() -> None:
    # Deutsche Bundesbank: 1,27 % ab 01.01.2026. 10.000 € × 6,27 % × 181/365 = 310,92 €.
    zinsen = verzugszinsen(hauptforderung="10.000", von=date(2026, 1, 1), bis=date(2026, 6, 30))
    assert [(p.tage, p.basiszins, p.zinssatz) for p in zinsen.perioden] == [(181, Decimal("1.27"), Decimal("6.27"))]
    assert zinsen.zinsen == Decimal("310.92")
    assert basiszinssaetze().gueltig_bis == date(2026, 6, 30)


def test_ab_juli_2026_verweist_auf_die_verwaltung() -> None:
    with pytest.raises(ZinsError) as fehler:
        verzugszinsen(hauptforderung="100", von=date(2026, 6, 1), bis=date(2026, 7, 1))
    assert "ab dem Mittwoch, 01.07.2026 ist im Rechner noch nicht hinterlegt" in str(fehler.value)
    assert "Verwaltung → Rechner → Basiszinssätze" in str(fehler.value)


def test_ergaenzungen_nur_lueckenlos() -> None:
    ausgeliefert = basiszinssaetze()
    juli, januar = Basiszins(date(2026, 7, 1), Decimal("1.52")), Basiszins(date(2027, 1, 1), Decimal("1.77"))
    assert historie_ergaenzt(ausgeliefert, [juli, januar]).gueltig_bis == date(2027, 6, 30)
    # A gap ends the history: 2027 is not used with the rate of 2026 in between.
    assert historie_ergaenzt(ausgeliefert, [januar]) == ausgeliefert
    # The shipped values are never overridden.
    anders = historie_ergaenzt(ausgeliefert, [Basiszins(date(2026, 1, 1), Decimal("9.99"))])
    assert anders == ausgeliefert


@pytest.fixture
def verwaltung(client):
    """A staff user who may view and add Basiszinssätze (no superuser)."""
    user = UserFactory(role=Role.ADMIN, is_staff=True, first_name="Anna", last_name="Admin")
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="rechner", codename__in=["add_basiszinssatz", "view_basiszinssatz"])
    )
    client.force_login(user)
    return user


def erfassen(client, gueltig_ab: str, satz: str):
    return client.post(ADD_URL, {"gueltig_ab": gueltig_ab, "satz": satz})


def zinsseite(client) -> str:
    antwort = client.get("/rechner/zinsen/", ZINSEN_2026_H2)
    assert antwort.status_code == 200
    return unescape(antwort.content.decode())


@pytest.mark.django_db
def test_erfasster_satz_gilt_sofort_im_zinsrechner(client, verwaltung):
    assert "ist im Rechner noch nicht hinterlegt" in zinsseite(client)

    formular = unescape(client.get(ADD_URL).content.decode())
    assert "Als Nächstes fehlt der Basiszinssatz ab dem 01.07.2026" in formular and "Bundesanzeiger" in formular
    antwort = erfassen(client, "01.07.2026", "1,52")
    assert antwort.status_code == 302, unescape(antwort.content.decode())

    eintrag = Basiszinssatz.objects.get()
    assert (eintrag.gueltig_ab, eintrag.satz, eintrag.created_by) == (date(2026, 7, 1), Decimal("1.52"), verwaltung)
    html = zinsseite(client)
    # 10.000 € × 6,52 % × 31/365 = 55,38 €
    assert "Verzugszinsen: 55,38 €" in html and "1,52 %" in html and "6,52 %" in html

    liste = " ".join(unescape(client.get("/admin/rechner/basiszinssatz/").content.decode()).split())
    assert "01.07.2026" in liste and "31.12.2026" in liste and "1,52 %" in liste and "Anna Admin" in liste
    assert (
        "Mit Helena ausgelieferte Sätze" in liste
        and "2,70 %" in liste
        and "als Nächstes fehlt der Satz ab dem 01.01.2027" in liste
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("gueltig_ab", "meldung"),
    [
        ("15.03.2027", "ändert sich nur zum 1. Januar und zum 1. Juli (§ 247 Abs. 1 Satz 2 BGB); der 15.03.2027"),
        ("01.01.2027", "lückenlos aufeinander folgen: als Nächstes fehlt der Basiszinssatz ab dem 01.07.2026"),
        ("01.01.2026", "ab dem 01.01.2026 ist der Basiszinssatz schon mit Helena ausgeliefert (1,27 %, Deutsche Bundesbank)"),
        ("01.07.2001", "erst ab dem 01.01.2002"),
    ],
)
def test_unzulaessige_halbjahre_werden_abgelehnt(client, verwaltung, gueltig_ab, meldung):
    antwort = erfassen(client, gueltig_ab, "1,52")
    assert antwort.status_code == 200
    assert meldung in unescape(antwort.content.decode())
    assert not Basiszinssatz.objects.exists()


@pytest.mark.django_db
def test_ein_halbjahr_nur_einmal(client, verwaltung):
    BasiszinssatzFactory()
    antwort = erfassen(client, "01.07.2026", "1,60")
    assert "Für das Halbjahr ab dem 01.07.2026 ist bereits ein Basiszinssatz erfasst." in unescape(antwort.content.decode())
    assert erfassen(client, "01.01.2027", "-0,13").status_code == 302
    assert basiszins_historie().werte[-1] == Basiszins(date(2027, 1, 1), Decimal("-0.13"))


@pytest.mark.django_db
def test_ohne_berechtigung_kein_erfassen(client):
    client.force_login(UserFactory(role=Role.SACHBEARBEITER, is_staff=True))
    assert erfassen(client, "01.07.2026", "1,52").status_code == 403
    assert not Basiszinssatz.objects.exists()


@pytest.mark.django_db
def test_erfasste_saetze_werden_nicht_bearbeitet_und_nur_der_neueste_geloescht(client, admin_client):
    juli = BasiszinssatzFactory()
    januar = BasiszinssatzFactory(gueltig_ab=date(2027, 1, 1), satz=Decimal("1.77"))
    change = reverse("admin:rechner_basiszinssatz_change", args=[juli.pk])
    admin_client.post(change, {"gueltig_ab": "01.07.2026", "satz": "9,99"})
    juli.refresh_from_db()
    assert juli.satz == Decimal("1.52")
    assert admin_client.post(reverse("admin:rechner_basiszinssatz_delete", args=[juli.pk]), {"post": "yes"}).status_code == 403
    admin_client.post(
        "/admin/rechner/basiszinssatz/", {"action": "delete_selected", "_selected_action": [juli.pk], "post": "yes"}
    )
    assert Basiszinssatz.objects.count() == 2
    admin_client.post(reverse("admin:rechner_basiszinssatz_delete", args=[januar.pk]), {"post": "yes"})
    assert list(Basiszinssatz.objects.all()) == [juli]


@pytest.mark.django_db
def test_jede_aenderung_gilt_ohne_zwischenspeicher(client, verwaltung, admin_client, django_assert_num_queries):
    """Every process reads the table on each calculation: an entry added or deleted in the admin (in
    another process in production) counts at once."""
    with django_assert_num_queries(1):
        basiszins_historie()
    assert erfassen(client, "01.07.2026", "1,52").status_code == 302
    assert "Verzugszinsen: 55,38 €" in zinsseite(client)
    eintrag = Basiszinssatz.objects.get()
    admin_client.post(reverse("admin:rechner_basiszinssatz_delete", args=[eintrag.pk]), {"post": "yes"})
    assert not Basiszinssatz.objects.exists()
    assert "ist im Rechner noch nicht hinterlegt" in zinsseite(client)


@pytest.mark.django_db(transaction=True)
def test_two_admins_adding_the_same_half_year_at_once_get_a_form_error_not_a_server_error() -> None:
    from rechner.services import basiszinssatz_create

    admin = UserFactory(role=Role.ADMIN)
    first_saved, release = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}

    def first() -> None:
        try:
            with transaction.atomic():
                basiszinssatz_create(gueltig_ab=date(2026, 7, 1), satz=Decimal("1.50"), by=admin)
                first_saved.set()
                release.wait(30)
        finally:
            connection.close()

    def second() -> None:
        try:
            basiszinssatz_create(gueltig_ab=date(2026, 7, 1), satz=Decimal("1.60"), by=admin)
            outcome["second"] = "gespeichert"
        except ValidationError as error:
            outcome["second"] = error.messages
        except Exception as error:  # noqa: BLE001 - the failure this test is about (IntegrityError)
            outcome["second"] = type(error).__name__
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    threads[0].start()
    assert first_saved.wait(30)
    threads[1].start()
    threads[1].join(1.0)  # give the second admin time to reach the write while the first is open
    release.set()
    for thread in threads:
        thread.join(30)
    assert outcome["second"] == ["Für das Halbjahr ab dem 01.07.2026 ist bereits ein Basiszinssatz erfasst."]
    assert list(Basiszinssatz.objects.values_list("satz", flat=True)) == [Decimal("1.50")]
