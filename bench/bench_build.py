"""Build the KG of the full ICLR 2025 corpus and time it, then time the CLI-level queries.

    python bench/bench_build.py [--embedder minilm|static|onnx] [--limit N] [--rebuild]

Prints wall time, papers/s, peak memory, triples and concepts for a cold build (empty
embedding cache), then (with --rebuild) for a second build of the same corpus that reuses
the cache, then p50/p95 latency of `related`, `concepts`, `neighbours` and a SPARQL
"papers sharing concepts with X" query, in process (store open, as a server sees it) and
as whole `paperkg` commands (process start included).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from paperkg.build.pipeline import build_kg
from paperkg.progress import Reporter
from paperkg.read.kg import open_kg
from paperkg.settings import Settings

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "iclr2025" / "papers.jsonl.gz"

SHARING = """SELECT ?other (COUNT(?c) AS ?n) WHERE {{
  <https://w3id.org/paperkg/paper/{pid}> pkg:mentions ?c . ?other pkg:mentions ?c .
  FILTER(?other != <https://w3id.org/paperkg/paper/{pid}>) }}
GROUP BY ?other ORDER BY DESC(?n) LIMIT 10"""


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def _timed_build(inputs: list[Path], out: Path, settings: Settings) -> dict:
    began = time.perf_counter()
    manifest = build_kg(inputs, out, settings, skip_invalid=True, reporter=Reporter())
    wall = time.perf_counter() - began
    n = manifest["counts"]["papers"]
    return {"wall_s": round(wall, 1), "papers_per_s": round(n / wall, 2), **manifest["counts"],
            "stages_s": manifest["timings_s"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--limit", type=int, default=0, help="first N papers only (0: all)")
    ap.add_argument("--rebuild", action="store_true", help="also time a cached second build")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--work", type=Path, default=None, help="keep the KG and cache here")
    args = ap.parse_args()

    work = args.work or Path(tempfile.mkdtemp(prefix="paperkg-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    inputs = [CORPUS]
    if args.limit:
        sample = work / f"first{args.limit}.jsonl"
        with gzip.open(CORPUS, "rt", encoding="utf-8") as src, sample.open("w") as dst:
            for _, line in zip(range(args.limit), src, strict=False):
                dst.write(line)
        inputs = [sample]
    cache = work / "cache"
    # a cold build: no cached embeddings, priors, extractions or SHACL verdicts (derived models in
    # cache/models, e.g. the distilled static embedder, are kept: they are made once)
    for sub in ("embeddings", "extractions", "validated", "priors"):
        shutil.rmtree(cache / sub, ignore_errors=True)
    settings = Settings(embedder=args.embedder, cache_dir=cache)
    kg_dir = work / "kg"

    report: dict = {"embedder": args.embedder, "input": [str(p) for p in inputs]}
    report["cold"] = _timed_build(inputs, kg_dir, settings)
    if args.rebuild:
        report["cached"] = _timed_build(inputs, kg_dir, settings)
    report["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)

    kg = open_kg(kg_dir)
    with gzip.open(CORPUS, "rt") if not args.limit else inputs[0].open() as fh:
        ids = [json.loads(line)["id"] for line in fh]
    rng = random.Random(7)
    sample_ids = rng.sample(ids, min(args.queries, len(ids)))
    reader = kg.reader()  # the CLI's back end: SPARQL on the store
    calls = {
        "related": lambda pid: reader.related(pid, 10),
        "concepts": lambda pid: reader.concepts_of(pid),
        "neighbours_d2": lambda pid: reader.neighbours(pid, 2, 100),
        "sparql_sharing": lambda pid: kg.sparql(SHARING.format(pid=pid)),
    }
    lat: dict = {}
    for name, call in calls.items():
        times = []
        for pid in sample_ids:
            t = time.perf_counter()
            call(pid)
            times.append((time.perf_counter() - t) * 1000)
        lat[name] = {"p50_ms": round(statistics.median(times), 2),
                     "p95_ms": round(_pct(times, 0.95), 2)}
    report["in_process_latency"] = lat

    cli: dict = {}
    for name, argv in {
        "related": ["related", sample_ids[0]],
        "concepts": ["concepts", sample_ids[0]],
        "neighbours": ["neighbours", sample_ids[0], "--depth", "2"],
        "query": ["query", SHARING.format(pid=sample_ids[0])],
    }.items():
        times = []
        for _ in range(5):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "paperkg.cli", *argv, "--kg", str(kg_dir)],
                           check=True, capture_output=True)
            times.append(time.perf_counter() - t)
        cli[name] = {"p50_s": round(statistics.median(times), 2),
                     "max_s": round(max(times), 2)}
    report["cli_wall"] = cli
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
