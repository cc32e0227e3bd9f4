"""Database backend: django.db.backends.postgresql on top of the embedded server."""

from typing import Any

from django.db.backends.postgresql import base

from .server import ensure_database, ensure_server


class DatabaseWrapper(base.DatabaseWrapper):
    _databases_ready: set[str] = set()

    def get_connection_params(self) -> dict[str, Any]:
        server = ensure_server(self.settings_dict["DATA_DIR"])
        name = self.settings_dict["NAME"]
        # The test runner creates its own database through the "postgres" database.
        if name and name not in self._databases_ready and not name.startswith("test_"):
            ensure_database(server, name)
            self._databases_ready.add(name)
        self.settings_dict.update({"HOST": server.socket_dir, "PORT": str(server.port), "USER": server.user})
        return super().get_connection_params()
