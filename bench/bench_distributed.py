"""The per-paper step on Dask: throughput with 1 and 2 local workers against one process,
the per-paper cost split, the scheduler's overhead per batch, and a projection.

    python bench/bench_distributed.py [--papers 100] [--embedder minilm] [--out FILE.json]

The same first N corpus papers and the same corpus statistics (keyword prior, corpus share,
computed once on the client) go through: (1) `extract_concepts` in this process (torch
on all cores), (2) a local cluster of 1 worker process, (3) one of 2 worker processes
(Dask gives each worker process one core: OMP_NUM_THREADS=1). Every run starts from an
empty embedding cache; model loading and cluster start are timed apart from the
extraction. The overhead per batch is measured with empty tasks carrying a batch of
MAX_BATCH papers, submitted all at once (throughput) and one by one (round trip). The
projection for 1,000,000 abstracts: one worker's time per paper divided by N, plus the
scheduler's serial cost per batch, plus the client's serial corpus-wide cut (the
candidate pass behind the keyword prior and corpus share), which does not shrink with N.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from paperkg.build.corpus import corpus_stats
from paperkg.build.distributed import MAX_BATCH, extract_on_cluster
from paperkg.build.embed import make_embedder
from paperkg.build.extract import ExtractSettings, extract_concepts
from paperkg.build.ingest import Paper, read_papers
from paperkg.build.pipeline import keyword_prior
from paperkg.progress import Reporter
from paperkg.settings import Settings

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "iclr2025" / "papers.jsonl.gz"
MILLION = 1_000_000


def _sample(n: int, tmp: Path) -> list[Paper]:
    path = tmp / "sample.jsonl"
    with gzip.open(CORPUS, "rt", encoding="utf-8") as src, path.open("w") as dst:
        for i, line in enumerate(src):
            if i == n:
                break
            dst.write(line)
    return sorted(read_papers([path]).papers, key=lambda p: p.id)


def _single(papers: list[Paper], settings: Settings, ext: ExtractSettings, stats: Any
            ) -> dict[str, Any]:
    embedder = make_embedder(settings.embedder, settings.cache)
    getattr(embedder, "inner", embedder).encode(["warm up"])  # model load, not timed
    rep = Reporter(quiet=True)
    began = time.perf_counter()
    out = extract_concepts(papers, embedder, ext, rep.stage, stats.prior, stats.share)
    seconds = time.perf_counter() - began
    rep.close()
    split = {k: v / len(papers) * 1000 for k, v in rep.timings.items()}
    return {"seconds": seconds, "papers_per_s": len(papers) / seconds,
            "ms_per_paper": split, "result": out}


def _cluster(papers: list[Paper], settings: Settings, ext: ExtractSettings, stats: Any
             ) -> dict[str, Any]:
    rep = Reporter(quiet=True)
    began = time.perf_counter()
    embedder = make_embedder(settings.embedder, None)
    out, _ = extract_on_cluster(papers, embedder, ext, stats, rep, settings)
    total = time.perf_counter() - began
    seconds = rep.timings["extract (cluster)"]
    return {"seconds": seconds, "papers_per_s": len(papers) / seconds,
            "start_and_model_load_s": total - seconds, "result": out}


def _noop(batch: list[Paper]) -> int:
    return len(batch)


def _overhead(papers: list[Paper], tasks: int = 200) -> dict[str, float]:
    """Scheduler cost per batch: empty tasks carrying MAX_BATCH papers each."""
    from distributed import Client, LocalCluster, wait

    batch = (papers * (MAX_BATCH // len(papers) + 1))[:MAX_BATCH]
    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", scheduler_port=0,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        client.submit(_noop, batch, pure=False).result()
        began = time.perf_counter()
        wait([client.submit(_noop, batch, pure=False) for _ in range(tasks)])
        bulk = (time.perf_counter() - began) / tasks
        began = time.perf_counter()
        for _ in range(20):
            client.submit(_noop, batch, pure=False).result()
        trip = (time.perf_counter() - began) / 20
    return {"ms_per_batch_bulk": bulk * 1000, "ms_per_batch_round_trip": trip * 1000}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--papers", type=int, default=100)
    ap.add_argument("--embedder", default="minilm", choices=("minilm", "onnx", "static"))
    ap.add_argument("--out", type=Path, help="also write the figures here as JSON")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-dist-") as tmp_name:
        tmp = Path(tmp_name)
        papers = _sample(args.papers, tmp)
        base = Settings(embedder=args.embedder, cache_dir=tmp / "c0")
        ext = ExtractSettings(top_n=base.top_n, diversity=base.diversity)
        began = time.perf_counter()
        prior = keyword_prior(papers, base, Reporter(quiet=True))
        stats = corpus_stats(papers, prior, ext.max_words)
        client_s = time.perf_counter() - began
        single = _single(papers, replace(base, cache_dir=tmp / "c1"), ext, stats)
        one = _cluster(papers, replace(base, cache_dir=tmp / "c2", workers=1), ext, stats)
        two = _cluster(papers, replace(base, cache_dir=tmp / "c3", workers=2), ext, stats)
        overhead = _overhead(papers)
    same = single.pop("result") == one.pop("result") == two.pop("result")
    per_core_s = 1 / one["papers_per_s"]  # one worker process: one core (OMP_NUM_THREADS=1)
    split = single["ms_per_paper"]
    client_ms = client_s / len(papers) * 1000
    batches = MILLION / MAX_BATCH
    projection = {}
    for n in (1, 8, 32, 128, 512):
        hours = (MILLION * per_core_s / n + batches * overhead["ms_per_batch_bulk"] / 1000
                 + MILLION * split["candidates"] / 1000) / 3600
        projection[f"{n} workers"] = round(hours, 2)
    # the client's serial pass: one candidate cut per paper (prior + corpus share)
    figures = {
        "papers": len(papers), "embedder": args.embedder, "cpus": os.cpu_count(),
        "same_results": same, "single_process": single, "local_1_worker": one,
        "local_2_workers": two, "scheduler": overhead,
        "client_corpus_stats_ms_per_paper": client_ms,
        "projection_hours_for_1M": projection,
    }
    print(f"{len(papers)} papers, embedder {args.embedder}, {os.cpu_count()} cores "
          f"(results identical across the three runs: {same})")
    for name, run in (("single process", single), ("1 local worker", one),
                      ("2 local workers", two)):
        extra = (f", cluster start + model load {run['start_and_model_load_s']:.1f} s"
                 if "start_and_model_load_s" in run else "")
        print(f"  {name:16} {run['seconds']:7.1f} s  {run['papers_per_s']:6.2f} papers/s{extra}")
    print("  per paper (single process): " + ", ".join(f"{k} {v:.1f} ms"
                                                        for k, v in split.items()))
    print(f"  client corpus statistics on this sample: {client_ms:.1f} ms/paper (at scale: "
          f"one candidate cut per paper, {split['candidates']:.1f} ms, serial)")
    print(f"  scheduler per batch of {MAX_BATCH}: {overhead['ms_per_batch_bulk']:.1f} ms "
          f"(bulk), {overhead['ms_per_batch_round_trip']:.1f} ms (round trip)")
    print("  1,000,000 abstracts, hours: " + ", ".join(f"{k}: {v}"
                                                      for k, v in projection.items()))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
