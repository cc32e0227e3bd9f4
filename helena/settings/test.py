"""Test settings: the embedded PostgreSQL unless DATABASE_URL is set (CI runs both)."""

import os

from .base import *  # noqa: F403

DEBUG = False
SECRET_KEY = "test-only-secret-key-not-used-anywhere-else-0123456789abcdef"  # noqa: S105
# Threads (tool pool, workers) must not keep connections to the test database past a test: the
# test runner drops it at the end.
DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
if not REDIS_URL:  # noqa: F405
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
SILENCED_SYSTEM_CHECKS = ["django_ratelimit.W001"]
TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
# No sweeper thread in the test process (it would hold connections to the test database); the
# server subprocesses of the tests set their own value.
HELENA_ORPHAN_SWEEP_SECONDS = float(os.environ.get("HELENA_ORPHAN_SWEEP_SECONDS", "0"))
