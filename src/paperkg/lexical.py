"""Words and word pairs of a paper's title and abstract: search terms and text similarity.

Both sides use this: the build counts each paper's terms once into the KG directory
(`TERMS`), the read side searches with the same `tokens` and ranks related papers partly by
TF-IDF cosine of those counts. The specific vocabulary of a line of work (a method's or
dataset's name, its word pairs) is what ties its papers together, and the ten concepts a
paper keeps do not hold all of it (bench/bench_related_authors.py).
"""

from __future__ import annotations

import io
import itertools
import re
import unicodedata
from array import array
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from paperkg.lexicon import FUNCTION_WORDS, singular

__all__ = ["Lexicon", "terms", "tokens", "write_term_counts"]

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


def write_term_counts(path: Path, ids: Sequence[str], texts: Iterable[str],
                      previous: tuple[Path, Collection[str]] | None = None) -> None:
    """Each paper's term counts, for `Lexicon.load` (which keeps the terms of two or more
    papers). The file keeps every term, so that an update counts only its new papers:
    `previous` is an older file and the ids whose text is unchanged since, whose rows are
    taken from it. Its vocabulary stays one string: a dictionary of its 750,000 terms
    would cost an update 120 MB. `texts` (aligned with `ids`) is read once, so it may be
    a generator: the texts of a 46k-paper corpus are 70 MB as one list."""
    old = _OldCounts.read(*previous) if previous is not None else None
    columns: dict[str, int] = {}
    start = 0
    rows = _Rows()
    if old is None:  # a build: every row from its text, in one pass
        for _, text in zip(ids, texts, strict=True):
            rows.add_counts(Counter(terms(text)), columns)
    else:  # each new paper's term: its old column, else the next new one
        fresh = {i: Counter(terms(t)) for i, t in zip(ids, texts, strict=True)
                 if i not in old.row_of}
        start = old.n_terms
        columns = old.columns_of({t for c in fresh.values() for t in c})
        n_new = 0
        for term in (t for c in fresh.values() for t in c):
            if term not in columns:
                columns[term] = start + n_new
                n_new += 1
        for pid in ids:
            if pid in old.row_of:
                rows.add(*old.row(pid))
            else:
                rows.add_counts(fresh[pid], columns)
    # the new columns were numbered in the order they were met: no sort
    added = [t for t, j in columns.items() if j >= start]
    del columns
    matrix = rows.matrix(start + len(added))
    del rows
    keep = np.bincount(matrix.indices, minlength=matrix.shape[1]) > 0  # a removed paper's go
    vocab = _vocabulary(old.blob if old else "", added, keep)
    del added
    if not keep.all():
        matrix = matrix[:, np.flatnonzero(keep)].tocsr()
    # uncompressed, and the vocabulary as one string: loads in a fraction of a second
    np.savez(path, ids=np.array(ids), vocab=np.frombuffer(vocab.encode(), np.uint8),
             data=matrix.data, indices=matrix.indices, indptr=matrix.indptr,
             shape=np.array(matrix.shape), every_term=np.array(True))


class _Rows:
    """A CSR matrix's rows appended one at a time into flat arrays: a pair of numpy arrays
    a row and their concatenation took 390 MB of a 46k-paper build's last step."""

    def __init__(self) -> None:
        self.indices, self.data, self.indptr = array("i"), array("f"), array("q", [0])

    def add(self, columns: np.ndarray, counts: np.ndarray) -> None:
        self.indices.frombytes(columns.astype(np.int32, copy=False).tobytes())
        self.data.frombytes(counts.astype(np.float32, copy=False).tobytes())
        self.indptr.append(len(self.indices))

    def add_counts(self, counts: Counter[str], columns: dict[str, int]) -> None:
        """One text's counts; a term not in `columns` gets the next column (added to it)."""
        self.indices.extend([columns.setdefault(term, len(columns)) for term in counts])
        self.data.extend(counts.values())
        self.indptr.append(len(self.indices))

    def matrix(self, n_terms: int) -> sparse.csr_matrix:
        return sparse.csr_matrix(
            (np.frombuffer(self.data, np.float32), np.frombuffer(self.indices, np.int32),
             np.frombuffer(self.indptr, np.int64)), shape=(len(self.indptr) - 1, n_terms))


def _shared(vocab: Sequence[str], matrix: sparse.csr_matrix, min_papers: int
            ) -> tuple[list[str], sparse.csr_matrix]:
    """Only the terms of at least `min_papers` rows."""
    keep = np.flatnonzero(np.bincount(matrix.indices, minlength=len(vocab)) >= min_papers)
    return [vocab[i] for i in keep.tolist()], matrix[:, keep].tocsr()


_TERM = re.compile(r"[^\n]+")  # the vocabulary string's terms, in column order


def _vocabulary(blob: str, added: Sequence[str], keep: np.ndarray) -> str:
    """The old vocabulary string and the added terms: the kept columns', one a line."""
    if keep.all():
        return "\n".join([blob, *added] if blob else added)
    out = io.StringIO()
    every = itertools.chain((m.group() for m in _TERM.finditer(blob)), added)
    for term, kept in zip(every, keep.tolist(), strict=True):
        if kept:
            out.write(f"\n{term}" if out.tell() else term)
    return out.getvalue()


class _OldCounts:
    """An older term-count file: its vocabulary as one string, the rows of its papers
    whose text is unchanged."""

    def __init__(self, blob: str, n_terms: int, indptr: np.ndarray, indices: np.ndarray,
                 data: np.ndarray, row_of: dict[str, int]) -> None:
        self.blob, self.n_terms, self.row_of = blob, n_terms, row_of
        self.indptr, self.indices, self.data = indptr, indices, data

    @classmethod
    def read(cls, path: Path, unchanged: Collection[str]) -> _OldCounts | None:
        """None if missing, or written before files kept every term."""
        if not path.is_file():
            return None
        with np.load(path) as z:
            if "every_term" not in z.files:
                return None
            row_of = {pid: r for r, pid in enumerate(z["ids"].tolist()) if pid in unchanged}
            return cls(z["vocab"].tobytes().decode("utf-8"), int(z["shape"][1]), z["indptr"],
                       z["indices"], z["data"], row_of)

    def row(self, pid: str) -> tuple[np.ndarray, np.ndarray]:
        r = self.row_of[pid]
        a, b = self.indptr[r], self.indptr[r + 1]
        return self.indices[a:b], self.data[a:b]

    def columns_of(self, wanted: Collection[str]) -> dict[str, int]:
        """The column of each wanted term the file has (one pass over its vocabulary)."""
        if not wanted:
            return {}
        return {m.group(): j for j, m in enumerate(_TERM.finditer(self.blob))
                if m.group() in wanted}


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
