"""Clean abstracts and cut them into candidate concept phrases.

Vanilla KeyBERT scores every 1-3-gram, so it proposes phrases that cross clause
boundaries ("pt emerged promising", "input maintaining competitive") and LaTeX
debris ("sqrt log mathcal"). Here a candidate is a run of content words that never
crosses punctuation, math, a function word or a verb form, and that ends in a
noun-like word: without a POS tagger (none ships offline), word lists and suffix
rules stand in for one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from paperkg.build.ingest import Paper
from paperkg.build.terms import Abbreviation, abbreviations, term_key
from paperkg.lexicon import (
    FUNCTION_WORDS,
    GENERIC_HEADS,
    GENERIC_MODIFIERS,
    GENERIC_NOUNS,
    UNITS,
    is_acronym,
    phrase_breaking_verbs,
    repair_text,
    singular,
    strip_boilerplate,
    strip_citations,
    verb_forms,
)
from paperkg.lexicon import pos as word_pos

__all__ = ["Candidate", "KnownTerms", "candidates", "clean_text", "code_links", "document_text",
           "tokens"]

MAX_WORDS = 4

_BREAK_WORDS = FUNCTION_WORDS | GENERIC_MODIFIERS  # and `lexicon.phrase_breaking_verbs()`

# Suffix rules stand in for the lexicon on words it does not know (most technical words).
_ADJ_SUFFIX = re.compile(r"(?:ive|ous|ful|able|ible|less|ical|al)$")
_HYPHEN_ADJ = re.compile(
    r"-(?:scale|based|level|wise|aware|free|specific|agnostic|efficient|like|order|time|shot|"
    r"step|turn|dimensional|grained|world|driven|guided|oriented|friendly|intensive|style|"
    r"consistent|invariant|equivariant|dependent|independent|sensitive|optimal|only|centric)$"
)
_ING_NOUNS = frozenset("""
reasoning prompting pretraining finetuning fine-tuning pre-training self-training unlearning
red-teaming jailbreaking grounding captioning forecasting
""".split())


_TOKEN_RE = re.compile(  # letters of any script: "Gröbner", "Djoković" are one word
    r"[^\W_](?:[^\W_]|\+)*(?:[-'’.](?:[^\W_]|\+)+)*|\S"
)
_MATH_RE = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]", re.DOTALL)
_TEXT_CMD_RE = re.compile(
    r"\\(?:text\w*|emph|mathrm|mathbf|mathit|mathtt|operatorname)\s*\{([^{}]*)\}"
)
_CMD_RE = re.compile(r"\\[A-Za-z]+\*?")
_URL_RE = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)
BREAK = " ; "
# IDs and grant numbers, initials, numbered references ("N510129", "V.A.", "Vol.10", "Fig.3")
_CODE_OR_INITIALS = re.compile(r".*\d{5,}.*|(?:[^\W\d_]\.)+[^\W\d_]?\.?|[^\W\d_]{1,4}\.\d+")


# LaTeX accents (arXiv writes "Gr\\"obner", "R\\'ev\\'esz", "Djokovi\\'c", "\\c{c}"):
# the combining mark each command puts on the next letter, and letters of their own.
_ACCENT_MARKS = {'"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303",
                 "=": "\u0304", ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b",
                 "c": "\u0327", "k": "\u0328", "r": "\u030a"}
_ACCENT_RE = re.compile(r"\{?\\(?:([\"'`^~=.])\s*|([uvHckr])(?:\s+|(?=\{)))"
                        r"\{?\s*(\\i|\\j|[A-Za-z])\s*\}?\}?")
_LETTERS = {"ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ",
            "aa": "å", "AA": "Å", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ"}
_LETTER_RE = re.compile(r"\{?\\(ss|ae|AE|oe|OE|aa|AA|[oOlL])(?![A-Za-z])\s*(?:\{\})?\}?")


def latex_accents(text: str) -> str:
    """Accented letters written as LaTeX commands, as Unicode: "Gr\\"obner" → "Gröbner".
    (pylatexenc would convert all of LaTeX, math included; the rest is broken apart by
    `clean_text` on purpose, so only accents are converted here.)"""
    if "\\" not in text:
        return text

    def accent(m: re.Match[str]) -> str:
        letter = m.group(3)
        base = letter[1:] if letter.startswith("\\") else letter  # \'{\i}: the dotless i
        return unicodedata.normalize("NFC", base + _ACCENT_MARKS[m.group(1) or m.group(2)])

    text = _ACCENT_RE.sub(accent, text)
    return _LETTER_RE.sub(lambda m: _LETTERS[m.group(1)], text)


def clean_text(text: str) -> str:
    """Plain text for embedding: publisher boilerplate and author-year citations
    (`lexicon`), LaTeX and URLs out, accents and escaped symbols back, glued sentences and
    words split (`lexicon.repair_text`), spaces single."""
    text = _URL_RE.sub(BREAK, latex_accents(strip_citations(strip_boilerplate(text))))
    text = _TEXT_CMD_RE.sub(r"\1", text)
    text = _MATH_RE.sub(BREAK, text)
    text = text.replace("\\%", "%").replace("\\&", "&").replace("\\_", "_")
    text = _CMD_RE.sub(BREAK, text)
    text = re.sub(r"[{}^_~\\]", " ", text)
    return " ".join(repair_text(text).split())


def document_text(paper: Paper) -> str:
    """What a paper is embedded and mined as: its title (when it has one) and its abstract."""
    body = clean_text(paper.abstract)
    return f"{clean_text(paper.title)}. {body}" if paper.title else body


_CODE_HOSTS = re.compile(
    r"https?://(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|huggingface\.co|"
    r"anonymous\.4open\.science|[\w-]+\.github\.io|codeberg\.org)/?[^\s,;(){}\[\]]*", re.I)


def code_links(abstract: str) -> list[str]:
    """Links to code (GitHub, GitLab, Hugging Face, anonymous review mirrors...) in a text."""
    out: list[str] = []
    for m in _CODE_HOSTS.finditer(abstract.replace("\\url{", " ").replace("\\href{", " ")):
        url = m.group(0).rstrip(".:'\"")
        if url not in out:
            out.append(url)
    return out


def tokens(text: str) -> list[str]:
    """Words (keeping hyphenated and dotted forms like 'GPT-3.5') and single punctuation marks."""
    return _TOKEN_RE.findall(text)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A candidate phrase as written in the abstract, with its first position (token index).

    `defined` marks the long form of an abbreviation the abstract defines ("Dynamic Prompt
    Corruption (DPC)"): its uses of the short form are counted here too.
    """

    text: str
    position: int
    count: int
    defined: bool = False
    known_only: bool = False


