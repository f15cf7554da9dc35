"""The questions people ask of a KG, declared once: `Reader`, and the values it returns.

Each back end subclasses `Reader` and answers the abstract questions its own way
(`sparql.SparqlReader` through SPARQL on any store, `memory.MemoryReader` from in-memory
indexes); what is the same for every back end — checking arguments, turning what a
person types into a node, the order of related papers — is written here, once. The CLI,
the server and the views call only these methods.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import networkx as nx
import numpy as np
from numpy.typing import NDArray

from paperkg.errors import UnknownNode, UsageError
from paperkg.lexical import Lexicon
from paperkg.read.walk import Connection, connection
from paperkg.settings import RELATED_BLEND
from paperkg.vocab import NODE_KINDS, key_of, node_key, slugify

__all__ = [
    "ConceptInfo",
    "Connection",
    "ConceptLink",
    "Hit",
    "HitKind",
    "Neighbourhood",
    "PaperInfo",
    "Reader",
    "DEFAULT_BLEND",
    "RelatedPaper",
    "SharedScores",
    "rank_related",
    "topic_query",
]

HitKind = Literal["paper", "concept"]
DEFAULT_BLEND = RELATED_BLEND
Attrs = dict[str, Any]
#: paper ids: a list, or a numpy array of str objects (the memory back end's, no copy)
Ids = Sequence[str] | NDArray[np.object_]
Edge = tuple[str, str, Attrs]


@dataclass(frozen=True, slots=True)
class PaperInfo:
    id: str
    label: str
    title: str = ""
    abstract: str = ""
    decision: str = ""
    url: str = ""
    authors: tuple[str, ...] = ()  # sorted by name


@dataclass(frozen=True, slots=True)
class ConceptInfo:
    id: str
    label: str
    alt_labels: tuple[str, ...] = ()
    paper_count: int = 0
    weight: float = 0.0
    types: tuple[str, ...] = ()  # ontology classes beyond skos:Concept (Method, Dataset…)
    topic: str = ""  # the label of its topic, "" if it is in none
    field: str = ""  # the label of its topic's field (OpenAlex's level above a topic)


def topic_query(where: str = "") -> str:
    """SPARQL for (?c, topic label, field label) of the concepts matching `where`: the
    one pattern both back ends read topics and fields with."""
    return (f"SELECT ?c ?topic ?field WHERE {{ {where} ?c pkg:topic ?t . ?t rdfs:label ?topic"
            " OPTIONAL { ?t pkg:field ?f . ?f rdfs:label ?field } }")


@dataclass(frozen=True, slots=True)
class ConceptLink:
    """One of a paper's concepts: how sure the extractor was, its rank, what it is."""

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


@dataclass(frozen=True, slots=True)
class SharedScores:
    """The papers sharing a concept with one paper and their concept scores. `rows`, when
    a back end knows them, are the papers' rows in the KG's `Lexicon` (-1: not in it),
    which spares the word blend a lookup per paper."""

    ids: Ids
    scores: NDArray[np.float64]
    rows: NDArray[np.intp] | None = None


@dataclass(frozen=True, slots=True)
class Hit:
    kind: HitKind
    id: str
    label: str
    score: float
    snippet: str = ""


@dataclass(slots=True)
class Neighbourhood:
    """Nodes (most relevant first, with their attributes) and the edges among them."""

    center: str
    nodes: list[tuple[str, Attrs]] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)

    def graph(self) -> nx.Graph:
        g = nx.Graph()
        g.add_nodes_from(self.nodes)
        g.add_edges_from(self.edges)
        return g


