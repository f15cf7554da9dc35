"""A step run in a forked process beside the caller's own work.

An update writes its files, checks SHACL on the changed units and writes the store
difference; each takes a few seconds and none needs another's result, and this machine
has two cores. Fork is used on Linux only (on macOS it is unsafe once system frameworks
are loaded); elsewhere the step runs in the caller when its result is asked for.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from typing import Any, Generic, TypeVar

__all__ = ["Forked"]

T = TypeVar("T")


class Forked(Generic[T]):
    """`fn(*args)` in a forked child, started now; `wait()` gives its (picklable) result.
    Nothing in `args` may be a model or an open store: a child inherits them unsafely."""

    def __init__(self, name: str, fn: Callable[..., T], *args: Any) -> None:
        import multiprocessing

        self._name, self._fn, self._args = name, fn, args
        self._child: Any = None
        if sys.platform.startswith("linux"):
            ctx = multiprocessing.get_context("fork")
            self._answer, sent = ctx.Pipe(duplex=False)
            self._child = ctx.Process(target=_run, args=(sent, fn, *args), daemon=True,
                                      name=f"paperkg-{name}")
            self._child.start()
            sent.close()

    def wait(self) -> T:
        """The step's result, once it is done; a child that failed is an error of ours
        (its traceback is above), not the user's."""
        if self._child is None:
            return self._fn(*self._args)
        try:
            result: tuple[T] | None = self._answer.recv()
        except EOFError:  # the child ended without an answer
            result = None
        self._child.join()
        if result is None or self._child.exitcode != 0:
            raise RuntimeError(f"{self._name} failed in process {self._child.pid} (exit code "
                               f"{self._child.exitcode}; its error is above)")
        return result[0]

    def cancel(self) -> None:
        """Stop the child (the caller failed): what it writes is about to be removed."""
        if self._child is not None and self._child.is_alive():
            self._child.terminate()
        if self._child is not None:
            self._child.join()


def _run(answer: Any, fn: Callable[..., Any], *args: Any) -> None:
    # what the child inherited is the caller's to collect: a collection in the child
    # walked the caller's newest objects (an update's whole concept scheme, made with the
    # collector paused), 0.4 s of each SHACL check
    gc.freeze()
    answer.send((fn(*args),))
    answer.close()
