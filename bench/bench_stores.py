"""The same KG on the embedded store and on SPARQL servers: load time and query p50 (#11).

    python3 bench/bench_stores.py INPUT... --store URL [--store URL ...] [--repeat 5]

Builds INPUT into the embedded store and into each server (`--store`; start them first,
e.g. `oxigraph serve --location DIR --bind 127.0.0.1:7878`, Virtuoso with
PAPERKG_STORE_USER/PAPERKG_STORE_PASSWORD set), then runs the README's example queries
(`paperkg query --kg kg '…'`) `--repeat` times on each and prints, per store, the build's
build time (the caches make the rest equal, so the difference is the store writing)
and the median time of each query. Every store must give the same rows.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import tempfile
import time
from pathlib import Path

from paperkg.build.pipeline import build_kg
from paperkg.progress import Reporter
from paperkg.read.kg import open_kg
from paperkg.settings import Settings

README = Path(__file__).resolve().parents[1] / "README.md"
_EXAMPLE = re.compile(r"^paperkg query --kg kg '([^']*)'\n```", re.MULTILINE)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", type=Path)
    ap.add_argument("--store", action="append", default=[], metavar="URL")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--embedder", default="static")
    args = ap.parse_args()
    queries = _EXAMPLE.findall(README.read_text(encoding="utf-8"))
    out: dict[str, dict[str, object]] = {}
    answers: dict[str, list[object]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-stores-") as tmp:
        for url in ["", *args.store]:
            name = url or "embedded"
            rep = Reporter(stream=open(os.devnull, "w"), quiet=True)  # noqa: SIM115
            kg_dir = Path(tmp) / f"kg{len(out)}"
            build_kg(args.inputs, kg_dir, Settings(embedder=args.embedder, store=url),
                     reporter=rep)
            began = time.perf_counter()
            kg = open_kg(kg_dir)
            times: list[float] = []
            rows: list[object] = []
            for q in queries:
                samples = []
                for _ in range(args.repeat):
                    t = time.perf_counter()
                    res = kg.sparql(q)
                    samples.append(time.perf_counter() - t)
                times.append(round(statistics.median(samples) * 1000, 1))
                rows.append(sorted(map(str, res.rows)))
            manifest = kg.manifest
            out[name] = {"build_seconds": manifest["build_seconds"],
                         "triples": manifest["counts"]["triples"],
                         "query_p50_ms": times,
                         "queries_seconds": round(time.perf_counter() - began, 1)}
            answers[name] = rows
    first = next(iter(answers.values()))
    for name, rows in answers.items():
        out[name]["same_rows_as_embedded"] = rows == first
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
