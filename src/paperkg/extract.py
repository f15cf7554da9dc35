"""Rank candidate phrases per abstract the KeyBERT way: cosine to the document, then MMR.

The work that makes this fast is in what gets embedded: every distinct candidate phrase of
the corpus once (lower-cased, the model is uncased), every document once, through a cached
embedder. Scoring itself is a few matrix products per paper.

`mmr` reimplements KeyBERT's `keybert._mmr.mmr` in plain numpy (the test suite checks they
select the same phrases): importing keybert costs about 7 s because it pulls in torch,
which the static embedder does not need.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from paperkg.embed import Embedder
from paperkg.ingest import Paper
from paperkg.text import MAX_WORDS, Candidate, candidates, clean_text

__all__ = ["ExtractSettings", "ExtractionCache", "ExtractorInfo", "extract_concepts", "mmr"]

EXTRACTOR_VERSION = "1"

Ranked = list[tuple[str, float]]
StageProgress = Callable[[str, int], Callable[[int], None]]


@dataclass(frozen=True, slots=True)
class ExtractorInfo:
    """What made a set of mentions: recorded as provenance on every paper-concept link."""

    name: str
    model: str
    version: str
    params: dict[str, str | int | float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ExtractSettings:
    """Knobs of the extractor; all of them are recorded in the graph's provenance."""

    top_n: int = 10
    diversity: float = 0.3
    nr_candidates: int = 40
    max_words: int = MAX_WORDS

    def info(self, model: str) -> ExtractorInfo:
        params: dict[str, str | int | float] = dict(asdict(self))
        return ExtractorInfo("paperkg-keybert", model, EXTRACTOR_VERSION, params)


def document_text(paper: Paper) -> str:
    """What a paper is embedded and mined as: its title (when it has one) and its abstract."""
    body = clean_text(paper.abstract)
    return f"{clean_text(paper.title)}. {body}" if paper.title else body


def mmr(
    doc: np.ndarray, words: np.ndarray, top_n: int, diversity: float
) -> list[tuple[int, float]]:
    """Maximal Marginal Relevance over unit vectors: (index, cosine to doc), best first."""
    if len(words) == 0:
        return []
    relevance = words @ doc
    pairwise = words @ words.T
    chosen = [int(np.argmax(relevance))]
    best_sim = pairwise[:, chosen[0]].copy()
    remaining = np.ones(len(words), dtype=bool)
    remaining[chosen[0]] = False
    for _ in range(min(top_n, len(words)) - 1):
        score = (1 - diversity) * relevance - diversity * best_sim
        score[~remaining] = -np.inf
        pick = int(np.argmax(score))
        chosen.append(pick)
        remaining[pick] = False
        best_sim = np.maximum(best_sim, pairwise[:, pick])
    ranked = sorted(chosen, key=lambda i: -relevance[i])
    return [(i, round(float(relevance[i]), 4)) for i in ranked]


def extract_concepts(
    papers: Sequence[Paper],
    embedder: Embedder,
    settings: ExtractSettings = ExtractSettings(),
    progress: StageProgress | None = None,
) -> dict[str, Ranked]:
    """Ranked (phrase, score) lists per paper id, best first."""
    docs = [document_text(p) for p in papers]
    cands: list[list[Candidate]] = []
    tick = progress("candidates", len(docs)) if progress else None
    for doc in docs:
        cands.append(candidates(doc, settings.max_words))
        if tick:
            tick(1)
    vocab = sorted({c.text.lower() for cs in cands for c in cs})
    row_of = {phrase: i for i, phrase in enumerate(vocab)}

    phrase_tick = progress("embed phrases", len(vocab)) if progress else None
    phrase_vecs = embedder.encode(vocab, phrase_tick)
    doc_vecs = embedder.encode(docs, progress("embed abstracts", len(docs)) if progress else None)

    out: dict[str, Ranked] = {}
    tick = progress("rank", len(papers)) if progress else None
    for paper, doc_vec, cs in zip(papers, doc_vecs, cands, strict=True):
        out[paper.id] = _rank(doc_vec, cs, phrase_vecs, row_of, settings)
        if tick:
            tick(1)
    return out


def _rank(
    doc_vec: np.ndarray,
    cs: list[Candidate],
    phrase_vecs: np.ndarray,
    row_of: dict[str, int],
    settings: ExtractSettings,
) -> Ranked:
    if not cs:
        return []
    rows = np.array([row_of[c.text.lower()] for c in cs])
    vecs = phrase_vecs[rows]
    relevance = vecs @ doc_vec
    keep = np.argsort(-relevance, kind="stable")[: settings.nr_candidates]
    picked = mmr(doc_vec, vecs[keep], settings.top_n, settings.diversity)
    return [(cs[int(keep[i])].text, score) for i, score in picked]


class ExtractionCache:
    """Ranked concepts per document, kept on disk, keyed by the document text's hash.

    A paper's ranking depends only on its own text, the embedder and the settings (no
    corpus-level statistics yet), so an unchanged paper never needs re-extracting: a
    rebuild of the same corpus skips candidates, embeddings and ranking altogether.
    The file name carries a hash of the embedder name, settings and extractor version.
    """

    def __init__(self, cache_dir: Path, info: ExtractorInfo) -> None:
        tag = hashlib.sha256(json.dumps(asdict(info), sort_keys=True).encode()).hexdigest()[:16]
        self.path = Path(cache_dir) / "extractions" / f"{tag}.jsonl"
        self._data: dict[str, Ranked] | None = None

    @staticmethod
    def key(paper: Paper) -> str:
        return hashlib.blake2b(document_text(paper).encode(), digest_size=16).hexdigest()

    def _load(self) -> dict[str, Ranked]:
        if self._data is None:
            self._data = {}
            if self.path.is_file():
                with self.path.open(encoding="utf-8") as fh:
                    for line in fh:
                        try:
                            row = json.loads(line)
                        except json.JSONDecodeError:
                            continue  # a line cut short by an interrupted run: recompute it
                        self._data[row["k"]] = [(lab, float(s)) for lab, s in row["r"]]
        return self._data

    def split(self, papers: Sequence[Paper]) -> tuple[dict[str, Ranked], list[Paper]]:
        """(cached results by paper id, papers still to extract)."""
        data = self._load()
        hits: dict[str, Ranked] = {}
        todo: list[Paper] = []
        for p in papers:
            found = data.get(self.key(p))
            if found is None:
                todo.append(p)
            else:
                hits[p.id] = found
        return hits, todo

    def add(self, papers: Sequence[Paper], results: dict[str, Ranked]) -> None:
        data = self._load()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            for p in papers:
                k = self.key(p)
                if k not in data:
                    data[k] = results[p.id]
                    fh.write(json.dumps({"k": k, "r": results[p.id]}, ensure_ascii=False) + "\n")
