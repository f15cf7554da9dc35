"""Rank candidate phrases per abstract: KeyBERT's cosine, plus what makes a keyword.

Cosine to the abstract alone favours phrases more specific than the ones people choose as
keywords. So each candidate gets a few features (cosine; keyphraseness and keyword
popularity from a `KeywordPrior` when the corpus has author keywords; where it first
appears; whether it is in the title; how often it occurs; whether the abstract defines it
as an abbreviation), a logistic model turns them into a probability, and MMR picks a
diverse top-n by that probability. The model's weights were fitted once by
`bench/fit_ranker.py` on ICLR 2025 papers outside the benchmark sample.

The work that makes this fast is in what gets embedded: every distinct candidate phrase of
the corpus once (lower-cased, the model is uncased), every document once, through a cached
embedder. `mmr` reimplements KeyBERT's `keybert._mmr.mmr` in plain numpy (the tests check
they select the same phrases): importing keybert costs about 7 s because it pulls in torch,
which the static embedder does not need.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from paperkg.build.embed import Embedder
from paperkg.build.ingest import Paper
from paperkg.build.prior import MIN_KEYWORD_PAPERS, KeywordPrior, code_fingerprint, keyword_keys
from paperkg.build.terms import term_key
from paperkg.build.text import (
    MAX_WORDS,
    Candidate,
    KnownTerms,
    candidates,
    clean_text,
    document_text,
    tokens,
)

__all__ = [
    "FEATURES",
    "ExtractSettings",
    "ExtractionCache",
    "ExtractorInfo",
    "CorpusShare",
    "candidate_features",
    "document_text",
    "extract_concepts",
    "mmr",
    "select",
]

EXTRACTOR_VERSION = "3"

Ranked = list[tuple[str, float]]
StageProgress = Callable[[str, int], Callable[[int], None]]

FEATURES = ("cosine", "keyphraseness", "keyword_papers", "first_position", "in_title",
            "log_count", "defined", "words", "corpus_share")
# Fitted by bench/fit_ranker.py (logistic regression on the candidates of 600 ICLR 2025
# papers outside the keyword benchmark's sample; their own keywords left out of the prior).
DEFAULT_WEIGHTS = (4.003, 0.415, 0.498, -0.492, 0.874, 0.429, 0.479, -0.336, -0.523)
DEFAULT_BIAS = -5.858
# The same fit without the prior's features: for a corpus without author keywords.
NO_PRIOR_WEIGHTS = (5.578, 0.0, 0.0, -0.763, 1.065, 0.561, 1.456, -0.275, 0.082)
NO_PRIOR_BIAS = -4.47


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
    diversity: float = 0.1
    nr_candidates: int = 40
    max_words: int = MAX_WORDS
    weights: tuple[float, ...] = DEFAULT_WEIGHTS
    bias: float = DEFAULT_BIAS
    no_prior_weights: tuple[float, ...] = NO_PRIOR_WEIGHTS
    no_prior_bias: float = NO_PRIOR_BIAS

    def model(self, prior: KeywordPrior | None) -> tuple[tuple[float, ...], float]:
        """(weights, bias) of the ranking model: with or without a keyword prior."""
        return (self.weights, self.bias) if prior else (self.no_prior_weights,
                                                        self.no_prior_bias)

    def info(self, model: str, prior: KeywordPrior | None = None) -> ExtractorInfo:
        weights, bias = self.model(prior)
        params: dict[str, str | int | float] = {
            "top_n": self.top_n, "diversity": self.diversity,
            "nr_candidates": self.nr_candidates, "max_words": self.max_words,
            "bias": bias,
        }
        params.update({f"w_{name}": w for name, w in zip(FEATURES, weights, strict=True)})
        params["code"] = code_fingerprint()  # candidates and keys: a code change re-extracts
        if prior:
            params["keyword_prior"] = f"{prior.papers} papers, {prior.fingerprint()}"
        return ExtractorInfo("paperkg-keyphrase", model, EXTRACTOR_VERSION, params)


def mmr(
    doc: np.ndarray, words: np.ndarray, top_n: int, diversity: float,
    relevance: np.ndarray | None = None,
) -> list[tuple[int, float]]:
    """Maximal Marginal Relevance over unit vectors: (index, relevance), best first.

    Relevance is the cosine to `doc` unless given (paperkg passes its keyword probability).
    """
    if len(words) == 0:
        return []
    if relevance is None:
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


class CorpusShare:
    """How many papers of the batch offer each phrase as a candidate: a phrase in half the
    corpus ("learning", "networks") is too generic to tell papers apart."""

    def __init__(self, cands: Sequence[Sequence[Candidate]]) -> None:
        self.papers = max(len(cands), 1)
        self.df: Counter[str] = Counter()
        for cs in cands:
            self.df.update({term_key(c.text) for c in cs})

    def log_share(self, key: str) -> float:
        return float(np.log((self.df[key] + 1) / (self.papers + 1)))


def candidate_features(
    paper: Paper, doc: str, cs: Sequence[Candidate], cosine: np.ndarray,
    prior: KeywordPrior | None, share: CorpusShare,
) -> np.ndarray:
    """The feature matrix (one row per candidate, columns as in FEATURES)."""
    n_tokens = max(len(tokens(doc)), 1)
    title = f" {clean_text(paper.title).lower()} " if paper.title else ""
    keys = [term_key(c.text) for c in cs]
    own_kw = keyword_keys(paper) if prior else frozenset()
    own_cands = frozenset(keys) if own_kw else frozenset()
    x = np.zeros((len(cs), len(FEATURES)), dtype=np.float32)
    x[:, 0] = cosine
    for i, (c, key) in enumerate(zip(cs, keys, strict=True)):
        if prior:
            x[i, 1], x[i, 2] = prior.scores(key, own_kw, own_cands)
        x[i, 3] = c.position / n_tokens
        x[i, 4] = float(bool(title) and f" {c.text.lower()} " in title)
        x[i, 5] = np.log(c.count)
        x[i, 6] = float(c.defined)
        x[i, 7] = min(len(c.text.split()), 4)
        x[i, 8] = share.log_share(key)
    return x


def extract_concepts(
    papers: Sequence[Paper],
    embedder: Embedder,
    settings: ExtractSettings = ExtractSettings(),
    progress: StageProgress | None = None,
    prior: KeywordPrior | None = None,
) -> dict[str, Ranked]:
    """Ranked (phrase, probability) lists per paper id, best first."""
    docs = [document_text(p) for p in papers]
    known = prior.known() if prior else None
    cands = _all_candidates(docs, settings.max_words, known, progress)
    vocab = sorted({c.text.lower() for cs in cands for c in cs})
    row_of = {phrase: i for i, phrase in enumerate(vocab)}

    phrase_tick = progress("embed phrases", len(vocab)) if progress else None
    phrase_vecs = embedder.encode(vocab, phrase_tick)
    doc_vecs = embedder.encode(docs, progress("embed abstracts", len(docs)) if progress else None)

    out: dict[str, Ranked] = {}
    tick = progress("rank", len(papers)) if progress else None
    share = CorpusShare(cands)
    coef, bias = settings.model(prior)
    weights = np.asarray(coef, dtype=np.float32)
    for paper, doc, doc_vec, cs in zip(papers, docs, doc_vecs, cands, strict=True):
        if prior and paper.keywords:
            cs = _leave_own_out(paper, cs, prior)
        out[paper.id] = []
        if cs:
            vecs = phrase_vecs[np.array([row_of[c.text.lower()] for c in cs])]
            x = candidate_features(paper, doc, cs, vecs @ doc_vec, prior, share)
            picked = select(x, weights, bias, vecs, doc_vec, settings.top_n,
                            settings.diversity, settings.nr_candidates)
            out[paper.id] = [(cs[i].text, score) for i, score in picked]
        if tick:
            tick(1)
    return out


def select(
    x: np.ndarray, weights: np.ndarray, bias: float, vecs: np.ndarray, doc_vec: np.ndarray,
    top_n: int, diversity: float, nr_candidates: int,
) -> list[tuple[int, float]]:
    """(candidate index, keyword probability) of the picks: the logistic model's
    `nr_candidates` most probable, then MMR over them by that probability."""
    prob = 1.0 / (1.0 + np.exp(-(x @ weights + bias)))
    keep = np.argsort(-prob, kind="stable")[:nr_candidates]
    picked = mmr(doc_vec, vecs[keep], top_n, diversity, prob[keep])
    return [(int(keep[i]), score) for i, score in picked]


def _leave_own_out(paper: Paper, cs: list[Candidate], prior: KeywordPrior) -> list[Candidate]:
    """Drop candidates that are "known terms" only thanks to this paper's own keywords."""
    own = keyword_keys(paper)
    return [c for c in cs if not c.known_only
            or (key := term_key(c.text)) not in own
            or prior.keyword[key] - 1 >= MIN_KEYWORD_PAPERS]


def _all_candidates(
    docs: Sequence[str], max_words: int, known: KnownTerms | None,
    progress: StageProgress | None,
) -> list[list[Candidate]]:
    tick = progress("candidates", len(docs)) if progress else None
    out: list[list[Candidate]] = []
    for doc in docs:
        out.append(candidates(doc, max_words, known))
        if tick:
            tick(1)
    return out


class ExtractionCache:
    """Ranked concepts per document, kept on disk, keyed by the document text's hash.

    A paper's ranking depends on its own text and keywords (which the prior leaves out),
    the embedder, the settings and the keyword prior; the file name carries a hash of all
    but the first two, so a rebuild of the same corpus skips candidates, embeddings and
    ranking altogether.
    """

    def __init__(self, cache_dir: Path, info: ExtractorInfo) -> None:
        tag = hashlib.sha256(json.dumps(asdict(info), sort_keys=True).encode()).hexdigest()[:16]
        self.path = Path(cache_dir) / "extractions" / f"{tag}.jsonl"
        self._data: dict[str, Ranked] | None = None

    @staticmethod
    def key(paper: Paper) -> str:
        text = document_text(paper) + "\x00" + "\x1f".join(paper.keywords)
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

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
