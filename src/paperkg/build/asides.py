"""What an abstract names in passing: candidates a KG does not keep as the paper's concepts.

A term used once, outside the title, is an aside when the field names it in passing (a
term of the whole field or an umbrella term, `KeywordPrior.passing_term`: "deep learning"
in a paper on brain decoding, "learning rate" in one on instruction tuning); when the
abstract names it only as an example or a contrast (`named_as_example`: "methods
such as L2 or dropout", "applications like autonomous driving", "an alternative to
gradient-boosted decision trees") or as one item of a list of three or more
(`in_a_list`: "experiments across dialogue generation, mathematical reasoning and code
generation"); or when it is one common English word (`lone_word`: "calibration",
"clustering", "transformer" named once in a paper on something else). A generic term of
the field ("neural networks", "machine learning") is one wherever the title does not name
it. The ranking still shows them (`paperkg extract`); they would link the paper to work it
only mentions.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass

from paperkg.build.grammar import BE_HAVE, DETERMINERS, verb_after_plural
from paperkg.build.prior import KeywordPrior
from paperkg.build.terms import abbreviations
from paperkg.build.text import Candidate, tokens
from paperkg.build.wordclass import ING_NOUNS, breaks, is_roman, is_word, noun_like_end
from paperkg.lexicon import (
    FUNCTION_WORDS,
    is_acronym,
    is_common_word,
    is_verb_ing,
    is_verb_only,
    stem,
)

__all__ = ["NO_ASIDES", "Asides", "asides", "in_a_list", "lone_word", "named_as_example"]


@dataclass(frozen=True, slots=True)
class Asides:
    """A paper's asides: `passing` terms (of the field, or lone common words) and
    `examples`. An example ranked among a paper's best keeps its place there
    (`keep.trusted`): what took the place of "such as dropout" was a weak pick, right
    about a third of the time."""

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
    low = doc.lower()
    titled = {stem(w) for w in re.findall(r"[a-z]+", title.lower())} if title else set()
    passing = {c.text for c, o in zip(cs, once, strict=True)
               if o and (prior and prior.passing_term(c.text)
                         or lone_word(c.text) and _uses(low, c.text) == 1
                         and stem(c.text.lower()) not in titled)}
    if prior:
        passing |= _generic_outside_title(cs, prior, doc, title, picks)
    toks = tokens(doc) if any(once) else []
    examples = {c.text for c, o in zip(cs, once, strict=True)
                if o and (named_as_example(toks, c.position)
                          or in_a_list(toks, c.position, len(tokens(c.text))))}
    if examples:
        shorts = {a.long: a.short for a in abbreviations(doc)}
        examples = {e for e in examples if _uses(low, e) + (
            _uses(low, shorts[e]) - 1 if e in shorts else 0) == 1}
    return Asides(frozenset(passing), frozenset(examples))


_AND_OR = frozenset({"and", "or"})
_NOT_IN_ITEM = FUNCTION_WORDS | DETERMINERS | {"like", "using", "including"}
_ITEM_WORDS = 5  # an item longer than this is a clause, not a term
_SENTENCE_ENDS = frozenset({".", "?", "!"})
_LIST_CUES = frozenset("""
experiment experiments evaluate evaluates evaluated evaluating evaluation evaluations
benchmark benchmarks tasks applications domains datasets cases
""".split())


def in_a_list(toks: Sequence[str], start: int, n: int) -> bool:
    """Whether the n tokens at `start` end one item of a list of three or more ("A, B,
    and C", "A, B or C"), each item a few words with no verb nor function word, in a
    sentence about evaluation (`_LIST_CUES`): the tasks a method was tried on
    ("experiments across natural language understanding, dialogue generation,
    mathematical reasoning, code generation, and image classification tasks"), the
    domains a benchmark covers. Named there only, such a term is one of several the
    paper was measured on. Other lists are often what the paper is made of or unifies
    ("the techniques employed are pruning, quantization, and knowledge distillation",
    "clustering, spectral methods, dimensionality reduction, contrastive learning"): on
    the judged samples of sessions 18-27, labels named only in a list were good 5 times
    in 15, those in sentences about evaluation once in 7."""
    end = start + n
    items, joined = 1, False
    i = start  # leftwards: the items before, the nearest separator may be "and"/"or"
    while i > 0 and (toks[i - 1] == "," or toks[i - 1].lower() in _AND_OR):
        if toks[i - 1].lower() in _AND_OR:
            if joined:
                break  # "A and B, and C": two lists
            joined = True
            i -= 1 + (i > 1 and toks[i - 2] == ",")
        else:
            i -= 1
        first = _item_start(toks, i)
        if first == i:
            break
        items, i = items + 1, first
    j = end  # rightwards, when the term is not the last item: up to the "and"/"or"
    while not joined and j < len(toks) and (toks[j] == "," or toks[j].lower() in _AND_OR):
        j += 1
        if j < len(toks) and toks[j].lower() in _AND_OR:
            j += 1
            joined = True
        elif toks[j - 1].lower() in _AND_OR:
            joined = True
        last = _item_end(toks, j)
        if last == j:
            return False  # ", which ...": a clause, not a list
        items, j = items + 1, last
    # a list in parentheses needs no "and": "attacks (BadNets, LC, SIG, Trojan)"
    bracketed = i > 0 and toks[i - 1] == "(" and j < len(toks) and toks[j] == ")"
    return (joined or bracketed) and items >= 3 and _about_evaluation(toks, start)


def _about_evaluation(toks: Sequence[str], at: int) -> bool:
    """Whether the sentence around token `at` has a word of `_LIST_CUES`."""
    first = at
    while first > 0 and not _ends_sentence(toks, first - 1):
        first -= 1
    last = at
    while last < len(toks) and not _ends_sentence(toks, last):
        last += 1
    return any(t.lower() in _LIST_CUES for t in toks[first:last])


def _ends_sentence(toks: Sequence[str], i: int) -> bool:
    return toks[i] in _SENTENCE_ENDS and not (
        toks[i] == "." and i > 0 and toks[i - 1].lower() in ABBREVIATED)


def _item_word(tok: str, last: bool) -> bool:
    """A word of a list item: no function word ("methods like DART" is no item, nor ",
    where"), no verb, and a verb's -ing form only as the head ("mathematical reasoning",
    not "leveraging self-attention")."""
    low = tok.lower()
    if not is_word(tok) or low in _NOT_IN_ITEM:
        return False
    if len(tok) > 1 and tok.isupper():
        return True  # a name in capitals: "ALIGN", "CLIP" in a list of models
    if is_verb_only(low):
        return (last and low.endswith("ing")) or low.endswith("ed")
    return last or not is_verb_ing(low)


def _item_start(toks: Sequence[str], i: int) -> int:
    k = i
    while k > 0 and i - k < _ITEM_WORDS and _item_word(toks[k - 1], k == i):
        k -= 1
    return k


def _item_end(toks: Sequence[str], j: int) -> int:
    k = j
    while k < len(toks) and k - j < _ITEM_WORDS and _item_word(
            toks[k], k + 1 == len(toks) or not is_word(toks[k + 1])):
        k += 1
    return k


def lone_word(text: str) -> bool:
    """One word of letters that English dictionaries know ("calibration", "clustering",
    "symmetries", "transformer"): named once outside the title (in any form of the word:
    "universality" where the title says "Universal"), and not again inside a longer
    phrase ("hallucination properties"), it is what the paper used or compared with. On
    the judged samples of sessions 18-27, such a label was good 7 times in 19, against 15
    in 27 for the field's coinages ("equivariance", "quantization") and compounds
    ("chain-of-thought", "actor-critic") named once outside the title. An acronym or a
    name says more alone."""
    return text.isalpha() and not is_acronym(text) and is_common_word(text)


def _generic_outside_title(cs: Sequence[Candidate], prior: KeywordPrior, doc: str,
                           title: str | None, picks: Collection[str] | None) -> set[str]:
    """The generic terms of the field (`KeywordPrior.generic_term`: "neural networks",
    "machine learning", "latent space") that the title does not name, in any spelling or
    by the short form the abstract defines ("Hallucinations in LMs" names "language
    models"): however often the abstract uses them, they say what the paper works with,
    not what it is about. A paper without a title keeps them."""
    if not title:
        return set()  # nothing says what the paper is about but the abstract
    generic = [c.text for c in cs
               if (picks is None or c.text in picks) and prior.generic_term(c.text)]
    if not generic:
        return set()
    low = f" {title.lower()} "
    shorts = {a.long: a.short.lower() for a in abbreviations(doc)}
    return {g for g in generic
            if not (_names(low, g) or g in shorts and _names(low, shorts[g]))}


def _names(low: str, phrase: str) -> bool:
    """Whether a lower-cased title names a phrase as a phrase of its own, not as the
    modifier of its next noun: "Neural Network Interpretability" is about
    interpretability, "Neural Networks Meet Least Squares" about neural networks."""
    for m in _matches(low, phrase):
        after = tokens(low[m.end():])
        nxt = after[0] if after else ""
        if not (nxt and is_word(nxt) and not breaks(nxt) and noun_like_end(nxt)
                and not verb_after_plural(m.group(0).rsplit(" ", 1)[-1], nxt)):
            return True
    return False


def _uses(low: str, phrase: str) -> int:
    """Whole-word uses of a phrase, singular or plural, in a lower-cased text."""
    return sum(1 for _ in _matches(low, phrase))


def _matches(low: str, phrase: str) -> Iterator[re.Match[str]]:
    stem = phrase.lower()[:-1] if phrase.endswith("s") and len(phrase) > 3 else phrase.lower()
    return re.finditer(rf"(?<![\w-]){re.escape(stem)}s?(?![\w-])", low)


# What introduces an example, a comparison or a road not taken: "methods such as L2 or
# dropout", "applications like autonomous driving", "(e.g., e-commerce, finance)", "an
# alternative to gradient-boosted decision trees", "similar to transfer learning", "a task
# reminiscent of multi-task learning", "its applications in meta-learning", "as with
# standard RLHF".
# "compared to DPO" is not one: a paper names its main baseline so, which ties it to
# its line of work.
_EXAMPLE_PAIRS = frozenset({("such", "as"), ("for", "example"), ("for", "instance"),
                            ("similar", "to"), ("alternative", "to"), ("alternatives", "to"),
                            ("as", "with"),
                            ("rather", "than"), ("instead", "of"), ("reminiscent", "of"),
                            ("analogous", "to"), ("akin", "to"), ("applications", "in")})
_NOT_LIKE = frozenset("would might could should we i you they not 'd".split())
# the words before a dot that ends no sentence ("e.g.", "et al.")
ABBREVIATED = frozenset({"e.g", "i.e", "etc", "vs", "al", "cf"})
_EXAMPLE_REACH = 12  # tokens back from a phrase, within its clause
# "including" is a verb after these or before a determiner: "by including a forecasting
# objective within recurrent neural networks" names no example
_BEFORE_GERUND = frozenset("by while when after before without from for".split())


def named_as_example(toks: Sequence[str], pos: int) -> bool:
    """Whether the phrase starting at token `pos` is named as an example or a contrast
    ("such as", "like", "e.g.", "including", "for example", "similar (concept) to",
    "alternative to", "rather than", "instead of", "unlike", "without", "reminiscent of",
    "analogous to", "akin to", "applications in") in its clause, a list's definitions
    ("(DRO)") passed over: an aside when the abstract names it only there ("a model
    without extra pruning or quantization"; not "inspired by": what inspired a method is
    often what it builds on, "inspired by video diffusion models").
    A word the lexicon knows only as a verb, or a form of "be" or "have", ends the
    clause: in "methods such as dropout degrade in adversarial training" the last is no
    example; "including" after "by" or before a determiner is a verb ("by including a
    forecasting objective")."""
    j, stop = pos - 1, max(-1, pos - 1 - _EXAMPLE_REACH)
    while j > stop:
        low = toks[j].lower()
        if low == ")" and j > 1 and toks[j - 2] == "(" and is_acronym(toks[j - 1]) and not (
                is_roman(toks[j - 1]) or len(toks[j - 1]) < 2):
            j -= 3  # "distributionally robust optimization (DRO), meta-learning"; not "(2)"
            continue
        if low == "including" and (j == 0 or toks[j - 1].lower() not in _BEFORE_GERUND) and (
                j + 1 >= len(toks) or toks[j + 1].lower() not in DETERMINERS):
            return True  # "tasks, including translation and instruction following"
        if low in {";", ":", "!", "?", "(", ")"} or low == "." and (
                j == 0 or toks[j - 1].lower() not in ABBREVIATED) or (
                is_verb_ing(low) and low not in ING_NOUNS and j > 0
                and toks[j - 1].lower() in {"and", "or", "by", "while", ","}) or (
                low in BE_HAVE or is_verb_only(low) and not low.endswith(("ing", "ed"))):
            return False  # another clause: "such as code interpreters, and employing CoT"
        if low in {"e.g", "unlike", "without"} or low == "like" and (
                j == 0 or toks[j - 1].lower() not in _NOT_LIKE):
            return True
        after = [t.lower() for t in toks[j + 1:j + 3]]
        if after and (low, after[0]) in _EXAMPLE_PAIRS or low == "similar" and "to" in after:
            return True
        j -= 1
    return False
