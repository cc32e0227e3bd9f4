"""The environment for a server or worker process that a test starts next to itself: it must use
the test database, in the embedded shape (HELENA_EMBEDDED_DB_NAME) and behind DATABASE_URL alike."""

from __future__ import annotations

import os
import urllib.parse

from django.db import connection


def env_on_test_database(settings_module: str) -> dict[str, str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": settings_module}
    name = str(connection.settings_dict["NAME"])
    if os.environ.get("DATABASE_URL"):
        url = urllib.parse.urlsplit(os.environ["DATABASE_URL"])
        env["DATABASE_URL"] = urllib.parse.urlunsplit(url._replace(path="/" + urllib.parse.quote(name)))
    else:
        env["HELENA_EMBEDDED_DB_NAME"] = name
    return env
