"""A concept's preferred label: the most readable common spelling, cased as prose.

Titles and headings capitalise common words ("Embedding Perspective", "Short Videos",
"INCREMENTAL LEARNING"); a label should read the way the word is written mid-sentence.
`evidence.NameEvidence` counts, in the abstracts of the papers that use a phrase, how often
it is written with its capitals where no sentence starts: a phrase mostly written so is a name
("Dynamic Prompt Corruption", "Llama") and keeps its case; others go lower case. Acronyms
(`lexicon.is_acronym`) keep theirs, but a word of five capitals or more, or any word of a
shouted phrase ("TIME SERIES"), is spelled as the papers write it mid-sentence, if they do
(a shouted title's "DIFFUSIVE"), and an acronym's capitalised modifier is a title's
("LLM-Based" is "LLM-based"). Labels are unique in the scheme exactly (SKOS), so "CLIP"
(a model) and "clip" may both be labels; a label is never numbered.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Mapping, MutableMapping, Sequence

from paperkg.build.evidence import EPONYMS, NameEvidence, heading_word
from paperkg.build.ingest import Paper
from paperkg.build.text import clean_text
from paperkg.build.wordclass import ADJ_SUFFIX, HYPHEN_ADJ
from paperkg.lexicon import (
    FUNCTION_WORDS,
    WORD_PREFIXES,
    is_acronym,
    is_common_word,
    is_field_word,
    is_shouted,
    is_verb_ing,
    singular,
)
from paperkg.memo import WordMemo

__all__ = ["CleanAbstracts", "label_choice", "preferred_label", "prose_case"]

_NOUN_SUFFIX = re.compile(r"(?:izer|iser|ization|isation|ness|ity|ment|ism)s?$")
_NEGATIONS = ("un", "non")  # "Unpaired", "Nonconvex": English words negated, no names


def _shouted(word: str) -> bool:
    """"DIFFUSIVE", "PREDATOR-PREY": a title's capitals, not an acronym's, if the papers
    write the word otherwise (five letters or more: "MATH", "CLIP" keep theirs)."""
    return word.isupper() and sum(c.isalpha() for c in word) >= 5


def _shouted_words(word: str) -> bool:
    """"INSTRUCTION-FOLLOWING", "DATA-FREE", "SATISFIABILITY": capitals on English words
    (or prefixes, or a long word built as an English one) only, a heading's; "ME-LORA",
    "WISDOM-7B", "CURVALID" are names whatever their case, and "AI AGENTS" keeps "AI"."""
    parts = [p for p in word.split("-") if p]
    return word.isupper() and bool(parts) and all(
        p.isalpha() and (is_common_word(p) and not is_acronym(p) or p.lower() in WORD_PREFIXES
                         or len(p) >= 7 and _built_as_english(p.lower()))
        for p in parts)  # "AI" is English ("ai", a sloth) but an acronym first


def _looks_like_name(word: str) -> bool:
    """A capitalised word nobody writes mid-sentence (a title word) is a name unless
    English or the field knows it (or, hyphenated, a part of it) or it is built as an adjective, a
    common noun or a verb's -ing form, or an English word negated ("Spatiotemporal",
    "Intertidal", "Parametric", "Optimizers", "Denoising", "Unpaired", "Nonconvex")."""
    low = word.lower()
    if low in EPONYMS:  # English knows "bayesian", but writes "Bayesian" (a name's)
        return True
    if _built_as_english(low):
        return False
    return not any(_common(part) for part in word.split("-") if part)


def _built_as_english(low: str) -> bool:
    """A lower-case word built as an adjective, a common noun or a verb's -ing form, or an
    English word negated, whether or not the lexicon knows it ("spatiotemporal",
    "satisfiability", "denoising", "nonconvex")."""
    return low.isalpha() and bool(
        ADJ_SUFFIX.search(low) or low.endswith("ic") or _NOUN_SUFFIX.search(low)
        or is_verb_ing(low) or _prefixed_word(low, _NEGATIONS))


def prose_case(form: str, is_name: bool, names: NameEvidence | None = None,
               papers: Iterable[str] = ()) -> str:
    """A name as written (so is a form of acronyms only, "LLM", "GPT-4": `preferred_label`
    asks no evidence for those); anything else with every word in lower case but acronyms
    and, given `names`, the capitalised words that are names themselves, spelled as the
    papers write them ("Castell-Gaines methods", "Cayley-Dickson process", "Markov
    chain", "TURING-HOPF BIFURCATION" → "Turing-Hopf bifurcation"). A name in a shouted
    title is a heading's spelling too: "PROGRESSIVE KNOWLEDGE DISTILLATION (PKD)" is spelled
    as the papers write its first word mid-sentence, its other words alike ("Progressive
    Knowledge Distillation"; after an acronym as written: "LLM alignment"), acronyms and
    function words as they are."""
    words = form.split()
    shouting = is_shouted(words)
    if is_name and not shouting:
        return form
    papers = list(papers)
    cased = [_word_case(w, names, papers, shouting, _neighbours(words, k), len(words) == 1)
             for k, w in enumerate(words)]
    if is_name:
        title = cased[0][:1].isupper() and not is_acronym(cased[0])
        return " ".join(c if c.lower() in FUNCTION_WORDS or not c[:1].islower() else (
            c[:1].upper() + c[1:] if title else c) for c in cased)
    if names is not None:
        _capitals_beside_lowered(words, cased, names, papers)
    return " ".join(cased)


def _capitals_beside_lowered(words: Sequence[str], cased: list[str], names: NameEvidence,
                             papers: list[str]) -> None:
    """A name's capitals are its own. After a capitalised word of the form that prose case
    lowered, a later English word (or the field's, "Classifier") keeps its capital only if
    the papers capitalise it standing alone ("hidden Markov models"); the capitalised
    English words before it keep theirs only if one of them is so capitalised ("Segment
    Anything model"). Each word's case is judged apart, some by other phrases' uses:
    "Global Economic Prospects 2007 analyzes", "Marked Temporal Point Processes (MTPP)",
    "Conditional Random Fields" gave "global economic Prospects", "marked Temporal point
    processes", "Conditional Random fields". A word neither English nor the field knows may
    be a name without such evidence ("Chinese", "Wasserstein"), and so may an eponym
    ("Bayesian"): they keep their capitals, so a title's "Large Hadron Collider (LHC)" stays
    "large hadron Collider"."""
    lowered = [out != word and out == out.lower() for word, out in zip(words, cased,
                                                                         strict=True)]
    if not any(lowered):
        return
    first = lowered.index(True)
    plain = [k for k, out in enumerate(cased) if out[:1].isupper() and out.isalpha()
             and not is_acronym(out) and out.lower() not in EPONYMS
             and (_common(out) or _common(singular(out)))]
    alone = {k for k in plain if names.capitalised_alone(cased[k], papers)}
    before = [k for k in plain if k < first]
    for k in plain:
        if k not in alone and (k > first or alone.isdisjoint(before)):
            cased[k] = cased[k].lower()


def _common(word: str) -> bool:
    """English's word or the field's ("Autoencoders" in a title is no name)."""
    return is_common_word(word) or is_field_word(word)


def _neighbours(words: Sequence[str], k: int) -> set[str]:
    return {words[n].lower() for n in (k - 1, k + 1) if 0 <= n < len(words)}


def _word_case(word: str, names: NameEvidence | None, papers: list[str],
               shouting: bool = False, beside: Collection[str] = (), alone: bool = False,
               ) -> str:
    """One word of a label that is not a name: as the papers write it mid-sentence; else
    an acronym or a word that looks like a name keeps its case; a hyphenated word with
    no evidence of its own is a name if no part is an English word ("Kolmogorov-Arnold"),
    else keeps only the capitals of its parts that are acronyms or that the papers give
    them ("Hessian-Free" → "Hessian-free", "Auto-Ensemble" → "auto-ensemble")."""
    if word == word.lower():
        return word
    shouted = word.isupper() and (shouting or _shouted(word))
    parts = word.split("-")
    if is_acronym(word) and not shouted and not _title_modifier(parts):
        return word
    spelled = names.word_spelling(word, papers, beside) if names is not None else None
    if spelled is not None and not (shouted and alone and spelled != spelled.lower()):
        return spelled  # a shouted name alone keeps its capitals: "CURVALID" (below)
    if spelled is None and names is not None and word.isalpha() and _lower_in_other_number(
            word, names, papers):
        return word.lower()  # a title's "Outlier Synthesis" where the abstract says "outliers"
    if shouted and word.lower() in EPONYMS:
        return word.capitalize()  # "BAYESIAN OPTIMIZATION": "Bayesian optimization"
    if shouted and (alone or len(parts) == 1):
        # "INSTRUCTION-FOLLOWING", "OVERFITTING"; a title's name alone: "WISDOM-7B"; in a
        # shouted phrase with no other evidence, "DEEP" of "DEEP REINFORCEMENT LEARNING"
        return word.lower() if _shouted_words(word) or (
            shouting and not alone and heading_word(word)) else word
    if len(parts) > 1:
        if not shouted and _looks_like_name(word):  # "Kolmogorov-Arnold", "Monte-Carlo"
            return word
        # "Hessian-free", "LLM-based"; in a shouted phrase "Lyapunov-stable"
        return "-".join(_part_case(p, names, papers, shouting) for p in parts)
    return word if is_acronym(word) or _looks_like_name(word) else word.lower()


def _lower_in_other_number(word: str, names: NameEvidence, papers: list[str]) -> bool:
    """Whether the papers write the word's plural (or, for a plural, its singular) in lower
    case where no sentence starts: no evidence for the word itself, but a common noun's."""
    other = singular(word) if word.lower().endswith("s") else f"{word}s"
    if other.lower() == word.lower():
        return False
    spelled = names.word_spelling(other, papers)
    return spelled is not None and spelled == spelled.lower()


def _part_case(part: str, names: NameEvidence | None, papers: list[str],
               shouting: bool) -> str:
    """A part of a hyphenated word: an acronym keeps its capitals, and so does a part that
    may be a name (a symbol, "Q"; a word English does not know that is no prefix, -ing
    form or derived word: "Hessian", not "Pre", "Denoising", "Modality") if the papers
    write it so mid-sentence; the rest is lower case."""
    if part == part.lower():
        return part
    if is_acronym(part) and not (part.isupper() and (shouting or _shouted(part))):
        return part
    low = part.lower()
    if low in EPONYMS:  # "Non-Euclidean": as the papers write it, else a name's capital
        spelled = names.word_spelling(part, papers) if names is not None else None
        return spelled or part.capitalize()
    if names is not None and not _common(part) and (len(part) == 1 or (
            low not in WORD_PREFIXES and not is_verb_ing(low) and _looks_like_name(part))):
        spelled = names.word_spelling(part, papers)
        if spelled is not None:
            return spelled
    return part.lower()


def _may_be_name_now(word: str) -> bool:
    """A lower-case word that may be a name written in a title's lower case ("visual
    turing test", "church-turing thesis"): letters, and a part English does not know that
    is no prefix and not built as an adjective, a derived noun or a prefixed word
    ("multimodal", "subgraph")."""
    parts = [p for p in word.split("-") if p]
    return bool(parts) and all(p.isalpha() for p in parts) and any(
        len(p) >= 3 and p not in WORD_PREFIXES and _looks_like_name(p)
        and not _prefixed_word(p) for p in parts)


# asked of every word of every lower-case label (85k times by an update's scheme): kept
# from one build to the next (`paperkg.memo`)
_may_be_name = WordMemo("may_be_name", _may_be_name_now)


def _prefixed_word(word: str, prefixes: Collection[str] = WORD_PREFIXES) -> bool:
    """A prefix and an English word: "nonlinear", "subgraph", a derived word, no name
    (for names written in capitals this guess would be wrong with every prefix:
    "Informer", "Autoformer"; with negations only it holds: "Unpaired")."""
    return any(word.startswith(p) and len(word) - len(p) >= 3 and is_common_word(word[len(p):])
               for p in prefixes)


def _names_restored(form: str, names: NameEvidence, papers: list[str]) -> str:
    """A lower-case form with the words the papers write as names mid-sentence spelled so:
    "turing test" is "Turing test" where the abstracts say "Turing test", "non-iid" is
    "non-IID"; words they write in lower case (or not at all) stay as they are."""
    words = form.split()
    out = []
    for k, word in enumerate(words):
        spelled = names.word_spelling(word, papers, _neighbours(words, k), strict=True) \
            if _may_be_name(word) else None
        out.append(spelled if spelled is not None else word)
    return " ".join(out)


def _title_modifier(parts: Sequence[str]) -> bool:
    """"LLM-Based", "DNA-Encoded": a name and a capitalised modifier, a title's casing of
    "LLM-based" ("MT-Bench", "AutoDAN-Turbo" are names whole)."""
    return any(p[:1].isupper() and p[1:].islower() and (
        HYPHEN_ADJ.search("-" + p.lower()) is not None
        or p.endswith("ed") and is_common_word(p)) for p in parts[1:])


def _spacing(form: str) -> str:
    """How a form joins its words: "large language models" " ", "large-language model" "-"."""
    return _JOINS.sub("", form)


_JOINS = re.compile(r"[^\s\-\u2010-\u2015/]+")


def _shouting(form: str) -> int:
    """Capitals after a capital: "LLAMA3-8B-INSTRUCT" shouts what "Llama3-8b-Instruct"
    says, "RANKCLIP" what "RankCLIP" does."""
    return len(_AFTER_CAPITAL.findall(form))


_AFTER_CAPITAL = re.compile(r"(?<=[A-Z])[A-Z]")


def _spacing_uses(forms: Mapping[str, int]) -> dict[str, int]:
    """Uses of each way of joining the words, over all cases and numbers: of two forms used
    as often, the label takes the spacing most uses have ("large language models", written
    so in four of five uses, not "large-language model", the shorter)."""
    uses: dict[str, int] = {}
    for f, n in forms.items():
        joins = _spacing(f)
        uses[joins] = uses.get(joins, 0) + n
    return uses


class CleanAbstracts(Mapping[str, str]):
    """Clean abstracts by paper id, each cleaned when first asked for: label casing reads
    only the papers that write a concept with capitals. `kept`: abstracts cleaned before
    (paper id → (abstract, clean)), which a resident process keeps from one update to
    the next (`build.kgreads`); those cleaned here join it."""

    def __init__(self, papers: Sequence[Paper],
                 kept: MutableMapping[str, tuple[str, str]] | None = None) -> None:
        self._papers = {p.id: p for p in papers}
        self._done: MutableMapping[str, tuple[str, str]] = {} if kept is None else kept

    def __getitem__(self, pid: str) -> str:
        abstract = self._papers[pid].abstract
        done = self._done.get(pid)
        if done is None or done[0] != abstract:  # a changed abstract is cleaned again
            done = self._done[pid] = (abstract, clean_text(abstract))
        return done[1]

    def __iter__(self) -> Iterator[str]:
        return iter(self._papers)

    def __len__(self) -> int:
        return len(self._papers)


def _numbered_name(form: str) -> bool:
    """Title Case words and a number: a name by its numbering ("Earth Reanalysis 5",
    "Stable Diffusion 3"), whatever the capitals of a definition say."""
    words = form.split()
    return len(words) >= 2 and _NUMBERING.fullmatch(words[-1]) is not None and all(
        w[:1].isupper() or w.lower() in FUNCTION_WORDS for w in words[:-1])


_NUMBERING = re.compile(r"[vV]?\d+(?:\.\d+)*[A-Za-z]?")  # "5", "v2", "3.5", "8K"


def preferred_label(forms: Mapping[str, int], taken: set[str], names: NameEvidence,
                    papers: Iterable[str] = (), cased: dict[str, str] | None = None) -> str:
    """`label_choice`'s label."""
    return label_choice(forms, taken, names, papers, cased)[0]


def label_choice(forms: Mapping[str, int], taken: set[str], names: NameEvidence,
                 papers: Iterable[str] = (), cased: dict[str, str] | None = None
                 ) -> tuple[str, bool]:
    """The most readable common form: spelled out before an acronym, lower case before
    Title Case (unless lower case is under a quarter of the uses), then the most frequent,
    then the spacing most uses have, the less shouting, the shorter; in prose case unless
    the papers using it write it as a name (a lower-case form too gets the capitals of
    the names in it); never a label another concept took (exactly).

    `cased` holds the prose case of capitalised forms worked out before for these very
    papers (texts unchanged: an update's memo, `canon`); the forms cased here join it.

    (label, free): free when `taken` turned no choice down, so the same forms, papers and
    texts give the same label whatever else is taken, as long as it is not that label
    (`naming.NamingMemo`)."""
    if len(forms) == 1:  # most concepts: one spelling, often in lower case already
        order = list(forms)
        if order[0] == order[0].lower() and order[0] not in taken and not any(
                _may_be_name(w) for w in order[0].split()):
            return order[0], True
    else:
        top = max(forms.values())
        spaced = _spacing_uses(forms)
        order = sorted(forms, key=lambda f: (
            is_acronym(f),                                  # spelled out before an acronym
            not (f == f.lower() and 4 * forms[f] >= top),   # lower case unless rare
            -forms[f], -spaced[_spacing(f)],
            _shouting(f), len(f), f))
    users: list[str] | None = None
    done = {} if cased is None else cased
    free = True
    for form in order:
        if form in done:
            prose = done[form]
        elif form == form.lower():
            if any(_may_be_name(w) for w in form.split()):
                users = list(papers) if users is None else users
                prose = done[form] = _names_restored(form, names, users)
            else:
                prose = form
        elif all(is_acronym(w) and not _shouted(w) for w in form.split()):
            prose = form
        else:
            users = list(papers) if users is None else users
            prose = done[form] = prose_case(form, _numbered_name(form) or names.is_name(
                form, users), names, users)
        for label in (prose, form):
            if label not in taken:
                return label, free
            free = False
    # every spelling is another concept's label (a short form two papers define apart):
    # name it by its most used spelling and what it is written as elsewhere
    first = order[0]
    label = f"{first} / {order[-1]}" if len(order) > 1 else f"{first} (term)"
    return (label if label not in taken else f"{first} ({' '.join(sorted(forms))})"), False
