"""The candidate phrases of a token list: tails of runs of content words (`grammar.runs`),
read whole where a known term or a definition would cut them, and the known terms'
spans. `text.candidates` turns them into a paper's candidates."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, NamedTuple

from paperkg.build.grammar import (
    DETERMINERS,
    bare_short_acronym,
    counts_something,
    idiom_object,
    modifies_next,
    possessor,
    runs,
    valid_single,
    valid_span,
)
from paperkg.build.terms import term_key
from paperkg.build.wordclass import ING_NOUNS, is_word, noun_like_end
from paperkg.lexicon import (
    GENERIC_MODIFIERS,
    GRADING_MODIFIERS,
    KIND_NOUNS,
    generic_modifier_forms,
    is_verb_ing,
    pos,
    singular,
)

if TYPE_CHECKING:
    from paperkg.build.text import KnownTerms

__all__ = ["Tails", "known_spans", "tails"]


def known_spans(toks: list[str], known: KnownTerms, max_words: int) -> Iterator[
        tuple[int, str]]:
    """(position, phrase) of every span of up to `max_words + 1` words whose key is known."""
    n = len(toks)
    for i, tok in enumerate(toks):
        if not is_word(tok):
            continue
        first = tok.lower().split("-")[0]
        if first not in known.first_words and tok.lower() not in known.first_words:
            continue
        for j in range(i + 1, min(n, i + max_words + 1) + 1):
            if not is_word(toks[j - 1]):
                break
            owner = possessor(toks[j - 1])  # "the large language model’s outputs"
            phrase = " ".join([*toks[i:j - 1], owner or toks[j - 1]])
            if term_key(phrase) in known.keys and (
                    j - i > 1 or (valid_single(phrase) and not idiom_object(toks, i))):
                yield i, phrase
            if owner is not None:
                break


def _valid_tails(toks: list[str], max_words: int, known: KnownTerms | None,
                 inner: set[int] | None = None, defined: Mapping[str, str] | None = None,
                 ) -> Iterator[tuple[int, list[str], bool, bool]]:
    """(start, words, longest, leads) of every candidate tail of every run, the longest
    valid tail of each run flagged, and whether the tail opens its run other than after a
    determiner ("Learning compact models is", "for testing GUIs"; not "the signaling
    molecules", "discriminative imaging features"). A run that a verb form cut inside a
    known term goes on to include it: "formal theorem | proving", "sequential decision |
    making" are "formal theorem proving" and "sequential decision making", not "formal
    theorem" and "sequential decision" (the verb's forms end most phrases: "methods
    proving", "factors making"); so does a run after an evaluative modifier that opens a
    known term with it ("natural | language benchmarks" is "natural language benchmarks",
    not "language benchmarks"), and no tail cuts that term. `inner` receives the positions
    of the words that modify a later noun-like word of their run, other than a kind noun
    ("compression | techniques", "prompt-tuning | approach" name "compression" and "prompt
    tuning"). `defined` (short form: long form, lower case): a long form whose definition
    interrupts its phrase gives the phrase too ("visual autoregressive (VAR) modeling":
    "visual autoregressive modeling", `_across_definition`)."""
    found = list(runs(toks))
    for r, (start, run) in enumerate(found):
        after = start + len(run)
        joined = known is not None and after < len(toks) and is_word(toks[after]) and (
            term_key(f"{run[-1]} {toks[after]}") in known.keys)
        if joined:
            run = [*run, toks[after]]
        if counts_something(toks, start, run):
            continue
        cut = _known_opening(toks, start, run, known, max_words)
        if cut:
            start, run = start - 1, [toks[start - 1], *run]
        if defined and r + 2 < len(found):  # the short form is a run of its own
            joint = _across_definition(toks, start + len(run), found[r + 2], defined,
                                       max_words)
            if joint is not None:
                yield joint
        end = len(run)
        while end and not noun_like_end(run[end - 1]):
            end -= 1
        if inner is not None and end > 1:  # not before a kind noun: "transformer | models"
            inner.update(range(start, start + end - 1 - (singular(run[end - 1]) in KIND_NOUNS)))
        # "deterministic Pareto | optimal policies": the run is a modifier there
        longest = end < len(run) or joined or not modifies_next(toks, after)
        last = end - 1 if joined and end == len(run) else end  # no tail of the verb alone
        for i in range(max(0, end - max_words), last):
            words = run[i:end]
            if 0 < i < cut:  # it would cut the known term: what follows is inside a phrase
                longest = False
                continue
            if not valid_span(words) or len(words) == 1 and bare_short_acronym(words[0]):
                continue
            yield start + i, words, longest, i == 0 and not (
                start and toks[start - 1].lower() in DETERMINERS)
            longest = False


def _known_opening(toks: list[str], start: int, run: list[str], known: KnownTerms | None,
                   max_words: int) -> int:
    """The length of the known term that the evaluative modifier before `run` opens with
    the run's first words ("natural language", "free energy", "large language model"), 0
    if none: such a word ends a phrase elsewhere ("natural images", `grammar.breaks`). An
    adverb that opens some of the field's terms ("weakly", "fully", "distributionally")
    opens the run's first word with it: without it the word means something else."""
    word = toks[start - 1].lower() if start else ""
    if known is None or word not in known.first_words or word in GRADING_MODIFIERS:
        return 0
    if word.endswith("ly") and "ADV" in pos(word) and run[0].islower() and len(run) > 1:
        return 2  # an adverb that opens the field's terms: "weakly | supervised dependency
        # parser", "fully | connected layers", not "supervised dependency parser"
    if word not in GENERIC_MODIFIERS and word not in generic_modifier_forms():
        return 0
    for n in range(min(len(run), max_words), 0, -1):
        if term_key(" ".join(toks[start - 1:start + n])) in known.keys:
            return n + 1
    return 0


def _across_definition(toks: list[str], end: int, following: tuple[int, list[str]],
                       defined: Mapping[str, str], max_words: int,
                       ) -> tuple[int, list[str], bool, bool] | None:
    """The tail (as `_valid_tails` gives it) of a long form that ends at token `end` (a
    run's end; the grammar may have cut the form's first words) and the next run's noun
    phrase, when the long form's definition stands between them: "large language model
    (LLM) agents", "Chain-of-Jailbreak (CoJ) attack", "visual autoregressive (VAR)
    modeling"; None otherwise. A plural long form ends its phrase ("large language models
    (LLMs) hallucinate"), the next run must go on in lower case, a kind noun adds nothing
    to a long form that is a noun phrase ("Retrieval-Augmented Generation (RAG) methods"),
    and a verb of the long form's clause is no head ("Continual Learning (CL) tackles")."""
    if not (end + 3 == following[0] and toks[end] == "(" and toks[end + 2] == ")"):
        return None
    long = defined.get(toks[end + 1], "").split()
    n = len(long)
    if not n or n > end or [w.lower() for w in toks[end - n:end]] != long or (
            singular(long[-1]) != long[-1]):
        return None
    head = following[1]
    stop = len(head)
    while stop and not noun_like_end(head[stop - 1]):
        stop -= 1
    words = [*toks[end - n:end], *head[:stop]]
    if not stop or head[0] != head[0].lower() or len(words) > max_words or (
            singular(words[-1].lower()) in KIND_NOUNS and noun_like_end(long[-1])):
        return None
    first = head[0].lower()
    then = toks[following[0] + 1].lower() if following[0] + 1 < len(toks) else ""
    finite = first.endswith("s") and "VERB" in pos(first) and (
        then in DETERMINERS or is_verb_ing(then))  # "tackles the", "entails learning"
    participle = is_verb_ing(first) and first not in ING_NOUNS and first not in KIND_NOUNS
    if finite or participle or not valid_span(words):
        return None
    return end - n, words, True, False


_SENTENCE_ENDS = frozenset({".", "?", "!"})


class Tails(NamedTuple):
    """What `tails` finds in a token list."""

    seen: dict[str, tuple[int, int, str]]  # first position, count, spelling, per key
    alone: set[str]  # some run's longest tail (the others only end a longer candidate)
    inside: set[str]  # somewhere not opening their run (`_valid_tails`)
    inner: set[int]  # positions of words that modify a later word of their run
    after_to: set[str]  # right after "to" wherever they occur ("to use clickthrough logs")


def tails(toks: list[str], max_words: int, known: KnownTerms | None,
          defined: Mapping[str, str] | None = None) -> Tails:
    """The candidate tails of `toks` and where they stand (`Tails`). The spelling is the
    first one not capitalised by a sentence's start where there is one: "Graphene is …;
    we grow graphene" is "graphene"."""
    seen: dict[str, tuple[int, int, str]] = {}
    alone: set[str] = set()
    inside: set[str] = set()
    inner: set[int] = set()
    after_to: set[str] = set()
    elsewhere: set[str] = set()
    opening: set[str] = set()  # keys spelled as a sentence's first words so far
    for at, words, longest, leads in _valid_tails(toks, max_words, known, inner, defined):
        phrase = " ".join(words)
        key = phrase.lower()
        first_at, count, form = seen.get(key, (at, 0, phrase))
        starts = at == 0 or toks[at - 1] in _SENTENCE_ENDS
        if not count and starts:
            opening.add(key)
        elif key in opening and not starts:
            opening.discard(key)
            form = phrase
        seen[key] = (first_at, count + 1, form)
        if longest:
            alone.add(key)
        if not leads:
            inside.add(key)
        (after_to if at and toks[at - 1].lower() == "to" else elsewhere).add(key)
    return Tails(seen, alone, inside, inner, after_to - elsewhere)
