import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*args: str, env_extra: dict[str, str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "ALLOWED_HOSTS")}
    env.update(env_extra)
    return subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )


PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "helena.settings.production",
    "SECRET_KEY": "kP3!v9#qL2@xR7$wT5^zN8&mB4*jH6(fD1)gS0_cY-eU+aI=oQ",
    "ALLOWED_HOSTS": "helena.kanzlei.example",
    "DATABASE_URL": "postgres://helena@db.invalid:5432/helena",
}


def test_production_settings_pass_check_deploy():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", env_extra=PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_settings_refuse_missing_secret_key():
    env = dict(PRODUCTION)
    env.pop("SECRET_KEY")
    result = run_manage("check", env_extra=env)
    assert result.returncode != 0
    assert "SECRET_KEY muss in Produktion gesetzt sein" in result.stderr


def test_production_settings_refuse_a_weak_secret_key_and_a_wildcard_host():
    """Seen by an IT provider: SECRET_KEY=x and ALLOWED_HOSTS=* started fine; only `check --deploy`,
    which nothing runs, warned about the key, and about the wildcard not at all."""
    for extra, message in (
        ({"SECRET_KEY": "x"}, "SECRET_KEY ist zu schwach"),
        ({"SECRET_KEY": "django-insecure-" + "kP3!v9#qL2@xR7$wT5^zN8&mB4*jH6(fD1)gS0"}, "SECRET_KEY ist zu schwach"),
        ({"ALLOWED_HOSTS": "*"}, "ALLOWED_HOSTS muss die Namen"),
        ({"ALLOWED_HOSTS": "helena.kanzlei.example,.example"}, None),
    ):
        result = run_manage("check", env_extra=PRODUCTION | extra)
        if message is None:
            assert result.returncode == 0, result.stderr
        else:
            assert result.returncode != 0 and message in result.stderr


def test_base_settings_are_german_and_berlin():
    from django.conf import settings

    assert settings.LANGUAGE_CODE == "de"
    assert settings.TIME_ZONE == "Europe/Berlin"
    assert settings.USE_TZ


def test_the_embedded_default_shows_no_debug_pages_unless_asked_for():
    """`make run` is what a Kanzlei runs: an error must never show Django's debug page."""
    code = "from django.conf import settings; print(settings.DEBUG)"
    env = {k: v for k, v in os.environ.items() if k != "DEBUG"} | {"DJANGO_SETTINGS_MODULE": "helena.settings.dev"}
    for extra, expected in (({}, "False"), ({"DEBUG": "1"}, "True")):
        result = subprocess.run(  # noqa: S603
            [sys.executable, "manage.py", "shell", "-c", code],
            cwd=ROOT,
            env=env | extra,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.stdout.strip().splitlines()[-1] == expected, result.stderr


def test_a_django_process_computes_with_one_blas_thread():
    """numpy's OpenBLAS would start a thread per core for every small product of a search."""
    from threadpoolctl import threadpool_info

    blas = [info for info in threadpool_info() if info["user_api"] == "blas"]
    assert blas
    assert {info["num_threads"] for info in blas} == {1}


def test_the_embedded_default_starts_without_warnings_and_serves_static_files(tmp_path):
    """`make run` printed WhiteNoise's "No directory at: …/staticfiles/" at every start: the embedded
    default serves static files through the finders and has nothing collected."""
    code = (
        "import django; django.setup()\n"
        "from django.test import Client\n"
        "from helena.asgi import application\n"
        "print(Client().get('/static/css/chat.css').status_code)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "DATABASE_URL")}
    env |= {"DJANGO_SETTINGS_MODULE": "helena.settings.dev", "HELENA_DATA_DIR": str(tmp_path)}
    result = subprocess.run(  # noqa: S603
        [sys.executable, "-W", "error::UserWarning", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "200"
    assert "Warning" not in result.stderr
