"""A build on Dask: the corpus counts and the per-paper step, with 1 and 2 local workers
against one process, the per-paper cost split, the scheduler's and the client's serial
costs, and a projection for 1,000,000 abstracts on N workers.

    python bench/bench_distributed.py [--papers 200] [--count-papers 0] [--embedder minilm]
                                      [--out FILE.json]

Counting (`--count-papers`, 0 = the whole corpus): the keyword prior and the corpus share
as a build computes them (each abstract cut once), in this process and then on a local
cluster of 1 and 2 worker processes (`build.distributed.Cluster.map_sum`); the counts
must be equal. Extraction (`--papers`, the first N corpus papers, the same corpus
statistics): `extract_concepts` in this process (torch on all cores), then a local cluster
of 1 and of 2 worker processes (Dask gives each one core: OMP_NUM_THREADS=1). Every run
starts from an empty embedding cache; model loading and cluster start are timed apart.
The scheduler's overhead per batch: empty tasks carrying MAX_BATCH papers, submitted all
at once (throughput) and one by one (round trip). The client's serial work per paper,
measured apart: pickling the papers it sends (twice: counting and extraction), unpickling
and summing the counting batches' Counters, unpickling the ranked concepts and vectors.

CPU seconds are measured besides wall time (the workers' through `client.run`; this
process's includes the local cluster's scheduler): on a shared machine a process also
waits for a core, and CPU time is what it takes on a core of its own. Projection for
M = 1,000,000 abstracts on N workers, each with a core like one worker here:
    M * (extract + cut) / N     one worker's CPU seconds per paper (1-worker runs)
  + M * client                  the client's serial seconds per paper: sending, summing,
                                receiving, plus the scheduler's bulk cost per batch
                                (one per MAX_BATCH papers extracted, per COUNT_BATCH cut)
a sum, so an upper bound (the client works while the workers do); as N grows the time
tends to the second term, the client's floor.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import os
import pickle
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from paperkg.build.corpus import CorpusStats, corpus_stats
from paperkg.build.counts import add_counts
from paperkg.build.distributed import COUNT_BATCH, MAX_BATCH, Cluster, extract_on_cluster
from paperkg.build.embed import make_embedder
from paperkg.build.extract import ExtractSettings, extract_concepts
from paperkg.build.extraction import keyword_prior
from paperkg.build.ingest import Paper, read_papers
from paperkg.build.prior import count_candidates
from paperkg.build.text import MAX_WORDS, document_text
from paperkg.progress import Reporter
from paperkg.settings import Settings

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "iclr2025" / "papers.jsonl.gz"
MILLION = 1_000_000


def _sample(n: int, tmp: Path) -> list[Paper]:
    path = tmp / f"sample-{n}.jsonl"
    with gzip.open(CORPUS, "rt", encoding="utf-8") as src, path.open("w") as dst:
        for i, line in enumerate(src):
            if i == n:
                break
            dst.write(line)
    return sorted(read_papers([path]).papers, key=lambda p: p.id)


def _stats_key(stats: CorpusStats) -> tuple[Any, ...]:
    prior = stats.prior
    assert prior is not None
    return (prior.fingerprint(), prior.papers, stats.fingerprint, dict(stats.share.df))


def _cpu_seconds() -> float:
    """This process's CPU seconds, all threads (run on each worker by `client.run`)."""
    t = os.times()
    return t.user + t.system


