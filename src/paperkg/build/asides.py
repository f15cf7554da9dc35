"""What an abstract names in passing: candidates a KG does not keep as the paper's concepts.

A term used once, outside the title, is an aside when the field names it in passing (a
term of the whole field or an umbrella term, `KeywordPrior.passing_term`: "deep learning"
in a paper on brain decoding, "learning rate" in one on instruction tuning) or when the
abstract names it only as an example or a contrast (`grammar.named_as_example`: "methods
such as L2 or dropout", "applications like autonomous driving", "an alternative to
gradient-boosted decision trees"). A generic term of the field ("neural networks",
"machine learning") is one wherever the title does not name it. The ranking still shows
them (`paperkg extract`); they would link the paper to work it only mentions.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from paperkg.build.grammar import named_as_example
from paperkg.build.prior import KeywordPrior
from paperkg.build.terms import abbreviations
from paperkg.build.text import Candidate, tokens

__all__ = ["NO_ASIDES", "Asides", "asides"]


@dataclass(frozen=True, slots=True)
class Asides:
    """A paper's asides: `passing` terms of the field and `examples`. An example ranked
    among a paper's best keeps its place there (`extract.trusted`): what took the place
    of "such as dropout" was a weak pick, right about a third of the time."""

    passing: frozenset[str] = frozenset()
    examples: frozenset[str] = frozenset()

    def __contains__(self, text: object) -> bool:
        return text in self.passing or text in self.examples


NO_ASIDES = Asides()


def asides(cs: Sequence[Candidate], in_title: Sequence[bool], prior: KeywordPrior | None,
           doc: str, title: str | None = None, picks: Collection[str] | None = None) -> Asides:
    """The candidates of `doc` (its cleaned title and abstract) named in passing.

    "Used once" counts the candidate's uses, a definition's short form being no second
    use ("physics-informed neural networks (PINNs)"); an example is one only if the
    abstract does not name it again inside a longer phrase or by its short form ("such
    as diffusion models" in a paper built on "a latent diffusion model" stays). With
    `picks` (the texts ranked for the paper), generic terms are looked for among those only:
    asking the prior of every candidate took a third of the time of the whole function."""
    once = [c.count - c.defined == 1 and not t for c, t in zip(cs, in_title, strict=True)]
    passing = {c.text for c, o in zip(cs, once, strict=True)
               if o and prior and prior.passing_term(c.text)}
    if prior:
        passing |= _generic_outside_title(cs, in_title, prior, doc, title, picks)
    toks = tokens(doc) if any(once) else []
    examples = {c.text for c, o in zip(cs, once, strict=True)
                if o and named_as_example(toks, c.position)}
    if examples:
        low = doc.lower()
        shorts = {a.long: a.short for a in abbreviations(doc)}
        examples = {e for e in examples if _uses(low, e) + (
            _uses(low, shorts[e]) - 1 if e in shorts else 0) == 1}
    return Asides(frozenset(passing), frozenset(examples))


def _generic_outside_title(cs: Sequence[Candidate], in_title: Sequence[bool],
                           prior: KeywordPrior, doc: str, title: str | None,
                           picks: Collection[str] | None) -> set[str]:
    """The generic terms of the field (`KeywordPrior.generic_term`: "neural networks",
    "machine learning", "latent space") that the title does not name, in any spelling or
    by the short form the abstract defines ("Hallucinations in LMs" names "language
    models"): however often the abstract uses them, they say what the paper works with,
    not what it is about. A paper without a title keeps them."""
    if not title:
        return set()  # nothing says what the paper is about but the abstract
    generic = [c.text for c, t in zip(cs, in_title, strict=True)
               if not t and (picks is None or c.text in picks) and prior.generic_term(c.text)]
    if not generic:
        return set()
    low = f" {title.lower()} "
    shorts = {a.long: a.short.lower() for a in abbreviations(doc)}
    return {g for g in generic
            if not (_uses(low, g) or g in shorts and _uses(low, shorts[g]))}


def _uses(low: str, phrase: str) -> int:
    """Whole-word uses of a phrase, singular or plural, in a lower-cased text."""
    stem = phrase.lower()[:-1] if phrase.endswith("s") and len(phrase) > 3 else phrase.lower()
    return len(re.findall(rf"(?<![\w-]){re.escape(stem)}s?(?![\w-])", low))
