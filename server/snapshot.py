"""One KG version per server: the service reads a private snapshot of the KG directory.

A rebuild replaces the KG directory as a whole (rename), and the old one is deleted. A
server that kept reading the path would mix versions: query workers respawned after a
deadline would open the new store while the in-memory index stays on the old one. So
each server process takes a snapshot first, and its index and query workers open
that: the store's .sst files are immutable and hard-linked
(no copy, no extra space), the small mutable files copied. A new version gets a snapshot
of its own (`paperkg_server.versions`).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from pathlib import Path

__all__ = ["remove_snapshot", "take_snapshot"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _clean_stale(kg: Path) -> None:
    """Snapshots left by servers that were killed (their PID is gone)."""
    pattern = re.compile(rf"\.{re.escape(kg.name)}\.serving-(\d+)-\w+")
    with contextlib.suppress(OSError):
        for entry in kg.parent.iterdir():
            m = pattern.fullmatch(entry.name)
            if m and not _alive(int(m[1])):
                shutil.rmtree(entry, ignore_errors=True)


def _link_or_copy(src: str, dst: str) -> None:
    if src.endswith(".sst"):  # RocksDB never changes a written table file
        try:
            os.link(src, dst)
            return
        except OSError:  # another file system, or links not allowed: copy
            pass
    shutil.copy2(src, dst)


def take_snapshot(kg: Path) -> Path:
    """A private, consistent copy of the KG directory `kg`, next to it when possible."""
    kg = Path(kg).resolve()
    _clean_stale(kg)
    prefix = f".{kg.name}.serving-{os.getpid()}-"
    try:
        target = Path(tempfile.mkdtemp(prefix=prefix, dir=kg.parent))
    except OSError:  # a read-only parent: a temporary directory (copies, no links)
        target = Path(tempfile.mkdtemp(prefix=prefix))
    snap = target / kg.name
    try:
        shutil.copytree(kg, snap, copy_function=_link_or_copy,
                        ignore=shutil.ignore_patterns("export", "LOCK"))
    except BaseException:  # e.g. the directory replaced under the copy: leave nothing
        shutil.rmtree(target, ignore_errors=True)
        raise
    return snap


def remove_snapshot(snap: Path) -> None:
    shutil.rmtree(snap.parent, ignore_errors=True)
