"""SPARQL queries in killable, sandboxed worker processes: the limits pyoxigraph does not have.

Each worker opens the store read-only (Oxigraph allows many readers) and answers one job
at a time over a pipe, already serialised in the negotiated format and streamed in
chunks, so an answer of any length never sits whole in either process. Each worker
  - is killed and replaced when its query runs past the deadline (streaming included),
  - has a memory ceiling (RLIMIT_AS): a query that needs more ends its worker alone,
  - cannot open network sockets (seccomp), so no query text can make it fetch a URL.
A KG kept on a SPARQL server (`--store URL`) is read the same way, through
`paperkg.remote.RemoteStore` in the workers: they need sockets for that one server, so
there the lexical screen alone refuses SERVICE, and only the KG's graph is reachable.
At most `queue` jobs wait for a free worker; more are refused at once as busy.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import io
import math
import multiprocessing as mp
import os
import resource
import signal
import socket
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, BinaryIO, Literal, cast

__all__ = ["Busy", "DeadlineExceeded", "Job", "MemoryExceeded", "QueryPool", "Reply",
           "StoreSpec", "StreamBroken", "WorkerLost", "HTML_ROWS"]

Status = Literal["ok", "refused", "malformed", "not_acceptable", "too_large", "failed",
                 "unavailable"]
SPARQL_NICENESS = 10
CHUNK = 1 << 16


class DeadlineExceeded(RuntimeError):
    """The query ran past its deadline; its worker was killed."""


class Busy(RuntimeError):
    """Every worker is busy and the waiting line is full; `retry_after` in seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class WorkerLost(RuntimeError):
    """The worker died while answering (a crash)."""


class MemoryExceeded(WorkerLost):
    """The worker hit its memory ceiling and was ended."""


class StreamBroken(RuntimeError):
    """An answer already being sent could not be finished (deadline, worker died): the
    connection must be cut so the client cannot mistake the part for the whole."""


@dataclass(frozen=True, slots=True)
class Job:
    sparql: str  # with the standard prefixes already added
    accept: str | None
    fmt: str | None
    row_cap: int = 0  # 0: no cap, the whole answer streams
    partial: bool = False  # the client asked for the first row_cap rows if there are more
    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()
    base_iri: str | None = None
    html_rows: int = 1000  # rows an HTML page shows (it says when it shows fewer)


HTML_ROWS = Job.__dataclass_fields__["html_rows"].default


@dataclass(slots=True)
class Reply:
    status: Status
    message: str = ""
    media_type: str = ""
    body: bytes = b""
    rows: int | None = None
    truncated: bool = False
    result: object = None  # the QueryResult itself, only for the HTML views
    chunks: AsyncIterator[bytes] | None = field(default=None)  # a streamed body


# ---------------------------------------------------------------- in the worker


def _address_space() -> int:
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True, slots=True)
class StoreSpec:
    """What the workers read: the embedded store's directory, or the graph of a SPARQL
    server (a KG built with `--store URL`; credentials come from the environment)."""

    path: str = ""
    url: str = ""
    graph: str = ""

    def open(self, deadline: float) -> Any:
        """The store (`paperkg.store.Store`), in the worker process."""
        if self.url:
            from paperkg.remote import RemoteStore

            return RemoteStore(self.url, self.graph or None, timeout=deadline + 1, retries=1)
        from paperkg.store import OxigraphStore

        return OxigraphStore.open(self.path, read_only=True)

    def __str__(self) -> str:
        return f"{self.url} (graph {self.graph})" if self.url else self.path


def _sandbox(memory_mb: int, network: bool = False) -> str:
    """Cap this process's memory and, unless it reads a SPARQL server (`network`), forbid
    it network sockets; says what was not done."""
    missing = []
    if memory_mb > 0:
        limit = _address_space() + (memory_mb << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    if network:
        return ""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError):  # no libseccomp: SERVICE is still refused by the screen
        missing.append("no network sandbox (pyseccomp/libseccomp missing)")
    else:
        rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        for family in (socket.AF_INET, socket.AF_INET6):
            rules.add_rule(seccomp.ERRNO(errno.EACCES), "socket",
                           seccomp.Arg(0, seccomp.EQ, family))
        rules.load()
    return "; ".join(missing)


class _PipeWriter(io.RawIOBase):
    """A binary file that sends what is written to the parent: an answer that fits in
    one CHUNK goes as one "whole" message (one wake-up of the HTTP process, a plain
    response); a longer one as "head", CHUNK-sized "data" messages and "end"."""

    def __init__(self, conn: Connection, media_type: str) -> None:
        self.conn = conn
        self.media_type = media_type
        self.buffer = bytearray()
        self.streaming = False

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.buffer += data
        if len(self.buffer) >= CHUNK:
            self.flush()
        return len(data)

    def flush(self) -> None:
        if len(self.buffer) >= CHUNK and not self.streaming:
            self.conn.send(("head", self.media_type))
            self.streaming = True
        if self.buffer and self.streaming:
            self.conn.send(("data", bytes(self.buffer)))
            self.buffer.clear()

    def finish(self) -> None:
        """Send what is left: the whole answer, or the stream's last chunk and its end."""
        if not self.streaming:
            self.conn.send(("whole", self.media_type, None, False, bytes(self.buffer)))
            return
        self.flush()
        self.conn.send(("end",))


