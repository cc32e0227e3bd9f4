from django.apps import AppConfig


class HelenaConfig(AppConfig):
    """The project package as an app: management commands (setup_demo, seed_demo) and templates."""

    name = "helena"
    verbose_name = "Helena"

    def ready(self) -> None:
        # the German documentation of the search API is attached from here (drf-spectacular extensions)
        from . import api_docs_recherche  # noqa: F401
