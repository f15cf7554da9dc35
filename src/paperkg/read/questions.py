"""The questions people ask of a KG, declared once: `Reader`, and the values it returns.

Each back end subclasses `Reader` and answers the abstract questions its own way
(`sparql.SparqlReader` through SPARQL on any store, `memory.MemoryReader` from in-memory
indexes); what is the same for every back end — checking arguments, turning what a
person types into a node, the order of related papers — is written here, once. The CLI,
the server and the views call only these methods.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import networkx as nx
import numpy as np
from numpy.typing import NDArray

from paperkg.errors import UnknownNode, UsageError
from paperkg.read.walk import Connection, connection
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
    "RelatedPaper",
    "rank_related",
]

HitKind = Literal["paper", "concept"]
Attrs = dict[str, Any]
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
    def _related_scores(self, paper_id: str) -> tuple[list[str], NDArray[np.float64]]:
        """(papers sharing a concept with `paper_id`, each one's sum over the shared
        concepts of weight × score here × score there); the paper itself left out."""

    @abstractmethod
    def _shared(self, paper_id: str, others: Sequence[str]) -> dict[str, list[tuple[str, float]]]:
        """For each of `others`, (label, weight) of the concepts it shares with `paper_id`."""

    @abstractmethod
    def _vectors(self, ids: Sequence[str]) -> NDArray[np.float32] | None:
        """Unit abstract vectors of `ids` (zeros for a paper without one), or None."""

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

    def related(self, paper_id: str, limit: int = 10, blend: float = 0.0,
                ) -> list[RelatedPaper]:
        """Papers sharing concepts with `paper_id`, best first (see `rank_related`); every
        result lists the concepts it shares, heaviest first."""
        if not 0.0 <= blend <= 1.0:
            raise UsageError(f"blend must be between 0 and 1, got {blend}")
        self.paper(paper_id)
        if limit <= 0:
            return []
        ids, scores = self._related_scores(paper_id)
        cosine = None
        if blend > 0 and ids:
            vectors = self._vectors([paper_id, *ids])
            if vectors is not None:
                cosine = (vectors[1:] @ vectors[0]).astype(np.float64)
        best = rank_related(ids, scores, cosine, blend, limit)
        shared = self._shared(paper_id, [pid for pid, _ in best])
        return [RelatedPaper(pid, self.paper(pid).label, score,
                             tuple(sorted(shared.get(pid, ()), key=lambda x: (-x[1], x[0]))))
                for pid, score in best]

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


def rank_related(ids: Sequence[str], scores: NDArray[np.float64],
                 cosine: NDArray[np.float64] | None, blend: float, limit: int,
                 ) -> list[tuple[str, float]]:
    """The `limit` best (paper id, score), ties by id. Only papers sharing a concept
    (score > 0) are ranked, so every result is explained by what it shares.

    With `cosine` (abstract similarity of each candidate) and `blend` in (0, 1]: score =
    (1 - blend) * concept score / best concept score + blend * max(cosine, 0).
    """
    scores = np.asarray(scores, dtype=np.float64)
    if not len(ids) or scores.max(initial=0.0) <= 0:
        return []
    if blend > 0 and cosine is not None:
        shares = scores > 0
        scores = np.where(shares, (1 - blend) * scores / scores.max()
                          + blend * np.maximum(cosine, 0) + 1e-9, 0.0)
    rounded = np.round(scores, 4)
    found = np.flatnonzero(rounded > 0)
    if len(found) > limit:  # keep everything tied with the limit-th best, then order
        kth = np.partition(rounded[found], len(found) - limit)[len(found) - limit]
        found = found[rounded[found] >= kth]
    best = sorted(found.tolist(), key=lambda i: (-rounded[i], ids[i]))[:limit]
    return [(ids[i], float(rounded[i])) for i in best]


#: A lookup for `views.draw.fill_labels`: node keys → their attributes.
LabelLookup = Callable[[list[str]], dict[str, Attrs]]