class KnownTerms:
    """Phrases known to be terms of the field (e.g. author keywords of other papers), by key.

    They are candidates wherever they occur, even where the grammar rules would not cut
    them ("large language models", "mixture of experts", "diffusion" in "diffusion models").
    """

    def __init__(self, keys: Collection[str]) -> None:
        self.keys = frozenset(keys)
        self.first_words = frozenset(k.split()[0] for k in self.keys if k)


def _is_word(tok: str) -> bool:
    return tok[0].isalnum()


def _breaks(tok: str) -> bool:
    if not _is_word(tok) or len(tok) == 1 and tok.islower():
        return True  # a lower-case letter alone is a variable or unit: "rad s", "size m"
    low = tok.lower().replace("’", "'")
    if low in _BREAK_WORDS or low in phrase_breaking_verbs() or low.endswith(("'s", "'")):
        return True
    if re.fullmatch(r"[0-9][0-9.,\-–/]*(?:%|[kmbt]|x|st|nd|rd|th)?|[0-9.,%]+", low):
        return True
    if _CODE_OR_INITIALS.fullmatch(low):
        return True
    if len(low) > 4 and low.endswith("ly"):
        return low not in {"family", "anomaly", "assembly", "supply", "early", "monopoly"}
    # a finite verb ("imposes", "believe") ends a phrase; participles may modify a noun
    return _verb_only(low) and not low.endswith(("ed", "ing"))


def _verb_only(low: str) -> bool:
    return word_pos(low) == {"VERB"}


