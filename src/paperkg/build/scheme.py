"""The concept scheme's data: concepts, mentions, merge decisions, topics and fields.

Only the data, so that the stages that make it (`canon`, `naming`) and the modules that
read it (`rdf`, `delta`, `graph`) share it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from paperkg.build.hierarchy import Field, Topic

__all__ = ["Concept", "ConceptScheme", "Mention", "Merge"]


@dataclass(frozen=True, slots=True)
class Concept:
    """A canonical concept. `id` is a slug, unique in the scheme, used in its IRI."""

    id: str
    pref_label: str
    alt_labels: tuple[str, ...]
    paper_count: int
    weight: float
    kind: str = "Concept"
    broader: str | None = None
    topic: str | None = None


@dataclass(frozen=True, slots=True)
class Mention:
    """One paper-concept link: rank 1 is the best concept of the paper. `role` says what
    the paper does with it: "mentions", "proposes" or "evaluatesOn"."""

    concept_id: str
    surface: str
    score: float
    rank: int
    role: str = "mentions"


@dataclass(frozen=True, slots=True)
class Merge:
    """Why `label` is an alternative label of `concept_id`."""

    label: str
    concept_id: str
    rule: str
    detail: str
    paper_id: str | None = None
    local: bool = False  # true: only the paper `paper_id` defines it so


@dataclass(slots=True)
class ConceptScheme:
    concepts: dict[str, Concept]
    mentions: dict[str, list[Mention]]
    merges: list[Merge] = field(default_factory=list)
    topics: list[Topic] = field(default_factory=list)
    fields: list[Field] = field(default_factory=list)  # groups of topics, one level up
    # how each concept's capitalised spellings read in prose, by concept key, with a hash
    # of the papers that use it (`preferred_label`): an update reuses what still holds
    casing: dict[str, tuple[str, dict[str, str]]] = field(
        default_factory=dict, compare=False, repr=False)

