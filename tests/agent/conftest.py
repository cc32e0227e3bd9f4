"""Fixtures of the agent tests. `scripted_llm` is a real local HTTP server speaking the Ollama and
OpenAI protocols; its script format is documented in `tests/support/scripted_llm.py`."""

from collections.abc import Iterator

import pytest

from agent.models import TierConfig
from tests.support.scripted_llm import ScriptedLLMServer, scripted_llm_server


@pytest.fixture
def scripted_llm() -> Iterator[ScriptedLLMServer]:
    yield from scripted_llm_server()


@pytest.fixture
def tier1(db: None, scripted_llm: ScriptedLLMServer) -> TierConfig:
    """Tier 1 is the scripted LLM server (Ollama protocol)."""
    return TierConfig.objects.create(
        tier=1, name="Klein", provider="OLLAMA", model="scripted-model", base_url=scripted_llm.url, enabled=True
    )