class _Cpu:
    """CPU seconds used from now on by the workers (summed) and by this process, which
    also runs a local cluster's scheduler: under load, CPU time is what a worker with a
    core of its own would take, where wall time is not."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.workers = cluster.client.run(_cpu_seconds)
        self.client = time.process_time()

    def used(self) -> dict[str, float]:
        now = self.cluster.client.run(_cpu_seconds)
        return {"workers_cpu_s": sum(now[w] - self.workers.get(w, 0.0) for w in now),
                "client_cpu_s": time.process_time() - self.client}


def _counting(papers: list[Paper], workers: tuple[int, ...]) -> dict[str, Any]:
    """The keyword prior and the corpus share as a build counts them: here, then on local
    clusters of each size in `workers`."""
    settings = Settings(no_cache=True)
    began, cpu_began = time.perf_counter(), time.process_time()
    prior = keyword_prior(papers, settings, Reporter(quiet=True))
    stats = corpus_stats(papers, prior)
    out: dict[str, Any] = {"papers": len(papers), "serial_s": time.perf_counter() - began,
                           "serial_cpu_s": time.process_time() - cpu_began}
    reference = _stats_key(stats)
    for n in workers:
        rep = Reporter(quiet=True)
        began = time.perf_counter()
        with Cluster(replace(settings, workers=n), rep) as cluster:
            started = time.perf_counter()
            cluster.map_sum(count_candidates, papers[:8 * n], (document_text, MAX_WORDS, None))
            warm = time.perf_counter()  # the workers have imported paperkg
            cpu = _Cpu(cluster)
            prior_c = keyword_prior(papers, settings, rep, cluster)
            stats_c = corpus_stats(papers, prior_c, counter=cluster)
            done = time.perf_counter()
            used = cpu.used()
        out[f"{n}_workers"] = {"seconds": done - warm, "start_s": started - began,
                               "warm_up_s": warm - started, **used,
                               "same_counts": _stats_key(stats_c) == reference}
    out["stats"] = stats
    return out


def _single(papers: list[Paper], settings: Settings, ext: ExtractSettings, stats: Any
            ) -> dict[str, Any]:
    embedder = make_embedder(settings.embedder, settings.cache)
    getattr(embedder, "inner", embedder).encode(["warm up"])  # model load, not timed
    rep = Reporter(quiet=True)
    began, cpu = time.perf_counter(), time.process_time()
    out = extract_concepts(papers, embedder, ext, rep.stage, stats.prior, stats.share)
    seconds = time.perf_counter() - began
    rep.close()
    split = {k: v / len(papers) * 1000 for k, v in rep.timings.items()}
    return {"seconds": seconds, "papers_per_s": len(papers) / seconds,
            "cpu_s": time.process_time() - cpu, "ms_per_paper": split, "result": out}


def _cluster(papers: list[Paper], settings: Settings, ext: ExtractSettings, stats: Any
             ) -> dict[str, Any]:
    rep = Reporter(quiet=True)
    began = time.perf_counter()
    embedder = make_embedder(settings.embedder, None)
    with Cluster(settings, rep) as cluster:
        started = time.perf_counter()
        cluster.load_model()
        loaded = time.perf_counter()
        cpu = _Cpu(cluster)
        out, _ = extract_on_cluster(papers, embedder, ext, stats, rep, settings,
                                    cluster=cluster)
        seconds = time.perf_counter() - loaded
        used = cpu.used()
    return {"seconds": seconds, "papers_per_s": len(papers) / seconds, **used,
            "start_s": started - began, "model_load_s": loaded - started, "result": out}


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


def _client_costs(counted: list[Paper], known: Any, papers: list[Paper],
                  ranked: dict[str, Any], settings: Settings) -> dict[str, float]:
    """The client's serial work per paper, in ms: sending papers, summing the counting
    batches' Counters, receiving the ranked concepts and abstract vectors."""
    began = time.perf_counter()
    for i in range(0, len(counted), COUNT_BATCH):
        pickle.dumps(counted[i:i + COUNT_BATCH], protocol=5)
    send = (time.perf_counter() - began) / len(counted)
    parts = [pickle.dumps(count_candidates(counted[i:i + COUNT_BATCH], document_text, MAX_WORDS,
                                           known), protocol=5)
             for i in range(0, len(counted), COUNT_BATCH)]
    began = time.perf_counter()
    total = count_candidates([], document_text, MAX_WORDS, known)
    for part in parts:
        add_counts(total, pickle.loads(part))
    reduce = (time.perf_counter() - began) / len(counted)
    vectors = make_embedder(settings.embedder, settings.cache).encode(
        [document_text(p) for p in papers])  # from the single run's cache
    results = [pickle.dumps(({p.id: ranked[p.id] for p in papers[i:i + MAX_BATCH]},
                             {document_text(p): vectors[i + k]
                              for k, p in enumerate(papers[i:i + MAX_BATCH])}), protocol=5)
               for i in range(0, len(papers), MAX_BATCH)]
    began = time.perf_counter()
    for blob in results:
        pickle.loads(blob)
    receive = (time.perf_counter() - began) / len(papers)
    ms = {"send_papers": 2 * send * 1000, "sum_counts": reduce * 1000,
          "receive_results": receive * 1000}
    return {**ms, "total": sum(ms.values())}


