"""The chat fixtures (scripted model tier, fresh channel layer) of the agent UI tests, reused."""

from tests.agent.chat.conftest import _fresh_channel_layer, scripted_tier  # noqa: F401
from tests.agent.conftest import scripted_llm, tier1  # noqa: F401
