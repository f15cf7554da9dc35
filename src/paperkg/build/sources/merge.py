"""One paper, one node: records of the same paper from different sources become one `Paper`.

Two records are the same paper when they share a DOI, an arXiv id, an id, or a normalised
title together with the first author's family name. Matching is transitive (union-find):
an OpenReview note and an arXiv entry with the same title, and that arXiv entry and an
S2 paper with its arXiv id, are all one paper. The first record read gives the id and
the abstract; every record stays listed in `origins` (written as prov:wasDerivedFrom),
with the venue and decision it states. The paper's own decision and venue are those of
its latest venue (resubmitted: rejected at ICLR 2024, a poster at ICLR 2025 → poster).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import replace

from paperkg.build.ingest import Origin, Paper

__all__ = ["match_keys", "merge_papers", "title_key"]

_MATH = re.compile(r"\$[^$]*\$")
_NON_WORD = re.compile(r"[^a-z0-9]+")


def _fold(text: str) -> str:
    ascii_form = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return " ".join(_NON_WORD.sub(" ", ascii_form.lower()).split())


def title_key(title: str, first_author: str) -> str | None:
    """"attention is all you need|vaswani": case, accents, punctuation, TeX math and
    hyphenation do not matter; the first author's last name keeps same-titled papers
    ("Introduction") apart. None when either part is missing."""
    words = _fold(_MATH.sub(" ", title))
    surname = _fold(first_author).split()
    if len(words.split()) < 3 or not surname:  # "Introduction" alone says nothing
        return None
    return f"{words}|{surname[-1]}"


def match_keys(p: Paper) -> Iterator[str]:
    """Everything that identifies the paper across sources."""
    yield f"id:{p.id}"
    if p.doi:
        yield f"doi:{p.doi.lower()}"
    if p.arxiv_id:
        yield f"arxiv:{p.arxiv_id}"
    if p.title and p.authors:
        key = title_key(p.title, p.authors[0])
        if key:
            yield f"title:{key}"


def merge_papers(papers: Sequence[Paper]) -> list[Paper]:
    """The papers with every group of same-paper records merged, in first-seen order."""
    parent = list(range(len(papers)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, paper in enumerate(papers):
        for key in match_keys(paper):
            j = owner.setdefault(key, i)
            a, b = find(i), find(j)
            if a != b:
                parent[max(a, b)] = min(a, b)
    groups: dict[int, list[Paper]] = {}
    for i, paper in enumerate(papers):
        groups.setdefault(find(i), []).append(paper)
    return [_merge(group) if len(group) > 1 else group[0] for group in groups.values()]


def _when(origin: Origin) -> int:
    """The year in a venue name ("ICLR 2025" → 2025); 0 if none. Ties keep the first."""
    m = re.search(r"\b(?:19|20)\d\d\b", origin.venue or "")
    return int(m.group(0)) if m else 0


def _first(values: Iterator[object]) -> object:
    return next((v for v in values if v), None)


def _merge(group: list[Paper]) -> Paper:
    """The first record, completed by the others; identifiers and origins from all."""
    head = group[0]

    def union(attr: str) -> tuple[str, ...]:
        return tuple(dict.fromkeys(v for p in group for v in getattr(p, attr)))

    origins = tuple(dict.fromkeys(o for p in group for o in p.origins))
    latest = max((o for o in origins if o.decision), key=_when, default=None)
    return replace(
        head,
        title=head.title or _first(p.title for p in group),  # type: ignore[arg-type]
        authors=head.authors or next((p.authors for p in group if p.authors), ()),
        keywords=union("keywords"),
        subjects=union("subjects"),
        decision=latest.decision if latest else None,
        url=_first(p.url for p in group),  # type: ignore[arg-type]
        year=_first(p.year for p in group),  # type: ignore[arg-type]
        venue=latest.venue if latest and latest.venue else _first(  # type: ignore[arg-type]
            p.venue for p in group),
        doi=_first(p.doi for p in group),  # type: ignore[arg-type]
        arxiv_id=_first(p.arxiv_id for p in group),  # type: ignore[arg-type]
        origins=origins,
    )
