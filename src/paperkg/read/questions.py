"""The questions people ask of a built KG, as typed functions over its store and graph.

Everything paper/concept-shaped goes through SPARQL on the store (the source of truth, and
the same code will run against a remote endpoint); graph walks use the NetworkX graph.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import networkx as nx

from paperkg.errors import QueryError, UnknownNode, UsageError
from paperkg.read.kg import KnowledgeGraph
from paperkg.read.sparql import complete_edges, iri_of, local_graph
from paperkg.read.walk import neighbourhood
from paperkg.sparqltext import explain_query_error, with_prefixes
from paperkg.store import QueryResult
from paperkg.vocab import NODE_KINDS, node_key, paper_iri, parse_iri

__all__ = [
    "ConceptLink",
    "RelatedPaper",
    "UnknownNode",
    "concepts_of",
    "neighbours",
    "related",
    "resolve_node",
    "run_sparql",
    "top_concepts",
]



@dataclass(frozen=True, slots=True)
class ConceptLink:
    concept_id: str
    label: str
    score: float
    rank: int
    weight: float
    kind: str = "Concept"
    role: str = "mentions"


@dataclass(frozen=True, slots=True)
class RelatedPaper:
    paper_id: str
    label: str
    score: float
    shared: tuple[tuple[str, float], ...]  # (concept label, weight), heaviest first


def run_sparql(kg: KnowledgeGraph, sparql: str) -> QueryResult:
    """Run a person's query; a syntax error points at their text, in one readable line."""
    full = with_prefixes(sparql)
    try:
        return kg.store.query(full)
    except QueryError as err:
        shift = full.count("\n") - sparql.count("\n")
        raise QueryError(explain_query_error(str(err), shift)) from err


def _paper_exists(kg: KnowledgeGraph, paper_id: str) -> None:
    res = kg.store.query(with_prefixes(f"ASK {{ <{paper_iri(paper_id)}> a pkg:Paper }}"))
    if not res.boolean:
        raise UnknownNode(
            f"no paper with id {paper_id!r} in {kg.path}; list some with: paperkg query "
            f"--kg {kg.path} 'SELECT ?id ?label WHERE {{ ?p dcterms:identifier ?id ; "
            f"rdfs:label ?label }} LIMIT 10'"
        )


def concepts_of(kg: KnowledgeGraph, paper_id: str) -> list[ConceptLink]:
    """A paper's concepts, best first, with the extraction score of each link."""
    _paper_exists(kg, paper_id)
    p = f"<{paper_iri(paper_id)}>"
    res = run_sparql(kg, f"""
        SELECT ?c ?label ?score ?rank ?weight
               (SAMPLE(?k) AS ?kind) (SAMPLE(?r) AS ?role) WHERE {{
          {p} pkg:hasMention ?m .
          ?m pkg:concept ?c ; pkg:score ?score ; pkg:rank ?rank .
          ?c skos:prefLabel ?label ; pkg:weight ?weight .
          OPTIONAL {{ ?c a ?t FILTER(?t IN (pkg:Method, pkg:Dataset, pkg:Task, pkg:Metric))
                      BIND(STRAFTER(STR(?t), "#") AS ?k) }}
          OPTIONAL {{ {p} pkg:proposes ?c BIND("proposes" AS ?r) }}
          OPTIONAL {{ {p} pkg:evaluatesOn ?c BIND("evaluatesOn" AS ?r) }}
        }} GROUP BY ?c ?label ?score ?rank ?weight ORDER BY ?rank""")
    return [
        ConceptLink(_tail(c), label.value, float(score.value), int(rank.value),
                    float(weight.value), kind.value if kind else "Concept",
                    role.value if role else "mentions")
        for c, label, score, rank, weight, kind, role in _rows(res)
    ]


