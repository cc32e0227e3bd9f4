"""The court of an Akte and the Kanzlei's seat are shown and edited where people meet them (issue 12)."""

import pytest
from django.urls import reverse

from akten.models import KanzleiProfil, Role
from tests.factories import AkteFactory, UserFactory

pytestmark = pytest.mark.django_db


def _akte_mit_gericht():
    return AkteFactory(
        gericht_name="Landgericht München I",
        gericht_ort="München",
        gericht_bundesland="BY",
        gericht_aktenzeichen="12 O 345/26",
    )


def test_api_zeigt_das_gericht(api_client):
    akte = _akte_mit_gericht()
    api_client.force_login(akte.anwalt)
    data = api_client.get(f"/api/akten/{akte.pk}/").json()
    assert (data["gericht_name"], data["gericht_ort"], data["gericht_bundesland"], data["gericht_aktenzeichen"]) == (
        "Landgericht München I",
        "München",
        "BY",
        "12 O 345/26",
    )


def test_aktenseite_zeigt_das_gericht(client):
    akte = _akte_mit_gericht()
    client.force_login(akte.anwalt)
    html = client.get(reverse("akte-detail", args=[akte.pk])).content.decode()
    assert "Landgericht München I, München (Bayern), Az. 12 O 345/26" in html


def test_kanzleiprofil_in_der_verwaltung(client):
    admin = UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True)
    client.force_login(admin)
    antwort = client.post(
        "/admin/akten/kanzleiprofil/add/", {"name": "Kanzlei Muster", "sitz_ort": "Köln", "sitz_bundesland": "NW"}
    )
    assert antwort.status_code == 302
    profil = KanzleiProfil.current()
    assert (profil.sitz_ort, profil.sitz_bundesland) == ("Köln", "NW")
    # A second profile cannot be added; the one row cannot be deleted.
    assert client.get("/admin/akten/kanzleiprofil/add/").status_code == 403
    assert client.get(f"/admin/akten/kanzleiprofil/{profil.pk}/delete/").status_code == 403
