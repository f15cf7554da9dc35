"""arXiv: OAI-PMH `ListRecords` (metadata `arXiv`, `arXivRaw`, `oai_dc`), the API's Atom
feed (export.arxiv.org/api/query), and the JSON-lines metadata snapshot (Kaggle).

The paper id is the arXiv id without version ("2202.12139", "hep-th/9901001"). Titles
and abstracts come hard-wrapped and with TeX escapes; both are undone here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

from paperkg.build.ingest import Paper, Reject, make_paper
from paperkg.build.sources.common import (
    inverted_name,
    json_records,
    parse_xml,
    person_name,
    records,
    tex,
    xml_record_lines,
)
from paperkg.errors import IngestError

__all__ = ["arxiv_id", "read_atom", "read_oai", "read_snapshot"]

OAI = "{http://www.openarchives.org/OAI/2.0/}"
ARXIV = "{http://arxiv.org/OAI/arXiv/}"
RAW = "{http://arxiv.org/OAI/arXivRaw/}"
OAI_DC = "{http://www.openarchives.org/OAI/2.0/oai_dc/}"
DC = "{http://purl.org/dc/elements/1.1/}"
ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV_ATOM = "{http://arxiv.org/schemas/atom}"

_ID = re.compile(r"(?:arxiv\.org/abs/|oai:arXiv\.org:|arXiv:)?"
                 r"(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?$", re.IGNORECASE)
_AUTHOR_SPLIT = re.compile(r",\s*(?:and\s+)?|\s+and\s+")


def arxiv_id(value: str | None) -> str | None:
    """"http://arxiv.org/abs/2202.12139v1", "oai:arXiv.org:hep-th/9901001" → the bare id."""
    if not value:
        return None
    m = _ID.search(value.strip())
    return m.group(1) if m else None


def _year(text: str | None) -> int | None:
    """The year of an ISO date ("2014-12-29") or an RFC 2822 one ("Sun, 30 Mar 2008 …")."""
    if not text:
        return None
    m = re.match(r"\s*(\d{4})-", text)
    if m:
        return int(m.group(1))
    try:
        return parsedate_to_datetime(text).year
    except (TypeError, ValueError):
        return None


def _t(el: Element | None, path: str) -> str | None:
    found = el.find(path) if el is not None else None
    return found.text if found is not None and found.text else None


def _split_authors(names: str | None) -> list[str]:
    return [tex(n.strip()) or "" for n in _AUTHOR_SPLIT.split(names or "") if n.strip()]


def _arxiv_paper(where: str, fmt: str, aid: str | None, **fields: Any) -> Paper:
    if not aid:
        raise ValueError("no arXiv id in the record")
    return make_paper(id=aid, arxiv_id=aid, location=where, fmt=fmt,
                      url=f"https://arxiv.org/abs/{aid}",
                      title=tex(fields.pop("title")), abstract=tex(fields.pop("abstract")),
                      **fields)


# ---------------------------------------------------------------- OAI-PMH


def read_oai(path: Path, columns: str | None = None) -> Iterator[Paper | Reject]:
    """Every <record> of a ListRecords/GetRecord response; deleted records are skipped."""
    root = parse_xml(path)
    error = root.find(f"{OAI}error")
    if error is not None and error.get("code") != "noRecordsMatch":
        raise IngestError(f"{path}:1: OAI-PMH error {error.get('code')}: {error.text}")
    found = list(root.iter(f"{OAI}record"))
    lines = xml_record_lines(path, "record", len(found))
    yield from records(zip(lines, found, strict=True), path, _oai_record)


def _oai_record(record: Element, where: str) -> Paper | None:
    header = record.find(f"{OAI}header")
    if header is not None and header.get("status") == "deleted":
        return None
    meta = record.find(f"{OAI}metadata")
    if meta is None or len(meta) == 0:
        raise ValueError("record without <metadata>")
    body = meta[0]
    if body.tag == f"{RAW}arXivRaw":
        return _raw(body, where)
    if body.tag == f"{ARXIV}arXiv":
        return _arxiv(body, where)
    if body.tag == f"{OAI_DC}dc":
        return _dc(body, where, _t(header, f"{OAI}identifier"))
    raise ValueError(f"unsupported metadata {body.tag!r} (expected arXiv, arXivRaw or oai_dc)")


def _subjects(text: str | None) -> list[str]:
    return (text or "").split()


def _raw(m: Element, where: str) -> Paper:
    first = m.find(f"{RAW}version/{RAW}date")
    return _arxiv_paper(
        where, "arxiv-oai", arxiv_id(_t(m, f"{RAW}id")), title=_t(m, f"{RAW}title"),
        abstract=_t(m, f"{RAW}abstract"), authors=_split_authors(_t(m, f"{RAW}authors")),
        subjects=_subjects(_t(m, f"{RAW}categories")), doi=_t(m, f"{RAW}doi"),
        year=_year(first.text if first is not None else None),
    )


def _arxiv(m: Element, where: str) -> Paper:
    authors = [person_name(_t(a, f"{ARXIV}keyname") or "", _t(a, f"{ARXIV}forenames") or "",
                           _t(a, f"{ARXIV}suffix") or "")
               for a in m.iterfind(f"{ARXIV}authors/{ARXIV}author")]
    return _arxiv_paper(
        where, "arxiv-oai", arxiv_id(_t(m, f"{ARXIV}id")), title=_t(m, f"{ARXIV}title"),
        abstract=_t(m, f"{ARXIV}abstract"), authors=authors,
        subjects=_subjects(_t(m, f"{ARXIV}categories")), doi=_t(m, f"{ARXIV}doi"),
        year=_year(_t(m, f"{ARXIV}created")),
    )


def _dc(m: Element, where: str, header_id: str | None) -> Paper:
    ids = [e.text or "" for e in m.iterfind(f"{DC}identifier")]
    aid = next((a for a in map(arxiv_id, [header_id or "", *ids]) if a), None)
    doi = next((i for i in ids if i.startswith(("doi:", "10.", "https://doi.org/"))), None)
    dates = [e.text for e in m.iterfind(f"{DC}date")]
    return _arxiv_paper(
        where, "arxiv-oai", aid, title=_t(m, f"{DC}title"),
        abstract=_t(m, f"{DC}description"),
        authors=[inverted_name(e.text or "") for e in m.iterfind(f"{DC}creator")],
        subjects=[e.text or "" for e in m.iterfind(f"{DC}subject")], doi=doi,
        year=_year(dates[0] if dates else None),
    )


# ---------------------------------------------------------------- Atom (the API)


def read_atom(path: Path, columns: str | None = None) -> Iterator[Paper | Reject]:
    root = parse_xml(path)
    entries = list(root.iterfind(f"{ATOM}entry"))
    lines = xml_record_lines(path, "entry", len(entries))
    yield from records(zip(lines, entries, strict=True), path, _entry)


def _entry(e: Element, where: str) -> Paper:
    raw_id = _t(e, f"{ATOM}id")
    if raw_id and "api/errors" in raw_id:
        raise ValueError(f"the feed reports an error: {_t(e, f'{ATOM}summary')}")
    return _arxiv_paper(
        where, "arxiv-atom", arxiv_id(raw_id), title=_t(e, f"{ATOM}title"),
        abstract=_t(e, f"{ATOM}summary"),
        authors=[_t(a, f"{ATOM}name") or "" for a in e.iterfind(f"{ATOM}author")],
        subjects=[c.get("term") or "" for c in e.iterfind(f"{ATOM}category")],
        doi=_t(e, f"{ARXIV_ATOM}doi"), year=_year(_t(e, f"{ATOM}published")),
    )


# ---------------------------------------------------------------- snapshot (JSON lines)


def read_snapshot(path: Path, columns: str | None = None) -> Iterator[Paper | Reject]:
    yield from records(json_records(path, ()), path, _snapshot)


def _snapshot(r: Any, where: str) -> Paper:
    if not isinstance(r, dict):
        raise ValueError("expected a JSON object")
    parsed = r.get("authors_parsed")
    if isinstance(parsed, list) and all(isinstance(a, list) for a in parsed):
        authors = [person_name(*(str(x) for x in a[:3])) for a in parsed]
    else:
        authors = _split_authors(r.get("authors"))
    versions = r.get("versions") or []
    created = versions[0].get("created") if versions and isinstance(versions[0], dict) else None
    return _arxiv_paper(
        where, "arxiv-snapshot", arxiv_id(str(r.get("id") or "")), title=r.get("title"),
        abstract=r.get("abstract"), authors=authors,
        subjects=_subjects(r.get("categories")), doi=r.get("doi"),
        year=_year(created) or _year(r.get("update_date")),
    )
