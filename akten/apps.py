from django.apps import AppConfig


class AktenConfig(AppConfig):
    name = "akten"
    verbose_name = "Akten"
