"""The KG as a NetworkX graph: papers, concepts and authors, with the same ids as the RDF.

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
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import networkx as nx

from paperkg.canon import ConceptScheme
from paperkg.ingest import Paper
from paperkg.vocab import author_slug

__all__ = [
    "build_nx",
    "cooccurrence",
    "load_graph",
    "neighbourhood",
    "node_key",
    "save_graph",
    "write_graphml",
]

NODE_KINDS = ("paper", "concept", "author")


def node_key(kind: str, ident: str) -> str:
    return f"{kind}:{ident}"


def build_nx(papers: Sequence[Paper], scheme: ConceptScheme) -> nx.Graph:
    """Bipartite paper–concept graph plus authors; attributes are plain JSON values."""
    g = nx.Graph()
    for concept in scheme.concepts.values():
        g.add_node(
            node_key("concept", concept.id), kind="concept", label=concept.pref_label,
            paper_count=concept.paper_count, weight=concept.weight, ctype=concept.kind,
        )
    for concept in scheme.concepts.values():
        if concept.broader:
            parent = node_key("concept", concept.broader)
            g.add_edge(node_key("concept", concept.id), parent, kind="broader", score=1.0,
                       broader=parent)
    for paper in papers:
        pkey = node_key("paper", paper.id)
        g.add_node(pkey, kind="paper", label=paper.name, decision=paper.decision or "")
        for m in scheme.mentions.get(paper.id, []):
            g.add_edge(pkey, node_key("concept", m.concept_id), kind="mentions",
                       score=m.score, rank=m.rank, role=m.role,
                       proposes=m.role == "proposes")
        for name in paper.authors:
            akey = node_key("author", author_slug(name))
            if akey not in g:
                g.add_node(akey, kind="author", label=name)
            g.add_edge(pkey, akey, kind="creator", score=1.0)
    return g


def cooccurrence(g: nx.Graph, min_count: int = 1) -> Counter[tuple[str, str]]:
    """How many papers mention each pair of concepts (pairs as sorted node keys)."""
    counts: Counter[tuple[str, str]] = Counter()
    for node, data in g.nodes(data=True):
        if data.get("kind") != "paper":
            continue
        concepts = sorted(n for n in g[node] if g.nodes[n].get("kind") == "concept")
        counts.update(combinations(concepts, 2))
    if min_count > 1:
        counts = Counter({k: v for k, v in counts.items() if v >= min_count})
    return counts


def neighbourhood(
    g: nx.Graph,
    start: str,
    depth: int = 1,
    limit: int = 50,
    kinds: Iterable[str] | None = None,
) -> nx.Graph:
    """The nodes within `depth` hops of `start`, keeping the `limit` most relevant.

    Relevance: fewer hops first, then the strongest edge score on the way in, then
    degree; so a depth-2 view of a paper keeps its own concepts before distant papers.
    The ranking itself lives in `walk.Walker` (the server keeps one over the whole graph).
    """
    from paperkg.walk import Walker

    nodes, edges = Walker(g).neighbourhood(start, depth=depth, limit=limit, kinds=kinds)
    sub = nx.Graph()
    sub.add_nodes_from(nodes)
    sub.add_edges_from(edges)
    return sub


def save_graph(g: nx.Graph, path: Path) -> None:
    """Node-link JSON, gzipped: loads in about a second for the full corpus."""
    data = nx.node_link_data(g, edges="links")
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        json.dump(data, fh, separators=(",", ":"))


def load_graph(path: Path) -> nx.Graph:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return nx.node_link_graph(data, edges="links")


def write_graphml(g: nx.Graph, path: Path, with_cooccurrence: bool = True) -> None:
    """GraphML for Gephi: the bipartite graph plus weighted concept co-occurrence edges."""
    out = g.copy()
    if with_cooccurrence:
        for (a, b), count in cooccurrence(g, min_count=2).items():
            out.add_edge(a, b, kind="cooccurs", score=float(count), rank=0)
    nx.write_graphml(out, path)
