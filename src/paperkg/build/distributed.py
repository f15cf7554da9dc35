"""The per-paper step of a build on Dask distributed: papers in batches out to workers,
ranked concepts back to the client.

A paper's ranking is a function of its text, the settings, the model and the corpus
statistics (`build.corpus`); the client computes those statistics once, over the whole
corpus, and scatters them to every worker, so a result cannot depend on which worker
ranked a paper or on how the papers were cut into batches. Everything corpus-wide (the
keyword prior, merges, weights, topics) stays on the client. Each worker process loads the
model once (`ModelPlugin`); the extraction cache is written by the client alone, and the
embedding cache's writes are atomic per shard, so several workers can share it.

Dask does the rest: a lost worker's batches are rerun elsewhere (its tasks are pure; the
scattered statistics are replicated to every worker), `as_completed` feeds the progress
bar, and a local cluster lives in a `with` block, so Ctrl-C shuts it down.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from distributed.diagnostics.plugin import WorkerPlugin

from paperkg.build.embed import Embedder, make_embedder
from paperkg.build.extract import ExtractSettings
from paperkg.build.ingest import Paper
from paperkg.build.models import Progress
from paperkg.build.text import document_text
from paperkg.errors import BuildError, UsageError
from paperkg.progress import Reporter
from paperkg.settings import Settings

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["KnownVectors", "ModelPlugin", "check_cluster", "extract_on_cluster", "open_client"]

Ranked = list[tuple[str, float]]
BatchResult = tuple[dict[str, Ranked], dict[str, np.ndarray]]

CONNECT_TIMEOUT = "10s"
WORKER_WAIT_S = 30.0
MAX_BATCH = 64  # papers per task: big enough that the scheduler's ~ms per task is noise


def check_cluster(settings: Settings) -> None:
    """Refuse unusable cluster settings, and a scheduler that cannot be reached or has no
    workers, before any work starts (one clear line, through the CLI's UserError path)."""
    if settings.dask_scheduler and settings.workers:
        raise UsageError("--dask-scheduler and --workers: give one (an existing cluster, "
                         "or a local cluster of N worker processes for this run)")
    if settings.workers < 0:
        raise UsageError(f"--workers {settings.workers}: give a number of worker processes "
                         "(1 or more), or leave it out to extract in this process")
    if settings.dask_scheduler:
        with _connect(settings.dask_scheduler) as client:
            _check_workers(client, settings.dask_scheduler)


@contextmanager
def open_client(settings: Settings, rep: Reporter) -> Iterator[Client]:
    """A client of the requested cluster; a local one is started here and shut down on the
    way out, whatever happens (an error, Ctrl-C)."""
    if settings.dask_scheduler:
        rep.step(f"connecting to the Dask scheduler at {settings.dask_scheduler}")
        with _connect(settings.dask_scheduler) as client:
            _check_workers(client, settings.dask_scheduler)
            yield client
        return
    from distributed import Client, LocalCluster

    n = settings.workers
    # Dask starts worker processes with OMP_NUM_THREADS=1: one core each, so N workers
    # use N cores (on a loaded machine, 1-thread torch also avoids spinning threads)
    rep.step(f"starting a local Dask cluster of {n} worker process(es) on 127.0.0.1")
    with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                      scheduler_port=0, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        yield client


@contextmanager
def _connect(address: str) -> Iterator[Client]:
    from distributed import Client

    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as err:
        raise BuildError(f"cannot reach the Dask scheduler at {address} ({err}); start one "
                         f"with `dask scheduler`, or fix --dask-scheduler") from None
    except ValueError as err:
        raise UsageError(f"--dask-scheduler {address!r}: {err} (expected tcp://HOST:PORT)"
                         ) from None
    with client:
        yield client


def _check_workers(client: Client, address: str) -> None:
    """At least one worker, running the same paperkg code as this process."""
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT_S)
    except TimeoutError:
        raise BuildError(f"the Dask scheduler at {address} has no workers after "
                         f"{WORKER_WAIT_S:.0f} s; start some with `dask worker {address} "
                         f"--nthreads 1`") from None
    mine = _identity()
    for worker, theirs in client.run(_identity).items():
        if theirs != mine:
            raise BuildError(f"Dask worker {worker} runs paperkg {theirs}, this process "
                             f"{mine}; install the same version on every worker")


def _identity() -> str:
    """The paperkg version and the fingerprint of the code that cuts and ranks phrases."""
    from paperkg import __version__
    from paperkg.build.prior import code_fingerprint

    return f"{__version__} (code {code_fingerprint()})"


# -- the worker side --------------------------------------------------------------------

_EMBEDDERS: dict[tuple[str, str], Embedder] = {}
_WORKER_LOCK = threading.Lock()  # one batch at a time per process: the embedder's cache
# index is not thread-safe, and torch already uses the process's cores


