"""Name evidence: how the papers that use a phrase write it where no sentence starts.

A capital at a sentence's start, in a definition ("Decision Trees (DTs)"), among a
heading's capitals or beside another name's Title Case words says nothing of a word; a
capital elsewhere does ("we propose Dynamic Prompt Corruption, which"). `labels` cases a
concept's label by this evidence.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Mapping

from paperkg.lexicon import FUNCTION_WORDS, is_acronym, is_common_word

__all__ = ["EPONYMS", "NameEvidence", "heading_word"]

# what starts a sentence or a list item ("(ii) Fine-tuning SNNs", "1) Training"): a
# capital after it is no evidence of a name
_SENTENCE_END = re.compile(r"[.!?:;]\s*$|(?:^|[\s(])(?:[ivx]{1,4}|\d{1,2}|[a-z])\)\s*$")
_PAREN = re.compile(r"\s*\(")
_WORD_BEFORE = re.compile(r"([\w'-]+)[ \t]+$")
_WORD_AFTER = re.compile(r"[ \t]+([\w'-]+)")
# adjectives made of names that English also writes in lower case: their capitals count
EPONYMS = frozenset({"bayesian", "boolean", "cartesian", "euclidean"})
# the rest of a defined long form, up to its short form: "Chain of Thought (CoT)",
# "Diffusion Probabilistic Model (c-DDPM)"
_IN_DEFINITION = re.compile(
    r"(?:[\s-]+(?:[A-Z][\w-]*|(?:of|for|and|in|on|to|with|the|a|an|via|from|by|at|as)"
    r"(?=\s+[A-Z])))*\s*\((?=[a-z\d-]{0,3}[A-Z])")


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
                            text[max(0, i - 7):i]):
                    yield text, i, j
                i = low.find(want, i + 1)

    def is_name(self, form: str, papers: Iterable[str]) -> bool:
        capital = lower = 0
        for text, i, j in self._occurrences(form, papers, hyphen_ends=False):
            if _PAREN.match(text, j) or _in_other_name(text, i, j, ()):
                continue  # a definition ("Decision Trees (DTs)") is capitalised by convention,
                # a longer name's words by that name ("Composed Image Retrieval")
            if text[i:j] == form:
                capital += 1
            else:
                lower += 1
        return capital > lower

    def word_spelling(self, word: str, papers: Iterable[str],
                      beside: Collection[str] = (), strict: bool = False) -> str | None:
        """How the papers using a phrase write one of its capitalised words where no
        sentence starts: in lower case if so at least as often as with capitals, else its
        most frequent capitalised spelling ("Gaussian"; "Turing-Hopf" for a title's
        "TURING-HOPF"); None with no such use (a title word).

        `beside`: the phrase's words next to this one, lower case. A common word
        capitalised among other Title Case words or acronyms, none of them its neighbours
        in the phrase, is part of another name ("a Transformer-based Diffusion Model" says
        nothing of "diffusion transformers", "Semantic IDs" nothing of "semantic
        representation"); "Stable" beside "Diffusion" counts.

        `strict` (a word a label would capitalise against its papers' own lower-case
        spelling of the phrase): any word among other Title Case words or acronyms is
        another name's ("Subgraph GNNs"), and a capitalised spelling needs two uses and twice the
        lower-case ones; None otherwise."""
        lower = 0
        capital: dict[str, int] = {}
        common = is_common_word(word) and word.lower() not in EPONYMS
        for text, i, j in self._occurrences(word, papers, hyphen_ends=True):
            if _IN_DEFINITION.match(text, j):
                continue  # "Code Division Multiple Access (CDMA)": capitals by convention
            spelled = text[i:j]
            if spelled.isupper() and (not is_acronym(spelled) or heading_word(spelled)) \
                    and _shouting_at(text, i, j):
                continue  # a heading's capitals ("LLM ALIGNMENT") say nothing of the word's
            if spelled != spelled.lower():  # "3D" has its capital after the digit
                if (common or strict) and _in_other_name(text, i, j, beside, True):
                    continue
                capital[spelled] = capital.get(spelled, 0) + 1
            else:
                lower += 1
        if not capital and not lower:
            return None
        if strict:
            n = sum(capital.values())
            return max(capital, key=lambda w: (capital[w], w)) if n >= 2 and n > 2 * lower \
                else None
        if lower >= sum(capital.values()):
            return word.lower()
        return max(capital, key=lambda w: (capital[w], w))

    def capitalised_alone(self, word: str, papers: Iterable[str]) -> bool:
        """Whether the papers write `word` with its capitals where no sentence starts,
        no definition follows and no Title Case word stands beside it, at least as often
        as in lower case: a name of its own ("Markov" in "hidden Markov models")."""
        capital = lower = 0
        for text, i, j in self._occurrences(word, papers, hyphen_ends=True):
            spelled = text[i:j]
            if spelled == spelled.lower():
                lower += 1
            elif spelled == word and not _IN_DEFINITION.match(text, j) and not (
                    _in_other_name(text, i, j, ())):
                capital += 1
        return capital > 0 and capital >= lower


def _in_other_name(text: str, i: int, j: int, beside: Collection[str],
                   acronyms: bool = False) -> bool:
    """Whether text[i:j] stands among Title Case words (`acronyms`: or acronyms,
    "Subgraph GNNs") none of which is in `beside`; a sentence's first "The" is none."""
    around = _words_around(text, i, j)
    titled = [w for w in around if w[:1].isupper() and w.lower() not in FUNCTION_WORDS
              and (acronyms or not is_acronym(w))]
    return bool(titled) and not any(w.lower() in beside for w in around)


def _shouting_at(text: str, i: int, j: int) -> bool:
    """Whether the word at text[i:j] stands beside another word in capitals (two letters
    or more): a heading's run, not "SMILES samples" or "chest X-rays"."""
    return any(w.isupper() and sum(c.isalpha() for c in w) >= 2
               for w in _words_around(text, i, j))


def _words_around(text: str, i: int, j: int) -> list[str]:
    """The words just before and just after text[i:j] (on the same line)."""
    return [m.group(1) for m in (_WORD_BEFORE.search(text, max(0, i - 40), i),
                                 _WORD_AFTER.match(text, j)) if m]


def heading_word(word: str) -> bool:
    """An English word of four letters or more in capitals ("DEEP", "LANE"): among other
    shouted words a heading's, though alone it could be an acronym ("CLIP", "MATH" keep
    theirs where the papers write them so; "AI" is an acronym first)."""
    return len(word) >= 4 and word.isalpha() and is_common_word(word)

