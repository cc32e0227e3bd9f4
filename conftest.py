import pytest
from rest_framework.test import APIClient


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture(autouse=True)
def _clear_cache():
    """Rate-limit counters live in the cache; every test starts with fresh counters."""
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture(scope="session", autouse=True)
def _test_database_released(django_db_setup, django_db_blocker):
    """Worker threads of the engine and the consumers keep their own database connections; end
    them before the test database is dropped, so the drop never fails on "other sessions"."""
    yield
    from django.db import connection

    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