def _noun_like_end(tok: str) -> bool:
    """Can this word end a noun phrase? The lexicon decides where it knows the word."""
    if _roman(tok) and tok not in _ROMAN_ALONE_OK:
        return False  # "Part II", "Survey IX": a numbered part, trimmed off
    if is_acronym(tok):
        return True
    low = tok.lower()
    if low in _ING_NOUNS or low.endswith("ing") and len(low) > 5:
        return True  # a gerund ends a noun phrase ("prompt tuning"); single words: see below
    if low in {"offline", "online"} or _HYPHEN_ADJ.search(low):
        return False
    if low.endswith("ed") and not low.endswith("eed"):
        return False
    tags = word_pos(low)
    if tags:
        return "NOUN" in tags or "PROPN" in tags
    last = low.rsplit("-", 1)[-1]
    if last != low and word_pos(last):
        return "NOUN" in word_pos(last)
    return not _ADJ_SUFFIX.search(low) or low.endswith(("ial", "ual"))


# A Roman numeral numbers a part or a paper in a series ("Part II", "Substructures II",
# "IX"); IV and VI alone are also abbreviations (instrumental variables, variational
# inference), so alone they stay.
_ROMAN = re.compile(r"X{0,3}(?:IX|IV|V?I{0,3})")
_ROMAN_ALONE_OK = frozenset({"IV", "VI"})


def _roman(word: str) -> bool:
    return len(word) > 1 and _ROMAN.fullmatch(word) is not None


def _valid_span(words: list[str]) -> bool:
    if not _noun_like_end(words[-1]):
        return False
    first = words[0].lower()
    if len(words) == 1:
        return _valid_single(words[0])
    if words[-1].lower() in GENERIC_HEADS:
        return False  # "research significance", "irrelevant ones"
    # "detecting distribution shifts": a verb-only -ing form does not start a concept
    return not (first.endswith("ing") and _verb_only(first) and first not in _ING_NOUNS)


def _valid_single(word: str) -> bool:
    """A word alone is a concept only if it is specific: not a generic noun ("Search",
    "Bias", "benchmark"), not a verb, not an adjective ("Multimodal", "beneficial")."""
    if is_acronym(word):
        return True
    low = word.lower()
    if low in GENERIC_NOUNS or low in GENERIC_HEADS or _verb_only(low) and low not in _ING_NOUNS:
        return False
    tags = word_pos(low)
    if "ADJ" in tags and (_ADJ_SUFFIX.search(low) or low.endswith("ic")):
        return False  # "beneficial", "quadratic": adjectives the lexicon also lists as nouns
    if not tags and _ADJ_SUFFIX.search(low) and not low.endswith(("ial", "ual")):
        return False  # "multimodal", "multilingual": unknown words with an adjective's suffix
    return len(low) >= 3


def candidates(
    text: str, max_words: int = MAX_WORDS, known: KnownTerms | None = None
) -> list[Candidate]:
    """Distinct candidate phrases of a cleaned abstract, in order of first appearance.

    English noun phrases are head-final, so a candidate is a tail of a run of content words
    (after trailing non-nouns are trimmed): "trainable continuous prompt vectors" gives
    "prompt vectors" and "continuous prompt vectors" but not "continuous prompt".
    Long forms of abbreviations the text defines are candidates too, and absorb their
    short form; so are `known` terms wherever they occur.
    """
    toks = tokens(text)
    seen = _tails(toks, max_words)
    from_tails = set(seen)
    if known is not None:
        for pos, phrase in _known_spans(toks, known, max_words):
            key = phrase.lower()
            first, count, form = seen.get(key, (pos, 0, phrase))
            seen[key] = (min(first, pos), count + (key not in from_tails), form)
    out = [Candidate(form, pos, count, known_only=key not in from_tails)
           for key, (pos, count, form) in seen.items()]
    return _fold_abbreviations(out, abbreviations(text), text)


def _fold_abbreviations(
    cands: list[Candidate], abbrevs: list[Abbreviation], text: str
) -> list[Candidate]:
    """Add each defined long form, counting its short form's uses, and drop the short form."""
    if not abbrevs:
        return cands
    by_lower = {c.text.lower(): c for c in cands}
    shorts = {a.short.lower() for a in abbrevs}
    out = [c for c in cands if c.text.lower() not in shorts]
    for a in abbrevs:
        long_c = by_lower.get(a.long.lower())
        short_c = by_lower.get(a.short.lower())
        count = (long_c.count if long_c else 1) + (short_c.count if short_c else 0)
        pos = min(c.position for c in (long_c, short_c) if c) if long_c or short_c else (
            len(tokens(text[: text.find(a.long)])) if a.long in text else 0)
        out = [c for c in out if c.text.lower() != a.long.lower()]
        out.append(Candidate(a.long, pos, count, defined=True))
    return sorted(out, key=lambda c: c.position)


