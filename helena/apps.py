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
        limit_blas_threads()


def limit_blas_threads() -> None:
    """One BLAS thread per process. numpy's OpenBLAS starts a thread per core even for the small
    products of a search (the closest outline areas: 1,900 × 384), and on two busy cores handing
    work to those threads cost up to 12 ms per search (norm search p95 at 100,000 synthetic chunks
    31.0 → 23.5 ms with one thread). A web or worker process serves many requests at once anyway."""
    import numpy  # noqa: F401 - the limit applies to the BLAS libraries loaded when it is set
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
