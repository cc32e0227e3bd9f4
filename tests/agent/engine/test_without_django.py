"""The engine core is plain Python: importing it loads no Django, and its tests need none."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
ENGINE_MODULES = ["agent.engine.loop", "agent.engine.routing", "agent.engine.events", "agent.engine.prompt", "agent.engine.pii"]
DJANGO_SIDE = ("django", "channels", "asgiref", "rest_framework", "akten", "drafts", "recherche", "rechner", "helena")
AGENT_DJANGO_SIDE = ("agent.models", "agent.runs", "agent.chat", "agent.tools", "agent.admin")


def test_importing_the_engine_loads_no_django():
    script = (
        "import sys\n"
        f"for name in {ENGINE_MODULES!r}: __import__(name)\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {DJANGO_SIDE!r})\n"
        "print(','.join(loaded))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, check=True)  # noqa: S603
    assert done.stdout.strip() == ""


def test_the_engine_tests_import_nothing_of_the_django_side():
    for path in sorted(Path(__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                assert not name.startswith(DJANGO_SIDE + AGENT_DJANGO_SIDE), (path.name, name)
