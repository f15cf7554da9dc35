"""A build on Dask distributed: the corpus counts and the per-paper step, in batches of
papers out to workers, their results back to the client.

One `Cluster` serves a whole build: its client is opened on first use and closed with the
build. First the corpus counts behind the keyword prior and the corpus share
(`build.counts`): each worker counts the candidate keys of a batch of abstracts and the
client only sums the Counters, so the counts are those of one process. Then the ranking:
a paper's concepts are a function of its text, the settings, the model and those corpus
statistics, which the client scatters to every worker, so a result cannot depend on which
worker ranked a paper or on how the papers were cut into batches. Merges, weights and
topics stay on the client. Each worker process loads the model once (`ModelPlugin`); the
extraction cache is written by the client alone, and the embedding cache's writes are
atomic per shard, so several workers can share it.

Dask does the rest: a lost worker's batches are rerun elsewhere (its tasks are pure; the
scattered arguments are replicated to every worker), `as_completed` feeds the progress
bar, and a local cluster lives in a `with` block, so Ctrl-C shuts it down.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from distributed.diagnostics.plugin import WorkerPlugin

from paperkg.build.counts import CountBatch, Counts, add_counts
from paperkg.build.embed import Embedder, make_embedder
from paperkg.build.extract import ExtractSettings
from paperkg.build.ingest import Paper
from paperkg.build.language import foreign_note
from paperkg.build.models import Progress
from paperkg.build.text import document_text
from paperkg.errors import BuildError, UsageError
from paperkg.progress import Reporter
from paperkg.settings import Settings

if TYPE_CHECKING:
    from distributed import Client, Future

__all__ = ["Cluster", "KnownVectors", "ModelPlugin", "check_cluster", "extract_on_cluster",
           "open_client"]

Ranked = list[tuple[str, float]]
# a batch's ranked concepts, its abstracts' vectors and its papers not in English
BatchResult = tuple[dict[str, Ranked], dict[str, np.ndarray], dict[str, str]]

CONNECT_TIMEOUT = "10s"
WORKER_WAIT_S = 30.0
MAX_BATCH = 64  # papers per task: big enough that the scheduler's ~ms per task is noise
COUNT_BATCH = 512  # abstracts per counting task (~3 ms each to cut)
IN_FLIGHT = 4  # batches per worker submitted at a time: the scheduler never holds a
# million abstracts at once, and every worker always has its next batch


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
    come back too, so the client does not embed the abstracts again, and the papers not in
    English, which the client names (a worker prints to its own log, which nobody reads)."""
    from paperkg.build.extraction import extract_papers

    foreign: dict[str, str] = {}
    with _WORKER_LOCK:
        embedder = _Remember(_worker_embedder(job.kind, job.cache),
                             {document_text(p) for p in papers})
        ranked = extract_papers(papers, embedder, job.ext, job.stats, Reporter(quiet=True),
                                foreign=foreign)
    return ranked, embedder.kept, foreign


# -- the client side --------------------------------------------------------------------

