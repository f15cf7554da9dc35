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
embedder. `build.select.mmr` reimplements KeyBERT's `keybert._mmr.mmr` in plain numpy (the
tests check they select the same phrases): importing keybert costs about 7 s because it
pulls in torch, which the static embedder does not need.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import Any

import numpy as np

from paperkg.build.asides import Asides, asides
from paperkg.build.embed import Embedder
from paperkg.build.ingest import Paper
from paperkg.build.keep import one_word, trusted
from paperkg.build.language import english_part
from paperkg.build.prior import MIN_KEYWORD_PAPERS, KeywordPrior, code_fingerprint, keyword_keys
from paperkg.build.select import select
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
from paperkg.settings import DIVERSITY, TOP_N, Settings

__all__ = [
    "FEATURES",
    "ExtractSettings",
    "ExtractorInfo",
    "CorpusShare",
    "candidate_features",
    "document_text",
    "extract_concepts",
    "rankable",
]

EXTRACTOR_VERSION = "4"

Ranked = list[tuple[str, float]]
StageProgress = Callable[[str, int], Callable[[int], None]]
KgRule = Callable[[Ranked, Asides], list[bool]]

FEATURES = ("cosine", "keyphraseness", "keyword_papers", "first_position", "in_title",
            "log_count", "defined", "words", "corpus_share")
# Fitted by bench/fit_ranker.py per embedder family ("minilm": the transformer, in
# sentence-transformers or ONNX; "static": its model2vec distillation), with the keyword
# prior's features and without them, on ICLR 2025 papers outside the benchmark's sample.
RANKER = Path(__file__).parent / "data" / "ranker.json"
EXTRACTORS = ("paperkg", "keybert")


@cache
def _ranker_table() -> dict[str, Any]:
    table: dict[str, Any] = json.loads(RANKER.read_text(encoding="utf-8"))
    return table


def _family(embedder: str) -> str:
    return "static" if "static" in embedder else "minilm"


def fitted_ranker(embedder: str, with_prior: bool) -> tuple[tuple[float, ...], float]:
    """(weights, bias) fitted for this embedder, with or without a keyword prior."""
    row = _ranker_table()[_family(embedder)]["prior" if with_prior else "no_prior"]
    return tuple(float(w) for w in row["weights"]), float(row["bias"])


