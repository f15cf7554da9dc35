"""Words and word pairs of a paper's title and abstract: search terms and text similarity.

Both sides use this: the build counts each paper's terms once into the KG directory
(`TERMS`), the read side searches with the same `tokens` and ranks related papers partly by
TF-IDF cosine of those counts. The specific vocabulary of a line of work (a method's or
dataset's name, its word pairs) is what ties its papers together, and the ten concepts a
paper keeps do not hold all of it (bench/bench_related_authors.py).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from paperkg.lexicon import FUNCTION_WORDS, singular

__all__ = ["Lexicon", "term_counts", "terms", "tokens", "write_term_counts"]

_WORD = re.compile(r"[^\W_]+")


def tokens(text: str) -> list[str]:
    """Search terms: NFKC, case-folded words; stop words (`lexicon.FUNCTION_WORDS`)
    dropped, plurals made singular (`lexicon.singular`)."""
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    return [singular(w) for w in words if w not in FUNCTION_WORDS]


def terms(text: str) -> list[str]:
    """`tokens` and the pairs of adjacent tokens ("graph neural" …)."""
    toks = tokens(text)
    return toks + [f"{a} {b}" for a, b in zip(toks, toks[1:], strict=False)]


def term_counts(texts: Iterable[str]) -> tuple[list[str], sparse.csr_matrix]:
    """(vocabulary, documents × terms count matrix) of `texts`, keeping only the terms of
    at least two texts: a term of one paper ties it to nothing."""
    vocab: dict[str, int] = {}
    indptr, indices, data = [0], [], []
    for text in texts:
        for term, n in Counter(terms(text)).items():
            indices.append(vocab.setdefault(term, len(vocab)))
            data.append(n)
        indptr.append(len(indices))
    matrix = sparse.csr_matrix((np.array(data, dtype=np.float32),
                                np.array(indices, dtype=np.int32), np.array(indptr)),
                               shape=(len(indptr) - 1, len(vocab)))
    keep = np.flatnonzero(np.bincount(matrix.indices, minlength=len(vocab)) >= 2)
    names = list(vocab)
    return [names[i] for i in keep], matrix[:, keep].tocsr()


def write_term_counts(path: Path, ids: Sequence[str], texts: Sequence[str]) -> None:
    """Each paper's term counts, for `Lexicon.load` (a compressed .npz)."""
    vocab, matrix = term_counts(texts)
    # uncompressed, and the vocabulary as one string: loads in a fraction of a second
    np.savez(path, ids=np.array(ids), vocab=np.frombuffer("\n".join(vocab).encode(), np.uint8),
             data=matrix.data, indices=matrix.indices, indptr=matrix.indptr,
             shape=np.array(matrix.shape))


class Lexicon:
    """TF-IDF rows (sublinear tf, smoothed idf, terms in at least two papers, unit length)
    of every paper, and each paper's set of terms."""

    def __init__(self, ids: Sequence[str], vocab: Sequence[str], counts: sparse.csr_matrix
                 ) -> None:
        self.ids = list(ids)
        self.id_array = np.array(self.ids, dtype=object)
        self.row = {p: i for i, p in enumerate(self.ids)}
        self.vocab = {t: i for i, t in enumerate(vocab)}
        self.counts = counts
        df = np.bincount(counts.indices, minlength=counts.shape[1])
        idf = np.log((1 + counts.shape[0]) / (1 + df)) + 1.0
        idf[df < 2] = 0.0  # a term of one paper ties it to nothing
        tfidf = counts.copy()
        tfidf.data = (1.0 + np.log(tfidf.data)).astype(np.float32)
        tfidf = tfidf.multiply(idf.astype(np.float32)).tocsr()
        norms = np.sqrt(np.asarray(tfidf.multiply(tfidf).sum(axis=1))).ravel()
        norms[norms == 0] = 1.0
        self.tfidf = sparse.diags(1.0 / norms).dot(tfidf).tocsr()
        self._by_term = self.tfidf.T.tocsr()  # a term's row: its weight in every paper
        self._phrases: dict[str, frozenset[int] | None] = {}

    @classmethod
    def load(cls, path: Path) -> Lexicon:
        with np.load(path) as z:
            shape = tuple(int(x) for x in z["shape"])
            counts = sparse.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=shape)
            vocab = z["vocab"].tobytes().decode("utf-8").split("\n")
            return cls([str(i) for i in z["ids"]], vocab if shape[1] else [], counts)

    def rows(self, paper_ids: Iterable[str]) -> NDArray[np.intp]:
        """Each paper's row (-1 for a paper it does not hold)."""
        row = self.row
        return np.array([row.get(p, -1) for p in paper_ids], dtype=np.intp)

    def similarity(self, paper_id: str) -> NDArray[np.float64]:
        """Cosine of `paper_id`'s row with every paper's (aligned with `ids`); zeros for
        a paper it does not hold."""
        if paper_id not in self.row:
            return np.zeros(len(self.ids))
        row = self.tfidf[self.row[paper_id]]  # only its terms' rows: ~1 ms on 11k papers
        return np.asarray(self._by_term[row.indices].T @ row.data, dtype=np.float64).ravel()

    def terms_of(self, paper_id: str) -> frozenset[int]:
        """The vocabulary ids of the words and word pairs in a paper's title or abstract."""
        row = self.row.get(paper_id)
        if row is None:
            return frozenset()
        return frozenset(self.counts.indices[self.counts.indptr[row]:
                                             self.counts.indptr[row + 1]].tolist())

    def phrase_terms(self, phrase: str) -> frozenset[int] | None:
        """The vocabulary ids of a phrase's words and word pairs; None if one is unknown
        (then no paper's text holds the whole phrase)."""
        found = self._phrases.get(phrase)
        if found is None and phrase not in self._phrases:
            wanted = [self.vocab.get(t) for t in terms(phrase)]
            found = frozenset(t for t in wanted if t is not None) if wanted and None not in \
                wanted else None
            self._phrases[phrase] = found
        return found
