"""What authors in the field call a keyword: a prior learned from author keywords.

Similarity to the abstract alone favours phrases more specific than the ones people pick
("sparse autoencoder feature steering" over "interpretability"). KEA-style
*keyphraseness* corrects for that: of the papers whose abstract offers a phrase as a
candidate, how many list it as a keyword? Counts are kept per `term_key`, and a paper
that contributed to the counts is left out of them when it is itself scored, so no paper
ever learns from its own keywords.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from paperkg.build.counts import SERIAL, Counts, MapSum
from paperkg.build.fingerprint import source_fingerprint
from paperkg.build.ingest import Paper
from paperkg.build.terms import term_key
from paperkg.build.text import MAX_WORDS, KnownTerms, candidates, clean_text
from paperkg.lexicon import is_acronym, is_common_word, is_known_piece

__all__ = ["MIN_OWN_KEYWORD_PAPERS", "PACKAGED_PRIOR", "SHORT_FORMS", "KeywordPrior",
           "cached_prior", "choose_prior", "code_fingerprint", "corpus_fingerprint",
           "count_candidates", "count_keywords", "learn_prior", "packaged_prior",
           "short_forms"]

# Smoothing toward the corpus base rate (about 3 % of candidates are keywords): a phrase
# seen as a candidate a handful of times cannot get an extreme keyphraseness.
_PSEUDO_COUNT = 4.0
_BASE_RATE = 0.03
MIN_KEYWORD_PAPERS = 2
# A single word stands alone as a concept only if at least this share of the papers
# offering it list it as a keyword (`KeywordPrior.too_generic`): 8 % leaves out
# "manifold", "ensemble", "acceleration" (5-7 %), which readers judged too broad; 5 % kept
# them for 0.2-0.4 more F1@10 against author keywords (the reader wins, issue #14).
SPECIFIC_SHARE = 0.08
_SPECIFIC_LOG_ODDS = math.log(SPECIFIC_SHARE / (1 - SPECIFIC_SHARE))
# A name with a capital inside ("PageRank", "RankNet", "OmniRPC"): a method or system,
# however seldom the statistics saw it.
_CAMEL_NAME = re.compile(r"[A-Z]?[a-z]+(?:[A-Z][A-Za-z]*)+")
# A phrase inside a longer concept of the same paper gives way to it when at least
# UMBRELLA_PAPERS papers offer it and under UMBRELLA_SHARE of them list it as a keyword: an
# umbrella term (`KeywordPrior.umbrella`, `keep.trusted`).
UMBRELLA_SHARE = 0.1
UMBRELLA_PAPERS = 20
_UMBRELLA_LOG_ODDS = math.log(UMBRELLA_SHARE / (1 - UMBRELLA_SHARE))
# A term of the whole field: offered by at least FIELD_PAPERS_SHARE of the papers and
# listed as a keyword by under FIELD_KEYWORD_SHARE of those ("deep learning", "machine
# learning", "computer vision", "gradient descent"; not "large language models", 41 %).
# Named once in an abstract, outside the title, it is the paper's setting, not its topic
# (`KeywordPrior.field_term`, `keep.trusted`).
FIELD_PAPERS_SHARE = 0.02
FIELD_KEYWORD_SHARE = 0.25
_FIELD_LOG_ODDS = math.log(FIELD_KEYWORD_SHARE / (1 - FIELD_KEYWORD_SHARE))
# An input learns its own prior only from this many papers with keywords: from fewer, a
# handful of papers' keywords would decide every score.
MIN_OWN_KEYWORD_PAPERS = 200
# The ICLR 2025 corpus's keyword statistics (bench/build_prior.py): counts per term key.
PACKAGED_PRIOR = Path(__file__).parent / "data" / "keyword_prior.json.gz"
# The long form ICLR 2025 papers define each common acronym as (bench/build_short_forms.py)
SHORT_FORMS = Path(__file__).parent / "data" / "short_forms.json"


@dataclass(slots=True)
class KeywordPrior:
    """Per term key: papers listing it as a keyword, papers offering it as a candidate,
    and papers doing both. Empty when the corpus has no author keywords."""

    keyword: Counter[str] = field(default_factory=Counter)
    candidate: Counter[str] = field(default_factory=Counter)
    both: Counter[str] = field(default_factory=Counter)
    papers: int = 0
    source: str = "the input's author keywords"
    packaged: bool = False  # the ICLR 2025 statistics shipped with paperkg, not the input's
    # `fingerprint`, once: an update asks twice and it costs 0.3 s (the counts are not
    # changed once learned); a KG's stored statistics keep it (`statistics.save_epoch`)
    _fingerprint: str = field(default="", repr=False, compare=False)

    def __bool__(self) -> bool:
        return self.papers > 0

    def known(self) -> KnownTerms:
        """Terms listed as keywords by at least two papers: candidates wherever they occur."""
        return KnownTerms({k for k, n in self.keyword.items() if n >= MIN_KEYWORD_PAPERS})

    def too_generic(self, phrase: str) -> bool:
        """One word (not an acronym) that papers offer as a candidate but seldom choose as
        a keyword (under SPECIFIC_SHARE of the time, smoothed, unseen words at the base
        rate): "convergence", "vectors", "prompt", "unknown" — but not "interpretability",
        "hallucination", "fairness". A word these papers never offered, written in lower
        case, that English does not know either is a term of another field ("graphene",
        "cohomology", "morphogenesis" in the packaged ICLR statistics), not a generic one;
        nor is a name with a capital inside ("PageRank", "AutoGluon", "DeepSpeed")."""
        if " " in phrase or is_acronym(phrase) or _CAMEL_NAME.fullmatch(phrase):
            return False
        key = term_key(phrase)
        if self.foreign(phrase, key):
            return False
        return self.scores(key)[0] < _SPECIFIC_LOG_ODDS

    def foreign(self, phrase: str, key: str | None = None) -> bool:
        """A term of another field: one lower-case word these papers never offered that
        English does not know either ("graphene", "semaglutide", `_foreign_term`)."""
        key = term_key(phrase) if key is None else key
        return self.candidate[key] == 0 and _foreign_term(phrase, key)

    def umbrella(self, phrase: str) -> bool:
        """A phrase many papers offer and few choose (smoothed): "neural network",
        "language models", "loss function"; not "domain adaptation", "clustering", nor a
        phrase too rare to tell."""
        key = term_key(phrase)
        return (self.candidate[key] >= UMBRELLA_PAPERS
                and self.scores(key)[0] < _UMBRELLA_LOG_ODDS)

    def field_term(self, phrase: str) -> bool:
        """A broad term of the field that papers name in passing more than they study it:
        "deep learning", "computer vision", "privacy" (smoothed, the prior's own share)."""
        key = term_key(phrase)
        return (self.candidate[key] >= max(FIELD_PAPERS_SHARE * self.papers, UMBRELLA_PAPERS)
                and self.scores(key)[0] < _FIELD_LOG_ODDS)

    def generic_term(self, phrase: str) -> bool:
        """A term of the whole field that is also an umbrella term, the most generic words
        a paper can use: "neural networks", "machine learning", "latent space" (not
        "attention mechanism", an umbrella of a part of the field; not "compression" or
        "interpretability", which papers study)."""
        return self.field_term(phrase) and self.umbrella(phrase)

    def passing_term(self, phrase: str) -> bool:
        """A term a paper may name in passing, where it stands or what it used rather than
        what it studies: a term of the whole field ("deep learning") or an umbrella term
        ("convolutional neural network", "learning rate"). A short form ("DPO") is no
        umbrella: authors list its long form, which understates its share; it is judged by
        its long form where the field defines it one way ("NLP": "natural language
        processing", a term of the whole field; `short_forms`)."""
        if self.field_term(phrase):
            return True
        if not is_acronym(phrase):
            return self.umbrella(phrase)
        long = short_forms().get(term_key(phrase))
        return long is not None and (self.field_term(long) or self.umbrella(long))

    def fingerprint(self) -> str:
        """A short hash of the counts: the extraction cache depends on it."""
        if not self._fingerprint:
            h = hashlib.sha256()
            for name, counter in (("k", self.keyword), ("c", self.candidate), ("b", self.both)):
                h.update("".join([f"{name}\t{key}\t{counter[key]}\n"
                                  for key in sorted(counter)]).encode())
            self._fingerprint = h.hexdigest()[:16]
        return self._fingerprint

    def scores(
        self, key: str, own_keywords: frozenset[str] = frozenset(), own_candidates:
        frozenset[str] = frozenset()
    ) -> tuple[float, float]:
        """(log-odds keyphraseness, log(1 + keyword papers)), the scored paper left out."""
        kw = self.keyword[key] - (key in own_keywords)
        cand = self.candidate[key] - (key in own_candidates)
        both = self.both[key] - (key in own_keywords and key in own_candidates)
        p = (max(both, 0) + _PSEUDO_COUNT * _BASE_RATE) / (max(cand, 0) + _PSEUDO_COUNT)
        return math.log(p / (1 - p)), math.log1p(max(kw, 0))

    def save(self, path: Path) -> None:
        rows = {"papers": self.papers, "keyword": self.keyword, "candidate": self.candidate,
                "both": self.both}
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            json.dump(rows, fh)

    @classmethod
    def load(cls, path: Path) -> KeywordPrior:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            rows = json.load(fh)
        return cls(Counter(rows["keyword"]), Counter(rows["candidate"]), Counter(rows["both"]),
                   int(rows["papers"]))


def _foreign_term(word: str, key: str) -> bool:
    """A lower-case word of five letters or more that the lexicon does not know, without
    the ending of an adjective or a verb: a technical noun ("graphene", "planarity",
    "hydrodynamics"), not a name (capitalised), a number, a cut word, nor a coined
    adjective or verb ("polysemantic", "robustifies", "misclassifying", "frequentist")."""
    return (word.islower() and key.isalpha() and len(key) >= 5
            and not _NOT_A_NOUN.search(key) and not is_common_word(key)
            and not _glued(key))


def _glued(word: str) -> bool:
    """Words run together by the source ("aunifiedframework"): three English words or
    more; a compound of two ("embryogenesis", "nanowires", "hyperprior") is not. The
    most words the rest of `word` from each position splits into, last position first
    (quadratic, whatever the word)."""
    most = [-1] * len(word) + [0]  # -1: no split into words
    for start in range(len(word) - 1, -1, -1):
        for end in range(start + 1, len(word) + 1):
            head = word[start:end]
            if most[end] >= 0 and (head == "a" or len(head) >= 3 and is_known_piece(head)):
                most[start] = max(most[start], most[end] + 1)
    return most[0] >= 3


# endings of adjectives and verbs; "-ist" names a stance as often as a person
# ("frequentist", "connectionist")
_NOT_A_NOUN = re.compile(r"(?:ic|al|ous|ive|[ai]ble|ful|less|ed|ing|ly|ist|i(?:fy|fies|fied)|"
                         r"i[sz](?:e|es|ed))$")


@cache
def short_forms() -> dict[str, str]:
    """Acronym key → the key of the long form the field defines it as (packaged)."""
    table: dict[str, str] = json.loads(SHORT_FORMS.read_text(encoding="utf-8"))["short_forms"]
    return table


@cache
def packaged_prior() -> KeywordPrior:
    """The keyword statistics of ICLR 2025 that ship with paperkg."""
    prior = KeywordPrior.load(PACKAGED_PRIOR)
    prior.source = "the packaged ICLR 2025 keyword statistics"
    prior.packaged = True
    return prior


def choose_prior(
    papers: Sequence[Paper], doc_text: Callable[[Paper], str], cache_dir: Path | None,
    use_packaged: bool = True, tick: Callable[[int], None] | None = None,
    counter: MapSum | None = None,
) -> KeywordPrior | None:
    """The prior to rank with: learned from the input when at least
    MIN_OWN_KEYWORD_PAPERS of its papers have keywords, else the packaged one (unless
    turned off), else none. `source` says which. `counter` runs the counting (None: in
    this process; a cluster gives the same counts)."""
    n_kw = sum(1 for p in papers if p.keywords)
    if n_kw >= MIN_OWN_KEYWORD_PAPERS:
        prior = cached_prior(papers, doc_text, cache_dir, tick, counter)
        prior.source = "the input's author keywords"
        return prior
    return packaged_prior() if use_packaged else None


def keyword_keys(paper: Paper) -> frozenset[str]:
    return _keys(paper.keywords)


def _keys(keywords: Sequence[str]) -> frozenset[str]:
    return frozenset(k for k in (term_key(clean_text(w)) for w in keywords) if k)


def code_fingerprint() -> str:
    """A hash of the code that cuts and keys phrases, and of the word counts it reads
    (`afterto.VERBS_AFTER_TO`, `SHORT_FORMS`): cached priors and extractions made by other
    code must not be reused."""
    from paperkg.build.afterto import VERBS_AFTER_TO

    return hashlib.sha256(source_fingerprint("paperkg.build.extract", "paperkg.build.prior")
                          .encode() + VERBS_AFTER_TO.read_bytes() + SHORT_FORMS.read_bytes()
                          ).hexdigest()[:24]


def corpus_fingerprint(papers: Sequence[Paper]) -> str:
    """A hash of what a prior is learned from: every paper's text and keywords, and the
    code that reads them."""
    h = hashlib.sha256(code_fingerprint().encode())
    for p in sorted(papers, key=lambda p: p.id):
        h.update(f"{p.id}\x00{p.title}\x00{p.abstract}\x00{p.keywords}\n".encode())
    return h.hexdigest()[:24]


def cached_prior(
    papers: Sequence[Paper], doc_text: Callable[[Paper], str], cache_dir: Path | None,
    tick: Callable[[int], None] | None = None, counter: MapSum | None = None,
) -> KeywordPrior:
    """`learn_prior`, kept under `cache_dir/priors/` by a hash of the corpus."""
    path = cache_dir / "priors" / f"{corpus_fingerprint(papers)}.json.gz" if cache_dir else None
    if path is not None and path.is_file():
        try:
            return KeywordPrior.load(path)
        except (OSError, EOFError, ValueError, KeyError, TypeError, AttributeError) as err:
            print(f"warning: {path}: damaged cached keyword prior ({err}); learning it again",
                  file=sys.stderr)
            path.unlink(missing_ok=True)
    prior = learn_prior(papers, doc_text, tick=tick, counter=counter)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        prior.save(tmp)
        tmp.replace(path)
    return prior


def learn_prior(
    papers: Sequence[Paper],
    doc_text: Callable[[Paper], str],
    max_words: int = MAX_WORDS,
    tick: Callable[[int], None] | None = None,
    counter: MapSum | None = None,
) -> KeywordPrior:
    """Count, over the papers that have author keywords, how often each term is a keyword,
    a candidate of the abstract, and both.

    Two passes, each a sum of per-batch counts (`counter`: here or on a cluster): the
    keyword counts first, since they decide the known terms, which are cut as candidates
    wherever they occur; then each abstract's candidate keys under those known terms.
    """
    counter = counter or SERIAL
    with_keywords = [p for p in papers if p.keywords]
    prior = KeywordPrior(papers=len(with_keywords))
    (prior.keyword,) = counter.map_sum(count_keywords, [p.keywords for p in with_keywords])
    prior.candidate, prior.both = counter.map_sum(
        count_candidates, with_keywords, (doc_text, max_words, prior.known()), tick)
    return prior


def count_keywords(keyword_lists: Sequence[Sequence[str]]) -> Counts:
    """One batch of the first pass: papers listing each term key as a keyword."""
    keyword: Counter[str] = Counter()
    for keywords in keyword_lists:
        keyword.update(_keys(keywords))
    return (keyword,)


def count_candidates(
    papers: Sequence[Paper], doc_text: Callable[[Paper], str], max_words: int,
    known: KnownTerms | None,
) -> Counts:
    """One batch of the second pass: papers offering each term key as a candidate, and
    papers offering it and listing it as a keyword."""
    candidate: Counter[str] = Counter()
    both: Counter[str] = Counter()
    for p in papers:
        cands = candidate_keys(doc_text(p), max_words, known)
        candidate.update(cands)
        both.update(cands & keyword_keys(p))
    return candidate, both


def candidate_keys(text: str, max_words: int, known: KnownTerms | None) -> frozenset[str]:
    return frozenset(term_key(c.text) for c in candidates(text, max_words, known))
