"""In-process latency of `related` on the memory back end (what the server answers from).

    python bench/bench_related_latency.py --kg KG_DIR [--n 300] [--seed 3]

Opens the KG's memory reader, then times `related(paper, limit=10)` for n random papers at
blend 0 (shared concepts only) and at the default blend (word similarity mixed in), after
one warm-up call each: p50, p99 and max in milliseconds. Run it with each commit's code
(PYTHONPATH=OLD/src) for a before/after on the same KG.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from paperkg.read.kg import KnowledgeGraph
from paperkg.read.questions import DEFAULT_BLEND


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kg", type=Path, required=True)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    began = time.perf_counter()
    reader = KnowledgeGraph(args.kg).reader("memory")
    print(f"memory reader opened in {time.perf_counter() - began:.1f} s")
    papers = random.Random(args.seed).sample(sorted(_paper_ids(reader)), args.n)
    for blend in (0.0, DEFAULT_BLEND):
        reader.related(papers[0], blend=blend)
        times = []
        for pid in papers:
            t = time.perf_counter()
            reader.related(pid, blend=blend)
            times.append(1000 * (time.perf_counter() - t))
        times.sort()
        print(f"blend {blend}: p50 {statistics.median(times):.3f} ms, "
              f"p99 {times[int(0.99 * len(times))]:.3f} ms, max {times[-1]:.2f} ms "
              f"({len(times)} papers)")


def _paper_ids(reader: object) -> list[str]:
    data = getattr(reader, "data", None)
    if data is None:
        raise SystemExit("this reader has no in-memory data: use the memory back end")
    return list(data.papers)


if __name__ == "__main__":
    main()