class Reader(ABC):
    """Every question a person asks of a KG. `name` says which back end answers."""

    name: str = "reader"
    where: str = "the KG"  # how messages name the KG ("kg/", "the KG", a URL)

    # ------------------------------------------------------------ one per back end

    @abstractmethod
    def counts(self) -> dict[str, int]:
        """Papers and concepts in the KG."""

    @abstractmethod
    def paper(self, paper_id: str) -> PaperInfo:
        """One paper; UnknownNode if there is none with this id."""

    @abstractmethod
    def concept(self, concept_id: str) -> ConceptInfo:
        """One concept by slug ("concept:" prefix allowed); UnknownNode if none."""

    @abstractmethod
    def concepts_of(self, paper_id: str) -> list[ConceptLink]:
        """A paper's concepts, best rank first."""

    @abstractmethod
    def concept_papers(self, concept_id: str, limit: int = 50, offset: int = 0,
                       ) -> tuple[int, list[tuple[PaperInfo, float]]]:
        """(how many papers mention the concept, one page of them, best score first)."""

    @abstractmethod
    def top_concepts(self, limit: int = 15) -> list[ConceptInfo]:
        """The concepts most papers mention (ties by label)."""

    @abstractmethod
    def search(self, query: str, limit: int = 20, offset: int = 0,
               kinds: Iterable[str] | None = None) -> tuple[int, list[Hit]]:
        """(total hits, one page), ranked by `textindex.TextIndex`."""

    @abstractmethod
    def labels(self, keys: Sequence[str]) -> dict[str, Attrs]:
        """Node attributes (kind, label, ctype for typed concepts) of the keys it knows."""

    @abstractmethod
    def _related_scores(self, paper_id: str) -> SharedScores:
        """The papers sharing a concept with `paper_id`, each scored by the sum over the
        shared concepts of weight × score here × score there; the paper itself left out."""

    @abstractmethod
    def _concept_labels(self, paper_ids: Sequence[str]) -> dict[str, list[tuple[str, float]]]:
        """(label, weight) of each paper's concepts."""

    @abstractmethod
    def _lexicon(self) -> Lexicon | None:
        """The KG's term counts (`paperkg.lexical`), or None for a KG built without them."""

    @abstractmethod
    def _exists(self, key: str) -> bool:
        """Whether a node key ("paper:ID", "concept:slug", "author:slug") is in the KG."""

    @abstractmethod
    def _concept_by_label(self, text: str) -> str | None:
        """The concept whose label is `text` (any case): a preferred label before an
        alternative one, then the concept more papers mention, then the smaller id."""

    @abstractmethod
    def _walk(self, start: str, depth: int, limit: int,
              kinds: Iterable[str] | None) -> Neighbourhood:
        """`walk.Walker`'s ranking of the nodes around `start` (a key known to exist)."""

    @abstractmethod
    def _connection_graph(self, a: str, b: str) -> nx.Graph:
        """A graph holding every shortest path between a and b (see `connection`)."""

    # ------------------------------------------------------------ the same for all

    def resolve(self, text: str) -> str:
        """A node key from what a person types: 'paper:ID', 'concept:slug',
        'author:slug', a bare paper id, a concept slug or label (preferred or
        alternative), or a full IRI."""
        text = text.strip()
        parsed = key_of(text)
        if parsed:
            keys = [parsed]
        elif text.split(":", 1)[0] in NODE_KINDS:
            keys = [text]
        else:
            keys = [node_key(kind, text) for kind in NODE_KINDS]
            keys.append(node_key("concept", slugify(text)))
        for key in dict.fromkeys(keys):
            if key.partition(":")[2] and self._exists(key):
                return key
        concept = self._concept_by_label(text)
        if concept is not None:
            return node_key("concept", concept)
        raise UnknownNode(f"nothing in {self.where} is called {text!r}; use a paper id, "
                          "'concept:<slug>', 'author:<slug>' or a concept label")

    def related(self, paper_id: str, limit: int = 10, blend: float = DEFAULT_BLEND,
                ) -> list[RelatedPaper]:
        """Papers related to `paper_id`, best first, each listing the concepts it shares.

        The score mixes the concepts both papers mention (each counts its rarity weight
        times its score in both papers) with the similarity of their words and word pairs
        (TF-IDF cosine of title and abstract), `blend` being the weight of the words.
        Only papers that share a concept are kept: the concepts both mention, or else
        those of either paper whose every word and word pair the other's title or
        abstract holds.
        """
        if not 0.0 <= blend <= 1.0:
            raise UsageError(f"blend must be between 0 and 1, got {blend}")
        self.paper(paper_id)
        if limit <= 0:
            return []
        found = self._related_scores(paper_id)
        lexicon = self._lexicon() if blend > 0 else None
        ids, scores = (_blend(paper_id, found, lexicon, blend, 4 * limit + 40)
                       if lexicon is not None else (found.ids, found.scores))
        best = rank_related(ids, scores, 4 * limit + 40)
        mine = dict(self._concept_labels([paper_id]).get(paper_id, ()))
        own_terms = lexicon.terms_of(paper_id) if lexicon is not None else frozenset()
        out: list[RelatedPaper] = []
        for start in range(0, len(best), limit):  # most are kept: look at few
            batch = best[start: start + limit]
            labels = self._concept_labels([pid for pid, _ in batch])
            for pid, score in batch:
                theirs = dict(labels.get(pid, ()))
                shared = {lab: w for lab, w in mine.items() if lab in theirs}
                if not shared and lexicon is not None:  # then what one's text holds
                    shared = _text_shared(lexicon, mine, lexicon.terms_of(pid))
                    shared.update(_text_shared(lexicon, theirs, own_terms))
                if shared:
                    out.append(RelatedPaper(pid, self.paper(pid).label, score, tuple(
                        sorted(shared.items(), key=lambda x: (-x[1], x[0])))))
                if len(out) == limit:
                    return out
        return out

    def neighbours(self, node: str, depth: int = 1, limit: int = 50,
                   kinds: Iterable[str] | None = None) -> Neighbourhood:
        """The `limit` most relevant nodes within `depth` hops of `node` (anything
        `resolve` accepts): fewer hops first, then the strongest edge on the way in,
        then degree."""
        if not 1 <= depth <= 3:
            raise UsageError(f"depth must be 1, 2 or 3 (got {depth})")
        if limit < 1:
            raise UsageError(f"limit must be at least 1 (got {limit})")
        return self._walk(self.resolve(node), depth, limit, kinds)

    def connection(self, a: str, b: str) -> Connection:
        """What links two nodes (anything `resolve` accepts): their shared neighbours and
        shortest paths, for the "what connects two papers" view."""
        ka, kb = self.resolve(a), self.resolve(b)
        if ka == kb:
            raise UsageError(f"pick two different nodes (both are {ka})")
        return connection(self._connection_graph(ka, kb), ka, kb)


