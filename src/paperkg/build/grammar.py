"""The grammar of a concept phrase: where a run of content words breaks (a word's class,
`wordclass`, or a homograph read as the verb in its context), and which spans or single
words may be concepts.

Without a POS tagger (none ships offline), word lists (`paperkg.lexicon`) and suffix rules
stand in for one; `text.candidates` cuts the runs found here into candidate phrases.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from paperkg.build.afterto import verb_after_to
from paperkg.build.wordclass import (
    ADJ_SUFFIX,
    HYPHEN_ADJ,
    ING_NOUNS,
    breaks,
    is_word,
    noun_like_end,
)
from paperkg.lexicon import (
    FUNCTION_WORDS,
    GENERIC_HEADS,
    GENERIC_MODIFIERS,
    GENERIC_NOUNS,
    PERSON_ROLES,
    PLURAL_HEADS,
    QUANTITY_NOUNS,
    UNITS,
    WORD_PREFIXES,
    generic_modifier_forms,
    is_acronym,
    is_verb_ed,
    is_verb_ing,
    is_verb_only,
    phrase_breaking_verbs,
    singular,
    verb_forms,
)
from paperkg.lexicon import pos as word_pos

__all__ = ["BE_HAVE", "DETERMINERS", "bare_short_acronym", "counts_something", "degree_compound",
           "idiom_object", "modifies_next", "only_modifies", "possessor", "runs", "valid_single",
           "valid_span", "verb_after_plural"]


def valid_span(words: list[str]) -> bool:
    if not noun_like_end(words[-1]):
        return False
    first = words[0].lower()
    if len(words) == 1:
        return valid_single(words[0])
    if words[-1].lower() in GENERIC_HEADS:
        return False  # "research significance", "irrelevant ones"
    if first in ("way", "ways"):
        return False  # "the way hotels use the Web", "two-way relationships"
    if first in PERSON_ROLES and words[1][:1].isupper():
        return False  # "logician Alan", "scientists Alfred Gierer": the name stands alone
    # "detecting distribution shifts": a verb-only -ing form does not start a concept
    return not (first.endswith("ing") and is_verb_only(first) and first not in ING_NOUNS)


def valid_single(word: str) -> bool:
    """A word alone is a concept only if it is specific: not a generic noun ("Search",
    "Bias", "benchmark"), not a verb, not an adjective ("Multimodal", "beneficial",
    "training-free")."""
    low = word.lower()
    # "training-free", "LoRA-based": a modifier without its noun ("zero-shot" and
    # "few-shot" name a learning setting)
    if HYPHEN_ADJ.search(low) and not low.endswith("-shot") or "-to-" in low:
        return False  # "image-to-video", "end-to-end": a modifier too
    if is_acronym(word):
        return True
    if low in GENERIC_NOUNS or low in GENERIC_HEADS or is_verb_only(low) and low not in ING_NOUNS:
        return False
    if low in _GERUND_HEADS:
        return False  # "making", "sharing": the head of "decision making", no concept alone
    tags = word_pos(low)
    if "ADJ" in tags and (ADJ_SUFFIX.search(low) or low.endswith("ic")):
        return False  # "beneficial", "quadratic": adjectives the lexicon also lists as nouns
    if not tags and ADJ_SUFFIX.search(low) and not low.endswith(("ial", "ual")):
        return False  # "multimodal", "multilingual": unknown words with an adjective's suffix
    return len(low) >= 3


# Evaluative adjectives that break a run (`GENERIC_MODIFIERS`) and stand before a noun;
# not the ones that open a prepositional phrase or count ("like", "due", "based", "first").
_ATTRIBUTIVE_BREAKS = GENERIC_MODIFIERS - FUNCTION_WORDS - frozenset(
    "like due based related given able free open full whole future first second third last "
    "final initial further extra so- hundred thousand million billion trillion dozen dozens "
    "twofold threefold".split())


def modifies_next(toks: list[str], end: int, any_case: bool = False) -> bool:
    """Whether the run that ends before token `end` modifies the noun phrase that goes on
    after an evaluative adjective: "deterministic Pareto | optimal policies",
    "long-context | large language models". Its last word is a modifier there, not a
    head, so that use is no use of a concept of its own. The adjective in lower case
    ("Faster R-CNN" is a name) unless `any_case` (a title's "Privacy-Preserving |
    Improved Stochastic Masking", of a word that is a modifier whatever follows)."""
    return (end + 1 < len(toks) and toks[end].lower() in _ATTRIBUTIVE_BREAKS
            and (any_case or toks[end] == toks[end].lower()) and not breaks(toks[end + 1]))


# "long-context", "many-shot", "multi-agent", "low-rank", "in-context": a degree, a count
# or "in" and a noun, hyphenated, make an adjective ("fine-tuning" is a verb's compound;
# "cross-attention" and "self-attention", a prefix and a noun, are nouns)
_DEGREE_PART = re.compile(
    r"(?!fine-tun)(?:long|short|many|few|zero|one|two|three|single|dual|multi|high|low|large|"
    r"small|fine|coarse|full|half|open|real|in)-[a-z]+", re.IGNORECASE)


def degree_compound(word: str) -> bool:
    """One hyphenated word of a degree, a count or "in" and a noun: an adjective
    ("long-context", "dual-branch", "in-context")."""
    return _DEGREE_PART.fullmatch(word) is not None


def only_modifies(toks: list[str], word: str) -> bool:
    """Whether a word such as "long-context", "many-shot", "privacy-preserving" or
    "brain-inspired" only ever stands before a noun in `toks` ("long-context large language
    models", "many-shot ICL", "privacy-preserving FL environments"; "open-vocabulary and
    closed-vocabulary layout generation"): a modifier there, not a concept, even one the
    field's keywords list."""
    if not (degree_compound(word) or _participle_compound(word)):
        return False
    low = word.lower()
    uses = [i for i, t in enumerate(toks) if t.lower() == low]
    return bool(uses) and all(_before_noun(toks, i) for i in uses)


def _before_noun(toks: list[str], i: int) -> bool:
    """Token `i` stands before a noun of its phrase, or before "and"/"or" and another
    hyphenated modifier that does ("open-vocabulary and closed-vocabulary generation")."""
    if i + 2 < len(toks) and toks[i + 1].lower() in ("and", "or") and "-" in toks[i + 2]:
        i += 2
    return i + 1 < len(toks) and (
        not breaks(toks[i + 1]) or modifies_next(toks, i + 1, any_case=True))


def _participle_compound(word: str) -> bool:
    """A word and a participle, hyphenated: an adjective ("privacy-preserving",
    "brain-inspired", "LLM-generated"); not a prefix's compound ("self-training",
    "pre-training") nor a gerund that is a noun ("flow-matching", "red-teaming")."""
    parts = word.lower().split("-")
    first, last = parts[0], parts[-1]
    if len(parts) < 2 or not first.isalpha() or first in WORD_PREFIXES or first == "self":
        return False
    if last.endswith("ing"):  # "flow-matching", "importance-sampling": nouns too
        return is_verb_ing(last) and "NOUN" not in word_pos(last) and (
            word.lower() not in ING_NOUNS)
    return is_verb_ed(last)


# How a count grows or how big it is: "(a) logarithmic number of rounds", "polynomial number
# of queries"; "the chromatic number of G" is a concept.
_GROWTH = frozenset("""
logarithmic polylogarithmic linear sublinear superlinear quadratic cubic polynomial
exponential constant finite infinite bounded unbounded countable uncountable arbitrary
maximum minimum total expected average
""".split())


def counts_something(toks: list[str], start: int, run: list[str]) -> bool:
    """"a logarithmic number of rounds": before "of", a run ending in a quantity noun
    after an indefinite article, or with only words of growth before it, counts what
    follows; it is not a concept."""
    end = start + len(run)
    if not (run[-1].lower() in QUANTITY_NOUNS and end < len(toks) and toks[end] == "of"):
        return False
    return (start > 0 and toks[start - 1].lower() in ("a", "an")) or (
        len(run) > 1 and all(w.lower() in _GROWTH for w in run[:-1]))


def bare_short_acronym(word: str) -> bool:
    """"GR", "MG", "IV" alone: two letters say too little, and mean different things in
    different fields ("ML"); where the abstract defines them, the long form stands in."""
    return len(word) <= 2 and word.isalpha() and is_acronym(word)


def verb_after_plural(prev: str, low: str) -> bool:
    """"objectives form", "VLMs lack": a plural followed by a verb's base form."""
    plural = prev.endswith("s") and (singular(prev) != prev.lower() if not is_acronym(prev)
                                     else prev[-2:-1].isupper())
    return plural and _base_verb(low)


# plurals without an -s that are the subject of a clause more often than a modifier
_PLURAL_SUBJECTS = frozenset("people children men women".split())


def _takes_that(low: str) -> bool:
    """A verb's -s form that opens a that-clause ("shows", "proves", "implies", "finds"):
    before "that" it is the verb; another -s word there is a plural noun and "that" its
    relative pronoun ("models that reason", "features that capture")."""
    if low in ("finds", "means"):
        return True
    bases = (low[:-1], low[:-2], low[:-3] + "y")
    return any(ing in _REPORTING for b in bases for ing in (b + "ing", b[:-1] + "ing"))


def _base_verb(low: str) -> bool:
    """A verb's base form ("form", "lack", "go"); one ending in -s is "focus", "process",
    "access" (a verb's -s form is not: the lexicon takes "models" for a lemma of its own)."""
    return "VERB" in word_pos(low) and low in verb_forms(low) and (
        not low.endswith("s") or low.endswith(("ss", "us")))


# After these a noun/verb homograph is the verb: "we study X", "can support data
# scientists", "also exposes connections", "does not require labels" ("will" is left out:
# "free will").
_BEFORE_VERBS = frozenset("we they i you can cannot could may might must shall should would "
                          "also not".split())
_VERB_CONTEXT = frozenset("the a an this these that those its their our his her it them both each"
                          " such more some all several".split())


def _splits(toks: list[str], idx: int, run: list[str]) -> bool:
    """Whether the word at `idx` is read as a verb or a unit here (so it ends a run)."""
    low, prev = toks[idx].lower(), toks[idx - 1].lower() if idx else ""
    nxt = toks[idx + 1].lower() if idx + 1 < len(toks) else ""
    if nxt in ("some", "all", "several") and toks[idx + 2:idx + 3] in (["of"], ["Of"]):
        nxt = "of"  # "on tasks some of which are hard": no object of a verb
    if nxt in _VERB_CONTEXT and low.endswith("s") and len(low) > 3 and "VERB" in word_pos(low) \
            and (nxt != "that" or _takes_that(low)):
        return True  # "the model breaks the curse", "the analysis shows that"; "graph
        # features that capture structure", "web sites that click" keep their noun
    if low.endswith("ing") and low not in ING_NOUNS and is_verb_only(low):
        if nxt in _VERB_CONTEXT and nxt not in _NOT_OBJECTS or nxt in GENERIC_MODIFIERS:
            return True  # "a library implementing the theory", "a series assessing issues"
        if run and (nxt in _PARTICIPLE_NEXT or nxt == "that" and low in _REPORTING):
            return True  # "mechanics starting from", "a conjecture stating that"
    if idiom_object(toks, idx):
        return True
    if prev in ("that", "who") and low.endswith("s") and not low.endswith(
            ("ss", "us", "is")) and "VERB" in word_pos(low):
        return True  # "a framework that fuses online variational inference"
    if prev in ("which", "who") and idx > 1 and toks[idx - 2] == "," and _base_verb(low):
        return True  # "heat kernels, which lack closed-form expressions"
    if prev == "that" and idx > 1 and _plural_noun(toks[idx - 2]) and _base_verb(low):
        return True  # "existing methods that transform LLMs"; "shows that model" a noun
    if verb_after_to(toks, idx, low) or (
            prev == "to" and idx > 1 and toks[idx - 2].lower() in {"how", "what"}
            and "VERB" in word_pos(low)):
        return True  # "used to train Megatron-Turing NLG", "How to fool radiologists"
    if prev == "to" and (nxt in _OBJECT_START or idx + 1 < len(toks) and possessor(
            toks[idx + 1]) is not None) and "VERB" in word_pos(low):
        return True  # "to pose a threat", "to replicate Sora's functions": verbs
    if run and idx > len(run) and toks[idx - len(run) - 1].lower() in ("do", "does", "did") \
            and _base_verb(low):
        return True  # a question's verb after its subject: "Where does AlphaGo go"
    after = toks[idx + 1][1:] if idx + 1 < len(toks) else ""
    if low in generic_modifier_forms() and not any(ch.isupper() or ch.isdigit() for ch in after):
        return True  # a title's "Better and Faster Human Animation"; "Faster R-CNN" a name
    if prev in ("has", "have", "had") and low.endswith("ed") and not run and (
            "ADJ" not in word_pos(low) and "VERB" in word_pos(low)):
        return True  # "LLMs have revolutionized content creation": a perfect's verb
    if run and low == "near":
        return True  # "a model near Turing-Hopf bifurcation"; "near OOD detection" stays
    if run and run[-1].lower() in _PLURAL_SUBJECTS and nxt in _OBJECT_START and _base_verb(low):
        return True  # "people buy a product"; "people search engines" stays a phrase
    return bool(run) and verb_after_plural(run[-1], low) or (
        _after_subject(toks, idx) and "VERB" in word_pos(low)) or (
        prev == "by" and low.endswith("ing") and "VERB" in word_pos(low)) or (
        low in UNITS and prev[:1].isdigit())


def _plural_noun(tok: str) -> bool:
    """A plural that is no verb's -s form ("methods", "LLMs"; not "shows", "models")."""
    if is_acronym(tok):
        return tok.endswith("s") and tok[-2:-1].isupper()
    low = tok.lower()
    return low.endswith("s") and singular(low) != low and "VERB" not in word_pos(low)


def _after_subject(toks: list[str], idx: int) -> bool:
    """After a subject, a modal, "also", "not" or "not only" ("not only conserves
    energy"): where a noun/verb homograph is the verb."""
    prev = toks[idx - 1].lower() if idx else ""
    return prev in _BEFORE_VERBS or (prev == "only" and idx > 1
                                     and toks[idx - 2].lower() == "not")


BE_HAVE = frozenset("is are was were be been has have had".split())
# what opens a verb's object right after it ("to capture the", "to pose a")
_OBJECT_START = frozenset("the a an this these those its their our his her".split())
# what may follow a noun phrase's head but not a transitive verb: the phrase ends there
_AFTER_HEAD = frozenset("and or but nor can could may might must should would will of with on "
                        "in for from across at by over under between among via".split())
_SENTENCE_ENDS = frozenset(".!?:;")


def _noun_here(toks: list[str], idx: int, run: list[str]) -> bool:
    """A word the lexicon reads as a verb that is a noun of its phrase here: a plural head
    (`lexicon.PLURAL_HEADS`) after a word of its run where a verb would want an object
    ("ablation studies show", "similarity measures and", "hand poses."), and a capitalised
    verb inside a sentence before a lower-case word of the phrase: a name ("Lie groups",
    "Lie algebra", "Stochastic Lie group integrators"; a participle is none: "Correction
    Using guidance Strategies"); and "least" of "least squares"."""
    tok = toks[idx]
    low = tok.lower()
    nxt = toks[idx + 1] if idx + 1 < len(toks) else ""
    if low in PLURAL_HEADS:
        if not run or tok != low:
            return False
        n = nxt.lower()
        return not is_word(nxt) or n in _AFTER_HEAD or n in BE_HAVE or (
            n in phrase_breaking_verbs() and n not in PLURAL_HEADS) or is_verb_only(n)
    prev = toks[idx - 1] if idx else "."
    if low in _GERUND_HEADS:
        return _gerund_compound(run, nxt)
    if low == "least":  # "least squares", a function word elsewhere ("at least")
        return nxt.lower() in ("squares", "square") and prev.lower() != "at"
    return (tok[:1].isupper() and tok[1:].islower() and low in phrase_breaking_verbs()
            and not low.endswith(("ing", "ed")) and prev not in _SENTENCE_ENDS
            and is_word(nxt) and nxt.islower() and not breaks(nxt))


# Gerunds of `lexicon._PHRASE_VERBS` that head a compound noun after the noun they act on:
# "parameter sharing", "decision making", "exception handling", "theorem proving".
_GERUND_HEADS = frozenset("sharing making handling building solving proving finding "
                          "seeking".split())
_ACTORS = frozenset("agent model method algorithm system framework network approach solver "
                    "scientist researcher user robot policy learner human team".split())


def _gerund_compound(run: list[str], nxt: str) -> bool:
    """After a singular noun and before no object of a verb: "file sharing system",
    "parameter sharing across layers"; "a model sharing the weights", "an agent making
    decisions" keep their verb."""
    if not run or run[-1].lower() in _ACTORS or run[-1].lower() in PERSON_ROLES:
        return False  # "AI-based Scientist solving PDEs", "an algorithm finding cliques"
    last, n = run[-1].lower(), nxt.lower()
    noun = noun_like_end(run[-1]) and not last.endswith("ing") and (
        is_acronym(run[-1]) and not run[-1].endswith("s") or singular(last) == last)
    return noun and n not in _OBJECT_START and n not in _VERB_CONTEXT and not (
        n.endswith("s") and singular(n) != n)


_GAINED = frozenset("momentum traction popularity prominence attention interest".split())


def idiom_object(toks: list[str], idx: int) -> bool:
    """"architectures are gaining momentum": the object of an idiom is no concept, even
    one the field's keywords know ("momentum" of an optimiser)."""
    return idx > 0 and toks[idx].lower() in _GAINED and toks[idx - 1].lower() in (
        verb_forms("gain") | verb_forms("garner"))


_NOT_OBJECTS = frozenset({"that", "more"})  # "model merging that …" is a noun phrase
# After a noun, a verb-only -ing form followed by one of these opens a participle clause
# ("a wave packet propagating along the guide", "mechanics starting from the theory"), not
# a compound ("model merging"; "learning" and "processing" are nouns to the lexicon, and
# the field's known terms are candidates wherever they occur); before "that", only a
# verb of saying or showing does ("a conjecture stating that").
_PARTICIPLE_NEXT = frozenset("from along through across around into onto upon toward towards "
                             "within".split())
_REPORTING = frozenset("stating showing suggesting indicating implying assuming claiming "
                       "asserting proving demonstrating revealing ensuring requiring arguing "
                       "predicting confirming noting saying observing establishing verifying "
                       "guaranteeing pinpointing highlighting underscoring emphasizing stressing "
                       "illustrating concluding hypothesizing positing believing recognizing "
                       "reporting explaining clarifying evidencing".split())


_POSSESSIVE = re.compile(r"(?<=\w)['’]s?$")
_APOSTROPHES = ("'", "’", "'s", "’s")


def possessor(tok: str) -> str | None:
    """The word a possessive is made of ("model’s" → "model", "models'" → "models"), or
    None for a word that is not one."""
    if not tok.endswith(_APOSTROPHES):  # most words: no regex (it ran on every token)
        return None
    owner = _POSSESSIVE.sub("", tok)
    return owner if owner != tok else None


def runs(toks: list[str]) -> Iterator[tuple[int, list[str]]]:
    """Maximal runs of content words, with the token index where each starts.

    A noun/verb homograph ending in -s, or a verb-only -ing form, right before a
    determiner (or, for -ing, an evaluative adjective) is read as a verb: "the model
    breaks the curse" splits at "breaks", "a library implementing the theory" at
    "implementing"; so is a verb's base form right after a plural noun ("objectives
    form", "models lack adaptability": a plural rarely modifies the next noun), and after a
    subject, modal or "also"/"not" ("can support data scientists"), and a gerund after
    "by" ("by leveraging LLMs"); and a unit after a number (`_splits`). A form read as a
    verb that is a noun of its phrase there ("ablation studies", "Lie groups",
    `_noun_here`) does not split it. A possessive ends its run with the owner.
    """
    run: list[str] = []
    start = 0
    for idx, tok in enumerate(toks):
        owner = possessor(tok)
        if owner is not None and not breaks(owner):  # "the model’s outputs": "model" ends it
            if not run:
                start = idx
            yield start, [*run, owner]
            run = []
            start = idx + 1
            continue
        if not _noun_here(toks, idx, run) and (breaks(tok) or _splits(toks, idx, run)):
            if run:
                yield start, run
            run = []
            start = idx + 1
        else:
            if not run:
                start = idx
            run.append(tok)
    if run:
        yield start, run


# Words that open a noun phrase: a phrase after one does not open its run, and "including"
# before one is a verb ("by including a forecasting objective").
DETERMINERS = frozenset("the a an this these that those its their our his her each every "
                        "any some no such".split())
