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
import math
import multiprocessing as mp
import os
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from typing import Any, Literal

from paperkg_server.worker import HTML_ROWS, Job, StoreSpec, worker_main

__all__ = ["Busy", "DeadlineExceeded", "Job", "MemoryExceeded", "QueryPool", "Reply",
           "StoreSpec", "StreamBroken", "WorkerLost", "HTML_ROWS"]

Status = Literal["ok", "refused", "malformed", "not_acceptable", "too_large", "failed",
                 "unavailable"]


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


# ---------------------------------------------------------------- in the server


class _Worker:
    def __init__(self, ctx: mp.context.SpawnContext, spec: StoreSpec, memory_mb: int,
                 deadline: float) -> None:
        self.conn, child = ctx.Pipe()
        self.proc: BaseProcess = ctx.Process(target=worker_main,
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
