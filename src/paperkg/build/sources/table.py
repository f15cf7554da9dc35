"""CSV and TSV with a header row. Columns are found by name (case-insensitive, common
synonyms) or named with `--columns field=COLUMN,…`; `decision` is only ever taken from a
column named explicitly, because spreadsheets code decisions their own way."""

from __future__ import annotations

import ast
import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from paperkg.build.ingest import Paper, Reject, make_paper
from paperkg.build.sources.common import open_text, records
from paperkg.errors import UsageError

__all__ = ["FIELDS", "parse_columns", "read_csv", "read_tsv"]

#: Paper field → header names recognised without --columns (lower case).
FIELDS: dict[str, tuple[str, ...]] = {
    "id": ("id", "paper_id", "pid", "forum", "openreview_id", "key"),
    "title": ("title",),
    "abstract": ("abstract", "summary"),
    "authors": ("authors", "author"),
    "keywords": ("keywords", "keyword", "author_keywords"),
    "year": ("year", "publication_year"),
    "venue": ("venue", "journal", "booktitle"),
    "doi": ("doi",),
    "arxiv_id": ("arxiv_id", "arxiv"),
    "url": ("url", "link"),
    "subjects": ("subjects", "categories"),
    "decision": (),
}
_LISTS = ("authors", "keywords", "subjects")


def parse_columns(spec: str | None) -> dict[str, str]:
    """"id=PID,title=Title" → {"id": "PID", "title": "Title"}; unknown fields refused."""
    out: dict[str, str] = {}
    for part in (spec or "").split(","):
        if not part.strip():
            continue
        field, sep, column = part.partition("=")
        field = field.strip()
        if not sep or field not in FIELDS or not column.strip():
            raise UsageError(f"--columns {part!r}: expected FIELD=COLUMN with FIELD one of "
                             f"{list(FIELDS)}")
        out[field] = column.strip()
    return out


def _mapping(header: list[str], spec: str | None, path: Path) -> dict[str, str]:
    given = parse_columns(spec)
    missing = [c for c in given.values() if c not in header]
    if missing:
        raise UsageError(f"{path}:1: no column {missing[0]!r} in the header {header}")
    lower = {h.strip().lower(): h for h in header}
    for field, names in FIELDS.items():
        if field not in given:
            hit = next((lower[n] for n in names if n in lower), None)
            if hit is not None:
                given[field] = hit
    return given


def _list(value: str) -> list[str]:
    """"['a', 'b']" (a Python/JSON list literal, as pandas writes) or "a; b" / "a, b"."""
    text = value.strip()
    if text.startswith("[") and text.endswith("]"):
        try:
            items = ast.literal_eval(text)
        except (ValueError, SyntaxError) as err:
            raise ValueError(f"cannot read the list {text[:60]!r}: {err}") from err
        return [str(v) for v in items]
    return [v for v in re.split(r"\s*;\s*" if ";" in text else r"\s*,\s*", text) if v]


def _read(path: Path, delimiter: str, columns: str | None) -> Iterator[Paper | Reject]:
    reader = csv.reader(io.StringIO(open_text(path), newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return
    mapping = _mapping(header, columns, path)
    if "abstract" not in mapping:
        raise UsageError(f"{path}:1: no abstract column in {header}; name it with "
                         f"--columns abstract=COLUMN")
    position = {h: i for i, h in enumerate(header)}

    def rows() -> Iterator[tuple[int, Any]]:
        while True:
            line = reader.line_num + 1  # the physical line the next record starts on
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as err:
                yield line, Reject(str(path), line, f"malformed CSV: {err}", "")
                continue
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                yield line, Reject(str(path), line, f"{len(row)} cells, the header has "
                                   f"{len(header)}", delimiter.join(row)[:200])
                continue
            yield line, row

    def make(row: list[str], where: str) -> Paper:
        values: dict[str, Any] = {}
        for field, column in mapping.items():
            cell = row[position[column]]
            values[field] = _list(cell) if field in _LISTS else (cell.strip() or None)
        fmt = "tsv" if delimiter == "\t" else "csv"
        return make_paper(location=where, fmt=fmt, **values)

    yield from records(rows(), path, make)


def read_csv(path: Path, columns: str | None = None) -> Iterator[Paper | Reject]:
    yield from _read(path, ",", columns)


def read_tsv(path: Path, columns: str | None = None) -> Iterator[Paper | Reject]:
    yield from _read(path, "\t", columns)
