"""Corpus counts as a map-reduce: a pure function counts one batch of items into Counters,
and the batches' Counters are summed.

The keyword prior and the corpus share are such counts (`build.prior`, `build.corpus`).
A sum does not depend on how the items are cut into batches nor on the order the batches
finish in, so the counts are the same whether the batches run here one after the other
(`Serial`) or on Dask workers (`build.distributed.Cluster`): the client then only sums.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Protocol

__all__ = ["SERIAL", "CountBatch", "Counts", "MapSum", "Serial", "add_counts"]

Counts = tuple[Counter[str], ...]
#: counts one batch: fn(batch, *shared) -> Counters (the same number for every batch)
CountBatch = Callable[..., Counts]


class MapSum(Protocol):
    """Runs a CountBatch over `items` in batches and sums the Counters it returns; `shared`
    are the arguments every batch takes besides its items (sent once to a cluster)."""

    def map_sum(self, fn: CountBatch, items: Sequence[Any], shared: tuple[Any, ...] = (),
                tick: Callable[[int], None] | None = None) -> Counts: ...


def add_counts(total: Counts, part: Counts) -> None:
    """Add one batch's Counters into the running totals, in place."""
    if len(total) != len(part):
        raise ValueError(f"a batch gave {len(part)} counters, the others {len(total)}")
    for mine, theirs in zip(total, part, strict=True):
        mine.update(theirs)


class Serial:
    """In this process, in batches of `size` items, ticking progress after each."""

    def __init__(self, size: int = 256) -> None:
        self.size = size

    def map_sum(self, fn: CountBatch, items: Sequence[Any], shared: tuple[Any, ...] = (),
                tick: Callable[[int], None] | None = None) -> Counts:
        total = fn(items[:0], *shared)
        for start in range(0, len(items), self.size):
            batch = items[start:start + self.size]
            add_counts(total, fn(batch, *shared))
            if tick:
                tick(len(batch))
        return total


SERIAL = Serial()
