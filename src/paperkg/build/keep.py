"""Which of a paper's picks a KG keeps: its best few, then the likely ones, never an aside
or a repetition of a kept pick.

The ranking (`extract`) orders every candidate; a KG shows what a reader would tag the
paper with, so what is kept is decided here, once (`--extractor keybert` keeps KeyBERT's
whole list, to show it as KeyBERT gives it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from paperkg.build.asides import NO_ASIDES, Asides
from paperkg.build.grammar import degree_compound
from paperkg.build.terms import term_key
from paperkg.lexicon import GENERIC_MODIFIERS, KIND_NOUNS, is_acronym, singular, stem

__all__ = ["MIN_KEPT", "one_word", "trusted"]

MIN_KEPT = 3  # picks a paper keeps whatever their probability (`select`)


def trusted(picks: Sequence[tuple[str, float]], least: float,
            broad: Callable[[str], bool] | None = None, asides: Asides = NO_ASIDES) -> list[bool]:
    """Which of a paper's picks (best first) a KG keeps.

    Best first, a pick is kept while the paper has fewer than MIN_KEPT, and beyond them
    only with the `least` probability: a list filled to top-n with what authors would
    hardly ever choose ("general pattern", "appropriate limit") tells a reader less than a
    shorter one; the best few stay, or a paper could not be found by what it shares.

    A kind noun with evaluative words only names nothing and is never kept, even where a
    title names it ("Comprehensive Benchmark", "Empirical Study", `_empty_kind`).

    A `broad` pick (by default one word that is no acronym) whose words all lie in a kept
    pick is left to it, and gives way to one that comes later, even one under the least
    probability (it takes the broad pick's place, not a new one): "emotion" beside
    "emotion-oriented summarization", and with keyword statistics an umbrella term such
    as "neural network" beside "deep neural network" only repeat the idea the longer
    label names precisely. A specific shorter term stays beside its variant ("domain
    adaptation" beside "feature-level domain adaptation"): it is what links the paper to
    others.

    An aside, a term of the whole field or an umbrella term that the abstract names once
    outside its title ("deep learning" in a paper on brain decoding, "learning rate" in
    one on instruction tuning, `asides`), or one that is both ("neural networks") and
    that the title does not name, is never kept: it says where the paper stands or
    what it used, not what it is about, and would link it to a large part of the corpus;
    an example among the best three keeps its place, which a weaker pick does not take.
    Nor is
    a repetition: a pick that only adds a kind noun as its head (`KIND_NOUNS`) to words a
    kept pick has, other than a longer variant of it ("OCR-2.0 model", "OCR systems" after
    "OCR-2.0"; "language modeling" after "language model"; but "stochastic block model"
    stays beside "multilayer stochastic block model", as above); nor, with keyword
    statistics (`broad` given), one that only adds generic modifiers (`GENERIC_MODIFIERS`)
    to a kept pick that is no umbrella term ("large vision-language models" after
    "vision-language models"; without the statistics "large language models" would give
    way to the umbrella "language models"); nor one whose words have the stems of a kept
    pick's, in any order ("adaptive optimizers" after "adaptive optimization", "low-rank
    adapters" after "low-rank adaptation", "reconstructed 3D faces" after "3D face
    reconstruction"); a kept pick that a later one shows to be such a repetition
    gives way to it ("ecosystem service projects", then "ecosystem service"; "Segment
    Anything model", then "Segment Anything"). Two spellings of one term ("Transformer",
    "Transformers") are one concept: both are kept (each counts towards its label) and
    fill one of the best three.
    """
    is_broad = broad or one_word
    keys = [term_key(text) for text, _ in picks]
    words = [frozenset(k.split()) for k in keys]
    heads = [k.rsplit(" ", 1) for k in keys]
    named = [words[i] - {h[-1]} if len(h) == 2 and h[-1] in KIND_NOUNS else frozenset()
             for i, h in enumerate(heads)]
    bare = [_without_kind(text) if named[i] else None for i, (text, _) in enumerate(picks)]
    plain = [w - GENERIC_MODIFIERS for w in words]
    # in any order ("3D face reconstruction", "reconstructed 3D faces"), unless a linking
    # word orders them ("haze-to-parameter mapper", "parameter-to-haze mapper")
    stems = [(frozenset if _LINKS.isdisjoint(words[i]) else tuple)(stem(w) for w in k.split())
             for i, k in enumerate(keys)]
    # a modifier alone ("in-context" beside "in-context learning") is broad whatever the
    # statistics say: it names no thing of its own
    wide = [is_broad(text) or degree_compound(text) for text, _ in picks]
    kept: list[int] = []
    passed: set[str] = set()  # examples among the best: their places are not refilled
    for i, (text, score) in enumerate(picks):
        if text in asides:
            if text in asides.examples:
                passed.add(keys[i])
            continue
        if _empty_kind(text):
            continue
        if wide[i] and any(words[i] < words[k] for k in kept):
            continue
        if any(stems[i] == stems[k] and len(words[i]) == len(words[k]) and keys[i] != keys[k]
               for k in kept):
            continue
        if named[i] and any(named[i] <= words[k] and not words[i] <= words[k]
                            and not (wide[k] and words[k] < words[i]) for k in kept):
            continue
        if broad and plain[i] != words[i] and any(plain[i] == words[k] and not wide[k]
                                                  for k in kept):
            continue
        # a broad pick kept only to fill the best few gives way to the term it lies in,
        # however weak: "grammar", then "probabilistic context-free grammar"
        replaces = any(wide[k] and words[k] < words[i] for k in kept)
        if len({keys[k] for k in kept} | passed) < MIN_KEPT or score >= least or replaces:
            kept = [k for k in kept if not (wide[k] and words[k] < words[i])
                    and bare[k] != keys[i]]
            kept.append(i)
    chosen = set(kept)
    return [i in chosen for i in range(len(picks))]


_LINKS = frozenset("to of from for in on with by via".split())


def _empty_kind(text: str) -> bool:
    """A kind noun with evaluative words only: a title's "Comprehensive Benchmark",
    "Empirical Study", "Efficient Model" ("task-specific priors" is more)."""
    words = text.lower().split()
    rest = [w for w in words if w not in GENERIC_MODIFIERS]
    return len(rest) == 1 < len(words) and singular(rest[0]) in KIND_NOUNS


def _without_kind(text: str) -> str | None:
    """The key of a pick without its kind noun ("ecosystem service" of "ecosystem service
    projects"), unless what is left ends in a hyphenated modifier ("Audio-Language
    Models", "long-context models": "Audio-Language" and "long contexts" are no shorter
    name of theirs)."""
    rest = text.rsplit(" ", 1)[0]
    return None if "-" in rest.rsplit(" ", 1)[-1] else term_key(rest)


def one_word(text: str) -> bool:
    """A single word that is no acronym: broad unless the statistics say otherwise."""
    return " " not in term_key(text) and not is_acronym(text)
