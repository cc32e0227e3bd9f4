"""The admin as the Kanzlei admin meets it: the connection test on the tier's own form (with the
demo model named), task types as checkboxes, the rate limits in force, readable config changes;
the API docs send an anonymous visitor to the login."""

from __future__ import annotations

import pytest

from agent.models import ConfigChange, RateLimit, TierConfig
from akten.models import Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def admin_login(client):
    user = UserFactory(role=Role.ADMIN, is_staff=True)
    client.force_login(user)
    return user


def test_connection_test_button_on_the_tiers_own_form_names_the_demo_model(client):
    tier = TierConfig.objects.create(
        tier=2, name="Groß", provider=TierConfig.Provider.OLLAMA, model="big", base_url="http://127.0.0.1:9", timeout_seconds=2
    )
    admin_login(client)

    form = client.get(f"/admin/agent/tierconfig/{tier.pk}/change/").content.decode()
    result = client.post(f"/admin/agent/tierconfig/{tier.pk}/verbindung-testen/", follow=True)

    assert f'action="/admin/agent/tierconfig/{tier.pk}/verbindung-testen/"' in form and "Verbindung testen" in form
    html = result.content.decode()
    assert result.redirect_chain[-1][0] == f"/admin/agent/tierconfig/{tier.pk}/change/"
    assert "Stufe 2 (big): keine Antwort" in html and "eingebaute Demo-Modell" in html


def test_connection_test_is_for_admins_only(client):
    tier = TierConfig.objects.create(tier=2, name="Groß", model="big", base_url="http://127.0.0.1:9")
    client.force_login(UserFactory(role=Role.SEKRETARIAT, is_staff=True))
    assert client.post(f"/admin/agent/tierconfig/{tier.pk}/verbindung-testen/").status_code in {302, 403}


def test_cloud_task_types_are_checkboxes_with_german_names_and_save_as_a_list(client):
    tier = TierConfig.objects.create(tier=3, name="Cloud", model="gpt", base_url="https://example.invalid/v1", is_cloud=True)
    admin_login(client)
    html = client.get(f"/admin/agent/tierconfig/{tier.pk}/change/").content.decode()
    assert 'type="checkbox" name="cloud_task_types" value="SCHRIFTSATZ"' in html and "Schriftsatz" in html
    assert "[&quot;SCHRIFTSATZ&quot;]" not in html

    from agent.admin.config import TierConfigForm

    data = {
        f.name: getattr(tier, f.name)
        for f in TierConfig._meta.fields
        if f.editable and not f.primary_key and getattr(tier, f.name) is not None
    }
    form = TierConfigForm(data={**data, "cloud_task_types": ["SCHRIFTSATZ", "RECHERCHE"]}, instance=tier)
    assert form.is_valid(), form.errors
    assert form.save().cloud_task_types == ["SCHRIFTSATZ", "RECHERCHE"]


def test_rate_limits_show_the_limit_in_force_for_every_role(client):
    RateLimit.objects.create(role=Role.PRAKTIKANT, runs_per_hour=5)
    admin_login(client)

    html = client.get("/admin/agent/ratelimit/").content.decode()
    table = html.split('class="limits-in-force"')[1].split("</table>")[0]

    assert "Praktikant" in table
    assert "<td>5</td><td>eigene Einstellung</td>" in table
    assert "<td>60</td><td>Standard (60)</td>" in table


def test_config_change_shows_changed_fields_by_german_name_before_and_after(client):
    user = admin_login(client)
    change = ConfigChange.objects.create(
        user=user, model="agent.TierConfig", object_repr="Stufe 1",
        before={"model": "qwen2.5:7b-instruct", "enabled": True, "tier": 1},
        after={"model": "qwen2.5:14b-instruct", "enabled": False, "tier": 1},
    )  # fmt: skip

    html = client.get(f"/admin/agent/configchange/{change.pk}/change/").content.decode()

    assert "<th scope='row'>Modell</th><td>qwen2.5:7b-instruct</td><td>qwen2.5:14b-instruct</td>" in html.replace('"', "'")
    assert "<th scope='row'>aktiv</th><td>ja</td><td>nein</td>" in html.replace('"', "'")
    assert "&quot;enabled&quot;" not in html


def test_api_docs_send_an_anonymous_visitor_to_the_login(client):
    response = client.get("/api/docs/")
    assert response.status_code == 302 and response.url == "/anmelden/?next=/api/docs/"
    client.force_login(UserFactory(role=Role.ANWALT))
    assert client.get("/api/docs/").status_code == 200


def test_run_list_and_detail_count_the_citations_not_in_the_corpus(client, django_assert_max_num_queries):
    """From each run's answer.citations trace event (answer and drafts together); a run without
    a checked text shows "–", one whose check failed says so."""
    from agent.models import AgentStep
    from tests.factories import AgentRunFactory

    client.force_login(UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True))
    checked = AgentRunFactory(model_name="mit-pruefung")
    AgentStep.objects.create(
        run=checked, seq=1, type="answer.citations",
        payload={"geprueft": 4, "nicht_im_bestand": 1, "normen": [], "urteile": [], "nicht_im_bestand_gesamt": 3},
    )  # fmt: skip
    before_drafts = AgentRunFactory(model_name="alte-pruefung")
    AgentStep.objects.create(
        run=before_drafts, seq=1, type="answer.citations",
        payload={"geprueft": 2, "nicht_im_bestand": 2, "normen": [], "urteile": []},
    )  # fmt: skip
    failed = AgentRunFactory(model_name="pruefung-kaputt")
    AgentStep.objects.create(
        run=failed, seq=1, type="answer.citations",
        payload={"geprueft": 0, "nicht_im_bestand": 0, "normen": [], "urteile": [], "fehler": "DatabaseError"},
    )  # fmt: skip
    unchecked = AgentRunFactory(model_name="ohne-antwort")

    with django_assert_max_num_queries(12):
        html = client.get("/admin/agent/agentrun/").content.decode()
    assert "Zitate nicht im Bestand" in html
    cells = {
        run.pk: html.split(f"/admin/agent/agentrun/{run.pk}/change/", 1)[1].split("</tr>", 1)[0]
        for run in (checked, before_drafts, failed, unchecked)
    }
    assert 'field-zitate_nicht_im_bestand">3<' in cells[checked.pk]
    assert 'field-zitate_nicht_im_bestand">2<' in cells[before_drafts.pk]
    assert "Prüfung fehlgeschlagen" in cells[failed.pk]
    assert 'field-zitate_nicht_im_bestand">–<' in cells[unchecked.pk]
    detail = client.get(f"/admin/agent/agentrun/{checked.pk}/change/").content.decode()
    assert "Zitate nicht im Bestand" in detail and '<div class="readonly">3</div>' in detail
