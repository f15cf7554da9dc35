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

A bilingual record (a Spanish "Resumen" after the English abstract, or before it) gave
"imágenes tomadas en campo" and "por ciento" beside its English concepts: `english_part`
reads its English sentences only, by the same two tests per passage.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from functools import cache

from paperkg.lexicon import FUNCTION_WORDS

__all__ = ["ENGLISH_SHARE", "english_part", "foreign_note", "language_of"]

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
    if _other_script(text):
        return _identify()(text)[0]
    words = _WORDS.findall(text.lower())
    if len(words) < _MIN_WORDS or sum(w in FUNCTION_WORDS for w in words) >= (
            ENGLISH_SHARE * len(words)):
        return "en"
    return _identify()(text)[0]


# a sentence of at least _SENTENCE_WORDS words is English at _SENTENCE_SHARE function words
# or more and another language's under _FOREIGN_SHARE (English sentences of the ICLR
# abstracts: about a third); between them, or shorter, it goes with its neighbours
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])\s*(?=\S)")
_SENTENCE_WORDS = 6
_SENTENCE_SHARE = 0.12
_FOREIGN_SHARE = 0.06
_SCRIPT_LETTERS = 10
# function words of French, Spanish, Portuguese, German and Italian that English hardly
# ever writes: two of them make one short sentence another language's ("Ce travail présente un
# réseau de neurones."), where a title in capitals is none (py3langid calls 28 ICLR titles
# Latin, Bikol or French)
_FOREIGN_WORDS = frozenset("""
de la le les des du un une et est dans pour sur avec nous cette ces leur
el los las del una por para como sobre entre pero
os um uma são não com pelo pela
der das und ist mit für von zu den dem ein eine nicht wir sich auf
della delle gli che sono alla nel
""".split())


def english_part(text: str) -> tuple[str, str]:
    """(language, what the extractor reads) of a text: an English text less the passages
    in another language that a bilingual record carries (a Spanish "Resumen" after the
    English abstract, or before it); ("en", text) as it is when there is none, which is
    every ICLR and source-sample record; (language, "") for a text with no English
    passage of _MIN_WORDS words. A passage is two or more sentences, or one of
    _MIN_WORDS words or more or with two function words of another language, whose share
    of English function words is under _FOREIGN_SHARE, or one mostly in another script (a
    Chinese abstract beside the English one), and which the identifier names as another
    language."""
    language = language_of(text)
    sentences = _SENTENCE.split(text)
    kinds = [_sentence_kind(s) for s in sentences]
    if language == "en" and "other" not in kinds:
        return language, text
    keep = _english_sentences(sentences, kinds, language == "en")
    if all(keep):
        return language, text if language == "en" else ""
    english = " ".join(s for s, k in zip(sentences, keep, strict=True) if k)
    if language == "en":  # what went was named as another language by the identifier
        return language, english
    enough = len(_WORDS.findall(english)) >= _MIN_WORDS
    return ("en", english) if enough and language_of(english) == "en" else (language, "")


def _sentence_kind(sentence: str) -> str:
    """"en", "other" or "?" (too short or between): by English function words; a sentence
    mostly in another script than Latin (_SCRIPT_LETTERS letters of it at least) is
    "other" however few its words."""
    if _other_script(sentence, _SCRIPT_LETTERS):
        return "other"
    words = _WORDS.findall(sentence.lower())
    if len(words) < _SENTENCE_WORDS:
        return "?"
    share = sum(w in FUNCTION_WORDS for w in words) / len(words)
    return "en" if share >= _SENTENCE_SHARE else "other" if share < _FOREIGN_SHARE else "?"


def _english_sentences(sentences: list[str], kinds: list[str], english: bool) -> list[bool]:
    """Which sentences to read: a run of "other" and "?" sentences between English ones
    goes when it holds two "other" sentences, or one of _MIN_WORDS words or with two of
    _FOREIGN_WORDS, or is mostly in another script, and the identifier names it as
    another language; the rest stays. Of a text not taken as English only its English
    sentences stay."""
    keep = [True] * len(sentences)
    i = 0
    while i < len(sentences):
        if kinds[i] == "en":
            i += 1
            continue
        j = i
        while j < len(sentences) and kinds[j] != "en":
            j += 1
        run = kinds[i:j]
        text = " ".join(sentences[i:j])
        others = run.count("other")
        if not english:
            foreign = True  # only English sentences are read from a text in another language
        else:
            words = _WORDS.findall(text.lower())
            foreign = (others >= 2 or others == 1 and len(words) >= _MIN_WORDS
                       or len(_FOREIGN_WORDS.intersection(words)) >= 2
                       or _other_script(text, _SCRIPT_LETTERS)) and _identify()(text)[0] != "en"
        if foreign:
            keep[i:j] = [False] * (j - i)
        i = j
    return keep


def _other_script(text: str, least: int = 0) -> bool:
    """Mostly letters of another script than Latin (Chinese, Russian, Arabic), and at
    least `least` of them (a sentence of Greek symbols, "Let α, β, γ ∈ ℝ", is English)."""
    if text.isascii():
        return False
    other = len(_OTHER_SCRIPT.findall(text))
    return other >= least and other > len(_LETTER.findall(text)) / 2


def foreign_note(foreign: Mapping[str, str]) -> str:
    """What a command says of the papers (id → language) it took no concepts from."""
    langs = ", ".join(f"{n} {lang}" for lang, n in Counter(foreign.values()).most_common())
    first = next(iter(foreign))
    return (f"{len(foreign)} paper(s) not in English ({langs}; e.g. {first}): no concepts "
            "taken from them, since paperkg reads English only; they keep their other facts")
