"""Choosing a paper's concepts from its scored candidates: the logistic model's most probable,
then Maximal Marginal Relevance, so that one idea never fills the list.

`mmr` is KeyBERT's MMR (`keybert._mmr.mmr`, same picks: `tests/test_extract.py`) with two
changes it cannot take as a library call: relevance may be a learned probability instead of
the cosine, and nested phrases ("model fusion" / "deep model fusion") count against each
other.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["mmr", "nested_pairs", "select"]


def mmr(
    doc: np.ndarray, words: np.ndarray, top_n: int, diversity: float,
    relevance: np.ndarray | None = None, nested: np.ndarray | None = None,
    max_nested: int = 1,
) -> list[tuple[int, float]]:
    """Maximal Marginal Relevance over unit vectors: (index, relevance), best first.

    Relevance is the cosine to `doc` unless given (paperkg passes its keyword probability).
    `nested[i, j]` marks phrases one of which contains the other's words ("model fusion" /
    "deep model fusion techniques"): a pick may have at most `max_nested` nested partners
    among the picks, so one idea never fills the list ("model fusion | deep model fusion |
    model fusion techniques" keeps two). Without `nested` this is KeyBERT's
    `keybert._mmr.mmr`.
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
    partners = np.zeros(len(words), dtype=int)  # nested partners among the picks
    for _ in range(min(top_n, len(words)) - 1):
        score = (1 - diversity) * relevance - diversity * best_sim
        score[~remaining] = -np.inf
        if nested is not None:
            links = nested[:, chosen]
            full = links & (partners[chosen] >= max_nested)[None, :]
            score[full.any(axis=1) | (links.sum(axis=1) > max_nested)] = -np.inf
        if not np.isfinite(score).any():
            break
        pick = int(np.argmax(score))
        if nested is not None:
            mates = [c for c in chosen if nested[pick, c]]
            partners[mates] += 1
            partners[pick] += len(mates)
        chosen.append(pick)
        remaining[pick] = False
        best_sim = np.maximum(best_sim, pairwise[:, pick])
    ranked = sorted(chosen, key=lambda i: -relevance[i])
    return [(i, round(float(relevance[i]), 4)) for i in ranked]


def nested_pairs(keys: Sequence[str]) -> np.ndarray:
    """`nested[i, j]`: the words of one key are all words of the other."""
    sets = [frozenset(k.split()) for k in keys]
    n = len(sets)
    out = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1, n):
            if sets[i] <= sets[j] or sets[j] <= sets[i]:
                out[i, j] = out[j, i] = True
    return out


def select(
    x: np.ndarray, weights: np.ndarray, bias: float, vecs: np.ndarray, doc_vec: np.ndarray,
    top_n: int, diversity: float, nr_candidates: int, keys: Sequence[str] | None = None,
) -> list[tuple[int, float]]:
    """(candidate index, keyword probability) of the picks: the logistic model's
    `nr_candidates` most probable, then MMR over them by that probability (as a share of
    the best one's), with at most one pick nested in another (given the candidates'
    `keys`)."""
    prob = 1.0 / (1.0 + np.exp(-(x @ weights + bias)))
    keep = np.argsort(-prob, kind="stable")[:nr_candidates]
    nested = nested_pairs([keys[i] for i in keep]) if keys is not None else None
    # as a share of the best: MMR weighs it against cosine similarity, and where every
    # probability is under 0.05 (text unlike ICLR) similarity alone chose the tail
    kept = prob[keep]
    picked = mmr(doc_vec, vecs[keep], top_n, diversity, kept / kept.max() if len(kept) else kept,
                 nested)
    return [(int(keep[i]), round(float(kept[i]), 4)) for i, _ in picked]
