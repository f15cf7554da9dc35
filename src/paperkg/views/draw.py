"""Pictures of the graph: the subgraphs people look at, styled for vis-network by PyVis.

Three views, each a small NetworkX graph with the same node keys as `graph.build_nx`:
the neighbourhood of a node, what connects two papers (shared concepts and shortest
paths), and the graph of a SPARQL answer (CONSTRUCT triples or SELECT node pairs).
`vis_data` turns one into vis-network nodes, edges and options through PyVis (imported
only here, when a view is drawn); `viewpage.render_page` puts that into an HTML page
that loads nothing from another host. Labels are data, never markup: they are drawn on
the canvas and the page builds tooltips with `textContent`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from paperkg.errors import UsageError
from paperkg.read.walk import Connection
from paperkg.results import QueryResult, Term
from paperkg.vocab import CONCEPT_TYPES as TYPED
from paperkg.vocab import PKG, PLAIN_CONCEPT, RDF, RDFS, SKOS, encode_id, parse_iri

__all__ = [
    "EDGE_STYLES",
    "NODE_STYLES",
    "View",
    "connect_view",
    "neighbourhood_view",
    "sparql_view",
    "style_of",
    "vis_data",
]

CONCEPT_TYPES = (PLAIN_CONCEPT, *TYPED)


@dataclass(frozen=True, slots=True)
class Style:
    colour: str
    shape: str  # a vis-network shape whose label sits outside it (so it stays readable)
    glyph: str  # the same shape in the legend
    name: str


#: node type → style; concept nodes are typed by their `ctype` attribute
NODE_STYLES: dict[str, Style] = {
    "paper": Style("#4e79a7", "dot", "●", "paper"),
    "Concept": Style("#f28e2b", "square", "■", "concept"),
    "Method": Style("#e15759", "triangle", "▲", "method"),
    "Dataset": Style("#17becf", "hexagon", "⬢", "dataset"),
    "Task": Style("#59a14f", "star", "★", "task"),
    "Metric": Style("#b8860b", "triangleDown", "▼", "metric"),
    "author": Style("#b07aa1", "diamond", "◆", "author"),
    "other": Style("#9e9e9e", "dot", "●", "other resource"),
}
#: edge kind → (colour, dashed, legend text); any other kind is drawn like "other"
EDGE_STYLES: dict[str, tuple[str, bool, str]] = {
    "mentions": ("#9fb3c8", False, "mentions (width: score)"),
    "proposes": ("#e15759", False, "proposes"),
    "creator": ("#c9a6c2", True, "author of"),
    "broader": ("#59a14f", False, "narrower → broader concept"),
    "evaluatesOn": ("#17becf", False, "evaluates on"),
    "path": ("#d62728", False, "on a shortest path"),
    "other": ("#cccccc", False, "other link"),
}
PAGES = {"paper": "/papers/", "concept": "/concepts/"}
LABEL_CHARS = 36  # drawn labels are cut here; the tooltip has the whole label


@dataclass(slots=True)
class View:
    """A subgraph to draw, with what it shows in words."""

    graph: nx.Graph
    title: str
    subtitle: str = ""
    centers: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)


def style_of(data: Mapping[str, Any]) -> tuple[str, Style]:
    """(type name, style) of a node from its attributes; unknown kinds are 'other'."""
    kind = data.get("kind")
    if kind == "concept":
        ctype = data.get("ctype") or "Concept"
        ctype = ctype if ctype in NODE_STYLES else "Concept"
        return ctype.lower() if ctype != "Concept" else "concept", NODE_STYLES[ctype]
    if kind in ("paper", "author"):
        return str(kind), NODE_STYLES[str(kind)]
    return str(kind or "other"), NODE_STYLES["other"]


def _edge_kind(data: Mapping[str, Any]) -> str:
    kind = str(data.get("kind") or "other")
    if data.get("on_path"):
        return "path"
    if kind == "mentions" and (data.get("proposes") is True or data.get("role") == "proposes"):
        return "proposes"
    if kind == "mentions" and data.get("role") == "evaluatesOn":
        return "evaluatesOn"
    return kind if kind in EDGE_STYLES else "other"


# ------------------------------------------------------------------ the three views


def neighbourhood_view(sub: nx.Graph, center: str, depth: int, limit: int) -> View:
    """A neighbourhood already cut to size (`query.neighbours`, `Walker.neighbourhood`)."""
    label = sub.nodes[center].get("label", center) if center in sub else center
    cut = " (cut at the limit)" if sub.number_of_nodes() >= limit else ""
    return View(sub, str(label), f"within {depth} hop(s) of {center}{cut}", (center,))


def connect_view(conn: Connection) -> View:
    """What links two nodes (`Reader.connection`): shared neighbours and shortest paths
    (path edges in red)."""
    g = conn.graph
    la, lb = (g.nodes[k].get("label", k) for k in (conn.a, conn.b))
    hops = len(conn.paths[0]) - 1 if conn.paths else None
    subtitle = (f"{len(conn.shared)} shared neighbour(s); " + (
        f"{len(conn.paths)} shortest path(s) of {hops} hop(s)" if conn.paths
        else "no path between them"))
    return View(g, f"{la} ↔ {lb}", subtitle, (conn.a, conn.b))


_LABEL_PREDICATES = (str(SKOS.prefLabel), "http://purl.org/dc/terms/title", str(RDFS.label),
                     "http://xmlns.com/foaf/0.1/name")
_KIND_CLASSES = {str(PKG.Paper): "paper", str(SKOS.Concept): "concept",
                 "http://xmlns.com/foaf/0.1/Person": "author"}
_CTYPE_CLASSES = {str(PKG[t]): t for t in CONCEPT_TYPES[1:]}


def _node_of(term: Term) -> str:
    """Node key for one of our IRIs ("paper:ID"), else the IRI or `_:bnode` itself."""
    if term.kind == "iri":
        parsed = parse_iri(term.value)
        return f"{parsed[0]}:{parsed[1]}" if parsed else term.value
    return f"_:{term.value}"


def _local_name(iri: str) -> str:
    return iri.rstrip("/#").rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def sparql_view(result: QueryResult, max_nodes: int = 500) -> View:
    """The graph of a CONSTRUCT/DESCRIBE answer, or of a SELECT whose rows hold node
    pairs (the first two IRIs of each row; a number in the row is the edge's score).

    In a graph answer, label triples (skos:prefLabel, dcterms:title, rdfs:label,
    foaf:name) name their subject, `rdf:type` sets its kind, other literals go into its
    tooltip, and every IRI-to-IRI triple is an edge named after its predicate.
    """
    if result.kind == "ask":
        raise UsageError("an ASK query answers yes or no; a graph view needs CONSTRUCT, "
                         "DESCRIBE or a SELECT returning node pairs")
    g = nx.Graph()
    notes: list[str] = []

    def add(key: str, **attrs: Any) -> bool:
        if key not in g:
            if g.number_of_nodes() >= max_nodes:
                return False
            parsed = key.split(":", 1)[0]
            g.add_node(key, kind=parsed if parsed in ("paper", "concept", "author") else "other")
        g.nodes[key].update(attrs)
        return True

    if result.kind == "graph":
        for s, p, o in result.triples:
            skey = _node_of(s)
            if not add(skey):
                continue
            if o.kind == "literal":
                data = g.nodes[skey]
                if p.value in _LABEL_PREDICATES and "label" not in data:
                    data["label"] = o.value
                else:
                    data.setdefault("facts", []).append(f"{_local_name(p.value)}: {o.value}")
            elif p.value == str(RDF.type):
                if o.value in _KIND_CLASSES:
                    g.nodes[skey]["kind"] = _KIND_CLASSES[o.value]
                if o.value in _CTYPE_CLASSES:
                    g.nodes[skey].update(kind="concept", ctype=_CTYPE_CLASSES[o.value])
            elif add(_node_of(o)):
                kind = _local_name(p.value)
                # an nx.Graph forgets direction: a broader link says which end is broader
                extra = {"broader": _node_of(o)} if kind == "broader" else {}
                g.add_edge(skey, _node_of(o), kind=kind, score=1.0, **extra)
    else:
        for row in result.rows:
            ends = [t for t in row if t is not None and t.kind in ("iri", "bnode")]
            numbers = [v for t in row if t is not None and t.kind == "literal"
                       for v in [t.python()] if isinstance(v, int | float)]
            if len(ends) >= 2 and add(_node_of(ends[0])) and add(_node_of(ends[1])):
                score = float(numbers[0]) if numbers else 1.0
                g.add_edge(_node_of(ends[0]), _node_of(ends[1]), kind="related", score=score)
        if g.number_of_edges() == 0:
            raise UsageError("this SELECT returned no node pairs: a graph view needs rows "
                             "with two IRIs (e.g. SELECT ?paper ?concept WHERE { ?paper "
                             "pkg:mentions ?concept })")
    if g.number_of_nodes() >= max_nodes:
        notes.append(f"cut at {max_nodes} nodes")
    if result.truncated:
        notes.append("the answer was cut at the row cap")
    return View(g, "SPARQL result", "; ".join(notes) or "the graph of a query's answer",
                notes=notes)


def fill_labels(g: nx.Graph, lookup: Callable[[list[str]], Mapping[str, Mapping[str, Any]]],
                ) -> None:
    """Give nodes that have no label (or concept type) the attributes `lookup` knows."""
    missing = [n for n, d in g.nodes(data=True)
               if "label" not in d or (d.get("kind") == "concept" and "ctype" not in d)]
    found = lookup(missing) if missing else {}
    for node, attrs in found.items():
        data = g.nodes[node]
        for key, value in attrs.items():
            data.setdefault(key, value)


# ------------------------------------------------------------------ vis-network data


def _tip(key: str, data: Mapping[str, Any], type_name: str) -> list[str]:
    """Tooltip lines, as plain text (the page sets them with textContent)."""
    lines = [str(data.get("label", key))[:300], f"{type_name} · {key}"[:300]]
    if data.get("paper_count"):
        lines.append(f"{data['paper_count']} paper(s)")
    if data.get("decision"):
        lines.append(f"decision: {data['decision']}")
    lines += [str(f)[:160] for f in data.get("facts", [])[:6]]
    return lines


def _size(g: nx.Graph, node: str, data: Mapping[str, Any], centers: Iterable[str]) -> float:
    weight = data.get("paper_count") or g.degree(node) or 1
    return min(12 + 5 * math.sqrt(float(weight)), 48) + (10 if node in centers else 0)


def page_of(key: str, base: str | None) -> str | None:
    """The URL of a node's page on the service, if it has one and pages are linked."""
    kind, _, ident = key.partition(":")
    if base is None or kind not in PAGES:
        return None
    return base.rstrip("/") + PAGES[kind] + encode_id(ident)  # "..", "a/b": one segment


def vis_data(view: View, pages: str | None = None) -> dict[str, Any]:
    """vis-network nodes, edges and options for `view`, built with PyVis.

    `pages` is the base URL of the service ("" for the same host): nodes then carry the
    URL of their page; None leaves them unlinked (a file opened without a server).
    """
    from pyvis.network import Network  # heavy (it imports IPython): only when drawing

    g, centers = view.graph, set(view.centers)
    # directed: PyVis checks undirected edges for duplicates pairwise (quadratic); an
    # nx.Graph has none, and arrows are set per edge below
    net = Network(directed=True)
    for node, data in g.nodes(data=True):
        type_name, style = style_of(data)
        label = str(data.get("label", node))
        net.add_node(
            node, label=label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…",
            shape=style.shape, color=style.colour, size=_size(g, node, data, centers),
            kind=str(data.get("kind", "other")), type=type_name, page=page_of(node, pages),
            tip=_tip(node, data, type_name), borderWidth=3 if node in centers else 1,
        )
    for u, v, data in g.edges(data=True):
        kind = _edge_kind(data)
        colour, dashed, _ = EDGE_STYLES[kind]
        score = max(0.0, min(float(data.get("score") or 0.0), 1.0))
        width = 1 + 4 * score if kind in ("mentions", "proposes", "evaluatesOn",
                                          "related") else 1.5
        top = data.get("broader") if kind == "broader" else None
        if top == u:  # draw narrower → broader
            u, v = v, u
        net.add_edge(u, v, id=f"{u}|{v}", color=colour, dashes=dashed,
                     width=width + (2 if kind == "path" else 0),
                     arrows="to" if top in (u, v) else "",
                     tip=[f"{data.get('kind', 'link')}" + (
                         f" · score {float(data['score']):.3f}" if "score" in data else "")])
    net.options = _options(g.number_of_nodes())
    nodes, edges, _, _, _, options = net.get_network_data()
    return {"nodes": nodes, "edges": edges, "options": json.loads(options)}


def _options(n: int) -> dict[str, Any]:
    """Physics that settles fast and then stops (the page turns it off once stabilised).

    Big views get fewer layout iterations and no overlap avoidance (its pairwise pass
    costs the most): 300 nodes settle in well under 3 s in headless Chromium here.
    """
    big = n > 150
    return {
        "autoResize": True,
        "layout": {"improvedLayout": n <= 80, "randomSeed": 7},
        "nodes": {"font": {"size": 13, "face": "system-ui, sans-serif",
                           "strokeWidth": 3, "strokeColor": "#ffffff"}},
        "edges": {"smooth": False, "color": {"inherit": False}, "selectionWidth": 2},
        "interaction": {"hover": True, "tooltipDelay": 100, "hideEdgesOnDrag": big,
                        "multiselect": False},
        "physics": {
            "solver": "forceAtlas2Based",
            "forceAtlas2Based": {"gravitationalConstant": -60, "centralGravity": 0.01,
                                 "springLength": 90, "springConstant": 0.08, "damping": 0.6,
                                 "avoidOverlap": 0 if big else 0.4},
            "minVelocity": 2,
            "stabilization": {"enabled": True, "iterations": 100 if big else 250,
                              "updateInterval": 25, "fit": True},
        },
    }
