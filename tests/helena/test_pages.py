import pytest

from akten.models import Role
from tests.factories import AkteFactory, HelenaDraftFactory, KalenderEintragFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_login_page_is_german_and_logs_in(client):
    user = UserFactory(email="anna@kanzlei.example", role=Role.ANWALT)
    page = client.get("/anmelden/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'lang="de"' in html and "Anmelden" in html and "E-Mail-Adresse" in html
    wrong = client.post("/anmelden/", {"username": "anna@kanzlei.example", "password": "falsch"})
    assert "Passwort ist falsch" in wrong.content.decode()
    response = client.post("/anmelden/", {"username": "anna@kanzlei.example", "password": "geheim-1234"})
    assert response.status_code == 302 and response.url == "/"
    assert client.get("/").context["user"] == user


def test_login_is_rate_limited_per_ip(client, settings):
    settings.HELENA_RATELIMIT_LOGIN = "3/m"
    for _ in range(3):
        assert client.post("/anmelden/", {"username": "x@example.org", "password": "y"}).status_code == 200
    blocked = client.post("/anmelden/", {"username": "x@example.org", "password": "y"})
    assert blocked.status_code == 429
    assert "Zu viele Anfragen" in blocked.content.decode()


def test_start_page_lists_akten_fristen_and_drafts(client):
    akte = AkteFactory(kurzrubrum="Sommer ./. Winter")
    KalenderEintragFactory(akte=akte, titel="Berufungsbegründung")
    HelenaDraftFactory(akte=akte, titel="Entwurf Notiz Sommer")
    client.force_login(akte.anwalt)
    html = client.get("/").content.decode()
    assert "Sommer ./. Winter" in html and "Berufungsbegründung" in html and "Entwurf Notiz Sommer" in html
    assert "Content-Security-Policy" in client.get("/").headers


def test_anonymous_is_sent_to_login(client):
    response = client.get("/")
    assert response.status_code == 302 and response.url.startswith("/anmelden/")


def test_admin_lists_only_visible_akten_for_staff_users(client):
    from django.contrib.auth.models import Permission

    anwalt = UserFactory(role=Role.ANWALT, is_staff=True)
    anwalt.user_permissions.add(Permission.objects.get(codename="view_akte"))
    own = AkteFactory(anwalt=anwalt, kurzrubrum="Eigene ./. Akte")
    foreign = AkteFactory(kurzrubrum="Fremde ./. Akte")
    client.force_login(anwalt)
    html = client.get("/admin/akten/akte/").content.decode()
    assert "Eigene ./. Akte" in html and "Fremde ./. Akte" not in html
    assert client.get(f"/admin/akten/akte/{foreign.pk}/change/").status_code in (302, 404)
    assert client.get(f"/admin/akten/akte/{own.pk}/change/").status_code == 200


def test_admin_works_for_superuser_on_every_model(client):
    admin = UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True)
    HelenaDraftFactory()
    client.force_login(admin)
    for path in (
        "akten/user",
        "akten/akte",
        "akten/kontakt",
        "akten/dezernat",
        "akten/vertretung",
        "akten/beteiligter",
        "akten/dokument",
        "akten/kalendereintrag",
        "akten/zeiterfassung",
        "akten/notiz",
        "akten/aktenactivity",
        "drafts/helenadraft",
        "drafts/helenaalert",
        "agent/agentrun",
    ):
        response = client.get(f"/admin/{path}/", {"q": "Test"})
        assert response.status_code == 200, path


def test_admin_accept_from_the_change_view_goes_through_the_service(client):
    from akten.models import Notiz

    admin = UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True)
    draft = HelenaDraftFactory(payload={"titel": "", "text": "Aus der Verwaltung"})
    client.force_login(admin)
    client.post(f"/admin/drafts/helenadraft/{draft.pk}/uebernehmen/")
    draft.refresh_from_db()
    assert draft.status == "ACCEPTED" and draft.reviewer == admin
    assert Notiz.objects.get().text == "Aus der Verwaltung"


def test_the_start_page_says_how_many_drafts_wait_beyond_the_ten_it_lists(client):
    """Daily-use probe 2026-12-05: with twelve open drafts the page listed ten, without a word of the rest."""
    akte = AkteFactory()
    HelenaDraftFactory.create_batch(12, akte=akte)
    client.force_login(akte.anwalt)
    page = client.get("/").content.decode()
    assert "10 von 12 offenen Entwürfen" in page