def related(kg: KnowledgeGraph, paper_id: str, limit: int = 10) -> list[RelatedPaper]:
    """Papers sharing the most concepts: each shared concept counts its rarity weight times
    its score in both papers (the same ranking as `search.CorpusIndex.related`)."""
    _paper_exists(kg, paper_id)
    res = run_sparql(kg, f"""
        SELECT ?other ?label (SUM(?w * ?s1 * ?s2) AS ?score)
               (GROUP_CONCAT(CONCAT(STR(?w), "\\t", ?clabel); separator="\\n") AS ?shared)
        WHERE {{
          <{paper_iri(paper_id)}> pkg:hasMention ?m1 . ?m1 pkg:concept ?c ; pkg:score ?s1 .
          ?m2 pkg:concept ?c ; pkg:score ?s2 . ?other pkg:hasMention ?m2 .
          FILTER(?other != <{paper_iri(paper_id)}> && ?s1 * ?s2 > 0)
          ?c pkg:weight ?w ; skos:prefLabel ?clabel .
          ?other rdfs:label ?label .
        }}
        GROUP BY ?other ?label
        ORDER BY DESC(?score) ?other
        LIMIT {int(limit)}""")
    out = []
    for other, label, score, shared in _rows(res):
        pairs = [line.split("\t", 1) for line in shared.value.split("\n") if line]
        ranked = sorted(((lab, float(w)) for w, lab in pairs), key=lambda x: (-x[1], x[0]))
        out.append(RelatedPaper(_tail(other), label.value, round(float(score.value), 4),
                                tuple(ranked)))
    return out


def top_concepts(kg: KnowledgeGraph, limit: int = 15) -> list[tuple[str, str, int]]:
    """(concept id, label, paper count) of the concepts most papers mention."""
    res = run_sparql(kg, f"""
        SELECT ?c ?label ?n WHERE {{ ?c a skos:Concept ; skos:prefLabel ?label ;
                                       pkg:paperCount ?n . }}
        ORDER BY DESC(?n) ?label LIMIT {int(limit)}""")
    return [(_tail(c), label.value, int(n.value)) for c, label, n in _rows(res)]


def resolve_node(kg: KnowledgeGraph, text: str) -> str:
    """A graph node key from what a person types: 'paper:ID', 'concept:slug', 'author:slug',
    a bare paper id, a concept slug or label (preferred or alternative), or a full IRI."""
    text = text.strip()
    parsed = parse_iri(text)
    if parsed:
        keys = [node_key(*parsed)]
    elif text.split(":", 1)[0] in NODE_KINDS:
        keys = [text]
    else:
        keys = [node_key(kind, text) for kind in NODE_KINDS] + [node_key("concept", _slug(text))]
    for key in keys:
        try:
            iri = iri_of(key)
        except ValueError:
            continue
        if kg.store.query(f"ASK {{ {{ <{iri}> ?p ?o }} UNION {{ ?s ?p <{iri}> }} }}").boolean:
            return key
    literal = json.dumps(text.casefold())
    # a preferred label before an alternative one; then the concept more papers mention
    res = run_sparql(kg, f"""SELECT ?c WHERE {{
        {{ ?c skos:prefLabel ?l BIND(0 AS ?alt) }} UNION {{ ?c skos:altLabel ?l BIND(1 AS ?alt) }}
        FILTER(LCASE(STR(?l)) = {literal}) ?c pkg:paperCount ?n }}
        ORDER BY ?alt DESC(?n) ?c LIMIT 1""")
    if res.rows and res.rows[0][0] is not None:
        return node_key("concept", _tail(res.rows[0][0]))
    raise UnknownNode(
        f"nothing in {kg.path} is called {text!r}; use a paper id, 'concept:<slug>', "
        f"'author:<slug>' or a concept label"
    )


def neighbours(
    kg: KnowledgeGraph, node: str, depth: int = 1, limit: int = 50,
    kinds: Iterable[str] | None = None,
) -> nx.Graph:
    """The `limit` most relevant nodes within `depth` hops (see `graph.neighbourhood`).

    A process that has the whole graph loaded (a server) walks it in memory; otherwise
    only the hops needed are fetched from the store.
    """
    if not 1 <= depth <= 3:
        raise UsageError(f"depth must be 1, 2 or 3 (got {depth})")
    start = resolve_node(kg, node)
    loaded = kg.__dict__.get("graph")
    if loaded is not None:
        return neighbourhood(loaded, start, depth=depth, limit=limit, kinds=kinds)
    walked = local_graph(kg.store, start, depth, limit if kinds is None else 10**9)
    kept = neighbourhood(walked, start, depth=depth, limit=limit, kinds=kinds)
    return complete_edges(kg.store, kept)


def _slug(text: str) -> str:
    from paperkg.build.canon import concept_key, slugify

    return slugify(concept_key(text))


def _tail(term: object) -> str:
    """The id in one of our IRIs (percent-decoded), else the IRI's last segment."""
    value = str(getattr(term, "value", term))
    parsed = parse_iri(value)
    return parsed[1] if parsed else value.rstrip("/").rsplit("/", 1)[-1]


def _rows(res: QueryResult) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in res.rows]
