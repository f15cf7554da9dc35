"""Extraction on Dask distributed (issue #12), against real processes: a `dask scheduler`
and two `dask worker`s on 127.0.0.1 started here, real ICLR 2025 records, the real MiniLM.

The corpus counts done by the workers (keyword prior, corpus share) must equal the
single-process counts; the cluster's KG must equal the single-process KG (concepts,
labels, mentions, ranks; scores to 1e-6) with other batch boundaries and another number
of workers, also when one of the two workers is killed in the middle of the build; an
unreachable scheduler fails in one line before any work; Ctrl-C leaves no process of the
local cluster behind. N_PAPERS corpus records hold over 200 papers with author keywords, so the
builds learn their own prior (on the cluster) and cut the few papers without keywords.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psutil
import pytest

from paperkg.build.corpus import corpus_stats
from paperkg.build.distributed import Cluster as BuildCluster
from paperkg.build.ingest import read_papers
from paperkg.build.pipeline import build_kg
from paperkg.build.prior import MIN_OWN_KEYWORD_PAPERS, learn_prior, packaged_prior
from paperkg.build.text import document_text
from paperkg.progress import Reporter
from paperkg.read.kg import open_kg
from paperkg.settings import Settings
from tests.conftest import CORPUS

N_PAPERS = 250
pytestmark = pytest.mark.skipif(not CORPUS.is_file(), reason=f"needs the corpus at {CORPUS}")
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


GERMAN = {"id": "de-1", "title": "Segmentierung medizinischer Bilder", "authors": ["A. Autor"],
          "abstract": "Wir stellen ein neues Verfahren zur semantischen Segmentierung "
          "medizinischer Bilder vor. Unser Modell kombiniert faltende neuronale Netze mit "
          "Aufmerksamkeitsmechanismen und erreicht bessere Ergebnisse als bisherige Methoden."}


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first N_PAPERS records of the corpus, as they are, and one paper in German
    (no concepts; a worker's note about it must reach the user)."""
    out = tmp_path_factory.mktemp("corpus") / "papers.jsonl"
    with gzip.open(CORPUS, "rt", encoding="utf-8") as src, out.open("w") as dst:
        for i, line in enumerate(src):
            if i == N_PAPERS:
                break
            dst.write(line)
        dst.write(json.dumps(GERMAN) + "\n")
    return out