def _text_shared(lexicon: Lexicon, concepts: dict[str, float], held: frozenset[int],
                 ) -> dict[str, float]:
    """The concepts (label → weight) whose every word and word pair a text holds."""
    return {lab: w for lab, w in concepts.items()
            if (t := lexicon.phrase_terms(lab)) is not None and t <= held}


def rank_related(ids: Ids, scores: NDArray[np.float64], limit: int,
                 ) -> list[tuple[str, float]]:
    """The `limit` best (paper id, score rounded to 4 places) with a positive score, ties
    by id."""
    rounded = np.round(np.asarray(scores, dtype=np.float64), 4)
    found = np.flatnonzero(rounded > 0)
    if len(found) > limit:  # keep everything tied with the limit-th best, then order
        kth = np.partition(rounded[found], len(found) - limit)[len(found) - limit]
        found = found[rounded[found] >= kth]
    best = sorted(found.tolist(), key=lambda i: (-rounded[i], ids[i]))[:limit]
    return [(ids[i], float(rounded[i])) for i in best]


def _blend(paper_id: str, found: SharedScores, lexicon: Lexicon, blend: float, wider: int,
           ) -> tuple[Ids, NDArray[np.float64]]:
    """Concept scores mixed with word similarity: (1 - blend) * concept score / best
    concept score + blend * cosine / best cosine, over the papers sharing a concept and
    the `wider` most similar by words. Works on lexicon rows throughout (no lookup per
    paper): ~1,000 candidates cost a few numpy calls."""
    cosine = lexicon.similarity(paper_id)
    own = lexicon.row.get(paper_id)
    if own is not None:
        cosine[own] = 0.0
    rows = found.rows if found.rows is not None else lexicon.rows(found.ids)
    top = np.argpartition(-cosine, min(wider, len(cosine) - 1))[:wider]
    taken = np.zeros(len(cosine), dtype=bool)
    taken[rows[rows >= 0]] = True
    extra = top[(cosine[top] > 0) & ~taken[top]]
    ids = np.concatenate([np.asarray(found.ids, dtype=object), lexicon.id_array[extra]])
    concept = np.concatenate([np.asarray(found.scores, dtype=np.float64), np.zeros(len(extra))])
    words = np.concatenate([np.where(rows >= 0, cosine[rows], 0.0), cosine[extra]])
    best_concept = float(concept.max(initial=0.0)) or 1.0
    best_words = float(cosine.max(initial=0.0)) or 1.0
    return ids, (1 - blend) * concept / best_concept + blend * words / best_words
