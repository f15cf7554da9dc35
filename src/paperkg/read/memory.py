"""The memory back end: every question answered from indexes read once from the store.

A server asks hundreds of questions a second; one SPARQL query each would cost tens of
milliseconds, so the store (still the source of truth) is read once at startup — papers,
concepts, mentions — into plain dicts and arrays, plus a text index, the NetworkX graph
and the term counts. Each question then takes well under a millisecond.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from paperkg.errors import UnknownNode
from paperkg.lexical import Lexicon
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
from paperkg.read.textindex import TextIndex
from paperkg.read.walk import Walker
from paperkg.sparqltext import with_prefixes
from paperkg.store import OxigraphStore, Store
from paperkg.vocab import CONCEPT_TYPES, PLAIN_CONCEPT, iri_id, type_name

__all__ = ["CorpusData", "MemoryReader"]


@dataclass(slots=True)
class CorpusData:
    """Papers, concepts and the scored links between them, as read from a store."""

    papers: dict[str, PaperInfo] = field(default_factory=dict)
    concepts: dict[str, ConceptInfo] = field(default_factory=dict)
    #: paper id → [(concept id, score, rank)], best rank first
    mentions: dict[str, list[tuple[str, float, int]]] = field(default_factory=dict)
    #: concept id → [(paper id, score)], highest score first
    concept_papers: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    #: (paper id, concept id) → "proposes" or "evaluatesOn"
    roles: dict[tuple[str, str], str] = field(default_factory=dict)

    @classmethod
    def from_store(cls, store: Store) -> CorpusData:
        data = cls()
        data._load(store)
        return data

    def _load(self, store: Store) -> None:
        got = _read_side_by_side(store)
        authors: dict[str, list[str]] = defaultdict(list)
        for p, _, name in _joined(got["creator"], got["name"]):
            authors[p].append(name)
        for p, label, title, abstract, decision, url in got["papers"]:
            pid = iri_id(p)
            self.papers[pid] = PaperInfo(pid, label, title, abstract, type_name(decision)
                                         if decision else "", url,
                                         tuple(sorted(authors.get(p, ()))))
        alts: dict[str, list[str]] = defaultdict(list)
        for c, alt in got["alts"]:
            alts[c].append(alt)
        types: dict[str, list[str]] = defaultdict(list)
        for c, t in got["types"]:
            types[c].append(type_name(t))
        groups = {c: (t, f) for c, t, f in got["topics"]}
        for c, label, n, w in _joined(got["concept"], got["label"], got["count"],
                                      got["weight"]):
            cid = iri_id(c)
            self.concepts[cid] = ConceptInfo(cid, label, tuple(sorted(alts.get(c, ()))),
                                             int(n), float(w), tuple(sorted(types.get(c, ()))),
                                             *groups.get(c, ("", "")))
        for p, _, c, score, rank in _joined(got["mention"], got["mentioned"], got["score"],
                                            got["rank"]):
            pid, cid = iri_id(p), iri_id(c)
            self.mentions.setdefault(pid, []).append((cid, float(score), int(rank)))
            self.concept_papers.setdefault(cid, []).append((pid, float(score)))
        for p, c, role in got["roles"]:
            self.roles.setdefault((iri_id(p), iri_id(c)), role)
        for links in self.mentions.values():
            links.sort(key=lambda x: x[2])
        for papers in self.concept_papers.values():
            papers.sort(key=lambda x: (-x[1], x[0]))


# What the memory back end reads. Mentions, concepts and authors are read as one-pattern
# scans joined in Python (`_joined`), which Oxigraph took longer to join itself (the 115k
# mentions, measured side by side on a busy machine: 6.0 s as one query, 4.2 s as four).
_QUERIES: dict[str, str] = {
    "creator": "SELECT ?p ?a WHERE { ?p dcterms:creator ?a }",
    "name": "SELECT ?a ?n WHERE { ?a foaf:name ?n }",
    "papers": """SELECT ?p ?label ?title ?abstract ?decision ?url WHERE {
        ?p a pkg:Paper ; rdfs:label ?label ; dcterms:abstract ?abstract .
        OPTIONAL { ?p dcterms:title ?title } OPTIONAL { ?p pkg:decision ?decision }
        OPTIONAL { ?p schema:url ?url } }""",
    "alts": "SELECT ?c ?alt WHERE { ?c a skos:Concept ; skos:altLabel ?alt }",
    "types": "SELECT ?c ?t WHERE { ?c a skos:Concept , ?t . FILTER(?t != skos:Concept) }",
    "topics": topic_query(),
    "concept": "SELECT ?c WHERE { ?c a skos:Concept }",
    "label": "SELECT ?c ?l WHERE { ?c skos:prefLabel ?l }",
    "count": "SELECT ?c ?n WHERE { ?c pkg:paperCount ?n }",
    "weight": "SELECT ?c ?w WHERE { ?c pkg:weight ?w }",
    "mention": "SELECT ?p ?m WHERE { ?p pkg:hasMention ?m }",
    "mentioned": "SELECT ?m ?c WHERE { ?m pkg:concept ?c }",
    "score": "SELECT ?m ?s WHERE { ?m pkg:score ?s }",
    "rank": "SELECT ?m ?r WHERE { ?m pkg:rank ?r }",
    "roles": """SELECT ?p ?c ?role WHERE { { ?p pkg:proposes ?c BIND("proposes" AS ?role) }
        UNION { ?p pkg:evaluatesOn ?c BIND("evaluatesOn" AS ?role) } }""",
}
#: scans of the embedded store run side by side: pyoxigraph lets go of the GIL while it
#: scans and writes CSV (the four mention scans: 3.8 s one after another, 2.2 s in four
#: threads on two cores). A SPARQL server's are read one by one: one client, one
#: authentication state.
_READERS = 4


def _read_side_by_side(store: Store) -> dict[str, list[tuple[str, ...]]]:
    readers = _READERS if isinstance(store, OxigraphStore) else 1
    with ThreadPoolExecutor(readers, thread_name_prefix="paperkg-read") as pool:
        answers = pool.map(lambda q: list(store.values(with_prefixes(q))), _QUERIES.values())
        return dict(zip(_QUERIES, answers, strict=True))


def _joined(lead: Iterable[tuple[str, ...]],
            *attributes: Iterable[tuple[str, ...]]) -> Iterator[tuple[str, ...]]:
    """Each row of `lead`, followed by the value of each attribute (rows of (subject,
    value)) for the row's last column; a row lacking one is left out, as in a join. An
    attribute has one value per subject (the ontology's shapes say so)."""
    columns: list[dict[str, str]] = [{s: v for s, v in a} for a in attributes]
    for row in lead:
        key = row[-1]
        if all(key in column for column in columns):
            yield (*row, *(column[key] for column in columns))


class MemoryReader(Reader):
    """Questions answered from `CorpusData`, a `TextIndex`, the NetworkX graph (walks and
    connections) and the KG's term counts (related papers' word similarity)."""

    name = "memory"

    def __init__(self, data: CorpusData, graph: nx.Graph, lexicon: Lexicon | None = None,
                 where: str = "the KG") -> None:
        self.data = data
        self.where = where
        self.walker = Walker(graph)
        self.text = TextIndex(data.papers.values(), data.concepts.values())
        self._ids = np.array(list(data.papers), dtype=object)
        self._pos = {p: i for i, p in enumerate(self._ids)}
        self._rows = {c: np.array([self._pos[p] for p, _ in links if p in self._pos],
                                  dtype=np.int32)
                      for c, links in data.concept_papers.items()}
        #: each concept's papers' scores times its weight (the factor "there" of a score)
        self._scores = {c: data.concepts[c].weight * np.array(
            [s for p, s in links if p in self._pos], dtype=np.float64)
            for c, links in data.concept_papers.items()}
        self._by_label: dict[str, tuple[int, int, str]] = {}
        for c in data.concepts.values():
            for alt, label in [(0, c.label)] + [(1, a) for a in c.alt_labels]:
                rank = (alt, -c.paper_count, c.id)
                key = label.casefold()
                if key not in self._by_label or rank < self._by_label[key]:
                    self._by_label[key] = rank
        self.lexicon = lexicon
        #: each paper's row in the lexicon, and each paper's (label, weight) per concept:
        #: related papers look these up for ~1,000 candidates per question
        self._lexicon_rows = lexicon.rows(self._ids) if lexicon is not None else None
        self._labels = {p: [(data.concepts[c].label, data.concepts[c].weight)
                            for c, _, _ in links] for p, links in data.mentions.items()}

    def counts(self) -> dict[str, int]:
        return {"papers": len(self.data.papers), "concepts": len(self.data.concepts)}

    def paper(self, paper_id: str) -> PaperInfo:
        try:
            return self.data.papers[paper_id]
        except KeyError:
            raise UnknownNode(f"no paper with id {paper_id!r} in {self.where}; find one "
                              "with search") from None

    def concept(self, concept_id: str) -> ConceptInfo:
        try:
            return self.data.concepts[concept_id.removeprefix("concept:")]
        except KeyError:
            raise UnknownNode(f"no concept with id {concept_id!r} in {self.where}; find "
                              "one with search") from None

    def concepts_of(self, paper_id: str) -> list[ConceptLink]:
        self.paper(paper_id)
        out = []
        for cid, score, rank in self.data.mentions.get(paper_id, ()):
            c = self.data.concepts[cid]
            kind = next((t for t in CONCEPT_TYPES if t in c.types), PLAIN_CONCEPT)
            out.append(ConceptLink(cid, c.label, score, rank, c.weight, kind,
                                   self.data.roles.get((paper_id, cid), "mentions")))
        return out

    def concept_papers(self, concept_id: str, limit: int = 50, offset: int = 0,
                       ) -> tuple[int, list[tuple[PaperInfo, float]]]:
        c = self.concept(concept_id)
        links = self.data.concept_papers.get(c.id, [])
        return len(links), [(self.data.papers[p], s) for p, s in links[offset: offset + limit]]

    def top_concepts(self, limit: int = 15) -> list[ConceptInfo]:
        return sorted(self.data.concepts.values(),
                      key=lambda c: (-c.paper_count, c.label))[:limit]

    def search(self, query: str, limit: int = 20, offset: int = 0,
               kinds: Iterable[str] | None = None) -> tuple[int, list[Hit]]:
        return self.text.search(query, limit, offset, kinds)

    def labels(self, keys: Sequence[str]) -> dict[str, Attrs]:
        g = self.walker.g
        out: dict[str, Attrs] = {}
        for key in keys:
            if key not in g:
                continue
            attrs = dict(g.nodes[key])
            kind, _, ident = key.partition(":")
            concept = self.data.concepts.get(ident) if kind == "concept" else None
            if concept is not None:
                attrs["ctype"] = next((t for t in CONCEPT_TYPES if t in concept.types),
                                      PLAIN_CONCEPT)
            out[key] = attrs
        return out

    def _related_scores(self, paper_id: str) -> SharedScores:
        """One weighted bincount over the shared concepts' paper lists: ~0.1 ms."""
        mine = [(c, s) for c, s, _ in self.data.mentions.get(paper_id, ()) if c in self._rows]
        if not mine:
            return SharedScores([], np.zeros(0), np.zeros(0, dtype=np.intp))
        rows = np.concatenate([self._rows[c] for c, _ in mine])
        weights = np.concatenate([self._scores[c] * s for c, s in mine])
        scores = np.bincount(rows, weights=weights, minlength=len(self._ids))
        scores[self._pos[paper_id]] = 0.0
        found = np.flatnonzero(scores > 0)
        return SharedScores(self._ids[found], scores[found].astype(np.float64),
                            None if self._lexicon_rows is None else self._lexicon_rows[found])

    def _concept_labels(self, paper_ids: Sequence[str]) -> dict[str, list[tuple[str, float]]]:
        return {p: self._labels.get(p, []) for p in paper_ids}

    def _lexicon(self) -> Lexicon | None:
        return self.lexicon

    def _exists(self, key: str) -> bool:
        return key in self.walker.g

    def _concept_by_label(self, text: str) -> str | None:
        found = self._by_label.get(text.casefold())
        return found[2] if found else None

    def _walk(self, start: str, depth: int, limit: int,
              kinds: Iterable[str] | None) -> Neighbourhood:
        nodes, edges = self.walker.neighbourhood(start, depth=depth, limit=limit, kinds=kinds)
        return Neighbourhood(start, nodes, edges)

    def _connection_graph(self, a: str, b: str) -> nx.Graph:
        return self.walker.g
