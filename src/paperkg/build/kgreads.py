"""What an update reads of its KG directory, kept between the updates of one process.

`paperkg add` reads the KG's papers, statistics, per-paper results and concept scheme
before anything else (1.4 s of an add to the full ICLR 2025 KG). A resident process
(`paperkg add --watch`, `build.watch`) keeps them from one update to the next and reads a
replaced file again while it is idle; a one-shot update reads each once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from paperkg.kgdir import PAPERS, RANKED, SCHEME, STATISTICS

if TYPE_CHECKING:
    from paperkg.build.canon import ConceptScheme
    from paperkg.build.ingest import Paper
    from paperkg.build.naming import NamingMemo
    from paperkg.build.statistics import Epoch, PaperResult

__all__ = ["KGReads"]

T = TypeVar("T")


class KGReads:
    """The KG files an update reads, kept by file identity (inode, modification time,
    size): a file replaced by an update is read again, an unchanged one (the statistics,
    hard-linked from one KG directory to the next) is not. The values are shared between
    updates and never changed by them."""

    def __init__(self) -> None:
        self._kept: dict[Path, tuple[tuple[int, int, int], Any]] = {}
        # abstracts cleaned for label casing (`labels.CleanAbstracts`), by paper id: the
        # papers of a concept that new ones use are read at each update (0.4 s)
        self.cleaned: dict[str, tuple[str, str]] = {}
        self._naming: NamingMemo | None = None

    def _read(self, path: Path, reader: Callable[[], T]) -> T:
        ident = _ident(path)
        if ident is None:
            return reader()  # missing: the reader says so in its words
        hit = self._kept.get(path)
        if hit is not None and hit[0] == ident:
            value: T = hit[1]
            return value
        value = reader()
        self._kept[path] = (ident, value)
        return value

    def papers(self, kg: Path) -> list[Paper]:
        from paperkg.build.writer import read_papers_file

        return self._read(kg / PAPERS, lambda: read_papers_file(kg / PAPERS))

    def epoch(self, kg: Path) -> Epoch | None:
        from paperkg.build.statistics import load_epoch

        return self._read(kg / STATISTICS, lambda: load_epoch(kg))

    def results(self, kg: Path) -> dict[str, PaperResult] | None:
        from paperkg.build.statistics import read_results

        return self._read(kg / RANKED, lambda: read_results(kg))

    def scheme(self, kg: Path) -> ConceptScheme | None:
        from paperkg.build.delta import load_scheme

        return self._read(kg / SCHEME, lambda: load_scheme(kg / SCHEME))

    def naming(self, kg: Path) -> NamingMemo:
        """The concept keys this process's last update named (`build.naming`), for the
        next update of `kg`: empty unless that update wrote the KG as it is now."""
        from paperkg.build.naming import NamingMemo

        if self._naming is None:
            self._naming = NamingMemo()
        self._naming.begin(_ident(kg / SCHEME))
        return self._naming

    def named(self, kg: Path) -> None:
        """The update that named keys (`naming`) has written `kg`: keep them for the next."""
        if self._naming is not None:
            self._naming.commit(_ident(kg / SCHEME))

    def prefetch(self, kg: Path) -> None:
        """Read what the next update will read, now, and clean the abstracts that label
        casing may read (about 0.7 ms each: 8 s for the full ICLR KG once, then only the
        new or changed ones; an update cleaned some 1,500 of them, 0.2-0.4 s)."""
        from paperkg.build.labels import CleanAbstracts

        abstracts = CleanAbstracts(self.papers(kg), self.cleaned)
        for pid in abstracts:
            abstracts[pid]
        self.epoch(kg)
        self.results(kg)
        self.scheme(kg)


def _ident(path: Path) -> tuple[int, int, int] | None:
    """A file's identity: inode, modification time, size; None when it is missing."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)
