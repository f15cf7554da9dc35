"""The corpus-wide statistics a paper's ranking reads, always over the whole corpus.

A paper's concepts depend on its own text and on two statistics of the corpus it is built
in: the keyword prior and the corpus share (how many papers offer each phrase as a
candidate). Both are computed here over every paper of the build, never over the papers
that happen to miss the extraction cache; their fingerprint goes into the extractor's
parameters, which key the cache. So a build's result depends on its inputs and settings
only, whatever the cache holds (issue #11: a partly filled cache used to change the KG).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from paperkg.build.counts import SERIAL, Counts, MapSum
from paperkg.build.extract import CorpusShare
from paperkg.build.ingest import Paper
from paperkg.build.prior import KeywordPrior, candidate_keys
from paperkg.build.text import MAX_WORDS, KnownTerms, document_text

__all__ = ["CorpusStats", "corpus_stats", "count_share"]

Stage = Callable[[str, int], Callable[[int], None]]


@dataclass(frozen=True, slots=True)
class CorpusStats:
    """What ranking needs from the corpus, and one fingerprint of it."""

    prior: KeywordPrior | None
    share: CorpusShare
    fingerprint: str


def corpus_stats(
    papers: Sequence[Paper], prior: KeywordPrior | None, max_words: int = MAX_WORDS,
    stage: Stage | None = None, counter: MapSum | None = None,
) -> CorpusStats:
    """The corpus share of `papers` (all of them), with the prior it was counted under.

    A prior learned from `papers` already counts, for every paper with author keywords,
    the candidate keys its abstract offers (with the same known terms and the same
    cutting), so only the papers without keywords are cut here: a warm build does not
    re-cut the whole corpus. A packaged prior counted another corpus: all are cut.
    `counter` cuts them (None: in this process; a cluster gives the same counts), under
    a progress `stage` (`Reporter.stage`).
    """
    known = prior.known() if prior else None
    df: Counter[str] = Counter()
    rest: Sequence[Paper] = papers
    h = hashlib.sha256(f"{len(papers)}\x00{max_words}\n".encode())
    if prior and not prior.packaged and max_words == MAX_WORDS:
        df.update(prior.candidate)
        rest = [p for p in papers if not p.keywords]
        h.update(prior.fingerprint().encode())
    tick = stage("corpus share", len(rest)) if stage else None
    (own,) = (counter or SERIAL).map_sum(count_share, rest, (max_words, known), tick)
    for key in sorted(own):
        h.update(f"{key}\t{own[key]}\n".encode())
    df.update(own)
    return CorpusStats(prior, CorpusShare.from_counts(df, len(papers)), h.hexdigest()[:16])


def count_share(papers: Sequence[Paper], max_words: int, known: KnownTerms | None) -> Counts:
    """One batch: papers offering each term key as a candidate."""
    own: Counter[str] = Counter()
    for p in papers:
        own.update(candidate_keys(document_text(p), max_words, known))
    return (own,)
