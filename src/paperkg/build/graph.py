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

import networkx as nx

from paperkg.build.canon import ConceptScheme
from paperkg.build.ingest import Paper
from paperkg.vocab import author_slug, node_key

__all__ = ["build_nx"]


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
