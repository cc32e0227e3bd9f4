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
