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
        self.discarded = 0

    @staticmethod
    def key(paper: Paper) -> str:
        text = document_text(paper) + "\x00" + "\x1f".join(paper.keywords)
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    def _load(self) -> dict[str, Ranked]:
        if self._data is None:
            self._data = {}
            if self.path.is_file():
                self._read()
        return self._data

    def _read(self) -> None:
        assert self._data is not None
        with self.path.open("rb") as fh:
            for raw in fh:
                if not raw.strip():
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
        data = self._load()
        hits: dict[str, Ranked] = {}
        todo: list[Paper] = []
        for p in papers:
            found = data.get(self.key(p))
            if found is None:
                todo.append(p)
            else:
                hits[p.id] = found
        return hits, todo

    def add(self, papers: Sequence[Paper], results: dict[str, Ranked]) -> None:
        data = self._load()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            for p in papers:
                k = self.key(p)
                if k not in data:
                    data[k] = results[p.id]
                    # a row cut short by an earlier crash must not swallow this one
                    fh.write("\n" + json.dumps({"k": k, "r": results[p.id]},
                                               ensure_ascii=False) + "\n")
