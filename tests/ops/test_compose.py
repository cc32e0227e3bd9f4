"""docker-compose.yml is the container form of ops/prod.sh (no container runtime runs on this
machine kind, so it is checked here as a file): two web replicas behind the proxy, two workers,
migrations once, PostgreSQL + pgvector and Redis, each with a health check that tests what it
serves, and the same settings for web and worker."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))


def test_web_and_worker_run_twice_with_the_same_settings():
    services = compose()["services"]
    assert services["web"]["deploy"]["replicas"] == 2
    assert services["worker"]["deploy"]["replicas"] == 2
    assert services["worker"]["command"][:3] == ["python", "manage.py", "db_worker"]
    assert services["web"]["environment"] == services["worker"]["environment"]
    for name in ("web", "worker"):
        needs = services[name]["depends_on"]
        assert needs["db"] == {"condition": "service_healthy"}
        assert needs["redis"] == {"condition": "service_healthy"}
        assert needs["migrate"] == {"condition": "service_completed_successfully"}


def test_every_long_running_service_has_a_health_check_of_what_it_serves():
    services = compose()["services"]
    assert "pg_isready" in services["db"]["healthcheck"]["test"]
    assert services["redis"]["healthcheck"]["test"][-1] == "ping"
    assert "/healthz" in " ".join(services["proxy"]["healthcheck"]["test"])
    assert services["proxy"]["depends_on"]["web"] == {"condition": "service_healthy"}
    # the web replicas use the image's HEALTHCHECK (/healthz); the worker replaces it with its heartbeat
    assert "healthcheck" not in services["web"]
    assert "/healthz" in (ROOT / "Dockerfile").read_text(encoding="utf-8").split("HEALTHCHECK", 1)[1].splitlines()[1]
    assert services["worker"]["healthcheck"]["test"] == ["CMD", "python", "manage.py", "worker_health"]


def test_the_worker_health_check_names_a_command_that_exists():
    from django.core.management import get_commands

    assert get_commands()["worker_health"] == "agent"
    assert get_commands()["db_worker"] == "agent"
