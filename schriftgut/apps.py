from django.apps import AppConfig


class SchriftgutConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "schriftgut"
    verbose_name = "Schriftsätze, Vorlagen und Kostennoten"
