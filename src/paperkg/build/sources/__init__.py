"""Where papers come from: one reader per format, ONE table of formats, detection.

`read_source(path)` picks the reader from the file's content (and extension), or takes
the one named by `--format`. Every reader yields `Paper`s (built by `ingest.make_paper`)
and `Reject`s with FILE:LINE, so every format is validated and reported alike.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from paperkg.build.ingest import Paper, Reject, read_jsonl, read_seed
from paperkg.build.sources import arxiv, bib, openalex, openreview, s2, table
from paperkg.errors import IngestError, UsageError

__all__ = ["FORMATS", "Format", "detect_format", "read_source"]

Reader = Callable[[Path, "str | None"], Iterator[Paper | Reject]]


@dataclass(frozen=True, slots=True)
class Format:
    """A readable format: its reader, the extensions that suggest it, what it is."""

    reader: Reader
    extensions: tuple[str, ...]
    help: str


def _seed(path: Path, columns: str | None = None) -> Iterator[Paper | Reject]:
    return read_seed(path)


def _paperkg(path: Path, columns: str | None = None) -> Iterator[Paper | Reject]:
    return read_jsonl(path)


#: Every format paperkg reads, by the name `--format` takes.
FORMATS: Final[dict[str, Format]] = {
    "paperkg": Format(_paperkg, (".jsonl", ".ndjson"),
                      "paperkg's JSON Lines: id, abstract, title, authors, … (what fetch writes)"),
    "seed": Format(_seed, (".txt",), "a header line, then one abstract per line"),
    "openreview": Format(openreview.read_openreview, (), "OpenReview API v2 or v1 notes"),
    "arxiv-oai": Format(arxiv.read_oai, (),
                        "arXiv OAI-PMH ListRecords (arXiv, arXivRaw or oai_dc metadata)"),
    "arxiv-atom": Format(arxiv.read_atom, (".atom",), "the arXiv API's Atom feed"),
    "arxiv-snapshot": Format(arxiv.read_snapshot, (),
                             "the arXiv metadata snapshot (Kaggle), JSON lines"),
    "openalex": Format(openalex.read_openalex, (),
                       "OpenAlex works: an API page or snapshot JSON lines"),
    "s2": Format(s2.read_s2, (), "Semantic Scholar Graph API papers"),
    "bibtex": Format(bib.read_bibtex, (".bib", ".bibtex"), "BibTeX with abstract fields"),
    "ris": Format(bib.read_ris, (".ris",), "RIS (TY … ER) with AB abstracts"),
    "csv": Format(table.read_csv, (".csv",), "CSV with a header (see --columns)"),
    "tsv": Format(table.read_tsv, (".tsv", ".tab"), "TSV with a header (see --columns)"),
}


def _head(path: Path, size: int = 65536) -> str:
    """The start of the file, gunzipped if need be, as text."""
    with path.open("rb") as fh:
        opener = gzip.open if fh.read(2) == b"\x1f\x8b" else open
    raw = b""
    try:
        with opener(path, "rb") as fh:  # in blocks: a gzip cut short keeps its start
            while len(raw) < size and (block := fh.read(4096)):
                raw += block
    except (OSError, EOFError) as err:
        if not raw:
            raise IngestError(f"{path}: not a readable gzip file ({err})") from err
    return raw.decode("utf-8", "replace").lstrip("\ufeff")


def _json_kind(head: str) -> str | None:
    """The format of a JSON page or of JSON lines, from the first record's keys."""
    first = head.split("\n", 1)[0]
    try:
        obj = json.loads(first)
    except json.JSONDecodeError:
        obj = None
    text = head
    if isinstance(obj, dict):
        if "notes" in obj:
            return "openreview"
        if "results" in obj and "meta" in obj:
            return "openalex"
        if "data" in obj and ("total" in obj or "next" in obj or "offset" in obj):
            return "s2"
        text = first
    if re.search(r'"abstract_inverted_index"|"https://openalex\.org/W', text):
        return "openalex"
    if '"paperId"' in text:
        return "s2"
    if re.search(r'"content"\s*:', text) and re.search(r'"(forum|invitations?)"\s*:', text):
        return "openreview"
    if '"authors_parsed"' in text or ('"categories"' in text and '"versions"' in text):
        return "arxiv-snapshot"
    if isinstance(obj, dict) and "abstract" in obj:
        return "paperkg"
    return None


def detect_format(path: Path) -> str:
    """The format of a file, from its content first and its extension second."""
    head = _head(path)
    body = head.lstrip()
    name = path.name.lower().removesuffix(".gz")
    if body.startswith("<"):
        if "<OAI-PMH" in body[:2000]:
            return "arxiv-oai"
        if re.search(r"<feed[\s>]", body[:2000]):
            return "arxiv-atom"
    elif body.startswith(("{", "[")):
        kind = _json_kind(body)
        if kind:
            return kind
    elif re.match(r"(%[^\n]*\n\s*)*@\w+\s*\{", body):
        return "bibtex"
    elif re.match(r"TY  - ", body):
        return "ris"
    for fmt, spec in FORMATS.items():
        if name.endswith(spec.extensions) and spec.extensions:
            return fmt
    raise IngestError(
        f"{path}: unknown format; name one with --format ({', '.join(FORMATS)}), or give "
        f"seed .txt, .jsonl[.gz], .bib, .ris, .csv/.tsv or a saved API answer")


def read_source(path: Path, fmt: str | None = None,
                columns: str | None = None) -> Iterator[Paper | Reject]:
    """Papers and rejects of one file, in file order."""
    if fmt in (None, "", "auto"):
        fmt = detect_format(path)
    spec = FORMATS.get(fmt)
    if spec is None:
        raise UsageError(f"--format {fmt!r}: expected auto or one of {list(FORMATS)}")
    return spec.reader(path, columns)
