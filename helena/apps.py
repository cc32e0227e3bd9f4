from django.apps import AppConfig


class HelenaConfig(AppConfig):
    """The project package as an app: management commands (setup_demo, seed_demo) and templates."""

    name = "helena"
    verbose_name = "Helena"

    def ready(self) -> None:
        # the German documentation of the search API is attached from here (drf-spectacular extensions)
        # django-tasks-db names its app in English, without a translation
        from django.apps import apps

        from . import api_docs_recherche  # noqa: F401

        apps.get_app_config("django_tasks_database").verbose_name = "Hintergrundaufgaben"
