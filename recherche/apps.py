from django.apps import AppConfig


class RechercheConfig(AppConfig):
    name = "recherche"
    verbose_name = "Recherche (Gesetze, Urteile, Muster)"

    def ready(self) -> None:
        from akten.signals import dokument_saved

        from .signals import on_dokument_saved

        dokument_saved.connect(on_dokument_saved, dispatch_uid="recherche-index-dokument")
