"""A real local HTTP server that replays scripted answers, for testing our clients of the Ollama
and OpenAI protocols over real HTTP (no mocks inside our own code)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Handler = Callable[[dict[str, Any]], tuple[int, Any]]


@dataclass
class RecordedRequest:
    method: str
    path: str
    body: Any


@dataclass
class ScriptedServer:
    routes: dict[str, Handler] = field(default_factory=dict)
    requests: list[RecordedRequest] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> ScriptedServer:
        script = self

        class RequestHandler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                script.requests.append(RecordedRequest(self.command, self.path, body))
                handler = script.routes.get(self.path.split("?")[0])
                status, payload = handler(body or {}) if handler else (404, {"error": "not scripted"})
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer  # noqa: N815

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), RequestHandler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
