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
