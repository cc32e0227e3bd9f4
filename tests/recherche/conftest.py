from pathlib import Path

import pytest
from django.core.management import call_command

from tests.support.scripted_server import ScriptedServer

DATA = Path(__file__).resolve().parents[2] / "recherche" / "data"
MINI = Path(__file__).resolve().parent / "data"
SHIPPED_SUBSET = ("bgb", "zpo", "gg", "kschg", "tzbfg", "arbgg", "rvg", "gkg_2004", "sgb_2", "sgb_10", "woeigg")


@pytest.fixture
def scripted_server():
    server = ScriptedServer().start()
    yield server
    server.stop()


@pytest.fixture
def mini_gesetze(db):
    call_command("ingest_gesetze", str(MINI), "--no-embed", verbosity=0)


@pytest.fixture(scope="session")
def _shipped_gesetze_session(django_db_setup, django_db_blocker):
    """A subset of the shipped corpus (BGB, ZPO, GG and a few small statutes the citation forms and
    the twins across laws need), ingested once per test session (outside the per-test
    transactions) and embedded with the vectors of the shipped cache."""
    with django_db_blocker.unblock():
        call_command("ingest_gesetze", str(DATA / "gesetze"), "--only", *SHIPPED_SUBSET, verbosity=0)


@pytest.fixture
def shipped_gesetze(_shipped_gesetze_session, db):
    return None
