"""A form that breaks a database rule (a Vertretung ending before it begins) says in German what is
wrong; Django's default names the constraint („Constraint „vertretung_period“ ist verletzt.“)."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.apps import apps
from django.db.models import BaseConstraint
from django.urls import reverse

from akten.models import Akte, Role, Vertretung
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _constraints(app_labels: tuple[str, ...]) -> list[tuple[str, BaseConstraint]]:
    return [
        (model._meta.label, constraint)
        for model in apps.get_models()
        if model._meta.app_label in app_labels
        for constraint in model._meta.constraints
    ]


@pytest.fixture
def admin_client(client: Any) -> Any:
    client.force_login(UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True))
    return client


def _page_errors(response: Any) -> str:
    assert response.status_code == 200
    form = response.context["adminform"].form
    return " ".join(str(error) for errors in form.errors.values() for error in errors)


def test_every_constraint_of_the_forms_apps_has_a_german_message():
    """akten, agent, drafts and rechner are edited in the admin; every rule carries its own message."""
    constraints = _constraints(("akten", "agent", "drafts", "rechner"))
    assert len(constraints) > 40
    default = [label + " " + c.name for label, c in constraints if c.violation_error_message == c.default_violation_error_message]
    assert default == []
    for _label, constraint in constraints:
        message = str(constraint.violation_error_message)
        assert constraint.name not in message and "Constraint" not in message and message.endswith(".")


def test_a_vertretung_that_ends_before_it_begins_is_refused_in_german(admin_client):
    vertreter, vertretene = UserFactory(), UserFactory()

    response = admin_client.post(
        reverse("admin:akten_vertretung_add"),
        {"vertreter": vertreter.pk, "vertretener": vertretene.pk, "beginn": "10.07.2026", "ende": "01.07.2026"},
    )

    errors = _page_errors(response)
    assert errors == "Das Ende der Vertretung darf nicht vor ihrem Beginn liegen."
    page = html.unescape(response.content.decode())
    assert errors in page
    assert "vertretung_period" not in page and "Constraint" not in page
    assert not Vertretung.objects.exists()


def test_a_vertretung_of_oneself_is_refused_in_german(admin_client):
    anwalt = UserFactory()

    response = admin_client.post(
        reverse("admin:akten_vertretung_add"),
        {"vertreter": anwalt.pk, "vertretener": anwalt.pk, "beginn": "01.07.2026", "ende": "10.07.2026"},
    )

    errors = _page_errors(response)
    assert errors == "Vertreter/in und vertretene Person müssen verschiedene Personen sein."
    page = html.unescape(response.content.decode())
    assert "vertretung_not_self" not in page and "Constraint" not in page


def test_a_changed_vertretung_is_checked_the_same_way(admin_client):
    vertretung = Vertretung.objects.create(
        vertreter=UserFactory(), vertretener=UserFactory(), beginn="2026-07-01", ende="2026-07-10"
    )

    response = admin_client.post(
        reverse("admin:akten_vertretung_change", args=[vertretung.pk]),
        {
            "vertreter": vertretung.vertreter_id,
            "vertretener": vertretung.vertretener_id,
            "beginn": "10.07.2026",
            "ende": "01.07.2026",
        },
    )

    assert _page_errors(response) == "Das Ende der Vertretung darf nicht vor ihrem Beginn liegen."
    vertretung.refresh_from_db()
    assert str(vertretung.ende) == "2026-07-10"


def test_a_court_town_without_its_land_is_refused_in_german_on_the_akte_form(admin_client):
    anwalt = UserFactory()
    response = admin_client.post(
        reverse("admin:akten_akte_add"),
        {
            "aktenzeichen": "77/26",
            "kurzrubrum": "Muster ./. Beispiel",
            "sachgebiet": "MIETRECHT",
            "status": "OFFEN",
            "anwalt": anwalt.pk,
            "gericht_ort": "Potsdam",
            "gericht_bundesland": "",
            "beteiligte-TOTAL_FORMS": "0",
            "beteiligte-INITIAL_FORMS": "0",
        },
    )

    assert "Bitte wähle zum Ort des Gerichts auch sein Bundesland." in _page_errors(response)
    assert "akte_gericht_ort_has_bundesland" not in response.content.decode()
    assert not Akte.objects.filter(aktenzeichen="77/26").exists()
