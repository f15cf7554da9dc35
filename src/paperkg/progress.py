"""Progress for long steps: one tqdm bar per stage on stderr, plus timed step lines."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

__all__ = ["Reporter"]


class Reporter:
    """Hands out a tick function per stage; a new stage closes the previous bar.

    `quiet` keeps the step lines but drops the bars (for logs and tests).
    """

    def __init__(self, stream: TextIO | None = None, quiet: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self._bar: Any = None
        self._started = time.perf_counter()
        self.timings: dict[str, float] = {}
        self._stage: tuple[str, float] | None = None

    def stage(self, name: str, total: int) -> Callable[[int], None]:
        self._finish()
        self._stage = (name, time.perf_counter())
        if self.quiet or total <= 0:
            return lambda n: None
        from tqdm import tqdm

        self._bar = tqdm(total=total, desc=f"{name:>16}", file=self.stream, unit="it",
                         mininterval=0.5, leave=True, dynamic_ncols=True)
        return self._bar.update

    def step(self, message: str) -> None:
        """A one-line step that is not counted (loading, writing, validating)."""
        self._finish()
        elapsed = time.perf_counter() - self._started
        print(f"[{elapsed:7.1f}s] {message}", file=self.stream, flush=True)

    def _finish(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._stage is not None:
            name, began = self._stage
            self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - began
            self._stage = None

    def close(self) -> None:
        self._finish()
