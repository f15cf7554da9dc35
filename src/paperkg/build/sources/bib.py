"""Reference-manager exports: BibTeX (bibtexparser) and RIS.

BibTeX: `@article`, `@inproceedings`, … with an `abstract` field; TeX escapes in names,
titles and abstracts become text. Volumes (`@proceedings`, `@book`, `@string`, comments)
are not papers and are skipped, but a PMLR-style file's single `@proceedings` lends its
year and short name ("AutoML 2023") to entries that have none.
RIS: tagged lines (`TY  - JOUR` … `ER  -`), read here line by line to keep line numbers
(RIS is a flat list of tags; rispy would drop the positions).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bibtexparser
from bibtexparser.middlewares.names import (
    InvalidNameError,
    parse_single_name_into_parts,
    split_multiple_persons_names,
)
from bibtexparser.model import Entry

from paperkg.build.ingest import Paper, Reject, make_paper
from paperkg.build.sources.arxiv import arxiv_id
from paperkg.build.sources.common import inverted_name, open_text, person_name, records, tex

__all__ = ["read_bibtex", "read_ris"]

_VOLUMES = {"proceedings", "book", "collection", "periodical", "mvbook", "mvproceedings"}


def _name(raw: str) -> str:
    try:
        parts = parse_single_name_into_parts(raw)
    except InvalidNameError as err:
        raise ValueError(f"author {raw!r}: {err}") from err
    last = " ".join(parts.von + parts.last)
    return person_name(last, " ".join(parts.first), " ".join(parts.jr))


def read_bibtex(path: Path, columns: str | None = None) -> Iterator[Paper | Reject]:
    library = bibtexparser.parse_string(open_text(path))
    for block in library.failed_blocks:
        line = (block.start_line or 0) + 1
        yield Reject(str(path), line, f"malformed BibTeX entry: {block.error}",
                     (block.raw or "")[:200])
    volumes = [e for e in library.entries if e.entry_type.lower() in _VOLUMES]
    host = volumes[0] if len(volumes) == 1 else None
    items = ((e.start_line + 1 if e.start_line is not None else 0, e)
             for e in library.entries)
    yield from records(items, path, lambda e, where: _entry(e, where, host))


def _field(entry: Entry, key: str) -> str | None:
    f = entry.fields_dict.get(key) or entry.fields_dict.get(key.upper())
    return str(f.value) if f is not None and f.value is not None else None


def _entry(e: Entry, where: str, host: Entry | None) -> Paper | None:
    if e.entry_type.lower() in _VOLUMES:
        return None
    venue = _field(e, "booktitle") or _field(e, "journal")
    year = _field(e, "year")
    if host is not None and not venue:
        short = _field(host, "shortname")
        host_year = _field(host, "year")
        venue = f"{short} {host_year}" if short and host_year else _field(host, "booktitle")
        year = year or host_year
    authors = [_name(a) for a in split_multiple_persons_names(_field(e, "author") or "")]
    doi = _field(e, "doi")
    eprint = _field(e, "eprint") if (_field(e, "archiveprefix") or "").lower() == "arxiv" \
        else None
    keywords = re.split(r"[;,]", tex(_field(e, "keywords")) or "")
    return make_paper(
        id=doi or e.key, abstract=tex(_field(e, "abstract")), location=where, fmt="bibtex",
        title=tex(_field(e, "title")), authors=authors, keywords=keywords,
        year=year, venue=tex(venue), doi=doi, arxiv_id=arxiv_id(eprint),
        url=_field(e, "url") or (f"https://openreview.net/forum?id={_field(e, 'openreview')}"
                                 if _field(e, "openreview") else None),
    )


_RIS_LINE = re.compile(r"^([A-Z][A-Z0-9])  -(?: (.*))?$")


def _ris_records(path: Path) -> Iterator[tuple[int, Any]]:
    """(line of TY, {tag: [values]}) per record; text outside records is an error."""
    current: dict[str, list[str]] | None = None
    start = 0
    for number, line in enumerate(open_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        m = _RIS_LINE.match(line.rstrip())
        if m is None:
            if current is not None and current.get("_last"):
                tag = current["_last"][0]  # a wrapped value continues the previous tag
                current[tag][-1] += " " + line.strip()
                continue
            yield number, Reject(str(path), number, "not an RIS line (expected 'XX  - value')",
                                 line[:200])
            continue
        tag, value = m.group(1), (m.group(2) or "").strip()
        if tag == "TY":
            if current is not None:
                yield number, Reject(str(path), start, "record without 'ER  -' end", "")
            current, start = {"TY": [value]}, number
        elif current is None:
            yield number, Reject(str(path), number, f"tag {tag} outside a record (no 'TY  -' "
                                 f"before it)", line[:200])
        elif tag == "ER":
            current.pop("_last", None)
            yield start, current
            current = None
        else:
            current.setdefault(tag, []).append(value)
            current["_last"] = [tag]
    if current is not None:
        yield start, Reject(str(path), start, "record without 'ER  -' end", "")


def _ris(r: dict[str, list[str]], where: str) -> Paper:
    def one(*tags: str) -> str | None:
        return next((r[t][0] for t in tags if r.get(t)), None)

    doi = one("DO")
    urls = r.get("UR", [])
    aid = next((a for a in map(arxiv_id, urls) if a), None)
    return make_paper(
        id=one("ID") or doi or aid, abstract=one("AB", "N2"), location=where, fmt="ris",
        title=one("TI", "T1"), authors=[inverted_name(a) for a in r.get("AU", r.get("A1", []))],
        keywords=r.get("KW", []), year=one("PY", "Y1", "DA"), venue=one("T2", "JO", "JF"),
        doi=doi, arxiv_id=aid, url=urls[0] if urls else None,
    )


def read_ris(path: Path, columns: str | None = None) -> Iterator[Paper | Reject]:
    yield from records(_ris_records(path), path, _ris)
