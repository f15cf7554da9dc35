"""Pure functions of a word, remembered within a process and, through a file in the cache
directory, from one process to the next.

A `paperkg add` of 100 papers recomputes the concept scheme of every paper: it asks the
merge key of each of the ~78k phrases the papers' concepts are written as, and
lemminflect's parts of speech of every word in them, each answered once per process, anew
in each one (the full corpus's scheme: 22 s with cold answers, 20 s with them loaded in
0.25 s). The answers depend only on the word and on the code
that gives them, so they are kept: `remembered(cache_dir, code)` loads them before the
work and saves what was added after, in a file named by the code's fingerprint (other code
never reads another's answers). The answers are the same with or without the file; only
the time differs.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Generic, TypeVar

import orjson

__all__ = ["WordMemo", "remembered"]

V = TypeVar("V")


class WordMemo(Generic[V]):
    """`fn` with its answers kept in a dict: unbounded (the words of one corpus), saved by
    `remembered`. `encode`/`decode` turn an answer into JSON and back."""

    __slots__ = ("_fn", "data", "name", "encode", "decode")

    def __init__(self, name: str, fn: Callable[[str], V],
                 encode: Callable[[V], object] | None = None,
                 decode: Callable[[object], V] | None = None) -> None:
        self.name, self._fn = name, fn
        self.encode: Callable[[V], object] = encode or _same
        self.decode: Callable[[object], V] = decode or _same  # type: ignore[assignment]
        self.data: dict[str, V] = {}
        _MEMOS[name] = self  # type: ignore[assignment]

    def __call__(self, word: str) -> V:
        try:
            return self.data[word]
        except KeyError:
            value = self.data[word] = self._fn(word)
            return value


_MEMOS: dict[str, WordMemo[object]] = {}


def _same(value: object) -> object:
    return value


@contextmanager
def remembered(cache_dir: Path | None, code: str,
               quiet: Callable[[], AbstractContextManager[object]] = nullcontext,
               ) -> Iterator[None]:
    """Every `WordMemo`'s answers loaded from `cache_dir` (when there is one) before the
    block, and saved after it when it added some. A damaged or missing file is a cold
    start, never an error: the file only saves time. `quiet`: a context for the loading
    and saving (the build pauses the garbage collector: they make 140k objects in a
    process that holds a whole corpus)."""
    if cache_dir is None:
        yield
        return
    path = Path(cache_dir) / "words" / f"{code}.json.gz"
    if _identity(path) != _IN_MEMORY.get(path):
        with quiet():
            _load(path)
    before = sum(len(m.data) for m in _MEMOS.values())
    yield
    if sum(len(m.data) for m in _MEMOS.values()) > before:
        with quiet():
            _save(path)


# the file as this process last read or wrote it: a resident process (`paperkg add
# --watch`) holds its answers already and reads it again only when another process
# replaced it (reading it took 0.1 s of every update)
_IN_MEMORY: dict[Path, tuple[int, int, int] | None] = {}


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def _load(path: Path) -> None:
    ident = _identity(path)
    try:
        with gzip.open(path, "rb") as fh:
            saved = orjson.loads(fh.read())
    except FileNotFoundError:
        saved = {}
    except (OSError, EOFError, zlib.error, orjson.JSONDecodeError):
        saved = {}  # damaged: it is written again after this run
    for name, memo in _MEMOS.items():
        rows = saved.get(name) if isinstance(saved, dict) else None
        if isinstance(rows, dict):
            decode = memo.decode
            for word, value in rows.items():
                memo.data.setdefault(word, decode(value))
    _IN_MEMORY[path] = ident


def _save(path: Path) -> None:
    rows = {name: {w: m.encode(v) for w, v in m.data.items()} for name, m in _MEMOS.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    with gzip.open(tmp, "wb", compresslevel=1) as fh:
        fh.write(orjson.dumps(rows))
    os.replace(tmp, path)  # a reader sees the old file or the new one
    _IN_MEMORY[path] = _identity(path)
