"""SPARQL queries in killable worker processes: the deadline pyoxigraph does not have.

Each worker opens the store read-only (Oxigraph allows many readers) and answers one job
at a time over a pipe, already serialised in the negotiated format. A query past its
deadline gets its worker SIGKILLed and replaced, so a runaway query costs one process for
at most `deadline` seconds and never blocks the event loop or the other workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing as mp
import os
import signal
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Literal

__all__ = ["Busy", "DeadlineExceeded", "Job", "QueryPool", "Reply", "WorkerLost"]

Status = Literal["ok", "refused", "malformed", "not_acceptable", "failed"]


class DeadlineExceeded(RuntimeError):
    """The query ran past its deadline; its worker was killed."""


class Busy(RuntimeError):
    """No worker became free before the deadline."""


class WorkerLost(RuntimeError):
    """The worker died while answering (out of memory, crash)."""


@dataclass(frozen=True, slots=True)
class Job:
    sparql: str  # with the standard prefixes already added
    accept: str | None
    fmt: str | None
    row_cap: int


@dataclass(frozen=True, slots=True)
class Reply:
    status: Status
    message: str = ""
    media_type: str = ""
    body: bytes = b""
    rows: int = 0
    truncated: bool = False
    result: object = None  # the QueryResult itself, only for the HTML view


SPARQL_NICENESS = 10


def _worker_main(conn: Connection, store_path: str) -> None:
    """Answer jobs from one read-only store until the pipe closes (or we are killed)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent owns shutdown
    # A long SPARQL query yields the CPU to the HTTP processes: on 2 cores a query in
    # flight otherwise pushes every other request's latency up (bench/bench_server.py).
    os.nice(SPARQL_NICENESS)
    from paperkg.store import OxigraphStore

    store = OxigraphStore.open(store_path, read_only=True)
    conn.send("ready")
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        conn.send(answer(store, job))


def answer(store: object, job: Job) -> Reply:
    """Run one job; every error a person can cause becomes a Reply, not an exception."""
    from paperkg_server.negotiate import known_formats, negotiate

    from paperkg.errors import QueryError, QueryRefused
    from paperkg.store import OxigraphStore

    assert isinstance(store, OxigraphStore)
    try:
        result = store.query(job.sparql, max_rows=job.row_cap)
    except QueryRefused as err:
        return Reply("refused", str(err))
    except QueryError as err:
        return Reply("malformed", str(err))
    except (OSError, RuntimeError) as err:  # the store failed while evaluating
        return Reply("failed", f"{type(err).__name__}: {err}")
    choice = negotiate(result.kind, job.accept, job.fmt)
    if choice is None:
        wanted = f"format={job.fmt!r}" if job.fmt else f"Accept: {job.accept}"
        return Reply("not_acceptable", f"cannot answer a {result.kind} query as {wanted}; "
                     f"formats offered: {', '.join(known_formats(result.kind))}")
    if choice.fmt == "html":
        return Reply("ok", "", choice.media_type, b"", len(result), result.truncated, result)
    body = result.serialize(choice.fmt).encode("utf-8")
    return Reply("ok", "", choice.media_type, body, len(result), result.truncated)


class _Worker:
    def __init__(self, ctx: mp.context.SpawnContext, store_path: str) -> None:
        self.conn, child = ctx.Pipe()
        self.proc: BaseProcess = ctx.Process(target=_worker_main, args=(child, store_path),
                                             name="paperkg-sparql", daemon=True)
        self.proc.start()
        child.close()

    async def readable(self, timeout: float) -> None:
        """Wait (without a thread) until the worker has written something."""
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        fd = self.conn.fileno()
        loop.add_reader(fd, lambda: None if ready.done() else ready.set_result(None))
        try:
            await asyncio.wait_for(ready, timeout)
        finally:
            loop.remove_reader(fd)
            os.set_blocking(fd, True)  # uvloop leaves it non-blocking; recv() needs blocking

    async def call(self, job: Job, timeout: float) -> Reply:
        self.conn.send(job)
        await self.readable(timeout)
        try:
            reply: Reply = await asyncio.to_thread(self.conn.recv)
        except (EOFError, OSError) as err:
            raise WorkerLost(f"the query worker died (exit code {self.proc.exitcode})") from err
        return reply

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.close()
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=2)


class QueryPool:
    """`size` worker processes over the store at `store_path`, each job bounded in time."""

    def __init__(self, store_path: str, size: int = 2, deadline: float = 10.0) -> None:
        self.store_path = store_path
        self.size = max(1, size)
        self.deadline = deadline
        self._ctx = mp.get_context("spawn")
        self._idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self._all: set[_Worker] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self.killed = 0

    async def start(self) -> None:
        """Start the workers and wait until the first one is ready."""
        for _ in range(self.size):
            self._spawn()
        while self._idle.empty():
            if not self._all:
                raise RuntimeError(f"no query worker could open the store {self.store_path}")
            await asyncio.sleep(0.05)

    def _spawn(self) -> None:
        worker = _Worker(self._ctx, self.store_path)
        self._all.add(worker)
        task = asyncio.get_running_loop().create_task(self._welcome(worker))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _welcome(self, worker: _Worker) -> None:
        """Hand a new worker out only once it has opened the store."""
        try:
            await worker.readable(120)
            hello = await asyncio.to_thread(worker.conn.recv)
        except (TimeoutError, EOFError, OSError):
            self._retire(worker)
            return
        if hello == "ready":
            self._idle.put_nowait(worker)
        else:
            self._retire(worker)

    def _retire(self, worker: _Worker) -> None:
        self._all.discard(worker)
        worker.kill()

    async def run(self, job: Job) -> Reply:
        """Answer `job` within the deadline (waiting for a free worker counts)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + self.deadline
        try:
            worker = await asyncio.wait_for(self._idle.get(), self.deadline)
        except TimeoutError:
            raise Busy(f"all {self.size} query workers stayed busy for {self.deadline:g} s; "
                       "try again shortly") from None
        done = False
        try:
            reply = await worker.call(job, max(end - loop.time(), 0.001))
            done = True
            return reply
        except TimeoutError:
            raise DeadlineExceeded(
                f"the query ran longer than the {self.deadline:g} s deadline and was stopped; "
                "narrow it (LIMIT, more specific patterns) or ask for a longer deadline"
            ) from None
        finally:
            if done:
                self._idle.put_nowait(worker)
            else:  # timed out, lost or cancelled mid-query: its state is unknown
                self.killed += 1
                self._retire(worker)
                self._spawn()

    @property
    def ready(self) -> int:
        return self._idle.qsize()

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for worker in list(self._all):
            self._retire(worker)
