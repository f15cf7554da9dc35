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
from collections.abc import Collection, Iterable, Sequence
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
    vocab, matrix = _count(((None, text) for text in texts), {})
    return _shared(vocab, matrix, 2)


def write_term_counts(path: Path, ids: Sequence[str], texts: Sequence[str],
                      previous: tuple[Path, Collection[str]] | None = None) -> None:
    """Each paper's term counts, for `Lexicon.load` (which keeps the terms of two or more
    papers). The file keeps every term, so that an update counts only its new papers:
    `previous` is an older file and the ids whose text is unchanged since, whose rows are
    taken from it."""
    vocab: dict[str, int] = {}
    rows: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if previous is not None:
        vocab, rows = _reusable(*previous)
    vocab_list, matrix = _count(((rows.get(i), text) for i, text in zip(ids, texts,
                                                                         strict=True)), vocab)
    vocab_list, matrix = _shared(vocab_list, matrix, 1)  # a removed paper's terms go
    # uncompressed, and the vocabulary as one string: loads in a fraction of a second
    np.savez(path, ids=np.array(ids),
             vocab=np.frombuffer("\n".join(vocab_list).encode(), np.uint8),
             data=matrix.data, indices=matrix.indices, indptr=matrix.indptr,
             shape=np.array(matrix.shape), every_term=np.array(True))


def _count(docs: Iterable[tuple[tuple[np.ndarray, np.ndarray] | None, str]],
           vocab: dict[str, int]) -> tuple[list[str], sparse.csr_matrix]:
    """Count each text's terms into `vocab` (extended in place), or take its row as given
    (column ids of `vocab`, counts)."""
    indptr, indices, data = [0], [], []
    for row, text in docs:
        if row is not None:
            indices.extend(row[0].tolist())
            data.extend(row[1].tolist())
        else:
            for term, n in Counter(terms(text)).items():
                indices.append(vocab.setdefault(term, len(vocab)))
                data.append(n)
        indptr.append(len(indices))
    matrix = sparse.csr_matrix((np.array(data, dtype=np.float32),
                                np.array(indices, dtype=np.int32), np.array(indptr)),
                               shape=(len(indptr) - 1, len(vocab)))
    return list(vocab), matrix


def _shared(vocab: Sequence[str], matrix: sparse.csr_matrix, min_papers: int
            ) -> tuple[list[str], sparse.csr_matrix]:
    """Only the terms of at least `min_papers` rows."""
    keep = np.flatnonzero(np.bincount(matrix.indices, minlength=len(vocab)) >= min_papers)
    return [vocab[i] for i in keep.tolist()], matrix[:, keep].tocsr()


def _reusable(path: Path, unchanged: Collection[str]
              ) -> tuple[dict[str, int], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """An older file's vocabulary and the rows of its unchanged papers; nothing if it
    is missing or kept only the shared terms (written before files kept every term)."""
    if not path.is_file():
        return {}, {}
    with np.load(path) as z:
        if "every_term" not in z.files:
            return {}, {}
        indptr, indices, data = z["indptr"], z["indices"], z["data"]
        vocab = z["vocab"].tobytes().decode("utf-8").split("\n") if int(z["shape"][1]) \
            else []
        rows = {pid: (indices[indptr[r]:indptr[r + 1]], data[indptr[r]:indptr[r + 1]])
                for r, pid in enumerate(z["ids"].tolist()) if pid in unchanged}
    return {t: i for i, t in enumerate(vocab)}, rows


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
        """The terms of two or more papers of a `write_term_counts` file."""
        with np.load(path) as z:
            shape = tuple(int(x) for x in z["shape"])
            counts = sparse.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=shape)
            vocab = z["vocab"].tobytes().decode("utf-8").split("\n") if shape[1] else []
            ids = [str(i) for i in z["ids"]]
        vocab, counts = _shared(vocab, counts, 2)
        return cls(ids, vocab, counts)

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
