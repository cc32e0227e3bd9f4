"""A tampered value for a relation field of an admin form ("abc" instead of an id) is answered with
the form page and a German field error, never with a 500; and a hidden row's id gets the same
error as a missing one. The walk covers every registered admin and its inlines, so an admin added
later is checked without changing this file."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.forms import ModelChoiceField
from django.test import RequestFactory
from django.urls import reverse

from agent.models import AgentRun
from akten.admin_mixins import ERR_AUSWAHL
from akten.models import Akte, Beteiligter, KalenderEintrag, Kontakt, Role, Vertretung
from drafts.models import HelenaAlert, HelenaDraft
from tests.factories import AkteFactory, BeteiligterFactory, KontaktFactory, UserFactory

pytestmark = pytest.mark.django_db

# not an id at all, an id with trailing junk, a decimal, an id beyond any integer column
TAMPERED = ["abc", "1x", "1.5", "99999999999999999999999"]


def _relation_names(model: Any, *, parent: Any = None) -> list[str]:
    return [
        field.name
        for field in model._meta.get_fields()
        if field.concrete and field.is_relation and field.related_model is not None and field.related_model is not parent
    ]


def _cases() -> list[Any]:
    """(admin's model, inline model or None, field name) for every relation of every registered
    admin and of its inlines."""
    cases = []
    for model, model_admin in admin.site._registry.items():
        label = model._meta.label
        cases += [pytest.param(model, None, name, id=f"{label}.{name}") for name in _relation_names(model)]
        for inline in model_admin.inlines:
            inline_model = inline.model
            cases += [
                pytest.param(model, inline_model, name, id=f"{label}+{inline_model._meta.label}.{name}")
                for name in _relation_names(inline_model, parent=model)
            ]
    return cases


def _user(who: str) -> Any:
    if who == "superuser":
        return UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True)
    # a lawyer with every permission: the forms offer her only visible Akten, Kontakte and staff
    anwaeltin = UserFactory(role=Role.ANWALT, is_staff=True)
    anwaeltin.user_permissions.set(Permission.objects.all())
    return anwaeltin


def _form_field_names(form_class: Any) -> set[str]:
    return {name for name, field in form_class.base_fields.items() if isinstance(field, ModelChoiceField)}


def _errors(response: Any, prefix: str | None, name: str) -> list[str]:
    if prefix is None:
        return list(response.context["adminform"].form.errors.get(name, []))
    formset = next(f.formset for f in response.context["inline_admin_formsets"] if f.formset.prefix == prefix)
    return list(formset.forms[0].errors.get(name, []))


def test_every_admin_with_relations_is_walked():
    walked = {case.values[0] for case in _cases()}
    assert {Akte, KalenderEintrag, Vertretung, HelenaDraft, HelenaAlert, AgentRun} <= walked
    assert any(case.values[1] is Beteiligter for case in _cases())


@pytest.mark.parametrize("who", ["superuser", "anwaeltin"])
@pytest.mark.parametrize(("model", "inline_model", "name"), _cases())
def test_a_tampered_relation_value_is_a_german_field_error(client, who, model, inline_model, name):
    user = _user(who)
    client.force_login(user)
    model_admin = admin.site._registry[model]
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_add")
    request = RequestFactory().get(url)
    request.user = user

    if not model_admin.has_add_permission(request):
        for value in TAMPERED:
            assert client.post(url, {name: value}).status_code == 403
        return

    data: dict[str, str] = {}
    prefix, in_form = None, _form_field_names(model_admin.get_form(request, None, change=False))
    for formset_class, inline in model_admin.get_formsets_with_inlines(request):
        inline_prefix = formset_class.get_default_prefix()
        data |= {f"{inline_prefix}-TOTAL_FORMS": "0", f"{inline_prefix}-INITIAL_FORMS": "0"}
        if inline.model is inline_model:
            prefix, in_form = inline_prefix, _form_field_names(formset_class.form)
            data[f"{prefix}-TOTAL_FORMS"] = "1"
    if inline_model is not None and prefix is None:
        in_form = set()  # an inline not offered on the add page (no add permission)

    for value in TAMPERED:
        response = client.post(url, {**data, (f"{prefix}-0-{name}" if prefix else name): value})
        assert response.status_code == 200, value
        page = response.content.decode()
        if name in in_form:
            assert _errors(response, prefix, name) == [ERR_AUSWAHL], value
            assert ERR_AUSWAHL in page
        else:  # read-only or not on the form: the value is ignored
            assert _errors(response, prefix, name) == [], value
        assert "expected a number" not in page


def test_a_hidden_akte_gets_the_same_error_as_a_missing_one(client):
    anwaeltin = _user("anwaeltin")
    client.force_login(anwaeltin)
    fremde = AkteFactory(kurzrubrum="Geheim ./. Verborgen")
    missing = Akte.objects.order_by("-pk").values_list("pk", flat=True).first() + 1000
    url = reverse("admin:akten_kalendereintrag_add")

    answers = []
    for value in (fremde.pk, missing, "abc"):
        response = client.post(url, {"akte": value, "typ": "TERMIN", "titel": "Termin"})
        assert response.status_code == 200
        answers.append(list(response.context["adminform"].form.errors["akte"]))
        assert "Geheim" not in response.content.decode()

    assert answers == [[ERR_AUSWAHL]] * 3


def test_a_hidden_kontakt_in_the_akte_inline_gets_the_same_error_as_a_missing_one(client):
    anwaeltin = _user("anwaeltin")
    client.force_login(anwaeltin)
    verborgen = BeteiligterFactory(kontakt=KontaktFactory(nachname="Verborgen")).kontakt
    missing = Kontakt.objects.order_by("-pk").values_list("pk", flat=True).first() + 1000
    url = reverse("admin:akten_akte_add")

    answers = []
    for value in (verborgen.pk, missing, "1x"):
        response = client.post(
            url,
            {"beteiligte-TOTAL_FORMS": "1", "beteiligte-INITIAL_FORMS": "0", "beteiligte-0-kontakt": value},
        )
        assert response.status_code == 200
        formset = next(f.formset for f in response.context["inline_admin_formsets"] if f.formset.prefix == "beteiligte")
        answers.append(list(formset.forms[0].errors["kontakt"]))
        assert "Verborgen" not in response.content.decode()

    assert answers == [[ERR_AUSWAHL]] * 3


def test_a_tampered_kontakt_on_the_user_change_page_is_a_field_error(client):
    """The Kontakt of an account is an autocomplete field of the change page only."""
    client.force_login(_user("superuser"))
    mandantin = UserFactory(role=Role.MANDANT, is_staff=False)
    url = reverse("admin:akten_user_change", args=[mandantin.pk])

    response = client.post(url, {"email": mandantin.email, "role": Role.MANDANT, "kontakt": "abc"})

    assert response.status_code == 200
    assert list(response.context["adminform"].form.errors["kontakt"]) == [ERR_AUSWAHL]