def _worker_main(conn: Connection, spec: StoreSpec, memory_mb: int, deadline: float) -> None:
    """Answer jobs from one read-only store until the pipe closes (or we are killed)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent owns shutdown
    # A long SPARQL query yields the CPU to the HTTP processes: on 2 cores a query in
    # flight otherwise pushes every other request's latency up (bench/bench_server.py).
    os.nice(SPARQL_NICENESS)
    store = spec.open(deadline)
    conn.send(("ready", _sandbox(memory_mb, network=bool(spec.url))))
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        try:
            answer(store, job, conn)
        except MemoryError:
            conn.send(("error", "memory", ""))
            os._exit(3)  # its heap is in an unknown state: the pool starts a fresh one


def answer(store: object, job: Job, conn: Connection) -> None:
    """Run one job; every error a person can cause becomes a message, not an exception."""
    from paperkg.errors import KGNotFound, QueryError, QueryRefused, ResultTooLarge
    from paperkg.store import Dataset, Store
    from paperkg_server.negotiate import known_formats, negotiate

    assert isinstance(store, Store)
    try:
        ans = store.evaluate(job.sparql, Dataset(job.default_graphs, job.named_graphs),
                             job.base_iri)
        choice = negotiate(ans.kind, job.accept, job.fmt)
        if choice is None:
            wanted = f"format={job.fmt!r}" if job.fmt else f"Accept: {job.accept}"
            conn.send(("error", "not_acceptable", f"cannot answer a {ans.kind} query as "
                       f"{wanted}; formats offered: {', '.join(known_formats(ans.kind))}"))
            return
        if choice.fmt == "html":
            conn.send(("result", ans.result(job.html_rows)))
            return
        if job.row_cap:  # bounded: written whole first, so too many rows is an error
            buf = io.BytesIO()
            written = ans.write(choice.fmt, buf, job.row_cap, job.partial)
            conn.send(("whole", choice.media_type, written.rows, written.truncated,
                       buf.getvalue()))
            return
    except QueryRefused as err:
        conn.send(("error", "refused", str(err)))
        return
    except ResultTooLarge as err:
        conn.send(("error", "too_large", str(err)))
        return
    except QueryError as err:
        conn.send(("error", "malformed", str(err)))
        return
    except KGNotFound as err:  # the KG's SPARQL server does not answer
        conn.send(("error", "unavailable", str(err)))
        return
    except (OSError, RuntimeError) as err:  # the store failed while evaluating
        conn.send(("error", "failed", f"{type(err).__name__}: {err}"))
        return
    writer = _PipeWriter(conn, choice.media_type)
    try:
        ans.write(choice.fmt, cast(BinaryIO, writer))  # pyoxigraph only calls write()
    except (OSError, RuntimeError) as err:
        if not writer.streaming:  # nothing sent yet: an honest error answer
            conn.send(("error", "failed", f"{type(err).__name__}: {err}"))
            return
        conn.send(("fail", f"{type(err).__name__}: {err}"))
        return
    writer.finish()


# ---------------------------------------------------------------- in the server


class _Worker:
    def __init__(self, ctx: mp.context.SpawnContext, spec: StoreSpec, memory_mb: int,
                 deadline: float) -> None:
        self.conn, child = ctx.Pipe()
        self.proc: BaseProcess = ctx.Process(target=_worker_main,
                                             args=(child, spec, memory_mb, deadline),
                                             name="paperkg-sparql", daemon=True)
        self.proc.start()
        child.close()
        self.busy_since = 0.0

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

    async def receive(self, timeout: float) -> tuple[Any, ...]:
        """The worker's next message. Read on the event loop once the pipe is readable: a
        message is at most CHUNK bytes that the worker is writing at that moment (or a
        closed pipe, if it died), while a thread hop per message cost more than a cheap
        query itself (#9)."""
        await self.readable(timeout)
        try:
            message: tuple[Any, ...] = self.conn.recv()
        except (EOFError, OSError) as err:
            self.proc.join(timeout=2)
            code = self.proc.exitcode
            if code == -signal.SIGABRT:  # what a failed allocation under RLIMIT_AS does
                raise MemoryExceeded("the query needed more memory than a query worker may "
                                     "use, and was stopped") from err
            raise WorkerLost(f"the query worker died (exit code {code})") from err
        return message

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.close()
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=2)


