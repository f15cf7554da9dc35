"""A concept's preferred label: the most readable common spelling, cased as prose.

Titles and headings capitalise common words ("Embedding Perspective", "Short Videos",
"INCREMENTAL LEARNING"); a label should read the way the word is written mid-sentence.
`NameEvidence` counts, in the abstracts of the papers that use a phrase, how often it is
written with its capitals where no sentence starts: a phrase mostly written so is a name
("Dynamic Prompt Corruption", "Llama") and keeps its case; others go lower case. Acronyms
(`lexicon.is_acronym`) always keep theirs. Labels are unique in the scheme exactly (SKOS),
so "CLIP" (a model) and "clip" may both be labels; a label is never numbered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence

from paperkg.build.ingest import Paper
from paperkg.build.text import clean_text
from paperkg.lexicon import is_acronym, is_common_word

__all__ = ["CleanAbstracts", "NameEvidence", "preferred_label", "prose_case"]

_SENTENCE_END = re.compile(r"[.!?:;]\s*$")
_PAREN = re.compile(r"\s*\(")
_IN_DEFINITION = re.compile(r"(?:[\s-]+[A-Z][\w-]*)*\s*\((?=[A-Z])")


def _wordlike(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


class NameEvidence:
    """How the papers that use a phrase write it where no sentence starts: mostly with
    its capitals ("we propose Dynamic Prompt Corruption, which") makes it a name.

    Occurrences are found with `str.find` on each text's lower case (kept per paper), not
    a regular expression per spelling: a full corpus asks about some 30,000 spellings."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self.texts = texts
        self._lower: dict[str, str] = {}

    def _occurrences(self, form: str, papers: Iterable[str], hyphen_ends: bool
                     ) -> Iterator[tuple[str, int, int]]:
        """(text, start, end) of each case-insensitive whole-word use of `form` where no
        sentence starts; `hyphen_ends`: a hyphen next to it ends the word too."""
        want = form.lower()
        for pid in papers:
            text = self.texts.get(pid, "")
            low = self._lower.get(pid)
            if low is None:
                low = self._lower[pid] = text.lower()
            if len(low) != len(text):  # a letter whose lower case is longer: rare, skipped
                continue
            i = low.find(want)
            while i >= 0:
                j = i + len(want)
                before = low[i - 1] if i else " "
                after = low[j] if j < len(low) else " "
                if not (_wordlike(before) or _wordlike(after) or not hyphen_ends and "-" in
                        (before, after)) and i and not _SENTENCE_END.search(
                            text[max(0, i - 3):i]):
                    yield text, i, j
                i = low.find(want, i + 1)

    def is_name(self, form: str, papers: Iterable[str]) -> bool:
        capital = lower = 0
        for text, i, j in self._occurrences(form, papers, hyphen_ends=False):
            if _PAREN.match(text, j):
                continue  # a definition ("Decision Trees (DTs)") is capitalised by convention
            if text[i:j] == form:
                capital += 1
            else:
                lower += 1
        return capital > lower

    def word_is_name(self, word: str, papers: Iterable[str]) -> bool:
        """Whether a capitalised word is a name ("Gaussian", "Jacquet-Langlands", "Wynn"):
        written with its capital where no sentence starts, more often than not, in the
        papers using the phrase; with no such use (a title word), when English does not
        know it (nor, hyphenated, any of its parts)."""
        capital = lower = 0
        for text, i, j in self._occurrences(word, papers, hyphen_ends=True):
            if _IN_DEFINITION.match(text, j):
                continue  # "Code Division Multiple Access (CDMA)": capitals by convention
            if text[i].isupper():
                capital += 1
            else:
                lower += 1
        if capital or lower:
            return capital > lower
        return not any(is_common_word(part) for part in word.split("-") if part)


def prose_case(form: str, is_name: bool, names: NameEvidence | None = None,
               papers: Iterable[str] = ()) -> str:
    """A name as written (so is a form of acronyms only, "LLM", "GPT-4": `preferred_label`
    asks no evidence for those); anything else with every word in lower case but acronyms and,
    given `names`, the capitalised words that are names themselves ("Castell--Gaines
    methods" → "Gaines methods", "Cayley-Dickson process", "Markov chain")."""
    if is_name:
        return form
    papers = list(papers)
    return " ".join(w if is_acronym(w) or (names is not None and w[:1].isupper()
                                           and names.word_is_name(w, papers))
                    else w.lower() for w in form.split())


class CleanAbstracts(Mapping[str, str]):
    """Clean abstracts by paper id, each cleaned when first asked for: label casing reads
    only the papers that write a concept with capitals."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self._papers = {p.id: p for p in papers}
        self._done: dict[str, str] = {}

    def __getitem__(self, pid: str) -> str:
        text = self._done.get(pid)
        if text is None:
            text = self._done[pid] = clean_text(self._papers[pid].abstract)
        return text

    def __iter__(self) -> Iterator[str]:
        return iter(self._papers)

    def __len__(self) -> int:
        return len(self._papers)


def preferred_label(forms: Mapping[str, int], taken: set[str], names: NameEvidence,
                    papers: Iterable[str] = (), cased: dict[str, str] | None = None) -> str:
    """The most readable common form: spelled out before an acronym, lower case before
    Title Case (unless lower case is under a quarter of the uses), then the most frequent,
    then the shorter; in prose case unless the papers using it write it as a name; never
    a label another concept took (exactly).

    `cased` holds the prose case of capitalised forms worked out before for these very
    papers (texts unchanged: an update's memo, `canon`); the forms cased here join it."""
    if len(forms) == 1:  # most concepts: one spelling, often in lower case already
        order = list(forms)
        if order[0] == order[0].lower() and order[0] not in taken:
            return order[0]
    else:
        top = max(forms.values())
        order = sorted(forms, key=lambda f: (
            is_acronym(f),                                  # spelled out before an acronym
            not (f == f.lower() and 4 * forms[f] >= top),   # lower case unless rare
            -forms[f], len(f), f))
    users: list[str] | None = None
    done = {} if cased is None else cased
    for form in order:
        if form == form.lower() or all(map(is_acronym, form.split())):
            prose = form
        elif form in done:
            prose = done[form]
        else:
            users = list(papers) if users is None else users
            prose = done[form] = prose_case(form, names.is_name(form, users), names, users)
        for label in (prose, form):
            if label not in taken:
                return label
    # every spelling is another concept's label (a short form two papers define apart):
    # name it by its most used spelling and what it is written as elsewhere
    first = order[0]
    label = f"{first} / {order[-1]}" if len(order) > 1 else f"{first} (term)"
    return label if label not in taken else f"{first} ({' '.join(sorted(forms))})"
