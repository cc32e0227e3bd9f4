from django.apps import AppConfig


class DraftsConfig(AppConfig):
    name = "drafts"
    verbose_name = "Entwürfe und Hinweise"