class QueryPool:
    """`size` worker processes over the store `spec` names, each job bounded in time and
    memory; at most `queue` jobs wait for a free worker."""

    def __init__(self, spec: StoreSpec | str, size: int = 2, deadline: float = 10.0,
                 queue: int = 2, memory_mb: int = 0) -> None:
        self.spec = spec if isinstance(spec, StoreSpec) else StoreSpec(path=spec)
        self.size = max(1, size)
        self.deadline = deadline
        self.queue = max(0, queue)
        self.memory_mb = memory_mb
        self._ctx = mp.get_context("spawn")
        self._idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self._all: set[_Worker] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._waiting = 0
        self.killed = 0
        self.refused_busy = 0
        self.sandbox_warning = ""

    async def start(self) -> None:
        """Start the workers and wait until the first one is ready."""
        for _ in range(self.size):
            self._spawn()
        while self._idle.empty():
            if not self._all:
                raise RuntimeError(f"no query worker could open the store {self.spec}")
            await asyncio.sleep(0.05)
        if self.sandbox_warning:
            print(f"paperkg: warning: {self.sandbox_warning}", file=sys.stderr, flush=True)

    def _spawn(self) -> None:
        worker = _Worker(self._ctx, self.spec, self.memory_mb, self.deadline)
        self._all.add(worker)
        task = asyncio.get_running_loop().create_task(self._welcome(worker))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _welcome(self, worker: _Worker) -> None:
        """Hand a new worker out only once it has opened the store."""
        try:
            hello = await worker.receive(120)
        except (TimeoutError, WorkerLost):
            self._retire(worker)
            return
        if hello[0] == "ready":
            self.sandbox_warning = hello[1]
            self._idle.put_nowait(worker)
        else:
            self._retire(worker)

    def _retire(self, worker: _Worker) -> None:
        self._all.discard(worker)
        worker.kill()

    def _replace(self, worker: _Worker) -> None:
        self.killed += 1
        self._retire(worker)
        self._spawn()

    def retry_after(self) -> int:
        """Seconds until the busy worker closest to its deadline is free at the latest."""
        now = asyncio.get_running_loop().time()
        busy = [w.busy_since for w in self._all if w.busy_since]
        left = min((self.deadline - (now - t) for t in busy), default=1.0)
        return max(1, math.ceil(left))

    async def _acquire(self, end: float) -> _Worker:
        if self._idle.empty() and self._waiting >= self.queue:
            self.refused_busy += 1
            raise Busy(f"all {self.size} query workers are busy and {self._waiting} "
                       "queries are waiting; retry shortly", self.retry_after())
        self._waiting += 1
        loop = asyncio.get_running_loop()
        try:
            worker = await asyncio.wait_for(self._idle.get(), max(end - loop.time(), 0.001))
        except TimeoutError:
            raise Busy(f"no query worker became free within the {self.deadline:g} s "
                       "deadline; retry shortly", self.retry_after()) from None
        finally:
            self._waiting -= 1
        worker.busy_since = loop.time()
        return worker

    def _release(self, worker: _Worker) -> None:
        worker.busy_since = 0.0
        self._idle.put_nowait(worker)

    def _too_slow(self) -> DeadlineExceeded:
        return DeadlineExceeded(
            f"the query ran longer than the {self.deadline:g} s deadline and was stopped; "
            "narrow it (LIMIT, more specific patterns) or ask for a longer deadline")

    async def run(self, job: Job) -> Reply:
        """Answer `job` within the deadline (waiting for a free worker counts). A streamed
        answer comes back as `Reply.chunks`, which holds the worker until it is drained."""
        loop = asyncio.get_running_loop()
        end = loop.time() + self.deadline
        worker = await self._acquire(end)
        done = False
        try:
            worker.conn.send(job)
            message = await worker.receive(max(end - loop.time(), 0.001))
            done = True
        except TimeoutError:
            raise self._too_slow() from None
        finally:
            if not done:  # timed out, lost or cancelled mid-query: its state is unknown
                self._replace(worker)
        kind = message[0]
        if kind == "head":
            return Reply("ok", media_type=message[1], chunks=self._stream(worker, end))
        if kind == "error" and message[1] == "memory":
            self._replace(worker)
            raise MemoryExceeded("the query needed more memory than a query worker may use, "
                                 "and was stopped")
        self._release(worker)
        if kind == "error":
            return Reply(message[1], message[2])
        if kind == "result":
            return Reply("ok", result=message[1])
        _, media_type, rows, truncated, body = message
        return Reply("ok", media_type=media_type, body=body, rows=rows, truncated=truncated)

    async def _stream(self, worker: _Worker, end: float) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        finished = False
        try:
            while True:
                try:
                    message = await worker.receive(max(end - loop.time(), 0.001))
                except TimeoutError:
                    raise StreamBroken(str(self._too_slow())) from None
                except WorkerLost as err:
                    raise StreamBroken(str(err)) from None
                if message[0] == "data":
                    yield message[1]
                elif message[0] == "end":
                    finished = True
                    return
                else:
                    raise StreamBroken(f"the store failed while answering: {message[1:]}")
        finally:
            if finished:
                self._release(worker)
            else:  # cut short (deadline, client gone, error): its state is unknown
                self._replace(worker)

    @property
    def ready(self) -> int:
        return self._idle.qsize()

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for worker in list(self._all):
            self._retire(worker)
