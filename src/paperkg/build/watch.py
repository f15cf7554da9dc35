"""`paperkg add --watch INBOX`: a resident process that adds every file dropped into a folder.

A living KG is fed by something that drops new records (a cron job running `paperkg
fetch arxiv ...`, a reference manager's export) into a folder; this loop adds each file as
`paperkg add` would and moves it to `INBOX/added/` (or, when it cannot be added, to
`INBOX/failed/` with the reason beside it in `NAME.error.txt`). Staying resident is what
makes an add cheaper: the interpreter, the libraries and the model are loaded once, and
what an update reads of its KG (the papers, the statistics, the per-paper results, the
concept scheme: `build.kgreads`) is read again right after each update, while the folder is
idle, instead of when the next file arrives. The KG it writes is the one the same adds as
separate `paperkg add` commands write (tests/test_update.py).
"""

from __future__ import annotations

import shutil
import signal
import stat
import time
from collections.abc import Callable, Collection
from pathlib import Path

from paperkg.build.kgreads import KGReads
from paperkg.errors import KGBusy, KGNotFound, UserError
from paperkg.progress import Reporter
from paperkg.settings import Settings

__all__ = ["watch_inbox"]

ADDED, FAILED = "added", "failed"
# a file still being written is not read: it must keep its size over one poll, and names
# that writers use for partial files (and `paperkg fetch`'s progress file) are passed over
_PARTIAL = (".part", ".tmp", ".crdownload", ".partial", ".state.json")


def watch_inbox(kg: Path, inbox: Path, settings: Settings, given: Collection[str] | None,
                skip_invalid: bool = False, interval: float = 2.0,
                reporter: Reporter | None = None,
                stop: Callable[[], bool] = lambda: False) -> int:
    """Add each file that appears in `inbox` to the KG at `kg`, oldest first, until `stop()`
    (or Ctrl-C, or SIGTERM); returns how many files were added. Each file is one
    `update_kg`; one that fails for a reason of the input (a bad record, a file of no known
    format) is moved to `failed/` and the loop goes on; while another process writes the
    KG, a file waits; a missing or damaged KG, or an error of ours, ends it."""
    rep = reporter or Reporter()
    reads = KGReads()
    # a service manager stops it with SIGTERM (and a background job ignores Ctrl-C): the
    # file being added is finished first
    asked: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, _frame: asked.append(signum))
    sizes: dict[Path, int] = {}
    added = 0
    try:
        for sub in (ADDED, FAILED):
            (inbox / sub).mkdir(parents=True, exist_ok=True)
        rep.step(f"watching {inbox} for papers to add to {kg} (every {interval:g} s; Ctrl-C "
                 "stops)")
        reads.prefetch(kg)
        _warm(kg, settings, given)
        while not (asked or stop()):
            for path in _ready(inbox, sizes):
                added += _add_one(kg, path, inbox, settings, given, skip_invalid, rep, reads)
                if asked:
                    break
            else:
                time.sleep(interval)
    except KeyboardInterrupt:  # between files or inside one: that file stays in the inbox
        rep.step("interrupted")
    finally:
        signal.signal(signal.SIGTERM, previous)
    if asked:
        rep.step("stopped (SIGTERM)")
    return added


def _warm(kg: Path, settings: Settings, given: Collection[str] | None) -> None:
    """Load before the first file what every update uses: the embedder's model (0.7 s for
    `static`), and what the update's forked children use (the SHACL engine and shapes,
    the update's modules), which they then inherit instead of loading it again for every
    file (0.4 s of each SHACL check)."""
    from paperkg.build.embed import CachedEmbedder, make_embedder
    from paperkg.build.shacl import warm_shapes
    from paperkg.build.update import kg_settings

    chosen = kg_settings(kg, settings, given)
    embedder = make_embedder(chosen.embedder, chosen.cache)
    # the model itself, not its cache: a probe text is not stored
    (embedder.inner if isinstance(embedder, CachedEmbedder) else embedder).encode(["warm up"])
    warm_shapes()


def _add_one(kg: Path, path: Path, inbox: Path, settings: Settings,
             given: Collection[str] | None, skip_invalid: bool, rep: Reporter,
             reads: KGReads) -> int:
    """Add one dropped file: 1 if it was added, 0 if it went to `failed/` or waits (the KG
    is being written by another process)."""
    from paperkg.build.update import update_kg

    began = time.perf_counter()
    try:
        # each add its own clock and step timings, as a separate `paperkg add` has
        manifest = update_kg(kg, add=[path], settings=settings, skip_invalid=skip_invalid,
                             reporter=Reporter(rep.stream, rep.quiet), given=given,
                             reads=reads)
    except KGBusy as err:  # another writer: the file waits for the next poll
        rep.step(f"{path.name}: not yet ({err})")
        return 0
    except KGNotFound:
        raise  # the KG itself, not the file: nothing can be added
    except UserError as err:
        _move(path, inbox / FAILED)
        (inbox / FAILED / f"{path.name}.error.txt").write_text(f"{err}\n", encoding="utf-8")
        rep.step(f"{path.name}: not added ({err}); moved to {inbox / FAILED}")
        return 0
    _move(path, inbox / ADDED)
    u = manifest["update"]
    rep.step(f"{path.name}: {u['added']} added, {u['changed']} changed in "
             f"{time.perf_counter() - began:.1f} s; {manifest['counts']['papers']} papers")
    reads.prefetch(kg)
    return 1


def _ready(inbox: Path, sizes: dict[Path, int]) -> list[Path]:
    """The files of `inbox` whose size has not changed since the last poll, oldest first
    (a file taken away meanwhile is passed over)."""
    ready: list[tuple[int, str, Path]] = []
    seen = {}
    for path in inbox.iterdir():
        if path.name.startswith(".") or path.name.endswith(_PARTIAL):
            continue
        try:
            st = path.stat()
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        seen[path] = st.st_size
        if sizes.get(path) == st.st_size:
            ready.append((st.st_mtime_ns, path.name, path))
    taken = {path for _, _, path in ready}
    sizes.clear()
    sizes.update({p: s for p, s in seen.items() if p not in taken})
    return [path for _, _, path in sorted(ready)]


def _move(path: Path, folder: Path) -> None:
    """Into `folder`, under a new name if one of that name is there (the same export
    dropped twice)."""
    target = folder / path.name
    n = 1
    while target.exists():
        n += 1
        target = folder / f"{path.stem}-{n}{path.suffix}"
    shutil.move(str(path), str(target))
