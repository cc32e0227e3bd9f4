"""Admin configuration: only ADMIN may change it, every change is recorded, and the tier
connection test calls the (scripted) model and reports the answer time."""

from __future__ import annotations

import pytest

from agent.models import ConfigChange, EngineConfig, RateLimit, TierConfig
from akten.models import Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _staff(role: str) -> object:
    return UserFactory(role=role, is_staff=True)


def test_admin_change_of_engine_caps_is_recorded_with_before_and_after(client):
    admin_user = _staff(Role.ADMIN)
    config = EngineConfig.load()
    client.force_login(admin_user)
    form = {
        "inline_max_steps": 7,
        "inline_timeout_seconds": config.inline_timeout_seconds,
        "background_max_steps": config.background_max_steps,
        "background_timeout_seconds": config.background_timeout_seconds,
        "max_tokens_per_run": config.max_tokens_per_run,
    }
    response = client.post(f"/admin/agent/engineconfig/{config.pk}/change/", form)
    assert response.status_code == 302
    change = ConfigChange.objects.get()
    assert change.user == admin_user and change.model == "agent.EngineConfig"
    assert change.before["inline_max_steps"] == 5 and change.after["inline_max_steps"] == 7
    assert EngineConfig.load().inline_max_steps == 7


def test_non_admin_staff_may_not_change_configuration(client):
    anwalt = _staff(Role.ANWALT)
    limit = RateLimit.objects.create(role=Role.ANWALT, runs_per_hour=30)
    client.force_login(anwalt)
    response = client.post(f"/admin/agent/ratelimit/{limit.pk}/change/", {"role": Role.ANWALT, "runs_per_hour": 9999})
    assert response.status_code == 403
    limit.refresh_from_db()
    assert limit.runs_per_hour == 30
    assert client.post("/admin/agent/ratelimit/add/", {"role": Role.PRAKTIKANT, "runs_per_hour": 1}).status_code == 403
    assert not ConfigChange.objects.exists()


def test_admin_add_and_delete_are_recorded(client):
    admin_user = _staff(Role.ADMIN)
    client.force_login(admin_user)
    client.post("/admin/agent/ratelimit/add/", {"role": Role.ANWALT, "runs_per_hour": 40})
    limit = RateLimit.objects.get(role=Role.ANWALT)
    client.post(f"/admin/agent/ratelimit/{limit.pk}/delete/", {"post": "yes"})
    added, deleted = ConfigChange.objects.order_by("pk")
    assert added.before == {} and added.after["runs_per_hour"] == 40
    assert deleted.before["runs_per_hour"] == 40 and deleted.after == {}


def test_config_changes_are_read_only(client):
    admin_user = _staff(Role.ADMIN)
    change = ConfigChange.objects.create(user=admin_user, model="agent.RateLimit", object_repr="x", before={}, after={"a": 1})
    client.force_login(admin_user)
    assert client.get(f"/admin/agent/configchange/{change.pk}/change/").status_code == 200
    assert client.post(f"/admin/agent/configchange/{change.pk}/delete/", {"post": "yes"}).status_code == 403
    assert ConfigChange.objects.filter(pk=change.pk).exists()


def test_tier_connection_test_reports_answer_time(client, scripted_llm):
    scripted_llm.script([{"text": "bereit"}])
    tier = TierConfig.objects.create(
        tier=1, name="Klein", provider=TierConfig.Provider.OLLAMA, model="scripted-model", base_url=scripted_llm.url, enabled=True
    )
    client.force_login(_staff(Role.ADMIN))
    response = client.post("/admin/agent/tierconfig/", {"action": "test_connection", "_selected_action": [tier.pk]}, follow=True)
    html = response.content.decode()
    assert "Stufe 1 (scripted-model): Antwort nach" in html and "ms" in html and "bereit" in html
    assert len(scripted_llm.chat_requests) == 1


def test_tier_connection_test_reports_an_unreachable_server_in_german(client):
    tier = TierConfig.objects.create(
        tier=2, name="Groß", provider=TierConfig.Provider.OLLAMA, model="big", base_url="http://127.0.0.1:9", timeout_seconds=2
    )
    client.force_login(_staff(Role.ADMIN))
    html = client.post(
        "/admin/agent/tierconfig/", {"action": "test_connection", "_selected_action": [tier.pk]}, follow=True
    ).content.decode()
    assert "Stufe 2 (big): keine Antwort" in html and "Traceback" not in html
