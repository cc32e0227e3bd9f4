"""Production: every security-relevant value must come from the environment; no fallbacks."""

import os

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403


def required(name: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise ImproperlyConfigured(f"Die Umgebungsvariable {name} muss in Produktion gesetzt sein.")
    return value


def strong_secret_key(value: str) -> str:
    """The rule of Django's deployment check (W009), enforced at start instead of warned about in a
    check nobody runs: sessions, CSRF tokens and password-reset links are signed with it."""
    if len(value) < 50 or len(set(value)) < 5 or value.startswith("django-insecure-"):
        raise ImproperlyConfigured(
            "SECRET_KEY ist zu schwach: mindestens 50 Zeichen, zufällig erzeugt "
            "(z. B. python -c 'import secrets; print(secrets.token_urlsafe(50))')."
        )
    return value


def named_hosts(value: str) -> list[str]:
    hosts = [h.strip() for h in value.split(",") if h.strip()]
    if any("*" in host for host in hosts) or hosts in ([], ["."]):
        raise ImproperlyConfigured("ALLOWED_HOSTS muss die Namen des Servers aufzählen, ohne Platzhalter wie „*“.")
    return hosts


DEBUG = False
SECRET_KEY = strong_secret_key(required("SECRET_KEY"))
ALLOWED_HOSTS = named_hosts(required("ALLOWED_HOSTS"))
required("DATABASE_URL")
# The embedded demo model (135 M parameters) answers where no model server does: right for trying
# Helena out, not for a Kanzlei's work. In production a run without a reachable model fails and says
# so, unless HELENA_DEMO_MODEL=1.
HELENA_DEMO_MODEL = os.environ.get("HELENA_DEMO_MODEL", "0") == "1"

# daphne runs behind a TLS-terminating reverse proxy that sets X-Forwarded-Proto.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = os.environ.get("SECURE_SSL_REDIRECT", "1") == "1"
# The proxy and the orchestrator probe the processes directly over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = os.environ.get("SECURE_HSTS_PRELOAD", "1") == "1"
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
