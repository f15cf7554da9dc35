"""The fast path's map: static vectors carried onto MiniLM's space (issue 14).

The static embedder averages context-free token vectors, so it ranks a paper's phrases
against its abstract differently from the transformer. A small network fitted on ICLR
phrases and abstracts (`bench/fit_static_map.py`: one hidden ReLU layer beside a linear
path, 256 → 384 dimensions) brings that ranking closer on text unlike ICLR. It ships as
weights only (`STATIC_MAP`), with the unmapped vectors of a few probe phrases that tell a
different distillation apart.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from paperkg.build.models import Progress, load_once
from paperkg.errors import BuildError

if TYPE_CHECKING:
    from paperkg.build.embed import StaticEmbedder

__all__ = ["STATIC_MAP", "STATIC_PROBES", "MappedEmbedder", "StaticMap"]

STATIC_MAP = Path(__file__).parent / "data" / "static_map.npz"
STATIC_PROBES = ("graph neural network", "protein structure prediction", "language model",
                 "reinforcement learning", "image segmentation", "gradient descent",
                 "dark matter", "soil erosion", "monetary policy", "the results show",
                 "we propose a method", "differential equations")

# A text's vector must not depend on its batch-mates (an `add` embeds a few new phrases,
# a build many), but BLAS sums a row differently by its place in the block (OpenBLAS
# 0.3.31: up to 5e-6 in float32). So the map multiplies fixed blocks of this many rows in
# float64, where those differences are ~1e-16, and rounds the unit vector to float16's
# precision (as the embedding cache does): no such difference survives the rounding.
_MAP_ROWS = 256


@dataclass(frozen=True)
class StaticMap:
    """relu(x·hidden + hidden_bias)·out + x·linear + bias: a linear map with a one-layer
    correction (the linear part alone was the map of session 17)."""

    hidden: np.ndarray  # (256, H)
    hidden_bias: np.ndarray  # (H,)
    out: np.ndarray  # (H, 384)
    linear: np.ndarray  # (256, 384)
    bias: np.ndarray  # (384,)

    def apply(self, x: np.ndarray) -> np.ndarray:
        """The mapped unit vectors of `x`'s rows, each independent of the others."""
        out = np.empty((len(x), self.bias.shape[0]), dtype=np.float32)
        block = np.zeros((_MAP_ROWS, x.shape[1]), dtype=np.float64)
        for start in range(0, len(x), _MAP_ROWS):
            rows = x[start : start + _MAP_ROWS]
            block[: len(rows)] = rows
            block[len(rows) :] = 0.0
            mapped = (np.maximum(block @ self.hidden + self.hidden_bias, 0.0) @ self.out
                      + block @ self.linear + self.bias)[: len(rows)]
            mapped /= np.maximum(np.linalg.norm(mapped, axis=1, keepdims=True), 1e-12)
            out[start : start + len(rows)] = mapped.astype(np.float16)
        return out

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def of(cls, arrays: dict[str, np.ndarray]) -> StaticMap:
        """The map stored in `arrays` (float32), held in float64 for `apply`."""
        return cls(**{name: np.asarray(arrays[name], dtype=np.float64)
                      for name in cls.__dataclass_fields__})


@cache
def _map_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:8]


class MappedEmbedder:
    """The static embedder's vectors carried onto MiniLM's space by `STATIC_MAP`.

    The embedding cache, when there is one, wears this embedder: the map is seconds of
    float64 products per 100,000 texts, which a warm build should not pay. The name
    carries the map's digest, so vectors of another map are never taken for these.
    """

    # a few thousand texts are computed faster than read from the cache (`CachedEmbedder`)
    cheap = True

    def __init__(self, static: StaticEmbedder) -> None:
        self.static = static
        self.name = f"{static.name}-map{_map_digest(STATIC_MAP)}"

    def _map(self) -> StaticMap:
        """The map, once its probes show that the vectors it will be applied to come from
        the distillation it was fitted on."""
        def load() -> StaticMap:
            with np.load(STATIC_MAP) as data:
                arrays = {k: data[k] for k in data.files}
            fitted_with = str(arrays["model2vec"])
            agree = np.sum(self.static.encode(list(STATIC_PROBES)) * arrays["probes"], axis=1)
            if float(agree.min()) < 0.98:
                from importlib.metadata import version

                raise BuildError(
                    f"the static model in {self.static.cache_dir / 'models' / self.static.name}"
                    f" differs from the distillation paperkg's map was fitted on (model2vec "
                    f"{fitted_with}, here {version('model2vec')}; least probe cosine "
                    f"{agree.min():.3f}): install model2vec=={fitted_with} and delete that "
                    "directory to distil it again, or use --embedder onnx")
            return StaticMap.of(arrays)

        return load_once(f"static-map:{STATIC_MAP}", load)

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return self._map().apply(self.static.encode(texts, progress))