def _known_spans(toks: list[str], known: KnownTerms, max_words: int) -> Iterator[
        tuple[int, str]]:
    """(position, phrase) of every span of up to `max_words + 1` words whose key is known."""
    n = len(toks)
    for i, tok in enumerate(toks):
        if not _is_word(tok):
            continue
        first = tok.lower().split("-")[0]
        if first not in known.first_words and tok.lower() not in known.first_words:
            continue
        for j in range(i + 1, min(n, i + max_words + 1) + 1):
            if not _is_word(toks[j - 1]):
                break
            phrase = " ".join(toks[i:j])
            if term_key(phrase) in known.keys and (j - i > 1 or _valid_single(phrase)):
                yield i, phrase


def _tails(toks: list[str], max_words: int) -> dict[str, tuple[int, int, str]]:
    seen: dict[str, tuple[int, int, str]] = {}
    for start, run in _runs(toks):
        end = len(run)
        while end and not _noun_like_end(run[end - 1]):
            end -= 1
        for i in range(max(0, end - max_words), end):
            words = run[i:end]
            if not _valid_span(words):
                continue
            phrase = " ".join(words)
            key = phrase.lower()
            pos, count, form = seen.get(key, (start + i, 0, phrase))
            seen[key] = (pos, count + 1, form)
    return seen


def _verb_after_plural(prev: str, low: str) -> bool:
    """"objectives form", "VLMs lack": a plural followed by a verb's base form."""
    plural = prev.endswith("s") and (singular(prev) != prev.lower() if not is_acronym(prev)
                                     else prev[-2:-1].isupper())
    if not plural:
        return False
    return "VERB" in word_pos(low) and low in verb_forms(low) and not low.endswith("s")


_SUBJECTS = frozenset("we they i you".split())  # "we study X": "study" is the verb
_VERB_CONTEXT = frozenset("the a an this these that those its their our his her it them both each"
                          " such more".split())


def _splits(toks: list[str], idx: int, run: list[str]) -> bool:
    """Whether the word at `idx` is read as a verb or a unit here (so it ends a run)."""
    low, prev = toks[idx].lower(), toks[idx - 1] if idx else ""
    nxt = toks[idx + 1].lower() if idx + 1 < len(toks) else ""
    if nxt in _VERB_CONTEXT and low.endswith("s") and len(low) > 3 and "VERB" in word_pos(low):
        return True  # "the model breaks the curse"
    if (nxt in _VERB_CONTEXT and nxt not in _NOT_OBJECTS or nxt in GENERIC_MODIFIERS) and (
            low.endswith("ing") and _verb_only(low) and low not in _ING_NOUNS):
        return True  # "a library implementing the theory", "a series assessing major issues"
    return bool(run) and _verb_after_plural(run[-1], low) or (
        prev.lower() in _SUBJECTS and "VERB" in word_pos(low)) or (
        low in UNITS and prev[:1].isdigit())


_NOT_OBJECTS = frozenset({"that", "more"})  # "model merging that …" is a noun phrase


def _runs(toks: list[str]) -> Iterator[tuple[int, list[str]]]:
    """Maximal runs of content words, with the token index where each starts.

    A noun/verb homograph ending in -s, or a verb-only -ing form, right before a
    determiner (or, for -ing, an evaluative adjective) is read as a verb: "the model
    breaks the curse" splits at "breaks", "a library implementing the theory" at
    "implementing"; so is a verb's base form right after a plural noun ("objectives
    form", "models lack adaptability": a plural rarely modifies the next noun), and a
    unit after a number (`_splits`).
    """
    run: list[str] = []
    start = 0
    for idx, tok in enumerate(toks):
        if _breaks(tok) or _splits(toks, idx, run):
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
