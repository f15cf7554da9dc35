"""OpenAlex works: an API page (`{"meta", "results": [...]}`) or snapshot JSON lines,
plain or gzipped. The abstract is rebuilt from `abstract_inverted_index` (word →
positions), the only form OpenAlex gives it in. https://docs.openalex.org/api-entities/works
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from paperkg.build.ingest import Paper, Reject, make_paper
from paperkg.build.sources.arxiv import arxiv_id
from paperkg.build.sources.common import jget, json_records, records

__all__ = ["abstract_from_index", "read_openalex"]


def abstract_from_index(index: Any) -> str | None:
    """The text of an `abstract_inverted_index`; None when there is none (null)."""
    if index is None:
        return None
    if not isinstance(index, dict):
        raise ValueError("abstract_inverted_index must be an object of word → positions")
    slots: dict[int, str] = {}
    for word, positions in index.items():
        if not isinstance(positions, list) or not all(isinstance(p, int) for p in positions):
            raise ValueError(f"abstract_inverted_index[{word!r}] must be a list of positions")
        for p in positions:
            slots[p] = word
    return " ".join(slots[p] for p in sorted(slots)) or None


def _short(iri: str | None) -> str | None:
    return iri.rsplit("/", 1)[-1] if iri else None


def paper_from_work(w: Any, where: str) -> Paper:
    if not isinstance(w, dict):
        raise ValueError("expected a work object")
    abstract = abstract_from_index(w.get("abstract_inverted_index"))
    if abstract is None:
        raise ValueError("abstract_inverted_index is null: OpenAlex has no abstract for "
                         f"{_short(w.get('id'))}")
    aid = None
    for loc in w.get("locations") or []:
        url = jget(loc, "landing_page_url") or ""
        if "arxiv.org/abs/" in url:
            aid = arxiv_id(url)
            break
    topics = [jget(t, "display_name") for t in w.get("topics") or []]
    return make_paper(
        id=_short(w.get("id")), abstract=abstract, location=where, fmt="openalex",
        title=w.get("title") or w.get("display_name"),
        authors=[jget(a, "author", "display_name") or "" for a in w.get("authorships") or []],
        subjects=[t for t in topics if isinstance(t, str)],
        year=w.get("publication_year"),
        venue=jget(w, "primary_location", "source", "display_name"),
        doi=w.get("doi"), arxiv_id=aid,
        url=jget(w, "primary_location", "landing_page_url") or w.get("doi") or w.get("id"),
    )


def read_openalex(path: Path, columns: str | None = None) -> Iterator[Paper | Reject]:
    yield from records(json_records(path, ("results",)), path, paper_from_work)
