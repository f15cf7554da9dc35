"""Build the KG as a NetworkX graph: papers, concepts and authors, with the same ids as the RDF.

Node keys are `kind:id` ("paper:00SnKBGTsz", "concept:graph-neural-network",
"author:jane-doe"), so they map one-to-one to the RDF IRIs; a concept node carries its
`ctype` (Method, Dataset, Task, Metric or Concept). Edges: paper–concept ("mentions", with
score, rank and `role`: mentions, proposes or evaluatesOn), concept–concept ("broader") and
paper–author ("creator"). Concept co-occurrence
(how many papers mention both) is derived on demand rather than stored: it is quadratic
in concepts per paper and cheap to recompute.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

import networkx as nx

from paperkg.build.canon import ConceptScheme
from paperkg.build.ingest import Paper
from paperkg.vocab import author_slug, node_key

__all__ = ["build_nx", "node_link", "write_graph"]


def build_nx(papers: Sequence[Paper], scheme: ConceptScheme) -> nx.Graph:
    """Bipartite paper–concept graph plus authors; attributes are plain JSON values."""
    return nx.node_link_graph(node_link(papers, scheme), edges="links")


def node_link(papers: Sequence[Paper], scheme: ConceptScheme) -> dict[str, Any]:
    """The graph as node-link data (what `write_graph` writes), made directly: building an
    `nx.Graph` first took a second of every `paperkg add`. An edge added twice (an author
    listed twice) is one edge with the later attributes, as in NetworkX."""
    return {**_HEAD, "nodes": list(_nodes(papers, scheme)),
            "links": list(_links(papers, scheme))}


def write_graph(papers: Sequence[Paper], scheme: ConceptScheme, path: Path,
                batch: int = 5000) -> tuple[int, int]:
    """`node_link` written to `path` as `kgdir.load_graph` reads it (the same JSON, gzipped
    at level 3 by orjson), `batch` nodes or links at a time: as one dict its 550k links
    took 265 MB of a 46k-paper build. Returns (nodes, links)."""
    import orjson

    counts = []
    with gzip.open(path, "wb", compresslevel=3) as fh:
        fh.write(orjson.dumps(_HEAD)[:-1])  # the object left open: its lists follow
        for name, items in (("nodes", _nodes(papers, scheme)),
                            ("links", _links(papers, scheme))):
            fh.write(b',"' + name.encode() + b'":[')
            n = 0
            for part in _batches(items, batch):
                fh.write((b"," if n else b"") + orjson.dumps(part)[1:-1])
                n += len(part)
            fh.write(b"]")
            counts.append(n)
        fh.write(b"}")
    return counts[0], counts[1]


_HEAD: dict[str, Any] = {"directed": False, "multigraph": False, "graph": {}}


def _batches(items: Iterator[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    while batch := list(islice(items, size)):
        yield batch


def _nodes(papers: Sequence[Paper], scheme: ConceptScheme) -> Iterator[dict[str, Any]]:
    """Concepts, then each paper and the authors it names first."""
    for concept in scheme.concepts.values():
        yield {"kind": "concept", "label": concept.pref_label,
               "paper_count": concept.paper_count, "weight": concept.weight,
               "ctype": concept.kind, "id": node_key("concept", concept.id)}
    authors: set[str] = set()
    for paper in papers:
        yield {"kind": "paper", "label": paper.name, "decision": paper.decision or "",
               "id": node_key("paper", paper.id)}
        for name in paper.authors:
            akey = node_key("author", author_slug(name))
            if akey not in authors:
                authors.add(akey)
                yield {"kind": "author", "label": name, "id": akey}


def _links(papers: Sequence[Paper], scheme: ConceptScheme) -> Iterator[dict[str, Any]]:
    """Broader links, then each paper's mentions and authors. Only an author listed twice
    in one paper repeats a link (a paper's links are its own; one concept has one broader
    concept), so the links are told apart paper by paper."""
    key = {cid: node_key("concept", cid) for cid in scheme.concepts}
    for concept in scheme.concepts.values():
        if concept.broader:
            a, b = key[concept.id], key[concept.broader]
            yield {"kind": "broader", "score": 1.0, "broader": b, "source": a, "target": b}
    for paper in papers:
        pkey = node_key("paper", paper.id)
        links: dict[str, dict[str, Any]] = {}
        for m in scheme.mentions.get(paper.id, []):
            c = key[m.concept_id]
            links[c] = {"kind": "mentions", "score": m.score, "rank": m.rank, "role": m.role,
                        "proposes": m.role == "proposes", "source": pkey, "target": c}
        for name in paper.authors:
            akey = node_key("author", author_slug(name))
            links[akey] = {"kind": "creator", "score": 1.0, "source": pkey, "target": akey}
        yield from links.values()
