"""A file of precomputed embeddings for the shipped corpus, keyed by model and content hash.

Embedding the shipped statutes with the local CPU model takes about an hour on two cores; the cache
lets `make run` and the tests reuse vectors for text that has not changed. It is derived data:
`embedding_cache export` writes it from the database, and a stale entry is simply never looked up
(the hash is of the exact text the model embeds).

Compact form: the vectors are unit length, so each is stored as int8 with one float32 scale (about
400 bytes a vector instead of 1,536; cosine similarities change by less than 0.001), the SHA-256
keys as 32 raw bytes.
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
        return {key: vector.tolist() for key, vector in self._vectors.items()}

    def get(self, key: str) -> list[float] | None:
        vector = self._vectors.get(key)
        return None if vector is None else vector.tolist()

    @classmethod
    def load(cls, model_name: str) -> VectorCache:
        path = cache_path(model_name)
        if not path.exists():
            return cls({})
        with np.load(path, allow_pickle=False) as data:
            keys = [bytes(row).hex() for row in data["keys"]]
            vectors = data["vectors"].astype(np.float32) * data["scales"][:, None]
        return cls(dict(zip(keys, vectors, strict=True)))

    @staticmethod
    def save(model_name: str, items: list[tuple[str, list[float]]]) -> Path:
        path = cache_path(model_name)
        path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array([np.frombuffer(bytes.fromhex(h), dtype=np.uint8) for h, _ in items], dtype=np.uint8).reshape(-1, 32)
        vectors = np.array([v for _, v in items], dtype=np.float32).reshape(len(items), -1)
        scales = np.maximum(np.abs(vectors).max(axis=1), 1e-12) / 127.0
        quantised = np.round(vectors / scales[:, None]).astype(np.int8)
        np.savez_compressed(path, keys=keys, vectors=quantised, scales=scales.astype(np.float32))
        return path
