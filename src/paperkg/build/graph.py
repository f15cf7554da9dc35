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

from collections.abc import Sequence
from typing import Any

import networkx as nx

from paperkg.build.canon import ConceptScheme
from paperkg.build.ingest import Paper
from paperkg.vocab import author_slug, node_key

__all__ = ["build_nx", "node_link"]


def build_nx(papers: Sequence[Paper], scheme: ConceptScheme) -> nx.Graph:
    """Bipartite paper–concept graph plus authors; attributes are plain JSON values."""
    return nx.node_link_graph(node_link(papers, scheme), edges="links")


def node_link(papers: Sequence[Paper], scheme: ConceptScheme) -> dict[str, Any]:
    """The graph as node-link data (what `kgdir.save_graph` writes), made directly:
    building an `nx.Graph` first took a second of every `paperkg add`. An edge added twice
    (an author listed twice) is one edge with the later attributes, as in NetworkX."""
    nodes: list[dict[str, Any]] = []
    links: dict[tuple[str, str], dict[str, Any]] = {}
    key = {cid: node_key("concept", cid) for cid in scheme.concepts}
    for concept in scheme.concepts.values():
        nodes.append({"kind": "concept", "label": concept.pref_label,
                      "paper_count": concept.paper_count, "weight": concept.weight,
                      "ctype": concept.kind, "id": key[concept.id]})
    for concept in scheme.concepts.values():
        if concept.broader:
            a, b = key[concept.id], key[concept.broader]
            links[min(a, b), max(a, b)] = {"kind": "broader", "score": 1.0, "broader": b,
                                           "source": a, "target": b}
    authors: set[str] = set()
    for paper in papers:
        pkey = node_key("paper", paper.id)
        nodes.append({"kind": "paper", "label": paper.name, "decision": paper.decision or "",
                      "id": pkey})
        for m in scheme.mentions.get(paper.id, []):
            c = key[m.concept_id]
            links[pkey, c] = {"kind": "mentions", "score": m.score, "rank": m.rank,
                              "role": m.role, "proposes": m.role == "proposes",
                              "source": pkey, "target": c}
        for name in paper.authors:
            akey = node_key("author", author_slug(name))
            if akey not in authors:
                authors.add(akey)
                nodes.append({"kind": "author", "label": name, "id": akey})
            links[pkey, akey] = {"kind": "creator", "score": 1.0, "source": pkey,
                                 "target": akey}
    return {"directed": False, "multigraph": False, "graph": {}, "nodes": nodes,
            "links": list(links.values())}