def _compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """How far two extractions are apart: papers whose labels or ranks differ, and the
    largest score difference among the others."""
    labels = [pid for pid in a if [x for x, _ in a[pid]] != [x for x, _ in b[pid]]]
    scores = [abs(s - t) for pid in a if pid not in labels
              for (_, s), (_, t) in zip(a[pid], b[pid], strict=True)]
    return {"identical": a == b, "papers_with_other_labels": len(labels),
            "max_score_diff": max(scores, default=0.0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--papers", type=int, default=200, help="papers to extract")
    ap.add_argument("--count-papers", type=int, default=0,
                    help="papers to count the prior and corpus share over (0: all)")
    ap.add_argument("--embedder", default="minilm", choices=("minilm", "onnx", "static"))
    ap.add_argument("--out", type=Path, help="also write the figures here as JSON")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-dist-") as tmp_name:
        tmp = Path(tmp_name)
        counted = (sorted(read_papers([CORPUS]).papers, key=lambda p: p.id)
                   if args.count_papers <= 0 else _sample(args.count_papers, tmp))
        counting = _counting(counted, (1, 2))
        known = counting.pop("stats").prior.known()
        papers = _sample(args.papers, tmp)
        base = Settings(embedder=args.embedder, cache_dir=tmp / "c0")
        ext = ExtractSettings(top_n=base.top_n, diversity=base.diversity)
        prior = keyword_prior(papers, base, Reporter(quiet=True))
        stats = corpus_stats(papers, prior, ext.max_words)
        single = _single(papers, replace(base, cache_dir=tmp / "c1"), ext, stats)
        one = _cluster(papers, replace(base, cache_dir=tmp / "c2", workers=1), ext, stats)
        two = _cluster(papers, replace(base, cache_dir=tmp / "c3", workers=2), ext, stats)
        overhead = _overhead(papers)
        client = _client_costs(counted, known, papers, single["result"],
                               replace(base, cache_dir=tmp / "c1"))
    reference = single.pop("result")
    same = {k: _compare(reference, run.pop("result")) for k, run in
            (("1_worker", one), ("2_workers", two))}
    # per paper, in CPU seconds: what one worker with a core of its own takes (wall time
    # on this shared 2-core machine also counts waiting for a core)
    extract_s = one["workers_cpu_s"] / len(papers)
    cut_s = counting["1_workers"]["workers_cpu_s"] / counting["papers"]
    batch_s = overhead["ms_per_batch_bulk"] / 1000
    # the client's serial work per paper: its own share (sending, summing, receiving) and
    # the scheduler's per batch; the client's CPU time in the runs also counts fixed costs
    # (scattering the statistics, the event loop idling), spread over few papers here
    client_s = client["total"] / 1000 + batch_s * (1 / MAX_BATCH + 1 / COUNT_BATCH)
    run_client_s = (counting["2_workers"]["client_cpu_s"] / counting["papers"]
                    + two["client_cpu_s"] / len(papers))
    floor_h = MILLION * client_s / 3600
    projection = {f"{n} workers": round(MILLION * (extract_s + cut_s) / n / 3600 + floor_h, 2)
                  for n in (1, 8, 32, 128, 512)}
    figures = {
        "papers": len(papers), "embedder": args.embedder, "cpus": os.cpu_count(),
        "load_avg_1min": os.getloadavg()[0], "same_results": same, "counting": counting,
        "single_process": single, "local_1_worker": one, "local_2_workers": two,
        "scheduler": overhead, "client_ms_per_paper": client,
        "per_paper_cpu_ms": {"worker_extract": extract_s * 1000, "worker_cut": cut_s * 1000,
                             "client_and_scheduler": client_s * 1000,
                             "client_in_the_2_worker_runs": run_client_s * 1000},
        "projection_hours_for_1M": projection, "projection_floor_hours": round(floor_h, 3),
    }
    _print(figures, counting, single, one, two, overhead, client)
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n")


def _print(figures: dict[str, Any], counting: dict[str, Any], single: dict[str, Any],
           one: dict[str, Any], two: dict[str, Any], overhead: dict[str, float],
           client: dict[str, float]) -> None:
    n = counting["papers"]
    print(f"{os.cpu_count()} cores, load {figures['load_avg_1min']:.1f}")
    print(f"counting the prior and corpus share over {n} papers:")
    print(f"  single process   {counting['serial_s']:7.1f} s  "
          f"{counting['serial_s'] / n * 1000:5.2f} ms/paper, CPU {counting['serial_cpu_s']:.1f} s")
    for k in ("1_workers", "2_workers"):
        run = counting[k]
        print(f"  {k.replace('_', ' '):16} {run['seconds']:7.1f} s  "
              f"{run['seconds'] / n * 1000:5.2f} ms/paper, "
              f"CPU workers {run['workers_cpu_s']:.1f} s client {run['client_cpu_s']:.1f} s "
              f"(cluster start {run['start_s']:.1f} s, "
              f"warm-up {run['warm_up_s']:.1f} s; same counts: {run['same_counts']})")
    print(f"extracting {figures['papers']} papers, embedder {figures['embedder']} "
          f"(against the single process: {figures['same_results']}):")
    for name, run in (("single process", single), ("1 local worker", one),
                      ("2 local workers", two)):
        extra = (f", CPU workers {run['workers_cpu_s']:.1f} s client {run['client_cpu_s']:.1f} s"
                 f", cluster start {run['start_s']:.1f} s, model load {run['model_load_s']:.1f} s"
                 if "start_s" in run else f", CPU {run['cpu_s']:.1f} s")
        print(f"  {name:16} {run['seconds']:7.1f} s  {run['papers_per_s']:6.2f} papers/s{extra}")
    print("  per paper (single process): " + ", ".join(
        f"{k} {v:.1f} ms" for k, v in single["ms_per_paper"].items()))
    print(f"  scheduler per batch of {MAX_BATCH}: {overhead['ms_per_batch_bulk']:.1f} ms "
          f"(bulk), {overhead['ms_per_batch_round_trip']:.1f} ms (round trip)")
    print("  client per paper: " + ", ".join(f"{k} {v:.3f} ms" for k, v in client.items()))
    cpu = figures["per_paper_cpu_ms"]
    print(f"CPU per paper: one worker extracts in {cpu['worker_extract']:.0f} ms and cuts in "
          f"{cpu['worker_cut']:.1f} ms; client + scheduler {cpu['client_and_scheduler']:.2f} ms "
          f"(the client process used {cpu['client_in_the_2_worker_runs']:.2f} ms per paper in "
          "the 2-worker runs, fixed costs included)")
    print("1,000,000 abstracts, hours: " + ", ".join(
        f"{k}: {v}" for k, v in figures["projection_hours_for_1M"].items())
          + f"; floor (scheduler + client) {figures['projection_floor_hours']} h")


if __name__ == "__main__":
    main()
