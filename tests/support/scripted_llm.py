"""A scripted LLM server for tests: a real HTTP server on 127.0.0.1 (in a thread) that speaks the
Ollama protocol (`POST /api/chat` streaming NDJSON and not, `GET /api/tags`, `GET /api/version`)
and the OpenAI protocol (`POST /v1/chat/completions` with SSE streaming and not, `GET /v1/models`),
so the real `ollama` and `openai` clients talk to it over real sockets.

Script format
-------------
A script is a list of steps; every chat request (on either protocol) consumes the next step, in
order. A step is a `Step`, a dict with the same keys, or a callable `(request_body) -> Step | dict`
that decides from what was sent. Keys, all optional:

    text          str    the assistant's text ("" by default)
    tool_calls    list   [{"name": "search_gesetze", "arguments": {"query": "§ 193 BGB"}}, ...];
                         "arguments" may be a dict or a raw string (sent verbatim, e.g. broken
                         JSON for guard tests); "id" is optional ("call_<n>" otherwise)
    status        int    HTTP status; >= 400 answers with `error` as the body instead of a reply
    error         dict | str  the error body (default {"error": "scripted error"}); see
                         `OLLAMA_TOOL_PARSER_ERROR` for Ollama's tool-parser 500
    stream_error  str    Ollama only: after the text fragments, a streamed `{"error": ...}` line
                         (what Ollama sends when its tool parser fails mid-stream)
    stream_error_key str the key of that line ("error"; some Ollama versions used
                         "error parsing tool call")
    delay         float  seconds to wait before answering (timeouts, cancel mid-request)
    chunk_delay   float  seconds between streamed fragments
    chunks        list   the streamed text fragments (default: `text` split after each space)
    usage         (int, int)  prompt and completion tokens (default: estimated from the sizes)
    finish_reason str    default "tool_calls" when there are tool calls, else "stop"
    include_usage bool   OpenAI streaming: send the usage chunk when asked (default True)

When the script is exhausted, a chat request gets HTTP 500 {"error": "scripted_llm: script
exhausted"}, so a test never hangs on a missing step.

Every request is recorded (`server.requests`, `server.chat_requests`, `server.last_body`) with
its parsed body, headers and whether the client went away before the answer was complete
(`aborted`, `closed_at`): that is how cancellation is verified. While waiting out a `delay`, the
handler watches the socket and notices a client that closed the connection.

    def test_something(scripted_llm):
        scripted_llm.script([{"tool_calls": [{"name": "read_akte", "arguments": {"id": 1}}]},
                             {"text": "Fertig."}])
        client = OllamaClient(model="m", host=scripted_llm.url)        # or
        client = OpenAICompatClient(model="m", base_url=scripted_llm.openai_url)
        ...
        assert scripted_llm.chat_requests[0].body["options"]["num_ctx"] == 8192
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OLLAMA_TOOL_PARSER_ERROR = {
    "error": 'error parsing tool call: raw=\'{"query": "§ 193 BGB",}\', '
    "err=invalid character '}' looking for beginning of object key string"
}
EXHAUSTED_ERROR = {"error": "scripted_llm: script exhausted"}


@dataclass
class Step:
    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    error: dict[str, Any] | str | None = None
    stream_error: str = ""
    stream_error_key: str = "error"
    delay: float = 0.0
    chunk_delay: float = 0.0
    chunks: list[str] | None = None
    usage: tuple[int, int] | None = None
    finish_reason: str = ""
    include_usage: bool = True

    @classmethod
    def of(cls, value: Step | dict[str, Any]) -> Step:
        return value if isinstance(value, Step) else cls(**value)

    def fragments(self) -> list[str]:
        if self.chunks is not None:
            return list(self.chunks)
        if not self.text:
            return []
        words = self.text.split(" ")
        return [w + " " for w in words[:-1]] + [words[-1]]

    def finish(self) -> str:
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")

    def token_usage(self, body: dict[str, Any]) -> tuple[int, int]:
        if self.usage is not None:
            return self.usage
        prompt_chars = sum(len(str(m.get("content") or "")) for m in body.get("messages") or [])
        completion_chars = len(self.text) + sum(len(json.dumps(c.get("arguments"))) for c in self.tool_calls)
        return max(1, prompt_chars // 4), max(1, completion_chars // 4)


ScriptEntry = Step | dict[str, Any] | Callable[[dict[str, Any]], "Step | dict[str, Any]"]


@dataclass
class RecordedRequest:
    method: str
    path: str
    body: Any
    headers: dict[str, str]
    started_at: float
    finished_at: float | None = None
    # The client closed the connection before the answer was complete (cancel / client timeout).
    aborted: bool = False
    closed_at: float | None = None

    @property
    def stream(self) -> bool:
        return bool(isinstance(self.body, dict) and self.body.get("stream"))


class _Aborted(Exception):
    pass


class ScriptedLLMServer:
    def __init__(self, *, models: list[str] | None = None) -> None:
        self.models = models or ["scripted-model"]
        self.requests: list[RecordedRequest] = []
        self._steps: list[ScriptEntry] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._call_counter = 0

    # -- script ---------------------------------------------------------------------------------
    def script(self, steps: list[ScriptEntry]) -> ScriptedLLMServer:
        """Replace the remaining script."""
        with self._lock:
            self._steps = list(steps)
        return self

    def push(self, *steps: ScriptEntry) -> ScriptedLLMServer:
        """Append steps to the script."""
        with self._lock:
            self._steps.extend(steps)
        return self

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._steps)

    def _next_step(self, body: dict[str, Any]) -> Step | None:
        with self._lock:
            if not self._steps:
                return None
            entry = self._steps.pop(0)
        if callable(entry):
            entry = entry(body)
        return Step.of(entry)

    def _next_call_id(self) -> str:
        with self._lock:
            self._call_counter += 1
            return f"call_{self._call_counter}"

    # -- recorded requests ------------------------------------------------------------------------
    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path in ("/api/chat", "/v1/chat/completions")]

    @property
    def last_body(self) -> dict[str, Any]:
        return self.chat_requests[-1].body

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> list[RecordedRequest]:
        deadline = time.monotonic() + timeout
        while len(self.chat_requests) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.chat_requests

    def wait_aborted(self, request: RecordedRequest, timeout: float = 2.0) -> bool:
        deadline = time.monotonic() + timeout
        while not request.aborted and time.monotonic() < deadline:
            time.sleep(0.01)
        return request.aborted

    # -- lifecycle --------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """Base URL for the Ollama client (host)."""
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_url(self) -> str:
        """Base URL for the OpenAI client."""
        return self.url + "/v1"

    def start(self) -> ScriptedLLMServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="scripted-llm", daemon=True
        ).start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


def _handler_for(server: ScriptedLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        # -- plumbing ---------------------------------------------------------------------------
        def _record(self) -> RecordedRequest:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except json.JSONDecodeError:
                body = raw.decode("utf-8", "replace")
            record = RecordedRequest(
                method=self.command,
                path=self.path.split("?")[0],
                body=body,
                headers={k.lower(): v for k, v in self.headers.items()},
                started_at=time.monotonic(),
            )
            server.requests.append(record)
            return record

        def _client_gone(self) -> bool:
            sock: socket.socket = self.connection
            readable, _, _ = select.select([sock], [], [], 0)
            if not readable:
                return False
            try:
                return sock.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                return True

        def _wait(self, seconds: float, record: RecordedRequest) -> None:
            """Sleep, but notice a client that hangs up (and a server that stops)."""
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                if self._client_gone():
                    raise _Aborted
                if server._stopping.wait(min(0.01, max(0.0, deadline - time.monotonic()))):
                    raise _Aborted

        def _send_json(self, status: int, payload: Any) -> None:
            data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _start_stream(self, content_type: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()

        def _chunk(self, data: str) -> None:
            raw = data.encode()
            self.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n")
            self.wfile.flush()

        def _end_stream(self) -> None:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        # -- routing ------------------------------------------------------------------------------
        def do_GET(self) -> None:  # noqa: N802
            record = self._record()
            if record.path == "/api/tags":
                self._send_json(200, {"models": [{"name": m, "model": m, "size": 1} for m in server.models]})
            elif record.path == "/api/version":
                self._send_json(200, {"version": "0.12.0-scripted"})
            elif record.path == "/v1/models":
                self._send_json(
                    200, {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "scripted"} for m in server.models]}
                )
            else:
                self._send_json(404, {"error": f"not found: {record.path}"})
            record.finished_at = time.monotonic()

        def do_POST(self) -> None:  # noqa: N802
            record = self._record()
            if record.path not in ("/api/chat", "/v1/chat/completions"):
                self._send_json(404, {"error": f"not found: {record.path}"})
                return
            body = record.body if isinstance(record.body, dict) else {}
            step = server._next_step(body)
            try:
                if step is None:
                    self._send_json(500, EXHAUSTED_ERROR)
                else:
                    if step.delay:
                        self._wait(step.delay, record)
                    if step.status >= 400:
                        self._send_json(step.status, step.error if step.error is not None else {"error": "scripted error"})
                    elif record.path == "/api/chat":
                        self._ollama(step, body, record)
                    else:
                        self._openai(step, body, record)
                record.finished_at = time.monotonic()
            except (_Aborted, BrokenPipeError, ConnectionResetError):
                record.aborted = True
                record.closed_at = time.monotonic()
                self.close_connection = True

        # -- Ollama -------------------------------------------------------------------------------
        def _ollama_tool_calls(self, step: Step) -> list[dict[str, Any]]:
            return [{"function": {"name": c["name"], "arguments": c.get("arguments", {})}} for c in step.tool_calls]

        def _ollama(self, step: Step, body: dict[str, Any], record: RecordedRequest) -> None:
            model = body.get("model", "")
            prompt_tokens, completion_tokens = step.token_usage(body)
            final = {
                "model": model,
                "created_at": _now_iso(),
                "done": True,
                "done_reason": "length" if step.finish_reason == "length" else "stop",
                "prompt_eval_count": prompt_tokens,
                "eval_count": completion_tokens,
                "total_duration": 1,
            }
            if not body.get("stream", True):
                message: dict[str, Any] = {"role": "assistant", "content": step.text}
                if step.tool_calls:
                    message["tool_calls"] = self._ollama_tool_calls(step)
                self._send_json(200, {**final, "message": message})
                return
            self._start_stream("application/x-ndjson")
            for i, fragment in enumerate(step.fragments()):
                if i and step.chunk_delay:
                    self._wait(step.chunk_delay, record)
                part = {
                    "model": model,
                    "created_at": _now_iso(),
                    "message": {"role": "assistant", "content": fragment},
                    "done": False,
                }
                self._chunk(json.dumps(part) + "\n")
            if step.stream_error:
                self._chunk(json.dumps({step.stream_error_key: step.stream_error}) + "\n")
                self._end_stream()
                return
            if step.tool_calls:
                part = {
                    "model": model,
                    "created_at": _now_iso(),
                    "message": {"role": "assistant", "content": "", "tool_calls": self._ollama_tool_calls(step)},
                    "done": False,
                }
                self._chunk(json.dumps(part) + "\n")
            self._chunk(json.dumps({**final, "message": {"role": "assistant", "content": ""}}) + "\n")
            self._end_stream()

        # -- OpenAI -------------------------------------------------------------------------------
        def _openai_tool_calls(self, step: Step) -> list[dict[str, Any]]:
            calls = []
            for c in step.tool_calls:
                arguments = c.get("arguments", {})
                calls.append(
                    {
                        "id": c.get("id") or server._next_call_id(),
                        "type": "function",
                        "function": {
                            "name": c["name"],
                            "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False),
                        },
                    }
                )
            return calls

        def _openai(self, step: Step, body: dict[str, Any], record: RecordedRequest) -> None:
            model = body.get("model", "")
            prompt_tokens, completion_tokens = step.token_usage(body)
            usage = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            }
            base = {"id": "chatcmpl-scripted", "created": int(time.time()), "model": model}
            tool_calls = self._openai_tool_calls(step)
            if not body.get("stream"):
                message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
                if tool_calls:
                    message["tool_calls"] = tool_calls
                choice = {"index": 0, "message": message, "finish_reason": step.finish()}
                self._send_json(200, {**base, "object": "chat.completion", "choices": [choice], "usage": usage})
                return

            def event(choices: list[dict[str, Any]], **extra: Any) -> None:
                self._chunk(
                    "data: " + json.dumps({**base, "object": "chat.completion.chunk", "choices": choices, **extra}) + "\n\n"
                )

            self._start_stream("text/event-stream")
            event([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
            for i, fragment in enumerate(step.fragments()):
                if i and step.chunk_delay:
                    self._wait(step.chunk_delay, record)
                event([{"index": 0, "delta": {"content": fragment}, "finish_reason": None}])
            for index, call in enumerate(tool_calls):
                # Like vLLM and OpenAI: name first, then the arguments in two pieces.
                arguments = call["function"]["arguments"]
                half = len(arguments) // 2
                head = {
                    "index": index,
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["function"]["name"], "arguments": ""},
                }
                event([{"index": 0, "delta": {"tool_calls": [head]}, "finish_reason": None}])
                for piece in (arguments[:half], arguments[half:]):
                    event(
                        [
                            {
                                "index": 0,
                                "delta": {"tool_calls": [{"index": index, "function": {"arguments": piece}}]},
                                "finish_reason": None,
                            }
                        ]
                    )
            event([{"index": 0, "delta": {}, "finish_reason": step.finish()}])
            if step.include_usage and (body.get("stream_options") or {}).get("include_usage"):
                event([], usage=usage)
            self._chunk("data: [DONE]\n\n")
            self._end_stream()

    return Handler


def scripted_llm_server(models: list[str] | None = None) -> Iterator[ScriptedLLMServer]:
    """Generator for a pytest fixture: a started server, stopped afterwards."""
    server = ScriptedLLMServer(models=models).start()
    try:
        yield server
    finally:
        server.stop()
