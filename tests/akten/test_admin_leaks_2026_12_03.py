"""Two admin leaks of client data to staff: user choices in admin forms listed every Mandant account
(name and e-mail), and the start page's „Neueste Aktionen“ named objects of an Akte the user no
longer sees. Both through the real admin pages, as a Sekretariat user with the akten permissions."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.db.models.fields.files import FieldFile
from django.urls import reverse
from django.utils import timezone

from akten.models import Role
from tests.factories import (
    AkteFactory,
    BeteiligterFactory,
    DezernatFactory,
    DokumentFactory,
    HelenaAlertFactory,
    KalenderEintragFactory,
    NotizFactory,
    UserFactory,
    VertretungFactory,
    ZeiterfassungFactory,
)

pytestmark = pytest.mark.django_db

MANDANT_NAME = "Erika Mustermann"
MANDANT_EMAIL = "erika.mustermann@example.org"
OWN_MANDANT_EMAIL = "eigene.mandantin@example.org"


@pytest.fixture
def sekretariat():
    user = UserFactory(role=Role.SEKRETARIAT, is_staff=True, first_name="Susanne", last_name="Sekretärin")
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label__in=["akten", "drafts"], codename__regex=r"^(view|change)_")
    )
    return user


@pytest.fixture
def akte(sekretariat):
    """An Akte the Sekretariat user works on, with its own Mandantin; a foreign Akte has another."""
    own = AkteFactory(sachbearbeiter=sekretariat, anwalt__first_name="Anna", anwalt__last_name="Anwältin")
    own_party = BeteiligterFactory(akte=own, rolle="MANDANT")
    UserFactory(role=Role.MANDANT, kontakt=own_party.kontakt, email=OWN_MANDANT_EMAIL)
    foreign_party = BeteiligterFactory(rolle="MANDANT")
    UserFactory(role=Role.MANDANT, kontakt=foreign_party.kontakt, first_name="Erika", last_name="Mustermann", email=MANDANT_EMAIL)
    return own


def _resubmit(client, url):
    """GET the change form and POST it back unchanged, as a user pressing „Sichern“."""
    form = client.get(url).context["adminform"].form
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value is None or value is False or isinstance(value, FieldFile):
            continue
        data[name] = "on" if value is True else value
    return client.post(url, data)


def _assert_staff_choices_only(page: str, staff_email: str) -> None:
    assert staff_email in page
    for leaked in (MANDANT_NAME, MANDANT_EMAIL, OWN_MANDANT_EMAIL):
        assert leaked not in page


@pytest.mark.parametrize(
    ("factory", "model_name"),
    [
        (lambda akte: KalenderEintragFactory(akte=akte, verantwortlich=akte.anwalt), "kalendereintrag"),
        (lambda akte: NotizFactory(akte=akte), "notiz"),
        (lambda akte: ZeiterfassungFactory(akte=akte), "zeiterfassung"),
        (lambda akte: DokumentFactory(akte=akte, erstellt_von=akte.anwalt), "dokument"),
        (lambda akte: HelenaAlertFactory(akte=akte, recipient=akte.sachbearbeiter), "helenaalert"),
    ],
)
def test_user_choices_in_a_change_form_list_no_mandant_accounts(client, sekretariat, akte, factory, model_name):
    obj = factory(akte)
    app_label = obj._meta.app_label
    url = reverse(f"admin:{app_label}_{model_name}_change", args=[obj.pk])
    client.force_login(sekretariat)

    _assert_staff_choices_only(client.get(url).content.decode(), akte.anwalt.email)
    response = _resubmit(client, url)

    assert response.status_code == 302, response.context["adminform"].form.errors
    assert response.url == reverse(f"admin:{app_label}_{model_name}_changelist")


def test_dezernat_members_offer_no_mandant_accounts(client, sekretariat, akte):
    dezernat = DezernatFactory()
    dezernat.members.set([akte.anwalt])
    url = reverse("admin:akten_dezernat_change", args=[dezernat.pk])
    # Dezernate are changed by ADMIN only (AdminOnlyChangesMixin); the Sekretariat sees the page read-only.
    client.force_login(sekretariat)
    _assert_staff_choices_only(client.get(url).content.decode(), akte.anwalt.email)
    verwaltung = UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True)
    client.force_login(verwaltung)
    _assert_staff_choices_only(client.get(url).content.decode(), akte.anwalt.email)
    assert _resubmit(client, url).status_code == 302
    assert list(dezernat.members.all()) == [akte.anwalt]


def test_a_stored_mandant_is_offered_alone_and_refused_as_responsible(client, sekretariat, akte):
    """A value stored before (however it got there) is shown, no other Mandant account is offered,
    and saving asks for a responsible person of the Kanzlei (the rule of every path)."""
    own_mandant = akte.beteiligte.get(rolle="MANDANT").kontakt.benutzer.get()
    eintrag = KalenderEintragFactory(akte=akte, verantwortlich=own_mandant)
    url = reverse("admin:akten_kalendereintrag_change", args=[eintrag.pk])
    client.force_login(sekretariat)

    page = client.get(url).content.decode()
    assert OWN_MANDANT_EMAIL in page and MANDANT_EMAIL not in page
    antwort = _resubmit(client, url)
    assert antwort.status_code == 200 and "verantwortliche Person" in antwort.content.decode()
    eintrag.refresh_from_db()
    assert eintrag.verantwortlich == own_mandant


def test_user_autocomplete_returns_no_mandant_accounts(client, sekretariat, akte):
    client.force_login(sekretariat)
    for term in ("", "example.org", "kanzlei.example"):
        response = client.get(
            "/admin/autocomplete/",
            {"app_label": "akten", "model_name": "akte", "field_name": "anwalt", "term": term},
        )
        assert response.status_code == 200
        emails = response.content.decode()
        assert MANDANT_EMAIL not in emails and OWN_MANDANT_EMAIL not in emails
    assert akte.anwalt.email in emails


def test_admin_start_page_names_no_object_of_an_akte_no_longer_visible(client, sekretariat):
    """A change made during a Vertretung is logged with the object's name; after the Vertretung the
    start page must not repeat it."""
    vertretung = VertretungFactory(vertreter=sekretariat)
    notiz = NotizFactory(akte=AkteFactory(anwalt=vertretung.vertretener), titel="Vergleichsangebot Kellermann")
    url = reverse("admin:akten_notiz_change", args=[notiz.pk])
    client.force_login(sekretariat)
    saved = _resubmit(client, url)
    assert saved.status_code == 302
    client.get(saved.url)  # shows (and so uses up) the success message, which names the Notiz
    assert LogEntry.objects.filter(user=sekretariat, object_id=str(notiz.pk)).exists()

    today = timezone.localdate()
    vertretung.beginn, vertretung.ende = today - datetime.timedelta(days=10), today - datetime.timedelta(days=1)
    vertretung.save()

    assert client.get(url).status_code != 200
    page = client.get(reverse("admin:index"))
    assert page.status_code == 200
    assert "Vergleichsangebot Kellermann" not in page.content.decode()
