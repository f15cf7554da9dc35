"""Concept hierarchy, topics and fields: "offline reinforcement learning" is a kind of
"reinforcement learning"; concepts that keep appearing together form a topic, and topics
that keep appearing together form a field (OpenAlex's field → topic levels).

- broader: English terms are head-final, so a term's longest proper word-suffix that is
  itself a concept of the scheme is its broader concept ("offline reinforcement learning"
  → "reinforcement learning"). A single plain word is too vague a parent ("deep
  structure" → "structure"), so a parent has two words or more, or is an acronym.
- topics: communities (Louvain, fixed seed) of the concept co-occurrence graph, over the
  concepts at least `min_papers` papers share, linked when `min_together` papers mention
  both, weighted by n(a,b) / sqrt(n(a) n(b)) so a concept joins what it is specific to.
  A hub, a concept more than `hub_share` of the papers mention ("large language models":
  a quarter of ICLR 2025), co-occurs with everything and would pull every stray concept
  into one grab-bag; hubs stay out of the communities and then join the topic they are
  most tied to. A concept tied to nothing but hubs has no topic.
- fields: communities (Louvain) of the topic graph, two topics weighted by the
  co-mentions of their members; every topic is in exactly one field. Hubs are placed
  after the fields: in the field they are most tied to, in its topic they are most tied
  to ("reinforcement learning" in the RL field, not in the RLHF topic of the LLM field).
- names: a topic is named by its most central concept (most co-mentions with the rest of
  the topic), never by a hub; a field by the concept tied to most of its topics (hubs
  included: "large language models"); a multi-word term counts double a single word, a
  dataset or a metric; "X and Y" when two concepts are about as central and go together.
  A name names one collection across both levels (fields choose first; a taken name
  gives way to the next best, never to a number); the most central concepts (of a
  topic) or the largest topics (of a field) are kept as a note.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, combinations

from paperkg.lexicon import is_acronym

__all__ = ["Field", "Topic", "broader_of", "topic_hierarchy"]

#: a runner-up at least this central (vs the most central concept) shares the name
TWIN_CENTRES = 0.8
#: a single word counts this much of its centrality when names are chosen
SINGLE_WORD = 0.5
#: ... and is named with it when they share this share of the rarer one's papers
TOGETHER = 0.2
NOTE_SIZE = 5


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
    """A group of concepts that co-occur (`members`: concept ids, most papers first), in
    one `field`; `label` names it, `note` lists its most central concepts."""

    id: str
    label: str
    members: tuple[str, ...]
    field: str | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class Field:
    """A group of topics that co-occur (`members`: topic ids, largest first)."""

    id: str
    label: str
    members: tuple[str, ...]
    note: str = ""


def topic_hierarchy(
    concept_papers: Mapping[str, int],
    paper_concepts: Iterable[Sequence[str]],
    labels: Mapping[str, str],
    min_papers: int = 3,
    min_size: int = 3,
    min_together: int = 2,
    hub_share: float = 0.02,
    min_hub_papers: int = 50,
    seed: int = 42,
    resolution: float = 8.0,
    field_resolution: float = 2.0,
    kinds: Mapping[str, str] | None = None,
) -> tuple[list[Topic], list[Field]]:
    """Topics (Louvain communities of the concepts that `min_papers` papers share, hubs
    left out and then attached) and fields (communities of the topics), both named."""
    import networkx as nx

    frequent = {c for c, n in concept_papers.items() if n >= min_papers}
    pairs: Counter[tuple[str, str]] = Counter()
    n_papers = 0
    for concepts in paper_concepts:
        n_papers += 1
        kept = sorted(c for c in set(concepts) if c in frequent)
        pairs.update(combinations(kept, 2))
    hubs = {c for c in frequent
            if concept_papers[c] >= max(min_hub_papers, hub_share * n_papers)}
    co: dict[str, dict[str, int]] = defaultdict(dict)
    g = nx.Graph()
    for (a, b), n in sorted(pairs.items()):
        co[a][b] = co[b][a] = n
        if n >= min_together and a not in hubs and b not in hubs:
            g.add_edge(a, b, weight=n / math.sqrt(concept_papers[a] * concept_papers[b]))
    if g.number_of_nodes() == 0:
        return [], []
    groups = [sorted(grp) for grp in nx.community.louvain_communities(
        g, weight="weight", seed=seed, resolution=resolution) if len(grp) >= min_size]
    fields = _fields(groups, co, seed, field_resolution)
    # a hub joins the field it is most tied to, and there the topic it is most tied to
    for hub in sorted(hubs):
        f = _most_tied(hub, [[c for t in f for c in groups[t]] for f in fields], co,
                       concept_papers)
        if f is not None:
            t = _most_tied(hub, [groups[t] for t in fields[f]], co, concept_papers)
            groups[fields[f][t or 0]].append(hub)
    return _named(groups, fields, co, concept_papers, labels, hubs, kinds or {})


def _named(groups: Sequence[Sequence[str]], fields: Sequence[Sequence[int]],
           co: Mapping[str, Mapping[str, int]], concept_papers: Mapping[str, int],
           labels: Mapping[str, str], hubs: Collection[str], kinds: Mapping[str, str]
           ) -> tuple[list[Topic], list[Field]]:
    """Topics and fields with ids (`topic-`/`field-` and their concept with the most
    papers), names and notes; fields are named first, then topics, largest first."""
    def order(c: str) -> tuple[int, str]:
        return -concept_papers[c], c

    def together(a: str, b: str) -> bool:  # one in TOGETHER of the rarer one's papers
        return co[a].get(b, 0) >= TOGETHER * min(concept_papers[a], concept_papers[b])

    plain = {c for g in groups for c in g
             if not _multi_word(labels[c]) or kinds.get(c) in ("Dataset", "Metric")}
    fields = sorted(fields, key=lambda f: (-sum(len(groups[t]) for t in f),
                                           min((c for t in f for c in groups[t]), key=order)))
    field_ids = ["field-" + min((c for t in f for c in groups[t]), key=order) for f in fields]
    field_of = {t: field_ids[i] for i, f in enumerate(fields) for t in f}
    taken: set[str] = set()  # one name names one collection, across both levels
    field_names: list[str] = []
    for f in fields:
        part = {c: n for n, t in enumerate(f) for c in groups[t]}
        field_names.append(_name(_centrality(list(part), co, plain, part=part), together,
                                 labels, taken))
    topics: dict[int, Topic] = {}
    for t in sorted(range(len(groups)), key=lambda t: (-len(groups[t]),
                                                       min(groups[t], key=order))):
        members = sorted(groups[t], key=order)
        central = _centrality(members, co, plain, exclude=hubs)  # >= min_size non-hubs
        topics[t] = Topic(f"topic-{members[0]}", _name(central, together, labels, taken),
                          tuple(members), field_of[t],
                          _note("central concepts", [labels[c] for _, c in central]))
    out_fields: list[Field] = []
    for i, f in enumerate(fields):
        inside = sorted((topics[t] for t in f), key=lambda x: (-len(x.members), x.id))
        out_fields.append(Field(field_ids[i], field_names[i], tuple(x.id for x in inside),
                                _note("topics", [x.label for x in inside])))
    out_topics = sorted(topics.values(), key=lambda x: (-len(x.members), x.id))
    return out_topics, out_fields


def _most_tied(concept: str, groups: Sequence[Sequence[str]],
               co: Mapping[str, Mapping[str, int]], concept_papers: Mapping[str, int]
               ) -> int | None:
    """The group `concept` is most tied to: the most co-mentions with its members, over
    the square root of their paper counts (a cosine with the group as one concept)."""
    best: tuple[float, int] | None = None
    ties = co.get(concept, {})
    for i, group in enumerate(groups):
        together = sum(ties.get(c, 0) for c in group)
        if together:
            score = together / math.sqrt(sum(concept_papers[c] for c in group))
            if best is None or score > best[0]:
                best = (score, i)
    return None if best is None else best[1]


def _fields(groups: Sequence[Sequence[str]], co: Mapping[str, Mapping[str, int]],
            seed: int, resolution: float) -> list[list[int]]:
    """Louvain communities of the topic graph, two topics weighted by the co-mentions of
    their members (lists of topic indexes)."""
    import networkx as nx

    where = {c: t for t, m in enumerate(groups) for c in m}
    weight: Counter[tuple[int, int]] = Counter()
    for a, t in where.items():
        for b, n in co.get(a, {}).items():
            u = where.get(b)
            if u is not None and t < u:
                weight[t, u] += n
    g = nx.Graph()
    g.add_nodes_from(range(len(groups)))
    for (t, u), w in sorted(weight.items()):
        g.add_edge(t, u, weight=w)
    return sorted(sorted(f) for f in nx.community.louvain_communities(
        g, weight="weight", seed=seed, resolution=resolution))


def _centrality(group: Sequence[str], co: Mapping[str, Mapping[str, int]],
                plain: Collection[str], exclude: Collection[str] = (),
                part: Mapping[str, int] | None = None) -> list[tuple[float, str]]:
    """(score, concept) best first: its co-mentions with the rest of the group; in a
    field (`part`: each concept's topic), the sum over the field's topics of the square
    root of its co-mentions with each, so a concept tied to many of them wins. A `plain`
    concept (a single word, a dataset, a metric) counts `SINGLE_WORD` of its score."""
    inside = set(group)
    scored = []
    for c in group:
        if c in exclude:
            continue
        if part is None:
            score = float(sum(n for o, n in co.get(c, {}).items() if o in inside))
        else:
            per: Counter[int] = Counter()
            for o, n in co.get(c, {}).items():
                if o in inside:
                    per[part[o]] += n
            score = sum(math.sqrt(n) for n in per.values())
        scored.append((score * (SINGLE_WORD if c in plain else 1.0), c))
    return sorted(scored, key=lambda s: (-s[0], s[1]))


def _multi_word(label: str) -> bool:
    return len(label.split()) >= 2


def _name(central: Sequence[tuple[float, str]], together: Callable[[str, str], bool],
          labels: Mapping[str, str], taken: set[str]) -> str:
    """The best label not yet taken: "X and Y" for two about equally central concepts
    that go together, else the most central concept's label; a taken one gives way to
    the next best."""
    options: list[str] = []  # then the single names, then other pairs
    if len(central) >= 2 and central[1][0] >= TWIN_CENTRES * central[0][0] > 0:
        (_, a), (_, b) = central[:2]
        x, y = labels[a], labels[b]
        x_, y_ = x.lower().replace("-", " "), y.lower().replace("-", " ")
        if x_ not in y_ and y_ not in x_ and together(a, b):
            options.append(f"{x} and {y}")
    pairs = (f"{labels[a]} and {labels[b]}" for (_, a), (_, b) in combinations(central, 2))
    for name in chain(options, (labels[c] for _, c in central), pairs):
        if name.lower() not in taken and "," not in name:  # a name, not a list
            taken.add(name.lower())
            if " and " in name:  # "Y and X" is the same name
                x, _, y = name.partition(" and ")
                taken.add(f"{y} and {x}".lower())
            return name
    raise AssertionError("the members of disjoint groups name them apart")


def _note(what: str, names: Sequence[str]) -> str:
    """`what` and the first NOTE_SIZE of `names` (best first): "topics: a, b, c, …"."""
    more = ", …" if len(names) > NOTE_SIZE else ""
    return f"{what}: " + ", ".join(names[:NOTE_SIZE]) + more
