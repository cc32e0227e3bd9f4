"""schemathesis against /api/schema/, in process (Django's WSGI application), as a logged-in lawyer
with a CSRF token: valid and invalid requests for every operation, never a server error.
Bounded: a few examples per operation and mode, no shrinking, no example database."""

from __future__ import annotations

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from akten.models import Role
from tests.factories import AkteFactory, BeteiligterFactory, DokumentFactory, HelenaDraftFactory, UserFactory

pytestmark = pytest.mark.django_db

EXAMPLES_PER_OPERATION = 8
CSRF = "a" * 32


@pytest.fixture
def wsgi_app_in_test_transaction():
    """The WSGI application on the test's connection: like Django's test client, requests must not
    close the connection (and with it the test's transaction) when they start and finish."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def session(settings) -> tuple[dict[str, str], dict]:
    settings.HELENA_RATELIMIT_WRITE = "100000/m"
    user = UserFactory(role=Role.ANWALT)
    akte = AkteFactory(anwalt=user)
    BeteiligterFactory(akte=akte)
    DokumentFactory(akte=akte)
    HelenaDraftFactory(akte=akte)
    client = Client()
    client.force_login(user)
    document = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert document.status_code == 200
    return {"sessionid": client.cookies["sessionid"].value, "csrftoken": CSRF}, document.json()


def test_no_operation_of_the_api_answers_a_server_error(session, wsgi_app_in_test_transaction):
    cookies, document = session
    # The schema as a logged-in user gets it from /api/schema/; requests go to the WSGI app in process.
    schema = schemathesis.openapi.from_dict(document)
    schema.app = wsgi_app_in_test_transaction
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 20
    errors: list[str] = []
    answered: list[tuple[str, int]] = []
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            strategy = operation.as_strategy(generation_mode=mode)

            @given(case=strategy)
            @settings(
                max_examples=EXAMPLES_PER_OPERATION,
                deadline=None,
                database=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck),
            )
            def run(case: schemathesis.Case) -> None:
                response = case.call(cookies=cookies, headers={"X-CSRFToken": CSRF})
                answered.append((case.method.upper(), response.status_code))
                try:
                    case.validate_response(response, checks=[not_a_server_error])
                except Exception as exc:  # collect all, report together
                    errors.append(f"{case.operation.label}: {type(exc).__name__} {str(exc)[:300]}")

            run()
    assert errors == []
    # The session worked (reads answered 200) and writes passed the CSRF check (a refusal there is 403).
    assert any(method == "GET" and status == 200 for method, status in answered)
    assert any(method != "GET" and status != 403 for method, status in answered)