def fitted_min_score(embedder: str, with_prior: bool) -> float:
    """The least probability chosen for that ranker: its probabilities are calibrated
    differently per embedder and with or without keyword statistics."""
    row = _ranker_table()["min_score"][_family(embedder)]
    return float(row["prior" if with_prior else "no_prior"])


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

    top_n: int = TOP_N
    diversity: float = DIVERSITY
    min_score: float | None = None  # beyond a paper's best MIN_KEPT; None: fitted (`trusted`)
    ranking: bool = False  # the whole top-n, as `paperkg extract` lists it, not what a KG keeps
    nr_candidates: int = 40
    max_words: int = MAX_WORDS
    extractor: str = "paperkg"  # or "keybert": KeyBERT's own cosine + MMR on our candidates
    weights: tuple[float, ...] | None = None  # None: fitted for the embedder (RANKER)
    bias: float | None = None
    no_prior_weights: tuple[float, ...] | None = None
    no_prior_bias: float | None = None

    @classmethod
    def of(cls, settings: Settings) -> ExtractSettings:
        """The extractor's knobs as a command's settings give them."""
        return cls(top_n=settings.top_n, diversity=settings.diversity,
                   min_score=settings.min_score, extractor=settings.extractor)

    def model(self, prior: KeywordPrior | None, embedder: str = "all-MiniLM-L6-v2",
              ) -> tuple[tuple[float, ...], float]:
        """(weights, bias) of the ranking model: with or without a keyword prior."""
        given = (self.weights, self.bias) if prior else (self.no_prior_weights,
                                                         self.no_prior_bias)
        if given[0] is not None and given[1] is not None:
            return given[0], given[1]
        return fitted_ranker(embedder, bool(prior))

    def least(self, prior: KeywordPrior | None, embedder: str = "all-MiniLM-L6-v2") -> float:
        """The least probability of a pick beyond a paper's best few (`trusted`)."""
        if self.min_score is not None:
            return self.min_score
        return fitted_min_score(embedder, bool(prior))

    def kg_rule(self, prior: KeywordPrior | None, embedder: str) -> KgRule:
        """Which of a paper's picks (best first) a KG keeps (`trusted`, its threshold and
        its test of a broad pick settled once), given the paper's `asides`;
        KeyBERT's own extractor keeps them all."""
        keybert = self.extractor == "keybert"
        least = 0.0 if keybert else self.least(prior, embedder)

        broad = partial(_broad, prior) if prior else None

        def rule(picks: Ranked, asides: Asides) -> list[bool]:
            return [True] * len(picks) if keybert else trusted(picks, least, broad, asides)
        return rule

    def info(self, model: str, prior: KeywordPrior | None = None) -> ExtractorInfo:
        params: dict[str, str | int | float] = {
            "top_n": self.top_n, "diversity": self.diversity, "max_words": self.max_words,
        }
        params["code"] = code_fingerprint()  # candidates and keys: a code change re-extracts
        if self.extractor == "keybert":
            from importlib.metadata import version

            return ExtractorInfo("keybert", model, version("keybert"), params)
        weights, bias = self.model(prior, model)
        params.update({"nr_candidates": self.nr_candidates, "bias": bias})
        if self.ranking:
            params["ranking"] = 1
        else:
            params["min_score"] = self.least(prior, model)
        params.update({f"w_{name}": w for name, w in zip(FEATURES, weights, strict=True)})
        if prior:
            params["keyword_prior"] = (f"{prior.source}: {prior.papers} papers, "
                                       f"{prior.fingerprint()}")
        return ExtractorInfo("paperkg-keyphrase", model, EXTRACTOR_VERSION, params)


class CorpusShare:
    """How many papers of the batch offer each phrase as a candidate: a phrase in half the
    corpus ("learning", "networks") is too generic to tell papers apart."""

    def __init__(self, cands: Sequence[Sequence[Candidate]]) -> None:
        self.papers = max(len(cands), 1)
        self.df: Counter[str] = Counter()
        for cs in cands:
            self.df.update({term_key(c.text) for c in cs})

    @classmethod
    def from_counts(cls, df: Counter[str], papers: int) -> CorpusShare:
        """The share over a whole corpus from its counts (`build.corpus.corpus_share`)."""
        share = cls(())
        share.df, share.papers = df, max(papers, 1)
        return share

    def log_share(self, key: str) -> float:
        return float(np.log((self.df[key] + 1) / (self.papers + 1)))


