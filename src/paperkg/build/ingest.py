"""Read papers from the seed text format and from JSON Lines (plain or gzipped).

Every record is validated here, once, so later stages can trust a `Paper`.
A bad record becomes a `Reject` that names its file, line and reason; the caller
decides whether rejects stop the build (the default) or are written aside.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import unicodedata
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperkg.build.fields import (
    MAX_ID_LENGTH,
    check_id,
    clean_text,
    normalise_doi,
    unique,
    venue_name,
    year_of,
)
from paperkg.errors import IngestError
from paperkg.vocab import DECISIONS

__all__ = [
    "MAX_ID_LENGTH",
    "IngestResult",
    "Origin",
    "Paper",
    "Reject",
    "check_id",
    "clean_text",
    "make_paper",
    "paper_id_for",
    "read_papers",
    "venue_name",
]

_ACRONYM_DEF_RE = re.compile(r"\(([A-Z][A-Za-z0-9-]*[A-Z0-9][A-Za-z0-9-]*)\)")
_INTRO_CUE_RE = re.compile(
    r"\b(?:propose|proposes|introduce|introduces|present|presents|called|named|dubbed|termed|"
    r"coined|develop|develops)\b",
    re.IGNORECASE,
)
_NAME_AFTER_CUE_RE = re.compile(
    r"\b(?:we|this paper|this work)\s+(?:propose|introduce|present|develop)\s+"
    r"([A-Z][a-z0-9]*[A-Z][A-Za-z0-9-]*|[A-Z]{2,}[A-Za-z0-9-]*)"
)


@dataclass(frozen=True, slots=True)
class Origin:
    """One source record a paper was read from: its format, its id there, FILE:LINE, and
    the venue and decision it records (a paper resubmitted to ICLR 2024 and 2025 has two)."""

    format: str
    id: str
    location: str
    venue: str | None = None
    decision: str | None = None


@dataclass(frozen=True, slots=True)
class Paper:
    """One validated paper. `title` is None when the source has none (never invented).

    `keywords` are the authors' own; `subjects` are the source's classification (arXiv
    categories, OpenAlex topics, S2 fields of study), kept apart. `origins` lists every
    source record merged into this paper (one per source, see `sources.merge`).
    """

    id: str
    abstract: str
    label: str
    source: str
    title: str | None = None
    authors: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    decision: str | None = None
    url: str | None = None
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    subjects: tuple[str, ...] = ()
    origins: tuple[Origin, ...] = ()

    @property
    def name(self) -> str:
        """What to show a person: the title if there is one, else the derived label."""
        return self.title or self.label


@dataclass(frozen=True, slots=True)
class Reject:
    """A record that was refused, with where it came from and why."""

    path: str
    line: int
    reason: str
    raw: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


@dataclass(slots=True)
class IngestResult:
    papers: list[Paper] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)



def normalise_abstract(text: str) -> str:
    """The form ids are hashed from: NFKC, lower case, single spaces."""
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def paper_id_for(abstract: str) -> str:
    """A stable id for a paper that has none: a short hash of its normalised abstract."""
    digest = hashlib.sha1(normalise_abstract(abstract).encode("utf-8")).hexdigest()
    return f"h{digest[:12]}"


def derive_label(abstract: str, title: str | None = None) -> str:
    """A readable handle: the name the abstract introduces, else the title, else its first words."""
    for match in _ACRONYM_DEF_RE.finditer(abstract):
        if _INTRO_CUE_RE.search(abstract[max(0, match.start() - 120) : match.start()]):
            return match.group(1)
    named = _NAME_AFTER_CUE_RE.search(abstract)
    if named:
        return named.group(1)
    if title:
        return title
    words = abstract.split()
    head = " ".join(words[:8]).rstrip(",.;:")
    return head + ("…" if len(words) > 8 else "")


def read_papers(
    paths: Iterable[str | Path], fmt: str | None = None, columns: str | None = None,
    merge: bool = True,
) -> IngestResult:
    """Read every file; valid papers and rejects come back together, in input order.

    `fmt` forces a format of `paperkg.build.sources.FORMATS` (default: detected per file
    from its content and extension); `columns` maps CSV/TSV columns ("id=PID,title=Title").
    Duplicate ids with identical content are collapsed silently (the same paper twice);
    duplicate ids with different content from the same format are rejects. With `merge`,
    the same paper from different sources (same DOI, arXiv id, or title + first author)
    becomes one `Paper` that keeps every source (`sources.merge`).
    """
    from paperkg.build.sources import read_source
    from paperkg.build.sources.merge import merge_papers

    result = IngestResult()
    seen: dict[str, Paper] = {}
    for path in paths:
        p = Path(path)
        if not p.is_file():
            raise FileNotFoundError(
                f"{p}: no such file (give seed .txt, .jsonl[.gz] or a source file: "
                f"paperkg build --help lists the formats)")
        for item in read_source(p, fmt, columns):
            if isinstance(item, Reject):
                result.rejects.append(item)
                continue
            earlier = seen.get(item.id)
            if earlier is None:
                seen[item.id] = item
                result.papers.append(item)
            elif _content(earlier) != _content(item) and _format(earlier) == _format(item):
                result.rejects.append(
                    Reject(
                        item.source.rsplit(":", 1)[0],
                        int(item.source.rsplit(":", 1)[1]),
                        f"duplicate id {item.id!r} with different content (first seen at "
                        f"{earlier.source})",
                        item.abstract[:200],
                    )
                )
            elif _content(earlier) != _content(item):
                result.papers.append(item)  # same id from another source: merged below
    if merge:
        result.papers = merge_papers(result.papers)
    return result


def _format(p: Paper) -> str:
    return p.origins[0].format if p.origins else ""


def _content(p: Paper) -> tuple[Any, ...]:
    return (normalise_abstract(p.abstract), p.title, p.authors, p.keywords, p.decision)


def lines(path: Path) -> Iterator[tuple[int, str | Reject]]:
    """Lines of a file, decoded one by one so a bad byte names its own line."""
    with path.open("rb") as head:  # gzip by name or by its magic bytes (a saved download)
        zipped = path.suffix.lower() == ".gz" or head.read(2) == b"\x1f\x8b"
    opener = gzip.open if zipped else open
    number = 0
    try:
        with opener(path, "rb") as fh:
            for chunk in fh:
                # CR-only line endings (old Mac exports) end lines too; a BOM starts none
                for raw in chunk.rstrip(b"\r\n").split(b"\r"):
                    number += 1
                    try:
                        yield number, raw.decode("utf-8").removeprefix("\ufeff")
                    except UnicodeDecodeError as err:
                        yield number, Reject(
                            str(path), number, f"not UTF-8 ({err.reason} at byte {err.start})",
                            raw[:200].decode("utf-8", "replace"),
                        )
    except (gzip.BadGzipFile, EOFError, zlib.error) as err:
        if number == 0 and isinstance(err, gzip.BadGzipFile):
            raise IngestError(f"{path}: not a readable gzip file ({err})") from err
        # damaged after `number` lines: those are kept (with --skip-invalid), the rest lost
        yield number + 1, Reject(str(path), number + 1, f"the gzip file is damaged or cut "
                                 f"short after line {number} ({err}); later lines are lost", "")


def read_seed(path: Path) -> Iterator[Paper | Reject]:
    """Seed format: a header line, then one abstract per non-empty line."""
    for number, line in lines(path):
        if number == 1:
            continue
        if isinstance(line, Reject):
            yield line
            continue
        text = line.strip()
        if not text:
            continue
        if len(text.split()) < 5:
            yield Reject(str(path), number, "abstract too short (fewer than 5 words)", text)
            continue
        text = clean_text(text) or text
        pid = paper_id_for(text)
        where = f"{path}:{number}"
        yield Paper(id=pid, abstract=text, label=derive_label(text), source=where,
                    origins=(Origin("seed", pid, where),))


def jsonl_records(path: Path) -> Iterator[tuple[int, dict[str, Any] | Reject]]:
    """(line number, the JSON object on it) for each non-empty line, or a Reject that
    says why the line is not one: the one JSON Lines reader every format uses."""
    for number, line in lines(path):
        if isinstance(line, Reject):
            yield number, line
            continue
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            yield number, Reject(str(path), number, f"malformed JSON: {err.msg} at column "
                                 f"{err.colno}", line[:200])
            continue
        except (ValueError, RecursionError) as err:  # 5,000-digit numbers, 100k-deep nesting
            why = "nested too deeply" if isinstance(err, RecursionError) else str(err)
            yield number, Reject(str(path), number, f"unreadable JSON: {why.split(';')[0]}",
                                 line[:200])
            continue
        if not isinstance(record, dict):
            yield number, Reject(str(path), number, "expected a JSON object per line",
                                 line[:200])
            continue
        yield number, record


def read_jsonl(path: Path) -> Iterator[Paper | Reject]:
    for number, record in jsonl_records(path):
        if isinstance(record, Reject):
            yield record
            continue
        try:
            yield _paper_from_record(record, f"{path}:{number}")
        except ValueError as err:
            yield Reject(str(path), number, str(err), json.dumps(record)[:200])


def make_paper(
    *, id: object, abstract: str | None, location: str, fmt: str,
    title: str | None = None, authors: Iterable[str] = (), keywords: Iterable[str] = (),
    subjects: Iterable[str] = (), decision: str | None = None, url: str | None = None,
    year: int | str | None = None, venue: str | None = None, doi: str | None = None,
    arxiv_id: str | None = None,
) -> Paper:
    """The one place a source record becomes a `Paper`; raises ValueError(reason).

    Every reader calls this, so every format is checked and cleaned alike.
    """
    pid = check_id(id)
    text = clean_text(abstract) if isinstance(abstract, str) else None
    if text is None:
        raise ValueError("missing field 'abstract'" if not abstract else "empty field 'abstract'")
    clean_title = clean_text(title) if title else None
    if decision is not None and decision not in DECISIONS:
        raise ValueError(f"field 'decision' {decision!r} is not one of {list(DECISIONS)}")
    venue = venue_name(venue)
    return Paper(
        id=pid,
        abstract=text,
        label=derive_label(text, clean_title),
        source=location,
        title=clean_title,
        authors=unique(authors),
        keywords=unique(keywords),
        decision=decision,
        url=clean_text(url) if url else None,
        year=year_of(year),
        venue=venue,
        doi=normalise_doi(doi),
        arxiv_id=clean_text(arxiv_id) if arxiv_id else None,
        subjects=unique(subjects),
        origins=(Origin(fmt, pid, location, venue, decision),),
    )


def _text_field(record: dict[str, Any], key: str, required: bool) -> str | None:
    value = record.get(key)
    if value is None:
        if required:
            raise ValueError(f"missing field {key!r}")
        return None
    if not isinstance(value, str):
        raise ValueError(f"field {key!r} must be a string, got {type(value).__name__}")
    value = " ".join(value.split())
    if not value:
        if required:
            raise ValueError(f"empty field {key!r}")
        return None
    return value


def _list_field(record: dict[str, Any], key: str) -> tuple[str, ...]:
    value = record.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"field {key!r} must be a list of strings")
    return tuple(dict.fromkeys(" ".join(v.split()) for v in value if v.strip()))


def _paper_from_record(record: dict[str, Any], source: str) -> Paper:
    """paperkg's own JSON Lines record (the shape `paperkg fetch` writes)."""
    abstract = _text_field(record, "abstract", required=True)
    pid = check_id(record.get("id"))
    title = _text_field(record, "title", required=False)
    decision = _text_field(record, "decision", required=False)
    year = record.get("year")
    if year is not None and not isinstance(year, int | str):
        raise ValueError("field 'year' must be a number")
    return make_paper(
        id=pid, abstract=abstract, location=source, fmt=_text_field(record, "format", False)
        or "paperkg", title=title, authors=_list_field(record, "authors"),
        keywords=_list_field(record, "keywords"), subjects=_list_field(record, "subjects"),
        decision=decision, url=_text_field(record, "url", required=False), year=year,
        venue=_text_field(record, "venue", required=False),
        doi=_text_field(record, "doi", required=False),
        arxiv_id=_text_field(record, "arxiv_id", required=False),
    )
