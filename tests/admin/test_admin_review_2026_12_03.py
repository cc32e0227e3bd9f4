"""The admin for staff who do not see everything (review 2026-12-03): delete pages name no hidden
rows, Kontakt choices are those of visible Akten, rights are changed only by ADMIN, a MANDANT account
never enters, released titles are no file names, and Fristen, time records and notes obey the rules
of every other path."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth.models import Permission
from django.core.files.base import ContentFile
from django.urls import reverse
from django.utils import timezone

from agent.models import AgentRun
from akten.models import Akte, AktenActivity, Beteiligter, Dokument, KalenderEintrag, Notiz, Role, User, Vertretung, Zeiterfassung
from tests.factories import AkteFactory, BeteiligterFactory, KontaktFactory, UserFactory

pytestmark = pytest.mark.django_db

SECRET = "Geheimgegner"


def _staff(*codenames: str, role: str = Role.SEKRETARIAT) -> User:
    user = UserFactory(role=role, is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return user


def _form_data(client, url: str) -> dict:
    form = client.get(url).context["adminform"].form
    data = {name: form[name].value() for name in form.fields if form[name].value() not in (None, False)}
    return {name: ("on" if value is True else value) for name, value in data.items()}


@pytest.fixture
def world():
    staff = _staff(
        *[f"{action}_{model}" for action in ("view", "add", "change", "delete") for model in ("akte", "beteiligter", "kontakt")]
    )
    own = AkteFactory(sachbearbeiter=staff, aktenzeichen="1/26")
    foreign = AkteFactory(aktenzeichen="777/26", kurzrubrum=f"{SECRET} ./. Vermieter")
    hidden = KontaktFactory(nachname=f"{SECRET}Nur", strasse="Geheimweg 1")
    BeteiligterFactory(akte=foreign, kontakt=hidden, rolle="MANDANT")
    shared = KontaktFactory(nachname="Vermieter-GmbH")
    BeteiligterFactory(akte=own, kontakt=shared, rolle="GEGNER")
    BeteiligterFactory(akte=foreign, kontakt=shared, rolle="GEGNER")
    return {"staff": staff, "own": own, "foreign": foreign, "hidden": hidden, "shared": shared}


def test_delete_confirmation_names_no_hidden_akte(client, world):
    client.force_login(world["staff"])
    page = client.get(reverse("admin:akten_kontakt_delete", args=[world["shared"].pk])).content.decode()
    assert "Vermieter-GmbH" in page  # the chosen row itself
    assert "777/26" not in page and SECRET not in page
    action = client.post(
        reverse("admin:akten_kontakt_changelist"), {"action": "delete_selected", "_selected_action": [world["shared"].pk]}
    )
    assert "777/26" not in action.content.decode()


def test_delete_of_a_colleague_names_none_of_his_akten(client):
    staff = _staff("view_user", "delete_user", "delete_akte", role=Role.ADMIN)
    staff.role = Role.ANWALT  # a lawyer holding the permissions, not the ADMIN role
    staff.save()
    lawyer = UserFactory(role=Role.ANWALT)
    AkteFactory(anwalt=lawyer, aktenzeichen="555/26", kurzrubrum="Geheim-Mandant ./. Arbeitgeber")
    client.force_login(staff)
    antwort = client.get(reverse("admin:akten_user_delete", args=[lawyer.pk]))
    assert "555/26" not in antwort.content.decode()


def test_kontakt_choices_are_those_of_visible_akten(client, world):
    client.force_login(world["staff"])
    page = client.get(reverse("admin:akten_beteiligter_add")).content.decode()
    assert SECRET not in page
    antwort = client.post(
        reverse("admin:akten_beteiligter_add"),
        {"akte": world["own"].pk, "kontakt": world["hidden"].pk, "rolle": "ZEUGE", "aktenzeichen_extern": ""},
    )
    assert antwort.status_code == 200  # the form is shown again with its error
    assert not Beteiligter.objects.filter(akte=world["own"], kontakt=world["hidden"]).exists()
    # a Kontakt of no Akte yet (just created) can be linked
    neu = KontaktFactory(nachname="Neuzugang")
    antwort = client.post(
        reverse("admin:akten_beteiligter_add"),
        {"akte": world["own"].pk, "kontakt": neu.pk, "rolle": "ZEUGE", "aktenzeichen_extern": ""},
    )
    assert antwort.status_code == 302
    assert Beteiligter.objects.filter(akte=world["own"], kontakt=neu).exists()


def test_inline_on_the_akte_refuses_a_hidden_kontakt(client, world):
    client.force_login(world["staff"])
    url = reverse("admin:akten_akte_change", args=[world["own"].pk])
    page = client.get(url)
    data = _form_data(client, url)
    inline = page.context["inline_admin_formsets"][0].formset
    prefix = inline.prefix
    data.update({f"{prefix}-{key}": value for key, value in inline.management_form.initial.items()})
    for index, form in enumerate(inline.forms):
        for name in form.fields:
            value = form[name].value()
            if value not in (None, False):
                data[f"{prefix}-{index}-{name}"] = value
    neu = len(inline.forms)
    data[f"{prefix}-TOTAL_FORMS"] = neu + 1
    data.update(
        {f"{prefix}-{neu}-kontakt": world["hidden"].pk, f"{prefix}-{neu}-rolle": "ZEUGE", f"{prefix}-{neu}-akte": world["own"].pk}
    )
    client.post(url, data)
    assert not Beteiligter.objects.filter(akte=world["own"], kontakt=world["hidden"]).exists()


def test_no_self_promotion_to_admin_or_deputy(client):
    staff = _staff("view_user", "change_user", "add_user", "add_vertretung", "view_vertretung", "change_group", "view_group")
    boss = UserFactory(role=Role.ANWALT)
    AkteFactory(anwalt=boss, aktenzeichen="999/26")
    client.force_login(staff)
    assert client.get(reverse("admin:akten_user_change", args=[staff.pk])).status_code == 200  # viewing stays
    client.post(
        reverse("admin:akten_user_change", args=[staff.pk]),
        {"email": staff.email, "role": Role.ADMIN, "is_active": "on", "is_staff": "on", "is_superuser": "on"},
    )
    staff.refresh_from_db()
    assert staff.role == Role.SEKRETARIAT and not staff.is_superuser
    assert client.get(reverse("admin:akten_user_add")).status_code == 403
    heute = timezone.localdate()
    antwort = client.post(
        reverse("admin:akten_vertretung_add"),
        {"vertreter": staff.pk, "vertretener": boss.pk, "beginn": f"{heute:%d.%m.%Y}", "ende": f"{heute:%d.%m.%Y}", "grund": ""},
    )
    assert antwort.status_code == 403
    assert not Vertretung.objects.exists()
    assert not Akte.objects.visible_to(staff).exists()


def test_an_admin_still_changes_roles(client):
    chef = UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True)
    kollege = UserFactory(role=Role.SEKRETARIAT, is_staff=True)
    client.force_login(chef)
    page = client.get(reverse("admin:akten_user_change", args=[kollege.pk])).content.decode()
    assert 'name="role"' in page and 'name="is_superuser"' in page
    assert client.get(reverse("admin:akten_user_add")).status_code == 200


def test_a_mandant_account_never_enters_the_admin(client):
    mandantin = UserFactory(role=Role.MANDANT, is_staff=True)
    mandantin.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    client.force_login(mandantin)
    assert client.get(reverse("admin:index")).status_code == 302
    assert client.get(reverse("admin:akten_akte_changelist")).status_code == 302
    login = client.get(reverse("admin:login"))
    assert login.status_code == 403


def test_release_in_the_admin_needs_a_title_of_its_own(client):
    lawyer = UserFactory(role=Role.ANWALT, is_staff=True)
    lawyer.user_permissions.set(Permission.objects.filter(codename__in=["view_dokument", "change_dokument"]))
    akte = AkteFactory(anwalt=lawyer)
    dokument = Dokument(akte=akte, name="Vergleich_intern_Mueller.txt", mime_type="text/plain", groesse=5, erstellt_von=lawyer)
    dokument.datei.save("Vergleich_intern_Mueller.txt", ContentFile(b"Text."), save=False)
    dokument.save()
    client.force_login(lawyer)
    url = reverse("admin:akten_dokument_change", args=[dokument.pk])
    data = {
        "akte": akte.pk,
        "name": dokument.name,
        "status": dokument.status,
        "erstellt_von": lawyer.pk,
        "mandant_sichtbar": "on",
    }
    antwort = client.post(url, data)
    assert antwort.status_code == 200 and "Gib dem Dokument einen Titel" in antwort.content.decode()
    dokument.refresh_from_db()
    assert not dokument.mandant_sichtbar
    assert client.post(url, {**data, "name": "Vergleichsvorschlag"}).status_code == 302
    dokument.refresh_from_db()
    assert dokument.mandant_sichtbar and dokument.name == "Vergleichsvorschlag"


@pytest.fixture
def kanzlei(client):
    staff = _staff(
        *[f"{action}_{model}" for action in ("view", "add", "change") for model in ("kalendereintrag", "zeiterfassung", "notiz")]
    )
    akte = AkteFactory(sachbearbeiter=staff)
    client.force_login(staff)
    return staff, akte


def _naechster_werktag(tag: datetime.date) -> datetime.date:
    while tag.weekday() >= 5 or (tag.month, tag.day) in ((12, 25), (12, 26), (1, 1), (5, 1), (10, 3)):
        tag += datetime.timedelta(days=1)
    return tag


def test_frist_in_the_admin_obeys_the_rules(client, kanzlei):
    staff, akte = kanzlei
    heute = timezone.localdate()
    samstag = heute + datetime.timedelta(days=(5 - heute.weekday()) % 7 or 7)
    outsider = UserFactory(role=Role.ANWALT)
    basis = {"akte": akte.pk, "typ": KalenderEintrag.Typ.FRIST, "titel": "Berufungsbegründung", "datum": f"{heute:%d.%m.%Y}"}
    url = reverse("admin:akten_kalendereintrag_add")
    for falsch in (
        {"fristablauf": f"{samstag:%d.%m.%Y}"},
        {"fristablauf": f"{heute - datetime.timedelta(days=1):%d.%m.%Y}"},
        {"fristablauf": f"{_naechster_werktag(heute + datetime.timedelta(days=14)):%d.%m.%Y}", "verantwortlich": outsider.pk},
    ):
        antwort = client.post(url, {**basis, **falsch})
        assert antwort.status_code == 200, falsch
    assert not KalenderEintrag.objects.exists()
    ablauf = _naechster_werktag(heute + datetime.timedelta(days=14))
    assert client.post(url, {**basis, "fristablauf": f"{ablauf:%d.%m.%Y}"}).status_code == 302
    eintrag = KalenderEintrag.objects.get()
    assert eintrag.verantwortlich == staff and not eintrag.erledigt
    assert AktenActivity.objects.filter(akte=akte, typ=AktenActivity.Typ.KALENDER_ANGELEGT).count() == 1


def test_time_and_notes_in_the_admin(client, kanzlei):
    staff, akte = kanzlei
    morgen = timezone.localdate() + datetime.timedelta(days=1)
    url = reverse("admin:akten_zeiterfassung_add")
    daten = {"akte": akte.pk, "user": staff.pk, "minuten": 30, "beschreibung": "Telefonat", "abrechenbar": "on"}
    assert client.post(url, {**daten, "datum": f"{morgen:%d.%m.%Y}"}).status_code == 200
    assert not Zeiterfassung.objects.exists()
    assert client.post(url, {**daten, "datum": f"{timezone.localdate():%d.%m.%Y}"}).status_code == 302
    assert AktenActivity.objects.filter(akte=akte, typ=AktenActivity.Typ.ZEIT_ERFASST).count() == 1
    kollegin = UserFactory(role=Role.ANWALT)
    antwort = client.post(
        reverse("admin:akten_notiz_add"), {"akte": akte.pk, "autor": kollegin.pk, "titel": "", "text": "Rückruf"}
    )
    assert antwort.status_code == 302
    assert Notiz.objects.get().autor == staff  # written in the name of who saved it


def test_alert_form_lists_no_runs(client):
    staff = _staff("view_helenaalert", "change_helenaalert", "add_helenaalert")
    AgentRun.objects.create(user=UserFactory(), task="fremder Auftrag")
    client.force_login(staff)
    page = client.get(reverse("admin:drafts_helenaalert_add")).content.decode()
    assert 'name="origin_run"' not in page


@pytest.mark.parametrize(
    "url",
    [
        "/admin/akten/kalendereintrag/?datum__year=9999",
        "/admin/akten/kalendereintrag/?datum__year=9999&datum__month=12&datum__day=31",
        "/admin/akten/zeiterfassung/?datum__year=9999",
        "/admin/akten/akte/?created_at__year=9999",
    ],
)
def test_a_date_drill_down_beyond_the_calendar_is_a_wrong_lookup_not_a_500(url):
    """Django's date hierarchy asks for the year 10000 after 9999: ValueError, answered with 500."""
    from django.test import Client

    from tests.factories import UserFactory

    client = Client(raise_request_exception=False)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    response = client.get(url)
    assert response.status_code == 302 and response["Location"].endswith("?e=1")
