"""The loop's answer to each kind of model failure is one row of a table (pure; the behaviour of
each row is exercised end to end in test_loop.py and test_routing.py)."""

from __future__ import annotations

from agent.engine.loop import BROKEN_CLIENT, COMPACT_TOOLS, ERR_NO_MODEL, RETRY_ONCE, model_error_policy
from agent.llm.base import LLMContextOverflow, LLMHTTPError, LLMTimeout, LLMToolParserError, LLMUnavailable


def test_a_parser_error_of_the_server_is_retried_once_before_escalating():
    policy = model_error_policy(LLMToolParserError(500, "error parsing tool call"))
    assert policy.recovery == RETRY_ONCE and not policy.outage


def test_an_unreachable_or_slow_server_is_an_outage_the_demo_model_may_cover():
    for exc in (LLMUnavailable("connection refused"), LLMTimeout("60 s")):
        policy = model_error_policy(exc)
        assert policy.outage and policy.message == ERR_NO_MODEL and policy.finish_reason == "kein Modell erreichbar"


def test_a_context_overflow_first_compacts_the_tool_descriptions():
    assert model_error_policy(LLMContextOverflow("prompt is too long")).recovery == COMPACT_TOOLS


def test_an_http_error_is_an_answer_not_an_outage():
    policy = model_error_policy(LLMHTTPError(400, "bad request"))
    assert not policy.outage and not policy.recovery and policy.reason == "Modellfehler"


def test_a_client_that_breaks_its_contract_is_treated_like_a_provider_error():
    assert model_error_policy(KeyError("choices")) is BROKEN_CLIENT
