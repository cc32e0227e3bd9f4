from django.apps import AppConfig, apps


class HelenaConfig(AppConfig):
    """The project package as an app: management commands (setup_demo, seed_demo) and templates."""

    name = "helena"
    verbose_name = "Helena"

    def ready(self) -> None:
        # German documentation of the search and runs APIs, attached from here (drf-spectacular extensions)
        from . import api_docs_extensions  # noqa: F401

        # django-tasks-db names its app in English, without a translation
        apps.get_app_config("django_tasks_database").verbose_name = "Hintergrundaufgaben"
