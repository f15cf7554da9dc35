"""Per-paper extraction results kept on disk, so a rebuild skips the per-paper work.

A paper's ranked concepts depend on its text and keywords, the embedder, the settings and
the corpus statistics (`build.corpus`); the file name carries a hash of the extractor's
provenance (which records all but the first two), and each row is keyed by the paper's
text. A damaged row (an interrupted write, a stray edit) is discarded with a warning and
the paper extracted again: never a traceback, never a wrong result.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from paperkg.build.extract import ExtractorInfo
from paperkg.build.ingest import Paper
from paperkg.build.text import document_text

__all__ = ["ExtractionCache", "Ranked"]

Ranked = list[tuple[str, float]]


def _ranked(value: object) -> Ranked | None:
    """The row's ranking if it has the right shape, else None."""
    if not isinstance(value, list):
        return None
    out: Ranked = []
    for item in value:
        if (not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str)
                or not isinstance(item[1], int | float) or isinstance(item[1], bool)):
            return None
        out.append((item[0], float(item[1])))
    return out


class ExtractionCache:
    """Ranked concepts per document, in one append-only JSON Lines file per extractor."""

    def __init__(self, cache_dir: Path, info: ExtractorInfo) -> None:
        tag = hashlib.sha256(json.dumps(asdict(info), sort_keys=True).encode()).hexdigest()[:16]
        self.path = Path(cache_dir) / "extractions" / f"{tag}.jsonl"
        self._data: dict[str, Ranked] | None = None
        self._skipped: set[str] = set()  # keys of rows not parsed (`_load`)
        self.discarded = 0

    @staticmethod
    def key(paper: Paper) -> str:
        text = document_text(paper) + "\x00" + "\x1f".join(paper.keywords)
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    def _load(self, wanted: set[str] | None = None) -> dict[str, Ranked]:
        """The rows by key: all of them, or (`wanted`) at least those of these keys, the
        others' keys going to `_skipped` unparsed (an update of 100 papers parsed all
        11,665 rows)."""
        skipped_wanted = bool(self._skipped) if wanted is None else not (
            self._skipped.isdisjoint(wanted))
        if self._data is None or skipped_wanted:
            self._data, self._skipped, self.discarded = {}, set(), 0
            if self.path.is_file():
                self._read(wanted)
        return self._data

    def _read(self, wanted: set[str] | None) -> None:
        assert self._data is not None
        with self.path.open("rb") as fh:
            for raw in fh:
                if not raw.strip():
                    continue
                # a row as `add` writes it starts with its key: skip it unparsed if unwanted
                if wanted is not None and raw.startswith(b'{"k": "') and raw[39:41] == b'",':
                    seen = raw[7:39].decode("ascii", "replace")
                    if seen not in wanted:
                        self._skipped.add(seen)
                        continue
                try:
                    row = json.loads(raw)
                    ranked = _ranked(row.get("r")) if isinstance(row, dict) else None
                    key = row.get("k") if isinstance(row, dict) else None
                except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
                    ranked, key = None, None
                if ranked is None or not isinstance(key, str):
                    self.discarded += 1
                    continue
                self._data[key] = ranked
        if self.discarded:
            print(f"warning: {self.path}: {self.discarded} damaged cache row(s) discarded; "
                  "those papers are extracted again", file=sys.stderr)

    def split(self, papers: Sequence[Paper]) -> tuple[dict[str, Ranked], list[Paper]]:
        """(cached results by paper id, papers still to extract)."""
        keys = {p.id: self.key(p) for p in papers}
        data = self._load(set(keys.values()))
        hits: dict[str, Ranked] = {}
        todo: list[Paper] = []
        for p in papers:
            found = data.get(keys[p.id])
            if found is None:
                todo.append(p)
            else:
                hits[p.id] = found
        return hits, todo

    def add(self, papers: Sequence[Paper], results: dict[str, Ranked]) -> None:
        data = self._load(set())  # which keys are there; no row needs parsing
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            for p in papers:
                k = self.key(p)
                if k not in data and k not in self._skipped:
                    data[k] = results[p.id]
                    # a row cut short by an earlier crash must not swallow this one
                    fh.write("\n" + json.dumps({"k": k, "r": results[p.id]},
                                               ensure_ascii=False) + "\n")
