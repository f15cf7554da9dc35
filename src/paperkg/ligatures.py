"""Words a PDF scrape lost a ligature from: "classiflcation", "conicts", "eort", "dene".

A PDF writes "fi", "fl", "ff", "ffi" and "ffl" as one glyph; a scrape that cannot map it
drops it ("conicts", "dene", "eort") or reads "fi" as "fl" ("classiflcation", "flrst").
Both are repaired only where the lexicon knows the result and not the scraped word:
- "fl" before a consonant, which begins no English syllable, always;
- a dropped ligature only in a text that shows two or more such words, since one unknown
  word that a ligature would complete is as often a term of its own ("indel" is not
  "infidel", "anking" is not "flanking").
"""

from __future__ import annotations

import re
from functools import lru_cache

from paperkg.lexicon import is_common_word, is_field_word

__all__ = ["restore_ligatures"]

_LIGATURES = ("ffi", "ffl", "fi", "fl", "ff")
_FL_CONSONANT = re.compile(r"fl[bcdfghjkmnpqrstvwxz]")
_LOWER_WORD = re.compile(r"(?<![\w-])[a-z]{2,}(?![\w-])")


@lru_cache(maxsize=1 << 17)
def _known(word: str) -> bool:
    """Asked of every lower-case word of every abstract: remembered, it takes 1.1 s a pass
    over the ICLR corpus warm against 1.6 s asking the lexicon each time."""
    return is_common_word(word) or is_field_word(word)


@lru_cache(maxsize=1 << 16)
def _dropped(word: str) -> str | None:
    """The one word of five letters or more that a ligature put back makes, if any, for a
    scraped word of four letters or more ("ues" is too short to say which)."""
    if len(word) < 4:
        return None
    found = {word[:i] + lig + word[i:] for i in range(len(word) + 1) for lig in _LIGATURES}
    words = {w for w in found if len(w) >= 5 and is_common_word(w)}
    return words.pop() if len(words) == 1 else None


@lru_cache(maxsize=1 << 16)
def _misread(word: str) -> str | None:
    """"flrst" is "first": "fl" before a consonant read for "fi"."""
    if not _FL_CONSONANT.search(word):
        return None
    fixed = _FL_CONSONANT.sub(lambda m: "fi" + m[0][2], word)
    return fixed if is_common_word(fixed) else None


def restore_ligatures(text: str) -> str:
    """`text` with the words that lost a ligature spelled whole (see the module)."""
    fixes: dict[str, str] = {}
    dropped: dict[str, str] = {}
    for word in set(_LOWER_WORD.findall(text)):
        if _known(word):
            continue
        fixed = _misread(word)
        if fixed:
            fixes[word] = fixed
            continue
        whole = _dropped(word)
        if whole:
            dropped[word] = whole
    if len({w.removesuffix("s") for w in dropped.values()}) >= 2:  # "indel", "indels": one
        fixes.update(dropped)
    if not fixes:
        return text
    return _LOWER_WORD.sub(lambda m: fixes.get(m[0], m[0]), text)
