"""Concept hierarchy and topics: "offline reinforcement learning" is a kind of
"reinforcement learning", and concepts that keep appearing together form a topic.

- broader: English terms are head-final, so a term's longest proper word-suffix that is
  itself a concept of the scheme is its broader concept ("offline reinforcement learning"
  → "reinforcement learning"). A single plain word is too vague a parent ("deep
  structure" → "structure"), so a parent has two words or more, or is an acronym.
- topics: communities (Louvain, fixed seed) of the concept co-occurrence graph, over the
  concepts that at least `min_papers` papers share; each topic is named by its most
  common concepts. This is what a user browses, like OpenAlex's topic level.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from paperkg.lexicon import is_acronym

__all__ = ["Topic", "broader_of", "topics"]


def broader_of(keys: Iterable[str]) -> dict[str, str]:
    """child key → broader key, by the longest word-suffix that is also a key."""
    present = set(keys)
    out: dict[str, str] = {}
    for key in present:
        words = key.split()
        for i in range(1, len(words)):
            parent = " ".join(words[i:])
            if parent in present and (i < len(words) - 1 or is_acronym(words[-1])):
                out[key] = parent
                break
    return out


@dataclass(frozen=True, slots=True)
class Topic:
    """A group of concepts that co-occur; `label` names it by its three biggest members."""

    id: str
    label: str
    members: tuple[str, ...]


def topics(
    concept_papers: Mapping[str, int],
    paper_concepts: Iterable[Sequence[str]],
    labels: Mapping[str, str],
    min_papers: int = 3,
    min_size: int = 3,
    min_together: int = 2,
    seed: int = 42,
    resolution: float = 5.0,
) -> list[Topic]:
    """Louvain communities of the graph of concepts shared by `min_papers` papers, linked
    when `min_together` papers mention both."""
    import networkx as nx

    frequent = {c for c, n in concept_papers.items() if n >= min_papers}
    pairs: Counter[tuple[str, str]] = Counter()
    for concepts in paper_concepts:
        kept = sorted(c for c in set(concepts) if c in frequent)
        pairs.update(combinations(kept, 2))
    g = nx.Graph()
    for (a, b), n in pairs.items():
        if n >= min_together:
            g.add_edge(a, b, weight=n)
    if g.number_of_nodes() == 0:
        return []
    groups = nx.community.louvain_communities(g, weight="weight", seed=seed,
                                            resolution=resolution)
    ordered = sorted((sorted(grp, key=lambda c: (-concept_papers[c], c)) for grp in groups
                      if len(grp) >= min_size), key=lambda m: (-len(m), m[0]))
    out: list[Topic] = []
    for members in ordered:
        label = ", ".join(labels[c] for c in members[:3])
        out.append(Topic(f"topic-{members[0]}", label, tuple(members)))
    return out
