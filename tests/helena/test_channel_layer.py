"""The Redis channel layer of the production shape keeps messages while a process is briefly
behind: all sockets of one daphne process receive through one Redis key, and channels_redis drops
what exceeds its capacity there (default 100; bench/ws_scale.py lost whole runs in second tabs)."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import get_channel_layer
from django.conf import settings

pytestmark = pytest.mark.asyncio

WAITING = 300  # three times channels_redis's default capacity


@pytest.mark.skipif(not settings.REDIS_URL, reason="only the production shape uses the Redis channel layer")
async def test_several_hundred_messages_waiting_for_one_process_all_arrive():
    layer = get_channel_layer()
    groups = [f"helena.test.capacity.{n}" for n in range(WAITING)]  # e.g. events of many runs
    name = await layer.new_channel()  # process-local, like a socket's
    try:
        for group in groups:
            await layer.group_add(group, name)
        for n, group in enumerate(groups):  # the process does not read meanwhile
            await layer.group_send(group, {"type": "run.event", "n": n})
        received = [await asyncio.wait_for(layer.receive(name), timeout=30) for _ in range(WAITING)]
        assert sorted(message["n"] for message in received) == list(range(WAITING))
    finally:
        await layer.flush()


@pytest.mark.skipif(not settings.REDIS_URL, reason="only the production shape uses the Redis channel layer")
async def test_an_inline_runs_events_reach_the_layer_in_order_from_the_publish_thread():
    """With a layer across processes the relay publishes from its own loop (not the web loop); tabs
    in other processes still get every event of the run, in order."""
    import threading

    from channels.layers import channel_layers

    from agent.chat import inline
    from agent.runs.delivery import run_group

    channel_layers.backends.clear()  # a layer of its own: it ends up with a pool on the publish loop
    layer = get_channel_layer()
    name = await layer.new_channel()
    await layer.group_add(run_group(987654), name)
    relay = inline.Relay(asyncio.get_running_loop())
    assert relay.publisher is not relay.loop
    try:
        writer = threading.Thread(
            target=lambda: [relay({"type": "step.started", "run": 987654, "seq": seq}) for seq in range(1, 41)]
        )
        writer.start()
        writer.join()
        received = [await asyncio.wait_for(layer.receive(name), timeout=30) for _ in range(40)]
        assert [message["event"]["seq"] for message in received] == list(range(1, 41))
    finally:
        await layer.group_discard(run_group(987654), name)
        channel_layers.backends.clear()
