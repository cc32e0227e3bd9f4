from django.apps import AppConfig


class RechnerConfig(AppConfig):
    name = "rechner"
    verbose_name = "Rechner"