def _worker_embedder(kind: str, cache: Path | None) -> Embedder:
    """This process's embedder: made (and its model loaded) once, then reused by every task."""
    key = (kind, str(cache))
    if key not in _EMBEDDERS:
        embedder = make_embedder(kind, cache)
        getattr(embedder, "inner", embedder).encode(["warm up"])  # load the model, no cache
        _EMBEDDERS[key] = embedder
    return _EMBEDDERS[key]


class ModelPlugin(WorkerPlugin):
    """Loads the embedder's model in every worker process as it joins, not in a task."""

    def __init__(self, kind: str, cache: Path | None) -> None:
        self.kind, self.cache = kind, cache
        self.name = f"paperkg-model-{kind}-{cache}"

    def setup(self, worker: Any) -> None:
        with _WORKER_LOCK:
            _worker_embedder(self.kind, self.cache)


@dataclass(frozen=True, slots=True)
class _Job:
    """What every batch needs besides its papers; scattered to the workers once."""

    ext: ExtractSettings
    stats: Any  # build.corpus.CorpusStats: the prior and the corpus share
    kind: str
    cache: Path | None


class _Remember:
    """An embedder that keeps the vectors of the texts it is told to remember."""

    def __init__(self, inner: Embedder, wanted: set[str]) -> None:
        self.inner, self.wanted, self.name = inner, wanted, inner.name
        self.kept: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        vecs = self.inner.encode(texts, progress)
        for text, vec in zip(texts, vecs, strict=True):
            if text in self.wanted:
                self.kept[text] = vec
        return vecs


def rank_batch(papers: Sequence[Paper], job: _Job) -> BatchResult:
    """A worker's task: the pipeline's own per-paper step on one batch; the abstract vectors
    come back too, so the client does not embed the abstracts again."""
    from paperkg.build.pipeline import extract_papers

    with _WORKER_LOCK:
        embedder = _Remember(_worker_embedder(job.kind, job.cache),
                             {document_text(p) for p in papers})
        ranked = extract_papers(papers, embedder, job.ext, job.stats, Reporter(quiet=True))
    return ranked, embedder.kept


# -- the client side --------------------------------------------------------------------

class KnownVectors:
    """The client's embedder, answering from the vectors the workers sent back first."""

    def __init__(self, inner: Embedder, known: dict[str, np.ndarray]) -> None:
        self.inner, self.known, self.name = inner, known, inner.name

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        if not texts:
            return self.inner.encode(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in self.known]
        if missing:
            self.known.update(zip(missing, self.inner.encode(missing), strict=True))
        if progress:
            progress(len(texts))
        return np.vstack([self.known[t] for t in texts]).astype(np.float32)


def batches(papers: Sequence[Paper], workers: int, size: int | None = None
            ) -> list[list[Paper]]:
    """Consecutive batches: about four per worker (so a lost worker's share spreads and the
    last batches finish together), at most MAX_BATCH papers each."""
    if size is None:
        size = max(1, min(MAX_BATCH, -(-len(papers) // (4 * max(workers, 1)))))
    return [list(papers[i:i + size]) for i in range(0, len(papers), size)]


def extract_on_cluster(
    todo: Sequence[Paper], embedder: Embedder, ext: ExtractSettings, stats: Any,
    rep: Reporter, settings: Settings, batch_size: int | None = None,
) -> tuple[dict[str, Ranked], Embedder]:
    """Ranked concepts per paper id, computed on the cluster the settings name, and the
    client's embedder wrapped so that it knows the abstracts' vectors."""
    from distributed import as_completed
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    with open_client(settings, rep) as client:
        n_workers = len(client.scheduler_info(n_workers=-1)["workers"])
        rep.step(f"loading the {settings.embedder} model on {n_workers} Dask worker(s)")
        client.register_plugin(ModelPlugin(settings.embedder, settings.cache))
        job = client.scatter(_Job(ext, stats, settings.embedder, settings.cache),
                             broadcast=True, hash=False)
        parts = batches(todo, n_workers, batch_size)
        run = uuid.uuid4().hex[:8]
        rep.step(f"extracting {len(todo)} papers in {len(parts)} batches on the cluster")
        futures = [client.submit(rank_batch, part, job, key=f"paperkg-rank-{run}-{i}",
                                 pure=False) for i, part in enumerate(parts)]
        tick = rep.stage("extract (cluster)", len(todo))
        ranked: dict[str, Ranked] = {}
        vectors: dict[str, np.ndarray] = {}
        try:
            for future in as_completed(futures):
                part, vecs = future.result()
                ranked.update(part)
                vectors.update(vecs)
                tick(len(part))
                future.release()
        except (KilledWorker, FutureCancelledError) as err:
            raise BuildError(f"the Dask cluster could not finish the extraction ({err}); "
                             "its workers keep dying: check their logs and memory") from None
        finally:
            client.cancel(futures)
        rep.close()
    return ranked, KnownVectors(embedder, vectors)
