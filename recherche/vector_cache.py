"""A file of precomputed embeddings for the shipped corpus, keyed by model and content hash.

Embedding the shipped statutes with the local CPU model takes minutes; the cache lets `make run`
and the tests reuse vectors for text that has not changed. It is derived data: `embedding_cache
export` writes it from the database, and a stale entry is simply never looked up (the hash is of
the exact text the model embeds).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

CACHE_DIR = Path(__file__).parent / "data" / "embeddings"


def cache_path(model_name: str) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in model_name)
    return CACHE_DIR / f"{safe}.npz"


class VectorCache:
    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self._vectors = vectors

    def __len__(self) -> int:
        return len(self._vectors)

    def items(self) -> dict[str, list[float]]:
        return {key: vector.astype(np.float32).tolist() for key, vector in self._vectors.items()}

    def get(self, key: str) -> list[float] | None:
        vector = self._vectors.get(key)
        return None if vector is None else vector.astype(np.float32).tolist()

    @classmethod
    def load(cls, model_name: str) -> VectorCache:
        path = cache_path(model_name)
        if not path.exists():
            return cls({})
        with np.load(path, allow_pickle=False) as data:
            return cls(dict(zip(data["hashes"].tolist(), data["vectors"], strict=True)))

    @staticmethod
    def save(model_name: str, items: list[tuple[str, list[float]]]) -> Path:
        path = cache_path(model_name)
        path.parent.mkdir(parents=True, exist_ok=True)
        hashes = np.array([h for h, _ in items])
        vectors = np.array([v for _, v in items], dtype=np.float16)
        np.savez_compressed(path, hashes=hashes, vectors=vectors)
        return path
