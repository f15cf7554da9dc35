"""Which texts are not English: the extractor's grammar, lexicon and model read English only.

A German abstract gave "Netze für die Bildsegmentierung" and "der Medizin" as concepts, a
Spanish one "por ciento": phrases no reader would tag, linking papers on nothing. Such a
paper keeps its node, title and authors in the KG, but no concepts.

English prose is about a third function words ("the", "of", "we"; `lexicon.FUNCTION_WORDS`):
in the first 1,000 characters of the 11,565 ICLR 2025 titles and abstracts and of the
SemEval-2010 ones the share is 0.18 at the least, of a German, Spanish, French or
Portuguese abstract under 0.05. Only a text under ENGLISH_SHARE, or one mostly in another
script, is given to a language identifier (py3langid, its model inside the package:
offline), which names the language and has the last word, so a list of English terms or
formulas with few function words stays English.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from functools import cache

from paperkg.lexicon import FUNCTION_WORDS

__all__ = ["ENGLISH_SHARE", "foreign_note", "language_of"]

ENGLISH_SHARE = 0.1
# a title alone is too little to tell, and taken as English: py3langid names 162 of the
# 9,139 ICLR titles of 60 characters or more as another language ("la", "fr", "pcm")
_MIN_WORDS = 25
_SAMPLE = 1000
_WORDS = re.compile(r"[^\W\d_]+")
_LETTER = re.compile(r"[^\W\d_]")
_OTHER_SCRIPT = re.compile(r"[^\W\d_\u0000-\u024f]")  # a letter past Latin Extended-B


@cache
def _identify() -> Callable[[str], tuple[str, float]]:
    """py3langid's classifier, loaded once per process (0.7 s), only when a text needs it."""
    import py3langid

    classify: Callable[[str], tuple[str, float]] = py3langid.classify
    return classify


def language_of(text: str) -> str:
    """"en", or the ISO 639-1 code of the language a text is written in ("de", "zh"). A
    text mostly in another script than Latin (Chinese, Russian, Arabic) goes to the
    identifier however short. The first _SAMPLE characters tell."""
    text = text[:_SAMPLE]
    if not text.isascii() and len(_OTHER_SCRIPT.findall(text)) > len(_LETTER.findall(text)) / 2:
        return _identify()(text)[0]
    words = _WORDS.findall(text.lower())
    if len(words) < _MIN_WORDS or sum(w in FUNCTION_WORDS for w in words) >= (
            ENGLISH_SHARE * len(words)):
        return "en"
    return _identify()(text)[0]


def foreign_note(foreign: Mapping[str, str]) -> str:
    """What a command says of the papers (id → language) it took no concepts from."""
    langs = ", ".join(f"{n} {lang}" for lang, n in Counter(foreign.values()).most_common())
    first = next(iter(foreign))
    return (f"{len(foreign)} paper(s) not in English ({langs}; e.g. {first}): no concepts "
            "taken from them, since paperkg reads English only; they keep their other facts")