class Cluster:
    """The build's Dask client, for the corpus counts and then the extraction: opened (a
    local cluster started) by `with`, closed at the block's end, whatever happens."""

    def __init__(self, settings: Settings, rep: Reporter) -> None:
        self.settings, self.rep = settings, rep
        self._stack = ExitStack()
        self._client: Client | None = None
        self._model = False

    def __enter__(self) -> Cluster:
        self._client = self._stack.enter_context(open_client(self.settings, self.rep))
        return self

    def __exit__(self, *exc: object) -> None:
        self._client = None
        self._stack.close()

    @property
    def client(self) -> Client:
        if self._client is None:
            raise RuntimeError("the cluster is used outside its `with` block")
        return self._client

    def workers(self) -> int:
        return len(self.client.scheduler_info(n_workers=-1)["workers"])

    def load_model(self) -> None:
        """Every worker loads the embedder's model, once per build (and as it joins)."""
        if not self._model:
            self.rep.step(f"loading the {self.settings.embedder} model on {self.workers()} "
                          "Dask worker(s)")
            self.client.register_plugin(ModelPlugin(self.settings.embedder,
                                                    self.settings.cache))
            self._model = True

    def map_sum(self, fn: CountBatch, items: Sequence[Any], shared: tuple[Any, ...] = (),
                tick: Callable[[int], None] | None = None) -> Counts:
        """`build.counts.MapSum` on the workers: each counts batches of `items`, the client
        sums the Counters as they come back."""
        client = self.client
        total = fn(items[:0], *shared)
        if not items:
            return total
        size = max(1, min(COUNT_BATCH, -(-len(items) // (4 * self.workers()))))
        starts = range(0, len(items), size)
        [args] = client.scatter([shared], broadcast=True, hash=False)
        run = f"paperkg-{fn.__name__}-{uuid.uuid4().hex[:8]}"

        def submit(i: int) -> Future:
            return client.submit(count_batch, fn, items[starts[i]:starts[i] + size], args,
                                 key=f"{run}-{i}", pure=False)

        try:
            for i, part in self._stream(submit, len(starts)):
                add_counts(total, part)
                if tick:
                    tick(min(size, len(items) - starts[i]))
        finally:
            args.release()
        return total

    def _stream(self, submit: Callable[[int], Future], n: int) -> Iterator[tuple[int, Any]]:
        """(i, result) of batches 0..n-1 as they finish, IN_FLIGHT per worker submitted at
        a time; a batch whose workers keep dying ends the build with one clear line, and
        whatever is left is cancelled on the way out (an error, Ctrl-C)."""
        from distributed import as_completed
        from distributed.client import FutureCancelledError
        from distributed.scheduler import KilledWorker

        window = max(IN_FLIGHT * self.workers(), 2)
        pending: dict[Any, tuple[int, Future]] = {}

        def send(i: int) -> Future:
            future = submit(i)
            pending[future.key] = (i, future)
            return future

        running = as_completed([send(i) for i in range(min(window, n))])
        sent = min(window, n)
        try:
            for future in running:
                i, _ = pending.pop(future.key)
                result = future.result()
                future.release()
                if sent < n:
                    running.add(send(sent))
                    sent += 1
                yield i, result
        except (KilledWorker, FutureCancelledError) as err:
            raise BuildError(f"the Dask cluster could not finish the build ({err}); its "
                             "workers keep dying: check their logs and memory") from None
        finally:
            running.clear()
            if pending:
                self.client.cancel([f for _, f in pending.values()])


def count_batch(fn: CountBatch, batch: Sequence[Any], shared: tuple[Any, ...]) -> Counts:
    """A worker's counting task: one batch of a `map_sum`."""
    return fn(batch, *shared)


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
    cluster: Cluster | None = None,
) -> tuple[dict[str, Ranked], Embedder]:
    """Ranked concepts per paper id, computed on the build's `cluster` (else on one opened
    for this step from `settings`), and the client's embedder wrapped so that it knows
    the abstracts' vectors."""
    if cluster is None:
        with Cluster(settings, rep) as opened:
            return extract_on_cluster(todo, embedder, ext, stats, rep, settings, batch_size,
                                      opened)
    client = cluster.client
    cluster.load_model()
    [job] = client.scatter([_Job(ext, stats, settings.embedder, settings.cache)],
                           broadcast=True, hash=False)
    parts = batches(todo, cluster.workers(), batch_size)
    run = f"paperkg-rank-{uuid.uuid4().hex[:8]}"
    rep.step(f"extracting {len(todo)} papers in {len(parts)} batches on the cluster")

    def submit(i: int) -> Future:
        return client.submit(rank_batch, parts[i], job, key=f"{run}-{i}", pure=False)

    tick = rep.stage("extract (cluster)", len(todo))
    ranked: dict[str, Ranked] = {}
    vectors: dict[str, np.ndarray] = {}
    foreign: dict[str, str] = {}
    try:
        for _, (part, vecs, not_english) in cluster._stream(submit, len(parts)):
            ranked.update(part)
            vectors.update(vecs)
            foreign.update(not_english)
            tick(len(part))
    finally:
        job.release()
    rep.close()
    if foreign:
        rep.step(foreign_note({p.id: foreign[p.id] for p in todo if p.id in foreign}))
    return ranked, KnownVectors(embedder, vectors)
