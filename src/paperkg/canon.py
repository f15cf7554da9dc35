"""Turn extracted phrases into corpus-wide concepts: one node per concept, not per spelling.

This first pass merges case, hyphen/space and plural variants of the same phrase
("Language Models", "language-model", "language model") under one normalised key, picks
the most common surface form as the preferred label, and weights each concept by how
rare it is in the corpus (so sharing a rare concept says more than sharing a common one).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Concept", "ConceptScheme", "Mention", "build_scheme", "concept_key", "slugify"]

_INVARIANT_S = (
    "ss", "us", "is", "ics", "ous", "ness", "ias", "sis", "xis", "sus", "ys",
)
_IRREGULAR = {"indices": "index", "matrices": "matrix", "vertices": "vertex", "data": "data",
              "analyses": "analysis", "hypotheses": "hypothesis", "criteria": "criterion",
              "phenomena": "phenomenon", "children": "child", "people": "person"}


@dataclass(frozen=True, slots=True)
class Concept:
    """A canonical concept. `id` is a slug, unique in the scheme, used in its IRI."""

    id: str
    pref_label: str
    alt_labels: tuple[str, ...]
    paper_count: int
    weight: float


@dataclass(frozen=True, slots=True)
class Mention:
    """One paper-concept link as extracted: rank 1 is the best concept of the paper."""

    concept_id: str
    surface: str
    score: float
    rank: int


@dataclass(slots=True)
class ConceptScheme:
    concepts: dict[str, Concept]
    mentions: dict[str, list[Mention]]


def singular(word: str) -> str:
    """English plural to singular for the last word of a term; conservative on purpose."""
    lower = word.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if len(lower) <= 3 or not lower.endswith("s") or lower.endswith(_INVARIANT_S):
        return lower
    if lower.endswith("ies") and len(lower) > 4:
        return lower[:-3] + "y"
    if lower.endswith(("sses", "shes", "ches", "xes", "zes")):
        return lower[:-2]
    return lower[:-1]


def concept_key(phrase: str) -> str:
    """The merge key: lower case, hyphens as spaces, last word singular."""
    words = re.sub(r"[-\u2010-\u2015/]+", " ", phrase.lower()).split()
    if not words:
        return ""
    if not words[-1].isupper():
        words[-1] = singular(words[-1])
    return " ".join(words)


def slugify(text: str) -> str:
    """An IRI-safe slug: lower-case ascii letters, digits and single hyphens."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "concept"


def build_scheme(
    extracted: Mapping[str, Sequence[tuple[str, float]]],
) -> ConceptScheme:
    """Group every paper's ranked (phrase, score) list into concepts and mentions."""
    surfaces: dict[str, Counter[str]] = defaultdict(Counter)
    papers_of: dict[str, set[str]] = defaultdict(set)
    for paper_id, phrases in extracted.items():
        for phrase, _score in phrases:
            key = concept_key(phrase)
            if key:
                surfaces[key][phrase] += 1
                papers_of[key].add(paper_id)

    n_papers = max(len(extracted), 1)
    concepts: dict[str, Concept] = {}
    id_of_key: dict[str, str] = {}
    for key in sorted(surfaces, key=lambda k: (-len(papers_of[k]), k)):
        forms = surfaces[key]
        pref = _preferred(forms)
        cid = slugify(key)
        if cid in concepts:  # two keys that slug alike ("c++" / "c"): keep both, apart
            n = 2
            while f"{cid}-{n}" in concepts:
                n += 1
            cid = f"{cid}-{n}"
        count = len(papers_of[key])
        concepts[cid] = Concept(
            id=cid,
            pref_label=pref,
            alt_labels=tuple(sorted(f for f in forms if f != pref)),
            paper_count=count,
            weight=round(math.log((1 + n_papers) / (1 + count)) + 1.0, 4),
        )
        id_of_key[key] = cid

    mentions: dict[str, list[Mention]] = {}
    for paper_id, phrases in extracted.items():
        links: list[Mention] = []
        used: set[str] = set()
        for phrase, score in phrases:
            key = concept_key(phrase)
            found = id_of_key.get(key)
            if found is None or found in used:
                continue
            used.add(found)
            links.append(Mention(found, phrase, float(score), len(links) + 1))
        mentions[paper_id] = links
    return ConceptScheme(concepts, mentions)


def _preferred(forms: Counter[str]) -> str:
    """Most frequent form; ties go to the lower-case, then the shorter spelling."""
    return min(forms, key=lambda f: (-forms[f], f != f.lower(), len(f), f))