def candidate_features(
    paper: Paper, doc: str, cs: Sequence[Candidate], cosine: np.ndarray,
    prior: KeywordPrior | None, share: CorpusShare,
) -> np.ndarray:
    """The feature matrix (one row per candidate, columns as in FEATURES)."""
    n_tokens = max(len(tokens(doc)), 1)
    # tokens, so that a name before a colon or a question mark is in it ("PtychoFormer: …")
    title = f" {' '.join(tokens(clean_text(paper.title))).lower()} " if paper.title else ""
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
    share: CorpusShare | None = None,
    marks: dict[str, list[bool]] | None = None,
    foreign: dict[str, str] | None = None,
) -> dict[str, Ranked]:
    """Ranked (phrase, probability) lists per paper id, best first. `share` is the corpus
    share over the whole corpus; without it, over `papers` (then they must be the corpus).
    With `settings.ranking` the whole top-n is returned, and `marks` receives, per paper,
    which of its picks a KG keeps (`trusted`). A paper not in English gets no concepts
    (`build.language`); `foreign` receives its language by paper id. Of a bilingual
    record only the English is read."""
    docs = [document_text(p) for p in papers]
    # what is read of each text: its English (a bilingual record's other language left out)
    read = [english_part(doc) for doc in docs]
    languages = [lang for lang, _ in read]
    docs = [text or doc for doc, (_, text) in zip(docs, read, strict=True)]
    known = prior.known() if prior else None
    cands = _all_candidates([text for _, text in read], settings.max_words, known, progress)
    if foreign is not None:
        foreign.update((p.id, lang) for p, lang in zip(papers, languages, strict=True)
                       if lang != "en")
    if prior and known is not None:
        cands = [[c for c in cs if rankable(c, prior, known)] for cs in cands]
    vocab = sorted({c.text.lower() for cs in cands for c in cs})
    row_of = {phrase: i for i, phrase in enumerate(vocab)}

    phrase_tick = progress("embed phrases", len(vocab)) if progress else None
    phrase_vecs = embedder.encode(vocab, phrase_tick)
    doc_vecs = embedder.encode(docs, progress("embed abstracts", len(docs)) if progress else None)

    if settings.extractor == "keybert":
        from paperkg.build.keybert_rank import keybert_rank

        return keybert_rank(papers, docs, cands, vocab, phrase_vecs, doc_vecs, embedder,
                            settings.top_n, settings.diversity)
    out: dict[str, Ranked] = {}
    tick = progress("rank", len(papers)) if progress else None
    share = share or CorpusShare(cands)
    coef, bias = settings.model(prior, embedder.name)
    weights = np.asarray(coef, dtype=np.float32)
    kg_keeps = settings.kg_rule(prior, embedder.name)
    for paper, doc, doc_vec, cs in zip(papers, docs, doc_vecs, cands, strict=True):
        if prior and paper.keywords:
            cs = _leave_own_out(paper, cs, prior)
        out[paper.id] = []
        if cs:
            vecs = phrase_vecs[np.array([row_of[c.text.lower()] for c in cs])]
            x = candidate_features(paper, doc, cs, vecs @ doc_vec, prior, share)
            picked = select(x, weights, bias, vecs, doc_vec, settings.top_n,
                            settings.diversity, settings.nr_candidates,
                            [term_key(c.text) for c in cs])
            ranked = [(cs[i].text, score) for i, score in picked]
            titled = (x[:, FEATURES.index("in_title")] > 0).tolist()
            keeps = kg_keeps(ranked, asides(cs, titled, prior, doc, paper.title,
                                            picks={text for text, _ in ranked}))
            if not settings.ranking:
                ranked = [pick for pick, k in zip(ranked, keeps, strict=True) if k]
            elif marks is not None:
                marks[paper.id] = keeps
            out[paper.id] = ranked
        if tick:
            tick(1)
    return out


def _broad(prior: KeywordPrior, text: str) -> bool:
    """With keyword statistics, a pick that gives way to a longer one it lies in: one
    English word or an umbrella term. A term of another field is specific, the link to
    papers on it: "semaglutide" stays beside "subcutaneous semaglutide"."""
    return one_word(text) and not prior.foreign(text) or prior.umbrella(text)


def rankable(c: Candidate, prior: KeywordPrior, known: KnownTerms) -> bool:
    """With the field's terms, whether a candidate is ranked at all. A word alone that
    authors of the field seldom choose is not a concept; a tail the abstract never uses
    alone repeats the longer phrase it ends ("salesman problem" in "traveling salesman
    problem") unless the field names it on its own ("neural networks" in "graph neural
    networks"): without the field's terms the two cannot be told apart (on ICLR text,
    dropping both cost 1 F1@10 point); a verb's -ing form and its object is a clause
    (`KnownTerms.gerund_clause`)."""
    return not prior.too_generic(c.text) and (
        not c.inside_only or term_key(c.text) in known.keys) and not known.gerund_clause(c)


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
