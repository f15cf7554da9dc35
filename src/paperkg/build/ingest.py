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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperkg.vocab import DECISIONS

__all__ = [
    "IngestResult",
    "Paper",
    "Reject",
    "paper_id_for",
    "read_papers",
]

_ID_RE = re.compile(r"^[A-Za-z0-9_.~-]{1,100}$")
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
class Paper:
    """One validated paper. `title` is None when the source has none (never invented)."""

    id: str
    abstract: str
    label: str
    source: str
    title: str | None = None
    authors: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    decision: str | None = None
    url: str | None = None

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


def read_papers(paths: Iterable[str | Path]) -> IngestResult:
    """Read every file; valid papers and rejects come back together, in input order.

    Duplicate ids with identical content are collapsed silently (the same paper twice);
    duplicate ids with different content are rejects.
    """
    result = IngestResult()
    seen: dict[str, Paper] = {}
    for path in paths:
        p = Path(path)
        if not p.is_file():
            raise FileNotFoundError(f"{p}: no such file (give seed .txt or .jsonl[.gz] files)")
        for item in _read_file(p):
            if isinstance(item, Reject):
                result.rejects.append(item)
                continue
            earlier = seen.get(item.id)
            if earlier is None:
                seen[item.id] = item
                result.papers.append(item)
            elif _content(earlier) != _content(item):
                result.rejects.append(
                    Reject(
                        item.source.rsplit(":", 1)[0],
                        int(item.source.rsplit(":", 1)[1]),
                        f"duplicate id {item.id!r} with different content (first seen at "
                        f"{earlier.source})",
                        item.abstract[:200],
                    )
                )
    return result


def _content(p: Paper) -> tuple[Any, ...]:
    return (normalise_abstract(p.abstract), p.title, p.authors, p.keywords, p.decision)


def _read_file(path: Path) -> Iterator[Paper | Reject]:
    name = path.name.lower()
    if name.endswith((".jsonl", ".jsonl.gz", ".ndjson", ".json.gz")):
        yield from _read_jsonl(path)
    elif name.endswith(".txt"):
        yield from _read_seed(path)
    else:
        raise ValueError(f"{path}: unknown format; expected .txt (seed) or .jsonl / .jsonl.gz")


def _lines(path: Path) -> Iterator[tuple[int, str | Reject]]:
    """Lines of a file, decoded one by one so a bad byte names its own line."""
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as fh:
            for number, raw in enumerate(fh, start=1):
                try:
                    yield number, raw.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError as err:
                    yield number, Reject(
                        str(path), number, f"not UTF-8 ({err.reason} at byte {err.start})",
                        raw[:200].decode("utf-8", "replace"),
                    )
    except (gzip.BadGzipFile, EOFError) as err:
        raise ValueError(f"{path}: not a readable gzip file ({err})") from err


def _read_seed(path: Path) -> Iterator[Paper | Reject]:
    """Seed format: a header line, then one abstract per non-empty line."""
    for number, line in _lines(path):
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
        yield Paper(
            id=paper_id_for(text),
            abstract=text,
            label=derive_label(text),
            source=f"{path}:{number}",
        )


def _read_jsonl(path: Path) -> Iterator[Paper | Reject]:
    for number, line in _lines(path):
        if isinstance(line, Reject):
            yield line
            continue
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            yield Reject(str(path), number, f"malformed JSON: {err.msg} at column {err.colno}",
                         line[:200])
            continue
        if not isinstance(record, dict):
            yield Reject(str(path), number, "expected a JSON object per line", line[:200])
            continue
        try:
            yield _paper_from_record(record, f"{path}:{number}")
        except ValueError as err:
            yield Reject(str(path), number, str(err), line[:200])


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
    abstract = _text_field(record, "abstract", required=True)
    assert abstract is not None
    raw_id = record.get("id")
    if raw_id is None or raw_id == "":
        raise ValueError("missing field 'id'")
    if not isinstance(raw_id, str | int):
        raise ValueError("field 'id' must be a string")
    pid = str(raw_id).strip()
    if not _ID_RE.match(pid):
        raise ValueError(f"field 'id' {pid!r} may hold only letters, digits and . _ ~ -")
    title = _text_field(record, "title", required=False)
    decision = _text_field(record, "decision", required=False)
    if decision is not None and decision not in DECISIONS:
        raise ValueError(f"field 'decision' {decision!r} is not one of {list(DECISIONS)}")
    return Paper(
        id=pid,
        abstract=abstract,
        label=derive_label(abstract, title),
        source=source,
        title=title,
        authors=_list_field(record, "authors"),
        keywords=_list_field(record, "keywords"),
        decision=decision,
        url=_text_field(record, "url", required=False),
    )