@pytest.fixture(scope="module")
def single_kg(records: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference: the same records built in this process, with an empty cache."""
    base = tmp_path_factory.mktemp("single")
    build_kg([records], base / "kg", Settings(cache_dir=base / "cache"),
             reporter=Reporter(quiet=True))
    return base / "kg"


class Cluster:
    """A real scheduler and two real workers (no nanny: a killed worker stays dead)."""

    def __init__(self) -> None:
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        port = self.address.rsplit(":", 1)[1]
        self.scheduler = subprocess.Popen(
            ["dask", "scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"],
            env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.workers = [
            subprocess.Popen(["dask", "worker", self.address, "--nthreads", "1", "--no-nanny",
                              "--no-dashboard", "--host", "127.0.0.1", "--name", f"w{i}"],
                             env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for i in range(2)]

    def client(self) -> Any:
        from distributed import Client

        return Client(self.address, timeout="60s", set_as_default=False)

    def worker_addresses(self) -> list[str]:
        with self.client() as client:
            return list(client.scheduler_info(n_workers=-1)["workers"])

    def stop(self) -> None:
        for p in [*self.workers, self.scheduler]:
            p.terminate()
        for p in [*self.workers, self.scheduler]:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    c = Cluster()
    try:
        with c.client() as client:
            client.wait_for_workers(2, timeout=120)
        yield c
    finally:
        c.stop()


def _v(term: Any) -> str:
    return "" if term is None else str(term.value)


def kg_facts(kg: Path) -> tuple[dict[str, tuple[Any, ...]], dict[tuple[str, int], tuple[Any, ...]]]:
    """Every concept (label → alt labels, paper count, weight, types, broader) and every
    mention ((paper id, rank) → concept label, surface, score) of a KG, from its store."""
    k = open_kg(kg)
    concepts: dict[str, tuple[Any, ...]] = {}
    rows = k.sparql("""
        SELECT ?l (GROUP_CONCAT(DISTINCT ?alt; separator="|") AS ?alts) ?n ?w
               (GROUP_CONCAT(DISTINCT STR(?t); separator="|") AS ?types) ?b
        WHERE { ?c skos:prefLabel ?l ; pkg:paperCount ?n ; pkg:weight ?w ; a ?t .
                OPTIONAL { ?c skos:altLabel ?alt } OPTIONAL { ?c skos:broader/skos:prefLabel ?b } }
        GROUP BY ?l ?n ?w ?b""").rows
    for label, alts, n, w, types, broader in rows:
        concepts[_v(label)] = (sorted(_v(alts).split("|")), int(_v(n)), float(_v(w)),
                               sorted(_v(types).split("|")), _v(broader))
    mentions: dict[tuple[str, int], tuple[Any, ...]] = {}
    rows = k.sparql("""
        SELECT ?id ?r ?l ?sf ?s WHERE { ?p dcterms:identifier ?id ; pkg:hasMention ?m .
            ?m pkg:concept/skos:prefLabel ?l ; pkg:rank ?r ; pkg:score ?s ; pkg:surfaceForm ?sf }
        """).rows
    for pid, rank, label, surface, score in rows:
        mentions[(_v(pid), int(_v(rank)))] = (_v(label), _v(surface), float(_v(score)))
    return concepts, mentions


def assert_same_kg(a: Path, b: Path) -> None:
    ca, ma = kg_facts(a)
    cb, mb = kg_facts(b)
    assert len(ma) > 5 * N_PAPERS and len(ca) > N_PAPERS  # a real KG, not an empty one
    assert ca.keys() == cb.keys()
    for label, (alts, n, w, types, broader) in ca.items():
        alts2, n2, w2, types2, broader2 = cb[label]
        assert (alts, n, types, broader) == (alts2, n2, types2, broader2), label
        assert abs(w - w2) <= 1e-6, label
    assert ma.keys() == mb.keys()
    for key, (label, surface, score) in ma.items():
        label2, surface2, score2 = mb[key]
        assert (label, surface) == (label2, surface2), key
        assert abs(score - score2) <= 1e-6, key
    va, vb = open_kg(a).doc_vectors, open_kg(b).doc_vectors
    assert va is not None and vb is not None
    assert va[0] == vb[0] and np.array_equal(va[1], vb[1])


def test_the_workers_count_the_prior_and_the_corpus_share_as_one_process_does(
    records: Path, cluster: Cluster, tmp_path: Path
) -> None:
    """Both passes of the prior and the corpus share, cut by the two workers and summed
    by the client: the same counts and fingerprints, learned and packaged prior alike."""
    from distributed import get_task_stream

    papers = sorted(read_papers([records]).papers, key=lambda p: p.id)
    without = [p for p in papers if not p.keywords]
    assert sum(1 for p in papers if p.keywords) >= MIN_OWN_KEYWORD_PAPERS and without
    here = learn_prior(papers, document_text)
    stats_here = corpus_stats(papers, here)
    packaged_here = corpus_stats(papers, packaged_prior())
    ticks: list[int] = []
    settings = Settings(cache_dir=tmp_path / "cache", dask_scheduler=cluster.address)
    with BuildCluster(settings, Reporter(quiet=True)) as dask, \
            get_task_stream(dask.client) as stream:
        there = learn_prior(papers, document_text, tick=ticks.append, counter=dask)
        stats_there = corpus_stats(papers, there, counter=dask)
        packaged_there = corpus_stats(papers, packaged_prior(), counter=dask)
    assert sum(ticks) == len(papers) - len(without)  # progress: every paper cut, once
    assert here.papers == there.papers > 0
    for name in ("keyword", "candidate", "both"):
        mine, theirs = getattr(here, name), getattr(there, name)
        assert len(mine) > 200 and mine == theirs, name
    assert here.fingerprint() == there.fingerprint()
    for a, b in ((stats_here, stats_there), (packaged_here, packaged_there)):
        assert a.fingerprint == b.fingerprint
        assert a.share.papers == b.share.papers == len(papers)
        assert a.share.df == b.share.df
    assert packaged_here.fingerprint != stats_here.fingerprint
    # the cutting really ran on both workers, in several batches each
    counted = [t for t in stream.data if str(t["key"]).startswith("paperkg-count_")]
    assert {t["worker"] for t in counted} == set(cluster.worker_addresses())
    assert len(counted) >= 8


def test_a_cluster_with_a_worker_killed_mid_build_gives_the_single_process_kg(
    records: Path, single_kg: Path, cluster: Cluster, tmp_path: Path
) -> None:
    victim = cluster.workers[1]
    killed: dict[str, Any] = {}

    def kill_when_busy() -> None:
        """SIGKILL worker w1 as soon as it is ranking a batch of the build."""
        with cluster.client() as client:
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline and "at" not in killed:
                for addr, keys in client.processing().items():
                    info = client.scheduler_info(n_workers=-1)["workers"].get(addr, {})
                    busy = [k for k in keys if str(k).startswith("paperkg-rank")]
                    if info.get("name") == "w1" and busy:
                        victim.kill()
                        killed.update(at=time.monotonic(), batches=busy)
                        break
                time.sleep(0.2)

    watcher = threading.Thread(target=kill_when_busy, daemon=True)
    watcher.start()
    settings = Settings(cache_dir=tmp_path / "cache", dask_scheduler=cluster.address)
    manifest = build_kg([records], tmp_path / "kg", settings, reporter=Reporter(quiet=True))
    watcher.join(5)
    assert killed, "the worker was never seen ranking a batch"
    assert victim.poll() is not None  # it is dead, and the build still completed
    with cluster.client() as client:
        assert len(client.scheduler_info(n_workers=-1)["workers"]) == 1
    assert manifest["counts"]["papers"] == N_PAPERS + 1  # and the German one
    assert_same_kg(single_kg, tmp_path / "kg")


@pytest.fixture(scope="module")
def onnx_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MiniLM exported to ONNX (fp32) once, copied into each build's cache below."""
    from paperkg.build.onnx_embed import OnnxMiniLMEmbedder

    embedder = OnnxMiniLMEmbedder(tmp_path_factory.mktemp("onnx"), quantize=False)
    embedder.encode(["warm up"])
    return embedder.target


def test_an_onnx_build_on_two_local_workers_gives_the_single_process_kg(
    records: Path, onnx_model: Path, tmp_path: Path
) -> None:
    """The onnx embedder batches texts of one token count only, and its workers run ONNX
    Runtime on one thread each (this process on all cores): the same KG."""
    for name, workers in (("single", 0), ("cluster", 2)):
        cache = tmp_path / name / "cache"
        shutil.copytree(onnx_model, cache / "models" / onnx_model.name)
        build_kg([records], tmp_path / name / "kg",
                 Settings(cache_dir=cache, embedder="onnx", workers=workers),
                 reporter=Reporter(quiet=True))
    assert_same_kg(tmp_path / "single" / "kg", tmp_path / "cluster" / "kg")


def test_a_local_cluster_from_the_cli_gives_the_same_kg(
    records: Path, single_kg: Path, tmp_path: Path
) -> None:
    """One local worker process, other batch boundaries: the same KG, and the worker's
    paper not in English named as one process names it."""
    run = subprocess.run(
        ["paperkg", "build", str(records), "--out", str(tmp_path / "kg"), "--workers", "1",
         "--cache-dir", str(tmp_path / "cache")],
        env=ENV, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "on the cluster" in run.stderr and "extract (cluster)" in run.stderr
    assert "1 paper(s) not in English (1 de; e.g. de-1)" in run.stderr, run.stderr[-2000:]
    assert_same_kg(single_kg, tmp_path / "kg")


def test_an_unreachable_scheduler_fails_in_one_line_before_any_work(
    records: Path, tmp_path: Path
) -> None:
    address = f"tcp://127.0.0.1:{_free_port()}"  # nothing listens there
    run = subprocess.run(
        ["paperkg", "build", str(records), "--out", str(tmp_path / "kg"),
         "--dask-scheduler", address, "--cache-dir", str(tmp_path / "cache")],
        env=ENV, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("paperkg build: error: cannot reach the Dask scheduler at "
                               f"{address}")
    assert not (tmp_path / "kg").exists() and not (tmp_path / "cache").exists()


def test_ctrl_c_shuts_the_local_cluster_down(records: Path, tmp_path: Path) -> None:
    proc = subprocess.Popen(
        ["paperkg", "build", str(records), "--out", str(tmp_path / "kg"), "--workers", "2",
         "--cache-dir", str(tmp_path / "cache")],
        env=ENV, stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:  # wait until the workers are ranking batches
        seen.append(line)
        if "on the cluster" in line:
            break
    time.sleep(3)
    family = psutil.Process(proc.pid).children(recursive=True)
    assert len(family) >= 2, seen  # the local cluster's worker processes
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    rest = proc.stderr.read()
    assert proc.wait(60) == 130, rest[-2000:]
    assert "paperkg: interrupted" in rest
    gone, alive = psutil.wait_procs(family, timeout=30)
    assert not alive, [p.cmdline() for p in alive]
    assert not (tmp_path / "kg").exists()
