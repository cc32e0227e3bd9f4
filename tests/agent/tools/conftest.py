"""Fixtures of the tool tests: a `call` helper that runs a tool through the registry exactly as the
engine does (matrix, validation, cache, audit), and a small legal knowledge base."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.core.management import call_command

from agent.engine.tools import ToolResult
from agent.tools.base import ToolContext
from agent.tools.executor import RunToolBox, toolbox_for
from akten.models import Role
from tests.factories import UserFactory

DATA = Path(__file__).resolve().parents[3] / "recherche" / "data"
MINI_GESETZE = Path(__file__).resolve().parents[2] / "recherche" / "data"


@pytest.fixture(autouse=True)
def _tools_in_test_thread(settings):
    """Tools run in the test's own thread so they see the test transaction (the engine default,
    a worker thread with its own connection, is covered by a transactional test in test_registry)."""
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True


@pytest.fixture
def anwalt(db: None) -> Any:
    """A lawyer (a module may give its own, e.g. with a name)."""
    return UserFactory(role=Role.ANWALT)


def run_call(box: RunToolBox, name: str, arguments: Any, call_id: str = "call-1") -> ToolResult:
    return async_to_sync(box.execute)(name, arguments, call_id=call_id)


@pytest.fixture
def call(db) -> Callable[..., ToolResult]:
    """call(user, tool, args, akte=None, run=None, ctx=None) -> ToolResult through a fresh ToolBox."""

    def _call(user: Any, name: str, arguments: Any = None, *, akte: Any = None, run: Any = None, ctx: Any = None) -> ToolResult:
        context = ctx or ToolContext(user=user, akte=akte, run=run)
        return run_call(toolbox_for(context), name, {} if arguments is None else arguments)

    return _call


@pytest.fixture(autouse=True)
def embeddings_down(settings):
    """An embedding server that does not answer: searches run on full text and say so (fast, no CPU).
    The vector path itself is tested in tests/recherche."""
    settings.HELENA_EMBEDDINGS = {
        **settings.HELENA_EMBEDDINGS,
        "BACKEND": "ollama",
        "MODEL": "m",
        "DIM": 384,
        "BASE_URL": "http://127.0.0.1:9",
        "TIMEOUT": 2,
    }


@pytest.fixture
def knowledge(db):
    """The mini statute TestG, the demo Urteile and the Muster, full text only."""
    call_command("ingest_gesetze", str(MINI_GESETZE), "--no-embed", verbosity=0)
    call_command("ingest_urteile", str(DATA / "urteile"), "--no-embed", verbosity=0)
    call_command("ingest_muster", str(DATA / "muster"), "--no-embed", verbosity=0)
