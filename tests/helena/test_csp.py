"""The Content-Security-Policy lets pages contact only their own origin."""

import pytest

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_connect_src_allows_only_the_own_origin(client):
    client.force_login(UserFactory())
    policy = client.get("/helena/").headers["Content-Security-Policy"]
    directives = {d.split()[0]: d.split()[1:] for d in policy.split(";") if d.strip()}
    assert directives["connect-src"] == ["'self'"]
