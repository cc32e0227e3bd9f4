"""The list APIs and pages answer with a fixed number of queries, however many rows they list
(no query per row). Each count is taken for two rows and must hold for six."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import (
    AkteFactory,
    BeteiligterFactory,
    DokumentFactory,
    HelenaAlertFactory,
    HelenaDraftFactory,
    KalenderEintragFactory,
    NotizFactory,
    UserFactory,
    ZeiterfassungFactory,
)

pytestmark = pytest.mark.django_db

LISTS = {
    "/api/akten/": lambda akte, user: BeteiligterFactory(akte=akte),
    "/api/dokumente/": lambda akte, user: DokumentFactory(akte=akte),
    "/api/fristen/": lambda akte, user: KalenderEintragFactory(akte=akte, datum=datetime.date(2026, 11, 23)),
    "/api/zeiterfassung/": lambda akte, user: ZeiterfassungFactory(akte=akte, user=user),
    "/api/notizen/": lambda akte, user: NotizFactory(akte=akte, autor=user),
    "/api/drafts/": lambda akte, user: HelenaDraftFactory(akte=akte, requested_by=user),
    "/api/alerts/": lambda akte, user: HelenaAlertFactory(akte=akte, recipient=user),
}


def _rows(path, user, count):
    for _ in range(count):
        akte = AkteFactory(anwalt=user)
        LISTS[path](akte, user)


@pytest.mark.parametrize("path", sorted(LISTS))
def test_list_api_queries_do_not_grow_with_the_rows(path, api_client, django_assert_num_queries):
    user = UserFactory(role="ANWALT")
    api_client.force_authenticate(user)
    _rows(path, user, 2)
    with CaptureQueriesContext(connection) as two:
        assert api_client.get(path).status_code == 200
    _rows(path, user, 4)
    with django_assert_num_queries(len(two.captured_queries)):
        response = api_client.get(path)
    assert response.status_code == 200 and response.json()["count"] >= 6


def test_the_akte_page_queries_do_not_grow_with_its_entries(client, django_assert_num_queries):
    user = UserFactory(role="ANWALT")
    akte = AkteFactory(anwalt=user)
    client.force_login(user)

    def add(n):
        for _ in range(n):
            BeteiligterFactory(akte=akte)
            KalenderEintragFactory(akte=akte, datum=datetime.date(2026, 11, 23))
            NotizFactory(akte=akte, autor=user)
            HelenaDraftFactory(akte=akte, requested_by=user)

    add(2)
    client.get(f"/akten/{akte.pk}/")  # once per process: the statute names of the citation check
    with CaptureQueriesContext(connection) as two:
        assert client.get(f"/akten/{akte.pk}/").status_code == 200
    add(4)
    with django_assert_num_queries(len(two.captured_queries)):
        assert client.get(f"/akten/{akte.pk}/").status_code == 200
