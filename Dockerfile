# Production image: daphne serving Helena behind a TLS-terminating reverse proxy.
# Configuration comes from the environment (see README, "Konfiguration").
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=helena.settings.production \
    HELENA_DATA_DIR=/var/lib/helena

RUN useradd --system --create-home --home-dir /app helena \
    && mkdir -p /var/lib/helena && chown helena /var/lib/helena
WORKDIR /app

# The letterhead fonts for PDFs (schriftgut/pdf.py: Liberation, DejaVu for letters it lacks), as
# `make fonts` installs them for the embedded default.
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends fonts-liberation fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*

COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt

COPY --chown=helena . .
# collectstatic needs settings but no secrets or database.
RUN SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(50))')" ALLOWED_HOSTS=build \
    DATABASE_URL=postgres://build@localhost/build python manage.py collectstatic --noinput

USER helena
EXPOSE 8000
# Liveness of the web process (/healthz; /readyz: database and Redis, degraded without model servers or workers).
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
# Migrations run once per deployment (docker-compose.yml: the `migrate` service), not in every
# replica. -v 0: daphne's own access log (full URIs with query strings) stays off; Helena writes
# its privacy-safe access log itself (helena.access: path without query, status, duration, user id).
# The same image runs the worker: `python manage.py db_worker --no-reload`.
CMD ["sh", "-c", "exec daphne -v 0 -b 0.0.0.0 -p 8000 --proxy-headers helena.asgi:application"]
