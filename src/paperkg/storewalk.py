"""Graph walks answered from the store, without loading the whole NetworkX graph.

Loading the full graph costs seconds (fine for a long-running server, not for one CLI
command), so a walk fetches only the hops it needs with SPARQL, builds that local graph
with the same node keys and attributes as `graph.build_nx`, and hands it to the one
ranking function, `graph.neighbourhood`.
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from paperkg.graph import node_key
from paperkg.store import Store
from paperkg.vocab import SPARQL_PREFIXES, author_iri, concept_iri, paper_iri, parse_iri

__all__ = ["iri_of", "local_graph"]

# One query per kind of frontier node and edge, VALUES first: Oxigraph joins these from
# the bound side; a UNION of them made it scan every mention for every frontier node.
_EDGE_QUERIES = {
    "paper": (
        "SELECT ?a ?b ?score ?rank WHERE {{ VALUES ?a {{ {values} }} ?a pkg:hasMention ?m . "
        "?m pkg:concept ?b ; pkg:score ?score ; pkg:rank ?rank }}",
        "SELECT ?a ?b WHERE {{ VALUES ?a {{ {values} }} ?a dcterms:creator ?b }}",
    ),
    "concept": (
        "SELECT ?a ?b ?score ?rank WHERE {{ VALUES ?a {{ {values} }} ?m pkg:concept ?a . "
        "?b pkg:hasMention ?m . ?m pkg:score ?score ; pkg:rank ?rank }}",
    ),
    "author": ("SELECT ?a ?b WHERE {{ VALUES ?a {{ {values} }} ?b dcterms:creator ?a }}",),
}

_LABELS = SPARQL_PREFIXES + """
SELECT ?n ?label WHERE {{
  VALUES ?n {{ {values} }}
  {{ ?n skos:prefLabel ?label }} UNION {{ ?n a pkg:Paper ; rdfs:label ?label }}
  UNION {{ ?n a foaf:Person ; foaf:name ?label }}
}}"""

_IRI = {"paper": paper_iri, "concept": concept_iri, "author": author_iri}


def iri_of(key: str) -> str:
    """The IRI of a node key ("paper:ID" → https://w3id.org/paperkg/paper/ID)."""
    kind, ident = key.split(":", 1)
    if kind not in _IRI:
        raise ValueError(f"unknown node kind {kind!r} in {key!r}")
    return str(_IRI[kind](ident))


def _key(iri: str) -> str | None:
    parsed = parse_iri(iri)
    return node_key(*parsed) if parsed else None


def _values(keys: Iterable[str]) -> str:
    return " ".join(f"<{iri_of(k)}>" for k in keys)


def local_graph(store: Store, start: str, depth: int, limit: int) -> nx.Graph:
    """Every node within `depth` hops of `start` (node key), with their edges.

    Stops expanding once the hops so far hold `limit` nodes: `neighbourhood` keeps nearer
    nodes first, so farther ones could never make the cut. (Degrees, the last tie-break,
    are those of this local graph.)
    """
    g = nx.Graph()
    g.add_node(start)
    seen = {start}
    frontier = [start]
    for _ in range(depth):
        if not frontier or len(seen) >= limit:
            break
        nxt: list[str] = []
        for a, b, attrs in _edges(store, frontier):
            g.add_edge(a, b, **attrs)
            if b not in seen:
                seen.add(b)
                nxt.append(b)
        frontier = nxt
    _label(store, g)
    return g


def _edges(
    store: Store, frontier: list[str]
) -> Iterable[tuple[str, str, dict[str, str | float | int]]]:
    by_kind: dict[str, list[str]] = {}
    for key in frontier:
        by_kind.setdefault(key.split(":", 1)[0], []).append(key)
    for kind, keys in by_kind.items():
        for i in range(0, len(keys), 200):
            values = _values(keys[i : i + 200])
            for template in _EDGE_QUERIES[kind]:
                res = store.query(SPARQL_PREFIXES + template.format(values=values))
                for row in res.rows:
                    a, b = row[0], row[1]
                    ka = _key(a.value) if a is not None else None
                    kb = _key(b.value) if b is not None else None
                    if ka is None or kb is None:
                        continue
                    if len(row) == 4 and row[2] is not None and row[3] is not None:
                        yield ka, kb, {"kind": "mentions", "score": float(row[2].value),
                                       "rank": int(row[3].value)}
                    else:
                        yield ka, kb, {"kind": "creator", "score": 1.0}


def _label(store: Store, g: nx.Graph) -> None:
    nodes = list(g.nodes)
    for node in nodes:
        g.nodes[node]["kind"] = node.split(":", 1)[0]
    for i in range(0, len(nodes), 500):
        res = store.query(_LABELS.format(values=_values(nodes[i : i + 500])))
        for n, label in res.rows:
            key = _key(n.value) if n is not None else None
            if key is not None and label is not None:
                g.nodes[key]["label"] = label.value
