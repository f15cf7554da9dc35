"""`--extractor keybert`: KeyBERT's own `extract_keywords` on paperkg's candidates.

KeyBERT ranks by cosine to the document and diversifies with its MMR. Here it runs in
one batch over every paper with paperkg's embeddings passed in (its `doc_embeddings` and
`word_embeddings`), and a vectorizer whose vocabulary is every candidate phrase of the
batch and which offers each document exactly its own candidates — so the phrases are
paperkg's (no clause-crossing n-grams) and the vectors the embedder's, while the scoring
and the selection are KeyBERT's. This is the classic output to compare with; the default
extractor adds the features KeyBERT has no place for (a learned probability, the keyword
prior) and so cannot call KeyBERT's MMR, which takes cosine as relevance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from paperkg.build.embed import Embedder
from paperkg.build.ingest import Paper
from paperkg.build.text import Candidate

__all__ = ["keybert_rank"]


def keybert_rank(
    papers: Sequence[Paper], docs: Sequence[str], cands: Sequence[Sequence[Candidate]],
    vocab: Sequence[str], phrase_vecs: np.ndarray, doc_vecs: np.ndarray, embedder: Embedder,
    top_n: int, diversity: float,
) -> dict[str, list[tuple[str, float]]]:
    """(phrase, cosine) per paper id, as KeyBERT's extract_keywords picks them."""
    from keybert import KeyBERT
    from keybert.backend import BaseEmbedder
    from sklearn.feature_extraction.text import CountVectorizer

    class Backend(BaseEmbedder):
        """KeyBERT's view of the paperkg embedder (unused when embeddings are given)."""

        def embed(self, documents: list[str], verbose: bool = False) -> Any:
            return embedder.encode(list(documents))

    own = {i: sorted({c.text.lower() for c in cs}) for i, cs in enumerate(cands)}
    # the vectorizer sees each document as its index, so equal texts keep their own lists
    vectorizer = CountVectorizer(analyzer=lambda i: own[int(i)], vocabulary=list(vocab))
    spelled = [{c.text.lower(): c.text for c in cs} for cs in cands]
    out: dict[str, list[tuple[str, float]]] = {p.id: [] for p in papers}
    todo = [i for i in range(len(papers)) if own[i]]
    if not todo:
        return out
    picked = KeyBERT(Backend()).extract_keywords(
        [str(i) for i in todo], vectorizer=vectorizer, use_mmr=True, diversity=diversity,
        top_n=top_n, doc_embeddings=doc_vecs[todo], word_embeddings=phrase_vecs)
    if todo and len(todo) == 1:
        picked = [picked]
    for i, keywords in zip(todo, picked, strict=True):
        out[papers[i].id] = [(spelled[i][w], float(s)) for w, s in keywords]
    return out
