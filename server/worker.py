"""One SPARQL query worker process: the store it reads, its sandbox, answering a job.

`pool.QueryPool` starts these (`worker_main`) and talks to them over a pipe: a job in,
an answer out already serialised in the negotiated format, as one message or streamed in
CHUNK-sized pieces.
"""

from __future__ import annotations

import errno
import io
import os
import resource
import signal
import socket
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, BinaryIO, cast

__all__ = ["CHUNK", "HTML_ROWS", "Job", "StoreSpec", "answer", "worker_main"]

SPARQL_NICENESS = 10
CHUNK = 1 << 16


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


def worker_main(conn: Connection, spec: StoreSpec, memory_mb: int, deadline: float) -> None:
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
