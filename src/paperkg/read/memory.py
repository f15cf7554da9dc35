"""In-memory indexes over a built KG: full-text search, related papers, a concept's papers.

The store stays the source of truth: the index is read from it once (a handful of SPARQL
queries) and then answers the interactive paths without a query per request, so a server
can serve them in well under a millisecond of work. `related()` ranks exactly like
`paperkg.read.questions.related` (the sum of the IDF weights of the shared concepts).
"""

from __future__ import annotations

import math
import re
import unicodedata
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from paperkg.errors import UnknownNode, UsageError
from paperkg.read.questions import RelatedPaper
from paperkg.sparqltext import with_prefixes
from paperkg.store import Store
from paperkg.vocab import parse_iri

__all__ = ["ConceptInfo", "CorpusIndex", "Hit", "PaperInfo", "tokens"]

HitKind = Literal["paper", "concept"]
_WORD = re.compile(r"[^\W_]+")
_STOP = frozenset(
    "a an and are as at be by for from in into is it of on or that the this to we with via "
    "our its their which these those than then".split()
)
# field boosts: a word in a title or a concept's label says more than one in an abstract
_PAPER_FIELDS = (("title", 3.0), ("label", 2.0), ("abstract", 1.0))
_CONCEPT_PREF, _CONCEPT_ALT = 3.0, 2.0


def tokens(text: str) -> list[str]:
    """Search terms: NFKC, case-folded words, stop words dropped, plural 's' trimmed."""
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    return [_stem(w) for w in words if w not in _STOP]


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(frozen=True, slots=True)
class PaperInfo:
    id: str
    label: str
    title: str = ""
    abstract: str = ""
    decision: str = ""
    url: str = ""
    authors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ConceptInfo:
    id: str
    label: str
    alt_labels: tuple[str, ...] = ()
    paper_count: int = 0
    weight: float = 0.0
    types: tuple[str, ...] = ()  # ontology classes beyond skos:Concept (Method, Dataset…)


@dataclass(frozen=True, slots=True)
class Hit:
    kind: HitKind
    id: str
    label: str
    score: float
    snippet: str = ""


