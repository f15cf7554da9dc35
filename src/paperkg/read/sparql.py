"""The SPARQL back end: every question as SPARQL over a `Store`.

Any store that answers `query(sparql) -> QueryResult` works: the embedded Oxigraph store
(the CLI opens it without loading the whole graph) or a SPARQL server. Each question
fetches only what it needs; rankings that are not plain SPARQL (search, related with
blend, neighbourhoods) are finished by the same code the memory back end uses.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import networkx as nx
import numpy as np

from paperkg.errors import UnknownNode
from paperkg.lexical import Lexicon, tokens
from paperkg.read.questions import (
    Attrs,
    ConceptInfo,
    ConceptLink,
    Hit,
    Neighbourhood,
    PaperInfo,
    Reader,
    SharedScores,
    topic_query,
)
from paperkg.read.sparqlwalk import complete_edges, local_graph, node_labels
from paperkg.read.textindex import TextIndex
from paperkg.read.walk import Walker
from paperkg.results import QueryResult, Term
from paperkg.sparqltext import with_prefixes
from paperkg.store import Store
from paperkg.vocab import (
    CONCEPT_TYPES,
    PLAIN_CONCEPT,
    concept_iri,
    iri_id,
    iri_of,
    paper_iri,
    type_name,
)

__all__ = ["SparqlReader"]

_TYPED = ", ".join(f"pkg:{t}" for t in CONCEPT_TYPES)
# How far each side looks for the "what connects two papers" view: paths of up to twice
# this many hops are found.
_CONNECT_DEPTH, _CONNECT_LIMIT = 2, 2000


def _lit(text: str) -> str:
    """A SPARQL string literal (JSON escaping is valid SPARQL escaping)."""
    return json.dumps(text)


def _v(term: Term | None) -> str:
    return "" if term is None else term.value


class SparqlReader(Reader):
    """Questions answered by SPARQL on `store`; `lexicon` loads the KG's term counts (for
    related papers' word similarity) on first use."""

    name = "sparql"

    def __init__(self, store: Store, where: str = "the KG",
                 lexicon: Callable[[], Lexicon | None] | None = None) -> None:
        self.store = store
        self.where = where
        self._load_lexicon = lexicon

    def _select(self, sparql: str) -> list[tuple[Term | None, ...]]:
        res: QueryResult = self.store.query(with_prefixes(sparql))
        return [tuple(row) for row in res.rows]

    def _ask(self, sparql: str) -> bool:
        return bool(self.store.query(with_prefixes(sparql)).boolean)

    # ------------------------------------------------------------ papers and concepts

    def counts(self) -> dict[str, int]:
        (row,) = self._select("""SELECT (COUNT(DISTINCT ?p) AS ?papers)
            (COUNT(DISTINCT ?c) AS ?concepts) WHERE {
            { ?p a pkg:Paper } UNION { ?c a skos:Concept ; pkg:paperCount ?n } }""")
        return {"papers": int(_v(row[0]) or 0), "concepts": int(_v(row[1]) or 0)}

    def _papers(self, ids: Sequence[str]) -> dict[str, PaperInfo]:
        if not ids:
            return {}
        values = " ".join(f"<{paper_iri(i)}>" for i in ids)
        authors: dict[str, list[str]] = {}
        for p, name in self._select(f"""SELECT ?p ?n WHERE {{ VALUES ?p {{ {values} }}
                ?p dcterms:creator ?a . ?a foaf:name ?n }}"""):
            authors.setdefault(iri_id(p), []).append(_v(name))
        out = {}
        for p, label, title, abstract, decision, url in self._select(f"""
                SELECT ?p ?label ?title ?abstract ?decision ?url WHERE {{
                  VALUES ?p {{ {values} }}
                  ?p a pkg:Paper ; rdfs:label ?label ; dcterms:abstract ?abstract .
                  OPTIONAL {{ ?p dcterms:title ?title }} OPTIONAL {{ ?p pkg:decision ?decision }}
                  OPTIONAL {{ ?p schema:url ?url }} }}"""):
            pid = iri_id(p)
            out[pid] = PaperInfo(pid, _v(label), _v(title), _v(abstract),
                                 type_name(_v(decision)) if decision else "", _v(url),
                                 tuple(sorted(authors.get(pid, ()))))
        return out

    def paper(self, paper_id: str) -> PaperInfo:
        found = self._papers([paper_id])
        if paper_id not in found:
            raise UnknownNode(
                f"no paper with id {paper_id!r} in {self.where}; list some with: paperkg "
                "query 'SELECT ?id ?label WHERE { ?p dcterms:identifier ?id ; rdfs:label "
                "?label } LIMIT 10'")
        return found[paper_id]

    def _concepts(self, where: str) -> list[ConceptInfo]:
        """Concepts matching a SPARQL pattern on ?c, with labels, counts and types."""
        alts: dict[str, list[str]] = {}
        types: dict[str, list[str]] = {}
        for c, alt in self._select(f"SELECT ?c ?alt WHERE {{ {where} ?c skos:altLabel ?alt }}"):
            alts.setdefault(_v(c), []).append(_v(alt))
        for c, t in self._select(f"SELECT ?c ?t WHERE {{ {where} ?c a ?t "
                                 "FILTER(?t != skos:Concept) }"):
            types.setdefault(_v(c), []).append(type_name(_v(t)))
        groups = {_v(c): (_v(t), _v(f)) for c, t, f in self._select(topic_query(where))}
        rows = self._select(f"""SELECT ?c ?label ?n ?w WHERE {{ {where}
            ?c a skos:Concept ; skos:prefLabel ?label ; pkg:paperCount ?n ; pkg:weight ?w }}""")
        return [ConceptInfo(iri_id(c), _v(label), tuple(sorted(alts.get(_v(c), ()))),
                            int(_v(n)), float(_v(w)), tuple(sorted(types.get(_v(c), ()))),
                            *groups.get(_v(c), ("", "")))
                for c, label, n, w in rows]

    def concept(self, concept_id: str) -> ConceptInfo:
        cid = concept_id.removeprefix("concept:")
        found = self._concepts(f"VALUES ?c {{ <{concept_iri(cid)}> }}") if cid else []
        if not found:
            raise UnknownNode(f"no concept with id {concept_id!r} in {self.where}; find one "
                              "with search")
        return found[0]

    def concepts_of(self, paper_id: str) -> list[ConceptLink]:
        self.paper(paper_id)
        p = f"<{paper_iri(paper_id)}>"
        rows = self._select(f"""
            SELECT ?c ?label ?score ?rank ?weight
                   (SAMPLE(?k) AS ?kind) (SAMPLE(?r) AS ?role) WHERE {{
              {p} pkg:hasMention ?m .
              ?m pkg:concept ?c ; pkg:score ?score ; pkg:rank ?rank .
              ?c skos:prefLabel ?label ; pkg:weight ?weight .
              OPTIONAL {{ ?c a ?t FILTER(?t IN ({_TYPED})) BIND(STRAFTER(STR(?t), "#") AS ?k) }}
              OPTIONAL {{ {p} pkg:proposes ?c BIND("proposes" AS ?r) }}
              OPTIONAL {{ {p} pkg:evaluatesOn ?c BIND("evaluatesOn" AS ?r) }}
            }} GROUP BY ?c ?label ?score ?rank ?weight ORDER BY ?rank""")
        return [ConceptLink(iri_id(c), _v(label), float(_v(score)), int(_v(rank)),
                            float(_v(weight)), _v(kind) or PLAIN_CONCEPT, _v(role) or "mentions")
                for c, label, score, rank, weight, kind, role in rows]

    def concept_papers(self, concept_id: str, limit: int = 50, offset: int = 0,
                       ) -> tuple[int, list[tuple[PaperInfo, float]]]:
        c = self.concept(concept_id)
        iri = f"<{concept_iri(c.id)}>"
        (total,) = self._select(f"SELECT (COUNT(?m) AS ?n) WHERE {{ ?m pkg:concept {iri} }}")
        rows = self._select(f"""SELECT ?p ?score WHERE {{ ?m pkg:concept {iri} ;
            pkg:score ?score . ?p pkg:hasMention ?m }}""")
        ranked = sorted(((iri_id(p), float(_v(s))) for p, s in rows), key=lambda x: (-x[1], x[0]))
        page = ranked[offset: offset + limit]
        info = self._papers([p for p, _ in page])
        return int(_v(total[0]) or 0), [(info[p], s) for p, s in page]

    def top_concepts(self, limit: int = 15) -> list[ConceptInfo]:
        top = self._select(f"""SELECT ?c WHERE {{ ?c a skos:Concept ; skos:prefLabel ?l ;
            pkg:paperCount ?n }} ORDER BY DESC(?n) ?l LIMIT {int(limit)}""")
        if not top:
            return []
        values = " ".join(f"<{_v(c)}>" for (c,) in top)
        found = {c.id: c for c in self._concepts(f"VALUES ?c {{ {values} }}")}
        return [found[iri_id(c)] for (c,) in top if iri_id(c) in found]

    # ------------------------------------------------------------ search and labels

    def search(self, query: str, limit: int = 20, offset: int = 0,
               kinds: Iterable[str] | None = None) -> tuple[int, list[Hit]]:
        """Fetch the documents holding a query word (a superset, by substring), index
        just those with the whole KG's size for IDF: the memory back end's ranking."""
        terms = list(dict.fromkeys(tokens(query)))
        if not terms:
            return 0, []
        # both kinds, whatever `kinds` asks for: a word's document frequency counts both
        match = " || ".join(f"CONTAINS(?text, {_lit(t)})" for t in terms)
        papers = [iri_id(p) for (p,) in self._select(f"""SELECT DISTINCT ?p WHERE {{
            ?p a pkg:Paper . {{ ?p rdfs:label ?t }} UNION {{ ?p dcterms:title ?t }}
            UNION {{ ?p dcterms:abstract ?t }} BIND(LCASE(STR(?t)) AS ?text)
            FILTER({match}) }}""")]
        concepts = self._concepts(f"""{{ SELECT DISTINCT ?c WHERE {{ ?c a skos:Concept .
            {{ ?c skos:prefLabel ?t }} UNION {{ ?c skos:altLabel ?t }}
            BIND(LCASE(STR(?t)) AS ?text) FILTER({match}) }} }}""")
        counts = self.counts()
        found = self._papers(papers)
        index = TextIndex(found.values(), concepts, counts["papers"] + counts["concepts"])
        return index.search(query, limit, offset, kinds)

    def labels(self, keys: Sequence[str]) -> dict[str, Attrs]:
        return dict(node_labels(self.store, list(keys)))

    # ------------------------------------------------------------ related papers

    def _related_scores(self, paper_id: str) -> SharedScores:
        p = f"<{paper_iri(paper_id)}>"
        rows = self._select(f"""
            SELECT ?other (SUM(?w * ?s1 * ?s2) AS ?score) WHERE {{
              {p} pkg:hasMention ?m1 . ?m1 pkg:concept ?c ; pkg:score ?s1 .
              ?m2 pkg:concept ?c ; pkg:score ?s2 . ?other pkg:hasMention ?m2 .
              ?c pkg:weight ?w .
              FILTER(?other != {p})
            }} GROUP BY ?other""")
        return SharedScores([iri_id(o) for o, _ in rows],
                            np.array([float(_v(s)) for _, s in rows], dtype=np.float64))

    def _concept_labels(self, paper_ids: Sequence[str]) -> dict[str, list[tuple[str, float]]]:
        if not paper_ids:
            return {}
        values = " ".join(f"<{paper_iri(p)}>" for p in paper_ids)
        out: dict[str, list[tuple[str, float]]] = {}
        for p, label, w in self._select(f"""SELECT ?p ?label ?w WHERE {{
                VALUES ?p {{ {values} }} ?p pkg:mentions ?c .
                ?c skos:prefLabel ?label ; pkg:weight ?w }}"""):
            out.setdefault(iri_id(p), []).append((_v(label), float(_v(w))))
        return out

    def _lexicon(self) -> Lexicon | None:
        return self._load_lexicon() if self._load_lexicon else None

    # ------------------------------------------------------------ nodes and walks

    def _exists(self, key: str) -> bool:
        try:
            iri = iri_of(key)
        except ValueError:
            return False
        return self._ask(f"ASK {{ {{ <{iri}> ?p ?o }} UNION {{ ?s ?p <{iri}> }} }}")

    def _concept_by_label(self, text: str) -> str | None:
        rows = self._select(f"""SELECT ?c WHERE {{
            {{ ?c skos:prefLabel ?l BIND(0 AS ?alt) }}
            UNION {{ ?c skos:altLabel ?l BIND(1 AS ?alt) }}
            FILTER(LCASE(STR(?l)) = {_lit(text.casefold())}) ?c pkg:paperCount ?n }}
            ORDER BY ?alt DESC(?n) ?c LIMIT 1""")
        return iri_id(rows[0][0]) if rows and rows[0][0] is not None else None

    def _walk(self, start: str, depth: int, limit: int,
              kinds: Iterable[str] | None) -> Neighbourhood:
        walked = local_graph(self.store, start, depth, limit if kinds is None else 10**9)
        nodes, edges = Walker(walked).neighbourhood(start, depth=depth, limit=limit,
                                                    kinds=kinds)
        kept = nx.Graph()
        kept.add_nodes_from(nodes)
        kept.add_edges_from(edges)
        complete_edges(self.store, kept)
        order = {n: i for i, (n, _) in enumerate(nodes)}
        edge_list: list[tuple[str, str, dict[str, Any]]] = [
            (a, b, d) if order[a] <= order[b] else (b, a, d) for a, b, d in kept.edges(data=True)]
        return Neighbourhood(start, nodes, edge_list)

    def _connection_graph(self, a: str, b: str) -> nx.Graph:
        """The union of both nodes' neighbourhoods of `_CONNECT_DEPTH` hops: every
        shortest path of up to twice that length lies inside it."""
        return nx.compose(local_graph(self.store, a, _CONNECT_DEPTH, _CONNECT_LIMIT),
                          local_graph(self.store, b, _CONNECT_DEPTH, _CONNECT_LIMIT))
