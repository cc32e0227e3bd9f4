"""Admin: the role × tool matrix as a grid (only ADMIN/superuser may change it, every change
recorded) and the read-only, filterable audit trail of tool calls."""

import re

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone

from agent.models import ConfigChange, ToolCallAudit, ToolPermission
from agent.tools.discovery import all_tools
from agent.tools.permissions import tool_matrix_ensure_defaults
from akten.models import Role
from tests.agent.factories import ToolCallAuditFactory
from tests.factories import AkteFactory, UserFactory

pytestmark = pytest.mark.django_db

GRID_URL = "/admin/agent/toolpermission/"
AUDIT_URL = "/admin/agent/toolcallaudit/"


@pytest.fixture
def admin_user():
    return UserFactory(role=Role.ADMIN, is_staff=True)


def _staff(role=Role.ANWALT, *perms):
    user = UserFactory(role=role, is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=perms))
    return user


def _box(html: str, role: str, tool: str) -> set[str]:
    """The boolean attributes (checked, disabled) of one checkbox of the grid."""
    tag = re.search(rf'<input type="checkbox" name="perm__{role}__{tool}"[^>]*>', html).group(0)
    return {flag for flag in ("checked", "disabled") if re.search(rf"\s{flag}[\s>]", tag)}


def _allowed_fields() -> dict[str, str]:
    tool_matrix_ensure_defaults()
    return {
        f"perm__{role}__{tool}": "on" for role, tool in ToolPermission.objects.filter(allowed=True).values_list("role", "tool")
    }