@dataclass(slots=True)
class CorpusIndex:
    """Papers, concepts and their links, plus an inverted index over their text."""

    papers: dict[str, PaperInfo] = field(default_factory=dict)
    concepts: dict[str, ConceptInfo] = field(default_factory=dict)
    #: paper id → [(concept id, score, rank)], best rank first
    mentions: dict[str, list[tuple[str, float, int]]] = field(default_factory=dict)
    #: concept id → [(paper id, score)], highest score first
    concept_papers: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    _docs: list[tuple[HitKind, str]] = field(default_factory=list)
    _postings: dict[str, tuple[NDArray[np.int32], NDArray[np.float32]]] = field(
        default_factory=dict)
    _is_paper: NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))
    _paper_ids: list[str] = field(default_factory=list)
    _paper_pos: dict[str, int] = field(default_factory=dict)
    _concept_rows: dict[str, NDArray[np.int32]] = field(default_factory=dict)
    _concept_scores: dict[str, NDArray[np.float64]] = field(default_factory=dict)
    #: abstract vectors aligned with _paper_ids (None: related cannot blend)
    _vectors: NDArray[np.float32] | None = None

    # ------------------------------------------------------------------ loading

    @classmethod
    def from_store(cls, store: Store) -> CorpusIndex:
        """Read papers, concepts and mentions from the store and index their text."""
        index = cls()
        index._load(store)
        index._build()
        return index

    def _load(self, store: Store) -> None:
        def rows(sparql: str) -> Iterable[tuple[str, ...]]:
            res = store.query(with_prefixes(sparql))
            for row in res.rows:
                yield tuple("" if t is None else t.value for t in row)

        authors: dict[str, list[str]] = defaultdict(list)
        for p, name in rows("SELECT ?p ?n WHERE { ?p dcterms:creator ?a . ?a foaf:name ?n }"):
            authors[p].append(name)
        for p, ident, label, title, abstract, decision, url in rows("""
            SELECT ?p ?id ?label ?title ?abstract ?decision ?url WHERE {
              ?p a pkg:Paper ; dcterms:identifier ?id ; rdfs:label ?label ;
                 dcterms:abstract ?abstract .
              OPTIONAL { ?p dcterms:title ?title } OPTIONAL { ?p pkg:decision ?decision }
              OPTIONAL { ?p schema:url ?url } }"""):
            self.papers[ident] = PaperInfo(ident, label, title, abstract,
                                           decision.rsplit("#", 1)[-1], url,
                                           tuple(sorted(authors.get(p, ()))))
        alts: dict[str, list[str]] = defaultdict(list)
        for c, alt in rows("SELECT ?c ?alt WHERE { ?c a skos:Concept ; skos:altLabel ?alt }"):
            alts[c].append(alt)
        types: dict[str, list[str]] = defaultdict(list)
        for c, t in rows("SELECT ?c ?t WHERE { ?c a skos:Concept , ?t . "
                         "FILTER(?t != skos:Concept) }"):
            types[c].append(t.rsplit("#", 1)[-1].rsplit("/", 1)[-1])
        for c, label, n, w in rows("""
            SELECT ?c ?label ?n ?w WHERE { ?c a skos:Concept ; skos:prefLabel ?label ;
                                          pkg:paperCount ?n ; pkg:weight ?w }"""):
            cid = _id(c)
            self.concepts[cid] = ConceptInfo(cid, label, tuple(sorted(alts.get(c, ()))),
                                             int(n), float(w), tuple(sorted(types.get(c, ()))))
        for p, c, score, rank in rows("""
            SELECT ?p ?c ?score ?rank WHERE { ?p pkg:hasMention ?m .
              ?m pkg:concept ?c ; pkg:score ?score ; pkg:rank ?rank }"""):
            pid, cid = _id(p), _id(c)
            self.mentions.setdefault(pid, []).append((cid, float(score), int(rank)))
            self.concept_papers.setdefault(cid, []).append((pid, float(score)))
        for links in self.mentions.values():
            links.sort(key=lambda x: x[2])
        for papers in self.concept_papers.values():
            papers.sort(key=lambda x: (-x[1], x[0]))

    def _build(self) -> None:
        postings: dict[str, tuple[array[int], array[float]]] = {}

        def add(doc: int, weighted: dict[str, float]) -> None:
            for term, w in weighted.items():
                docs, weights = postings.setdefault(term, (array("i"), array("f")))
                docs.append(doc)
                weights.append(w)

        for paper in self.papers.values():
            weighted: dict[str, float] = {}
            for name, boost in _PAPER_FIELDS:
                for term, tf in Counter(tokens(getattr(paper, name))).items():
                    weighted[term] = max(weighted.get(term, 0.0), boost * (1.0 + math.log(tf)))
            self._docs.append(("paper", paper.id))
            add(len(self._docs) - 1, weighted)
        for concept in self.concepts.values():
            weighted = {t: _CONCEPT_ALT for a in concept.alt_labels for t in tokens(a)}
            weighted.update({t: _CONCEPT_PREF for t in tokens(concept.label)})
            self._docs.append(("concept", concept.id))
            add(len(self._docs) - 1, weighted)
        self._postings = {t: (np.frombuffer(d, dtype=np.int32).copy(),
                              np.frombuffer(w, dtype=np.float32).copy())
                          for t, (d, w) in postings.items()}
        self._is_paper = np.array([kind == "paper" for kind, _ in self._docs], dtype=bool)
        self._paper_ids = list(self.papers)
        self._paper_pos = {p: i for i, p in enumerate(self._paper_ids)}
        self._concept_rows = {
            c: np.array([self._paper_pos[p] for p, _ in links if p in self._paper_pos],
                        dtype=np.int32)
            for c, links in self.concept_papers.items()}
        self._concept_scores = {
            c: np.array([s for p, s in links if p in self._paper_pos], dtype=np.float64)
            for c, links in self.concept_papers.items()}

    # ------------------------------------------------------------------ questions

    def paper(self, paper_id: str) -> PaperInfo:
        try:
            return self.papers[paper_id]
        except KeyError:
            raise UnknownNode(f"no paper with id {paper_id!r}; find one with /api/search"
                              ) from None

    def concept(self, concept_id: str) -> ConceptInfo:
        key = concept_id.removeprefix("concept:")
        try:
            return self.concepts[key]
        except KeyError:
            raise UnknownNode(f"no concept with id {concept_id!r}; find one with /api/search"
                              ) from None

    def attach_vectors(self, ids: Sequence[str], vectors: NDArray[np.float32]) -> None:
        """Abstract vectors for `related(..., blend=)`; papers without one get zeros."""
        row = {pid: i for i, pid in enumerate(ids)}
        out = np.zeros((len(self._paper_ids), vectors.shape[1]), dtype=np.float32)
        for j, pid in enumerate(self._paper_ids):
            if pid in row:
                out[j] = vectors[row[pid]]
        self._vectors = out

    def related(self, paper_id: str, limit: int = 10, blend: float = 0.0) -> list[RelatedPaper]:
        """Papers sharing concepts with `paper_id`, scored by the sum of the shared
        concepts' weights (rare concepts count more), each times how sure the extractor is
        of the concept in both papers (its probability of being a keyword); ties broken by
        id. One weighted bincount over the shared concepts' paper lists: ~0.1 ms on 11k
        papers. (bench/bench_related.py: weighting by both scores lifted the share of
        top-10 results sharing an author keyword from 34 % to 42 % on dev queries.)

        `blend` in [0, 1] mixes in abstract similarity: score = (1 - blend) * concept
        score / best concept score + blend * cosine. Only papers that share a concept
        are ranked, so every result is still explained by its shared concepts.
        """
        self.paper(paper_id)
        if not 0.0 <= blend <= 1.0:
            raise UsageError(f"blend must be between 0 and 1, got {blend}")
        own = [cid for cid, _, _ in self.mentions.get(paper_id, ()) if cid in self._concept_rows]
        if not own or limit <= 0:
            return []
        mine_score = {cid: score for cid, score, _ in self.mentions[paper_id]}
        rows = [self._concept_rows[c] for c in own]
        weights = np.concatenate([self._concept_scores[c] * self.concepts[c].weight
                                  * mine_score[c] for c in own])
        scores = np.bincount(np.concatenate(rows), weights=weights,
                             minlength=len(self._paper_ids))
        scores[self._paper_pos[paper_id]] = 0.0
        if blend > 0 and self._vectors is not None and scores.max() > 0:
            shares = scores > 0
            cosine = self._vectors @ self._vectors[self._paper_pos[paper_id]]
            scores = np.where(shares, (1 - blend) * scores / scores.max()
                              + blend * np.maximum(cosine, 0) + 1e-9, 0.0)
        found = np.flatnonzero(scores > 0)
        if len(found) > limit:  # keep everything tied with the limit-th best, then order
            kth = np.partition(scores[found], len(found) - limit)[len(found) - limit]
            found = found[scores[found] >= kth]
        best = sorted(found.tolist(), key=lambda i: (-scores[i], self._paper_ids[i]))[:limit]
        mine = set(own)
        out = []
        for i in best:
            other = self._paper_ids[i]
            shared = [(self.concepts[c].label, self.concepts[c].weight)
                      for c, _, _ in self.mentions.get(other, ()) if c in mine]
            out.append(RelatedPaper(other, self.papers[other].label, round(float(scores[i]), 4),
                                    tuple(sorted(shared, key=lambda x: (-x[1], x[0])))))
        return out

    def search(self, query: str, limit: int = 20, offset: int = 0,
               kinds: Iterable[str] | None = None) -> tuple[int, list[Hit]]:
        """(total hits, one page of hits), best first. Documents holding every query term
        rank above those holding only some; within a tier, by tf-idf with field boosts,
        and a label holding the whole query as a phrase counts 1.5x."""
        allowed = set(kinds) if kinds else {"paper", "concept"}
        terms = list(dict.fromkeys(tokens(query)))
        n_docs = len(self._docs)
        if not terms or not n_docs:
            return 0, []
        scores = np.zeros(n_docs)
        matched = np.zeros(n_docs, dtype=np.int32)
        for term in terms:
            hit = self._postings.get(term)
            if hit is None:
                continue
            docs, weights = hit
            scores[docs] += weights * math.log(1.0 + n_docs / len(docs))
            matched[docs] += 1
        keep = matched > 0
        if allowed == {"paper"}:
            keep &= self._is_paper
        elif allowed == {"concept"}:
            keep &= ~self._is_paper
        found = np.flatnonzero(keep)
        order = found[np.lexsort((found, -scores[found], -matched[found]))]
        window = order[: offset + max(limit, 0) + 50].tolist()  # the phrase boost reorders it
        phrase = " ".join(query.casefold().split())
        ranked = []
        for doc in window:
            kind, ident = self._docs[doc]
            boost = 1.5 if phrase in self._label(kind, ident).casefold() else 1.0
            ranked.append((int(matched[doc]), float(scores[doc]) * boost, doc))
        ranked.sort(key=lambda x: (-x[0], -x[1], x[2]))
        page = ranked[offset: offset + max(limit, 0)]
        return len(found), [self._hit(doc, score, terms) for _, score, doc in page]

    def _label(self, kind: str, ident: str) -> str:
        if kind == "paper":
            paper = self.papers[ident]
            return paper.title or paper.label
        return self.concepts[ident].label

    def _hit(self, doc: int, score: float, terms: list[str]) -> Hit:
        kind, ident = self._docs[doc]
        if kind == "concept":
            c = self.concepts[ident]
            snippet = "; ".join(c.alt_labels[:5])
            return Hit("concept", ident, c.label, round(score, 4), snippet)
        return Hit("paper", ident, self._label(kind, ident), round(score, 4),
                   _snippet(self.papers[ident].abstract, terms))


def _snippet(text: str, terms: list[str], width: int = 220) -> str:
    """A window of `text` starting a few words before the first query term in it."""
    lowered = text.casefold()
    found = [i for t in terms if (i := lowered.find(t)) >= 0]
    start = 0
    if found and min(found) > 60:
        start = text.find(" ", min(found) - 60) + 1
    out = ("… " if start else "") + text[start:]
    return out if len(out) <= width else out[: width - 1].rstrip() + "…"


def _id(iri: str) -> str:
    parsed = parse_iri(iri)
    return parsed[1] if parsed else iri.rstrip("/").rsplit("/", 1)[-1]
