"""The cancel token: set from any thread, awaited by the loop instead of looked at again and again."""

from __future__ import annotations

import asyncio
import threading

import pytest

from agent.engine.loop import RunStatus
from agent.engine.tools import CancelToken, ToolResult

from .support import MemoryToolBox, call, echo, ollama, run

pytestmark = pytest.mark.asyncio


async def test_future_is_done_when_another_thread_cancels():
    token = CancelToken()
    future = token.future()
    assert not future.done()
    threading.Thread(target=token.cancel).start()
    await asyncio.wait_for(future, timeout=5)
    assert token.cancelled and token._waiters == []


async def test_future_of_a_cancelled_token_is_done_at_once():
    token = CancelToken()
    token.cancel()
    assert token.future().done()


async def test_forget_removes_the_waiter_and_a_later_cancel_touches_nothing():
    token = CancelToken()
    future = token.future()
    token.forget(future)
    assert token._waiters == [] and future.cancelled()
    token.cancel()  # must not try to resolve the forgotten future
    assert token.cancelled


async def test_a_run_leaves_no_waiter_on_its_token(scripted_llm):
    scripted_llm.script([{"tool_calls": [call("search", q="a")]}, {"text": "Fertig."}])
    token = CancelToken()
    outcome, _ = await run(ollama(scripted_llm), MemoryToolBox({"search": echo}), cancel=token)
    assert outcome.status == RunStatus.DONE
    assert token._waiters == []


async def test_cancel_from_a_plain_thread_ends_a_waiting_tool_batch(scripted_llm):
    entered = threading.Event()

    async def waits(arguments):
        entered.set()
        await asyncio.sleep(30)
        return ToolResult(data="zu spät")

    scripted_llm.script([{"tool_calls": [call("waits", n=1)]}])
    token = CancelToken()

    def cancel_once_the_tool_runs() -> None:
        entered.wait(10)
        token.cancel()

    threading.Thread(target=cancel_once_the_tool_runs, daemon=True).start()
    outcome, sink = await run(ollama(scripted_llm), MemoryToolBox({"waits": waits}), cancel=token, run_seconds=60)
    assert outcome.status == RunStatus.CANCELLED
    assert sink.types()[-1] == "run.cancelled"
    assert token._waiters == []
