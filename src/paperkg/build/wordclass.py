"""What one word is to a concept phrase, read without a POS tagger: a word or a mark, a
break (function word, phrase-breaking verb, number, evaluative modifier, adverb), a word
that can end a noun phrase, a Roman numeral.

The word lists are the lexicon's (`paperkg.lexicon`); suffix rules stand in for it on the
words it does not know (most technical words). `grammar` builds phrases from these.
"""

from __future__ import annotations

import re

from paperkg.lexicon import (
    FUNCTION_WORDS,
    GENERIC_MODIFIERS,
    generic_modifier_forms,
    is_acronym,
    is_verb_only,
    phrase_breaking_verbs,
)
from paperkg.lexicon import pos as word_pos

__all__ = ["ADJ_SUFFIX", "HYPHEN_ADJ", "ING_NOUNS", "adverb", "breaks", "is_roman", "is_word",
           "noun_like_end"]

_BREAK_WORDS = FUNCTION_WORDS | GENERIC_MODIFIERS  # and `lexicon.phrase_breaking_verbs()`

# Suffix rules stand in for the lexicon on words it does not know (most technical words).
ADJ_SUFFIX = re.compile(r"(?:ive|ous|ful|able|ible|less|ical|al)$")
# the second part of a hyphenated modifier ("LLM-based", "training-free")
HYPHEN_ADJ = re.compile(
    r"-(?:scale|based|level|wise|aware|free|specific|agnostic|efficient|like|order|time|shot|"
    r"step|turn|dimensional|grained|world|driven|guided|oriented|friendly|intensive|style|"
    r"consistent|invariant|equivariant|dependent|independent|sensitive|optimal|only|centric)$"
)
ING_NOUNS = frozenset("""
reasoning prompting pretraining finetuning fine-tuning pre-training self-training unlearning
red-teaming jailbreaking grounding captioning forecasting
""".split())
# IDs and grant numbers, initials, numbered references and classification codes ("N510129",
# "V.A.", "Vol.10", "Fig.3", ACM's "H.3.3")
_CODE_OR_INITIALS = re.compile(r".*\d{5,}.*|(?:[^\W\d_]\.)+[^\W\d_]?\.?|[^\W\d_]{1,4}(?:\.\d+)+")
# a reference to a figure or an equation ("see Fig. 2", "cf. Eq. 3"); in capitals a name
# ("CF" is collaborative filtering or a curl field, 44 times in ICLR 2025 abstracts)
_REFERENCES = frozenset("fig figs eq eqs cf".split())


def is_word(tok: str) -> bool:
    """A word, not a punctuation mark (`text.tokens` gives both)."""
    return tok[0].isalnum()


def breaks(tok: str) -> bool:
    """Whether a word ends a noun phrase wherever it stands: punctuation, a function word,
    a verb of `lexicon.phrase_breaking_verbs`, a number, an evaluative modifier."""
    if not is_word(tok) or len(tok) == 1 and tok.islower():
        return True  # a lower-case letter alone is a variable or unit: "rad s", "size m"
    low = tok.lower().replace("’", "'")
    if low in _BREAK_WORDS or low in phrase_breaking_verbs() or low.endswith(("'s", "'")):
        return True
    if low in _REFERENCES and not tok.isupper():
        return True
    if tok == low and low in generic_modifier_forms():
        return True  # "stronger result", "simpler baselines"; "Faster R-CNN" is a name
    if re.fullmatch(r"[0-9][0-9.,\-–/]*(?:%|[kmbt]|x|st|nd|rd|th)?|[0-9.,%]+", low):
        return True
    if _CODE_OR_INITIALS.fullmatch(low):
        return True
    if adverb(low):
        return True
    # a finite verb ("imposes", "believe") ends a phrase; participles may modify a noun
    return is_verb_only(low) and not low.endswith(("ed", "ing"))


def adverb(low: str) -> bool:
    """A word in -ly that is an adverb, not a noun ("family") or an adjective ("early")."""
    return len(low) > 4 and low.endswith("ly") and low not in {
        "family", "anomaly", "assembly", "supply", "early", "monopoly"}


def noun_like_end(tok: str) -> bool:
    """Can this word end a noun phrase? The lexicon decides where it knows the word."""
    if is_roman(tok) or len(tok) == 1:
        # "Part II", "Governance Matters IV": a numbered part; "group G", "matrix A": a
        # variable's name; both trimmed off
        return False
    if is_acronym(tok):
        return True
    low = tok.lower()
    if low in ING_NOUNS or low.endswith("ing") and len(low) > 5:
        return True  # a gerund ends a noun phrase ("prompt tuning"); single words: see below
    if low in {"offline", "online"} or HYPHEN_ADJ.search(low):
        return False
    if low.endswith("ed") and not low.endswith("eed"):
        return False
    tags = word_pos(low)
    if tags:
        return "NOUN" in tags or "PROPN" in tags
    last = low.rsplit("-", 1)[-1]
    if last != low and word_pos(last):
        return "NOUN" in word_pos(last)
    return not ADJ_SUFFIX.search(low) or low.endswith(("ial", "ual"))


# A Roman numeral numbers a part or a paper in a series ("Part II", "Substructures II",
# "IX"); IV and VI are also abbreviations (instrumental variables, variational inference),
# which count where the abstract defines them (the long form stands in).
_ROMAN = re.compile(r"X{0,3}(?:IX|IV|V?I{0,3})")


def is_roman(word: str) -> bool:
    """A Roman numeral of two letters or more ("II", "IX")."""
    return len(word) > 1 and _ROMAN.fullmatch(word) is not None