def test_grid_shows_tools_as_rows_and_roles_as_columns(client, admin_user):
    client.force_login(admin_user)
    response = client.get(GRID_URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('<th scope="row">') == len(all_tools())
    for tool in all_tools():
        assert f'<code class="tool-code">{tool}</code>' in html
    for _, label in Role.choices:
        assert f'<th scope="col">{label}</th>' in html
    # ANWALT may update Akten, SACHBEARBEITER may not (defaults), MANDANT's cross-Akte boxes are locked.
    assert _box(html, "ANWALT", "update_akte") == {"checked"}
    assert _box(html, "SACHBEARBEITER", "update_akte") == set()
    assert _box(html, "MANDANT", "search_alle_akten") == {"disabled"}
    assert _box(html, "MANDANT", "read_akte") == {"checked"}
    assert 'value="Speichern"' in html


def test_admin_changes_the_matrix_through_the_grid(client, admin_user):
    client.force_login(admin_user)
    fields = _allowed_fields()
    del fields[f"perm__{Role.PRAKTIKANT}__read_norm"]
    fields[f"perm__{Role.SEKRETARIAT}__create_alert"] = "on"
    fields[f"perm__{Role.MANDANT}__search_dokumente"] = "on"  # locked: ignored
    response = client.post(GRID_URL, fields, follow=True)
    assert response.status_code == 200
    assert "Werkzeugrechte gespeichert: 2 Änderung(en)." in response.content.decode()
    assert not ToolPermission.objects.get(role=Role.PRAKTIKANT, tool="read_norm").allowed
    assert ToolPermission.objects.get(role=Role.SEKRETARIAT, tool="create_alert").allowed
    assert not ToolPermission.objects.get(role=Role.MANDANT, tool="search_dokumente").allowed
    assert {c.object_repr for c in ConfigChange.objects.filter(user=admin_user)} == {
        "Praktikant/Praktikantin × read_norm",
        "Sekretariat × create_alert",
    }
    again = client.post(GRID_URL, {**fields}, follow=True)
    assert "Keine Änderung." in again.content.decode()


def test_other_staff_may_look_but_not_change(client):
    viewer = _staff(Role.ANWALT, "view_toolpermission")
    client.force_login(viewer)
    html = client.get(GRID_URL).content.decode()
    assert "Nur die Administration darf die Werkzeugrechte ändern." in html and 'value="Speichern"' not in html
    assert _box(html, "ANWALT", "update_akte") == {"checked", "disabled"}
    before = set(ToolPermission.objects.values_list("role", "tool", "allowed"))
    assert client.post(GRID_URL, {}).status_code == 403
    assert set(ToolPermission.objects.values_list("role", "tool", "allowed")) == before
    nobody = _staff(Role.SACHBEARBEITER)
    client.force_login(nobody)
    assert client.get(GRID_URL).status_code == 403


def test_single_rows_cannot_be_added_or_deleted(client, admin_user):
    client.force_login(admin_user)
    tool_matrix_ensure_defaults()
    row = ToolPermission.objects.first()
    assert client.get(f"{GRID_URL}add/").status_code == 403
    assert client.get(f"{GRID_URL}{row.pk}/change/").status_code == 302
    assert client.post(f"{GRID_URL}{row.pk}/delete/", {"post": "yes"}).status_code == 403


def test_audit_list_is_read_only_and_filterable(client, admin_user):
    anwalt = UserFactory(role=Role.ANWALT)
    akte = AkteFactory(aktenzeichen="77/25", anwalt=anwalt)
    mine = ToolCallAuditFactory(user=anwalt, akte=akte, tool="read_akte")
    other = ToolCallAuditFactory(tool="search_gesetze", summary="2 Ergebnisse: § 573 BGB; § 573c BGB")
    client.force_login(admin_user)
    html = client.get(AUDIT_URL).content.decode()
    assert "§ 573c BGB" in html and "read_akte" in html
    by_tool = client.get(AUDIT_URL, {"tool": "search_gesetze"}).content.decode()
    assert "§ 573c BGB" in by_tool and f"/{mine.pk}/change/" not in by_tool
    by_user = client.get(AUDIT_URL, {"user__id__exact": anwalt.pk}).content.decode()
    assert f"/{mine.pk}/change/" in by_user and f"/{other.pk}/change/" not in by_user
    by_akte = client.get(AUDIT_URL, {"akte__id__exact": akte.pk}).content.decode()
    assert f"/{mine.pk}/change/" in by_akte and f"/{other.pk}/change/" not in by_akte
    day = timezone.localtime(mine.created_at)  # the admin's date filter uses the Kanzlei's day (Europe/Berlin)
    by_date = client.get(AUDIT_URL, {"created_at__year": day.year, "created_at__month": day.month, "created_at__day": day.day})
    assert by_date.status_code == 200 and f"/{mine.pk}/change/" in by_date.content.decode()
    detail = client.get(f"{AUDIT_URL}{mine.pk}/change/")
    assert detail.status_code == 200 and 'name="_save"' not in detail.content.decode()
    assert client.post(f"{AUDIT_URL}{mine.pk}/change/", {"summary": "geändert"}).status_code == 403
    assert client.get(f"{AUDIT_URL}add/").status_code == 403
    assert client.post(f"{AUDIT_URL}{mine.pk}/delete/", {"post": "yes"}).status_code == 403
    assert ToolCallAudit.objects.get(pk=mine.pk).summary == mine.summary


def test_staff_without_admin_role_see_only_their_own_calls(client):
    viewer = _staff(Role.ANWALT, "view_toolcallaudit")
    own = ToolCallAuditFactory(user=viewer)
    foreign = ToolCallAuditFactory()
    client.force_login(viewer)
    html = client.get(AUDIT_URL).content.decode()
    assert f"/{own.pk}/change/" in html and f"/{foreign.pk}/change/" not in html


def test_grid_names_tools_in_german_and_labels_each_box_by_role_and_tool(client, admin_user):
    client.force_login(admin_user)
    html = client.get(GRID_URL).content.decode()

    read_akte = all_tools()["read_akte"].progress_label.rstrip(" ….")
    assert f'{read_akte}<br><code class="tool-code">read_akte</code>' in html
    assert f'aria-label="{Role.PRAKTIKANT.label}: {read_akte}"' in html
    assert 'aria-label="perm__' not in html and "css/admin-grid.css" in html
