"""Graph walks answered by SPARQL, without loading the whole NetworkX graph.

Loading the full graph costs seconds (fine for a long-running server, not for one CLI
command), so a walk fetches only the hops it needs, builds that local graph with the same
node keys and attributes as the KG's NetworkX graph, and hands it to the one ranking
function, `walk.Walker`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import networkx as nx

from paperkg.store import Store
from paperkg.vocab import (
    CONCEPT_TYPES,
    NODE_KINDS,
    PLAIN_CONCEPT,
    SPARQL_PREFIXES,
    iri_of,
    key_of,
    type_name,
)

__all__ = ["complete_edges", "local_graph", "node_labels"]

# One query per kind of frontier node and edge, VALUES first: Oxigraph joins these from
# the bound side; a UNION of them made it scan every mention for every frontier node.
_ROLE = (" OPTIONAL {{{{ {paper} pkg:proposes {concept} BIND(1 AS ?p) }}}}"
         " OPTIONAL {{{{ {paper} pkg:evaluatesOn {concept} BIND(1 AS ?e) }}}}")
_EDGE_QUERIES = {
    "paper": (
        ("mentions", "SELECT ?a ?b ?score ?rank ?p ?e WHERE {{ VALUES ?a {{ {values} }} "
         "?a pkg:hasMention ?m . ?m pkg:concept ?b ; pkg:score ?score ; pkg:rank ?rank ."
         + _ROLE.format(paper="?a", concept="?b") + " }}"),
        ("creator", "SELECT ?a ?b WHERE {{ VALUES ?a {{ {values} }} ?a dcterms:creator ?b }}"),
    ),
    "concept": (
        ("mentions", "SELECT ?a ?b ?score ?rank ?p ?e WHERE {{ VALUES ?a {{ {values} }} "
         "?m pkg:concept ?a . ?b pkg:hasMention ?m . ?m pkg:score ?score ; pkg:rank ?rank ."
         + _ROLE.format(paper="?b", concept="?a") + " }}"),
        ("broader", "SELECT ?a ?b ?up WHERE {{ VALUES ?a {{ {values} }} "
         "{{ ?a skos:broader ?b BIND(?b AS ?up) }} UNION {{ ?b skos:broader ?a BIND(?a AS ?up) }}"
         " }}"),
    ),
    "author": (
        ("creator", "SELECT ?a ?b WHERE {{ VALUES ?a {{ {values} }} ?b dcterms:creator ?a }}"),
    ),
}

# Labels as the NetworkX graph has them: a paper's title (else its rdfs:label), a
# concept's prefLabel, an author's name; and a paper's decision.
_LABELS = SPARQL_PREFIXES + """
SELECT ?n ?label ?title ?decision WHERE {{
  VALUES ?n {{ {values} }}
  {{ ?n skos:prefLabel ?label }}
  UNION {{ ?n a pkg:Paper ; rdfs:label ?label OPTIONAL {{ ?n dcterms:title ?title }}
          OPTIONAL {{ ?n pkg:decision ?decision }} }}
  UNION {{ ?n a foaf:Person ; foaf:name ?label }}
}}"""
# A separate query: an OPTIONAL type inside the UNION above made Oxigraph take ~1.8 s
# for 350 nodes of the full KG; both VALUES-bound, this takes milliseconds.
_TYPES = SPARQL_PREFIXES + """
SELECT ?n ?type WHERE {{
  VALUES ?n {{ {values} }} VALUES ?type {{ TYPES }}
  ?n a ?type
}}""".replace("TYPES", " ".join(f"pkg:{t}" for t in CONCEPT_TYPES))


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


def complete_edges(store: Store, g: nx.Graph) -> nx.Graph:
    """Add the store's edges between nodes of `g` that `g` lacks: a walk finds no edge
    between two nodes of its last hop (a paper and a concept it mentions, both one hop
    from that concept's broader concept), and the full graph has them. Call it on the
    kept nodes only: it costs one query round over them."""
    nodes = set(g.nodes)
    # every paper-concept and paper-author edge shows from its paper's side; concepts
    # need only their broader links (asking them for mentions would list every paper)
    papers = [n for n in nodes if n.startswith("paper:")]
    concepts = [n for n in nodes if n.startswith("concept:")]
    found = itertools.chain(_edges(store, papers), _edges(store, concepts, only="broader"))
    for a, b, attrs in found:
        if b in nodes and not g.has_edge(a, b):
            g.add_edge(a, b, **attrs)
    return g


def _edges(
    store: Store, frontier: list[str], only: str | None = None
) -> Iterable[tuple[str, str, dict[str, str | float | int]]]:
    by_kind: dict[str, list[str]] = {}
    for key in frontier:
        by_kind.setdefault(key.split(":", 1)[0], []).append(key)
    for kind, keys in by_kind.items():
        for i in range(0, len(keys), 200):
            values = _values(keys[i : i + 200])
            for edge_kind, template in _EDGE_QUERIES[kind]:
                if only is not None and edge_kind != only:
                    continue
                res = store.query(SPARQL_PREFIXES + template.format(values=values))
                names = res.variables
                for row in res.rows:
                    cell = dict(zip(names, row, strict=True))
                    a, b = cell["a"], cell["b"]
                    ka = key_of(a.value) if a is not None else None
                    kb = key_of(b.value) if b is not None else None
                    if ka is None or kb is None:
                        continue
                    if edge_kind == "broader":
                        up = cell["up"]
                        yield ka, kb, {"kind": "broader", "score": 1.0,
                                       "broader": (key_of(up.value) or "") if up else ""}
                        continue
                    if edge_kind != "mentions":
                        yield ka, kb, {"kind": edge_kind, "score": 1.0}
                        continue
                    role = "proposes" if cell.get("p") else (
                        "evaluatesOn" if cell.get("e") else "mentions")
                    score, rank = cell["score"], cell["rank"]
                    yield ka, kb, {"kind": "mentions", "role": role,
                                   "score": float(score.value) if score else 0.0,
                                   "rank": int(rank.value) if rank else 0,
                                   "proposes": role == "proposes"}


def _label(store: Store, g: nx.Graph) -> None:
    for node in g.nodes:
        g.nodes[node]["kind"] = node.split(":", 1)[0]
    for key, attrs in node_labels(store, list(g.nodes)).items():
        g.nodes[key].update(attrs)


def node_labels(store: Store, keys: list[str]) -> dict[str, dict[str, str]]:
    """kind, label (and decision, for papers; ctype, for concepts) of the keys the store
    knows, in batches of 500."""
    ours = [k for k in keys if k.partition(':')[0] in NODE_KINDS and k.partition(':')[2]]
    out: dict[str, dict[str, str]] = {}
    for i in range(0, len(ours), 500):
        values = _values(ours[i : i + 500])
        for n, label, title, decision in store.query(_LABELS.format(values=values)).rows:
            key = key_of(n.value) if n is not None else None
            if key is None or label is None:
                continue
            attrs = out.setdefault(key, {"kind": key.split(":", 1)[0]})
            attrs["label"] = title.value if title is not None else label.value
            if attrs["kind"] == "paper":
                attrs["decision"] = type_name(decision.value) if decision is not None else ""
    concepts = [k for k in out if k.startswith("concept:")]
    for key in concepts:
        out[key]["ctype"] = PLAIN_CONCEPT
    for i in range(0, len(concepts), 500):
        res = store.query(_TYPES.format(values=_values(concepts[i : i + 500])))
        for n, ctype in res.rows:
            key = key_of(n.value) if n is not None else None
            if key is not None and ctype is not None:
                out[key]["ctype"] = type_name(ctype.value)
    return out
