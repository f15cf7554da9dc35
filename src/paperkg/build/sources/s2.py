"""Semantic Scholar Graph API papers: a search page (`{"total", "offset", "next",
"data": [...]}`), a batch answer (a JSON array) or JSON lines of paper objects.
https://api.semanticscholar.org/api-docs/graph"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from paperkg.build.ingest import Paper, Reject, make_paper
from paperkg.build.sources.common import jget, json_records, records

__all__ = ["paper_from_s2", "read_s2"]


def paper_from_s2(p: Any, where: str) -> Paper:
    if not isinstance(p, dict):
        raise ValueError("expected a paper object")
    if p.get("abstract") is None:
        raise ValueError(f"abstract is null: Semantic Scholar has no abstract for "
                         f"{p.get('paperId')}")
    ext = p.get("externalIds") or {}
    fields = list(p.get("fieldsOfStudy") or [])
    fields += [jget(f, "category") for f in p.get("s2FieldsOfStudy") or []]
    return make_paper(
        id=p.get("paperId"), abstract=p.get("abstract"), location=where, fmt="s2",
        title=p.get("title"),
        authors=[jget(a, "name") or "" for a in p.get("authors") or []],
        subjects=[f for f in fields if isinstance(f, str)], year=p.get("year"),
        venue=jget(p, "publicationVenue", "name") or p.get("venue") or None,
        doi=ext.get("DOI"), arxiv_id=ext.get("ArXiv"), url=p.get("url"),
    )


def read_s2(path: Path, columns: str | None = None) -> Iterator[Paper | Reject]:
    yield from records(json_records(path, ("data",)), path, paper_from_s2)
