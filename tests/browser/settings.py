"""Settings of the daphne and db_worker subprocesses in the browser tests: the test settings with
the database-backed task queue, served to a real browser on 127.0.0.1."""

from helena.settings.test import *  # noqa: F403

TASKS = {"default": {"BACKEND": "django_tasks_db.backend.DatabaseBackend"}}
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
