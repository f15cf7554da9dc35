"""The KG version a server process answers from, and the switch to a newer one.

Every `build`, `add` and `remove` puts a new KG directory in place by rename, so a new
version shows as a new manifest file (another inode). Each HTTP process checks for one
every `--reload-interval` seconds. It then takes a snapshot of the new directory
(`paperkg_server.snapshot`), loads its index and starts its query workers beside the
version it is serving, and only then switches: a request is answered wholly from the old
version or wholly from the new one, never from a mix. The old version's query workers and
snapshot go once the requests it was answering are over (the deadline bounds them).
A new version that cannot be opened (damaged, half-written by hand) is reported once and
the process goes on serving the one it has.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import gc
import sys
import traceback
from pathlib import Path

from paperkg.errors import UserError
from paperkg.kgdir import MANIFEST, STORE
from paperkg.read.kg import KnowledgeGraph, open_kg
from paperkg.settings import Settings
from paperkg_server.context import Context
from paperkg_server.pool import QueryPool, StoreSpec
from paperkg_server.snapshot import remove_snapshot, take_snapshot

__all__ = ["Stamp", "close_version", "open_version", "stamp", "watch"]

Stamp = tuple[int, int, int]  # the manifest's inode, size and modification time


def stamp(kg: Path) -> Stamp | None:
    """What tells one version of the KG at `kg` from the next (None: no KG there now)."""
    try:
        st = (kg / MANIFEST).stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


class _Moved(RuntimeError):
    """The KG directory was replaced while it was being copied."""


def _store_spec(kg: KnowledgeGraph) -> StoreSpec:
    """The embedded store of the KG directory, or the SPARQL server graph its manifest
    names (a KG built with --store URL)."""
    remote = kg.manifest.get("store")
    if isinstance(remote, dict) and remote.get("url"):
        return StoreSpec(url=str(remote["url"]), graph=str(remote.get("graph") or ""))
    return StoreSpec(path=str(kg.path / STORE))


def _snapshot(source: Path) -> tuple[Path, Stamp | None]:
    """A snapshot of one version: copied again when a new version replaced the directory
    while it was being copied (the copy would hold files of both)."""
    for _ in range(5):
        before = stamp(source)
        try:
            snap = take_snapshot(source)
        except OSError:  # a file went away under the copy: a swap was under way
            if stamp(source) == before:
                raise
            continue
        if stamp(source) == before:
            return snap, before
        remove_snapshot(snap)
    raise _Moved(f"{source} was replaced five times while it was being copied; "
                 "try again when the updates have stopped")


def _give_back_memory() -> None:
    """Return freed memory to the system: the collector finds cycles, and glibc's
    `malloc_trim` hands back the freed heap. Without it the process keeps the size it had
    while reading a version (its scans' answers) or holding two."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)


async def open_version(settings: Settings, source: Path) -> Context:
    """Snapshot, index and query workers of the KG now at `source`."""
    snap, current = await asyncio.to_thread(_snapshot, source)
    try:
        kg = open_kg(snap)
        # an HTTP client is told "this KG", never the server's file system paths
        reader = await asyncio.to_thread(kg.reader, "memory", "this KG")
        _give_back_memory()
        pool = QueryPool(_store_spec(kg), settings.query_workers, settings.deadline,
                         settings.query_queue, settings.query_memory_mb)
        await pool.start()
    except BaseException:
        remove_snapshot(snap)
        raise
    return Context(settings, kg, reader, pool, snapshot=snap, stamp=current)


async def close_version(ctx: Context) -> None:
    """Stop the version's query workers and remove its snapshot."""
    await ctx.pool.close()
    if ctx.snapshot is not None:
        remove_snapshot(ctx.snapshot)


async def _retire(ctx: Context, after: float) -> None:
    """Close a version `after` seconds from now, when the requests it was answering are
    over; at once if cancelled (the server is shutting down)."""
    try:
        await asyncio.sleep(after)
    finally:
        await close_version(ctx)
    del ctx
    _give_back_memory()


async def follow(state: object, settings: Settings, source: Path) -> None:
    """Switch `state.ctx` to each new version of the KG at `source`, forever."""
    failed: Stamp | None = None
    retiring: set[asyncio.Task[None]] = set()
    try:
        while True:
            await asyncio.sleep(settings.reload_interval)
            now = stamp(source)
            ctx: Context = state.ctx  # type: ignore[attr-defined]
            if now is None or now == ctx.stamp or now == failed:
                continue
            try:
                new = await open_version(settings, source)
            except (UserError, OSError, RuntimeError, ValueError) as err:
                failed = now  # said once; the next new version is tried again
                print(f"paperkg: warning: a new version of {source} could not be opened "
                      f"({type(err).__name__}: {err}); still serving the one opened "
                      "before", file=sys.stderr, flush=True)
                continue
            new.started = ctx.started  # the process's uptime goes on
            state.ctx = new  # type: ignore[attr-defined]
            counts = new.reader.counts()
            print(f"paperkg: now serving the new version of {source} ({counts['papers']} "
                  f"papers, {counts['concepts']} concepts)", flush=True)
            task = asyncio.get_running_loop().create_task(
                _retire(ctx, after=settings.deadline + 2))
            retiring.add(task)
            task.add_done_callback(retiring.discard)
            del ctx, new
    finally:  # shutting down: the versions still being retired go now
        for task in list(retiring):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def watch(state: object, settings: Settings, source: Path) -> asyncio.Task[None]:
    """`follow` as a task of the running loop. Should it end by a bug, the server says
    so (and how to recover) instead of silently serving one version from then on."""
    task = asyncio.get_running_loop().create_task(follow(state, settings, source))

    def report(done: asyncio.Task[None]) -> None:
        if done.cancelled() or done.exception() is None:
            return
        err = done.exception()
        traceback.print_exception(err)
        print(f"paperkg: error: the server stopped following {source} ({type(err).__name__}: "
              f"{err}); it goes on serving the version it has; restart it to follow "
              "updates again", file=sys.stderr, flush=True)

    task.add_done_callback(report)
    return task
