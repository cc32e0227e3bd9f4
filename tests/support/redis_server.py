"""A throw-away redis-server on its own port (no persistence), for the production-shape fault
tests and benchmarks: they restart or stop it without touching the machine's Redis."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path


def start_redis(directory: Path, port: int, *, within: float = 10.0) -> subprocess.Popen:
    """Start redis-server on 127.0.0.1:`port` and wait until it answers PING."""
    process = subprocess.Popen(  # noqa: S603
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(directory)],  # noqa: S607
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + within
    ping = ["redis-cli", "-p", str(port), "ping"]
    while subprocess.run(ping, capture_output=True, check=False).stdout.strip() != b"PONG":  # noqa: S603
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"redis-server did not answer within {within:g} s")
        time.sleep(0.1)
    return process
