"""Settings of the separate `db_worker` process in the background-run tests: the test settings
with the database-backed task queue (the production and embedded-default shape)."""

from helena.settings.test import *  # noqa: F403

TASKS = {"default": {"BACKEND": "django_tasks_db.backend.DatabaseBackend"}}
