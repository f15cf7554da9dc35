"""What makes two spellings one term: the merge key, and abbreviations defined in a text.

`term_key` folds case, hyphens and the plural of the last word ("Language-Models" and
"language model" share a key). `abbreviations` finds the "long form (SHORT)" definitions
of an abstract with the Schwartz & Hearst (2003) algorithm, so that "large language models
(LLMs)" ties "LLMs" to its long form. These are the merge rules that need no corpus;
`canon` applies them across papers and records why each merge happened.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from paperkg.lexicon import is_acronym, is_shouted, singular

__all__ = ["Abbreviation", "abbreviations", "singular", "term_key"]

def term_key(phrase: str) -> str:
    """The merge key: hyphens/slashes as spaces, last word singular, lower case except
    acronyms, which keep their capitals and lose a plural "s" ("LLMs" → "LLM", "GNNs" →
    "GNN", but "CLIP" ≠ "clips", "MATH" ≠ "math").
    """
    words = re.sub(r"[-\u2010-\u2015/]+", " ", phrase).split()
    if words:  # a possessive is the same term: "large language model's"
        words[-1] = re.sub(r"['\u2019]s?$", "", words[-1])
    words = [w for w in words if w]
    if not words:
        return ""
    if phrase.lower() == phrase:  # no capital: no acronym, no shouting (most phrases)
        words[-1] = singular(words[-1])
        return " ".join(words)
    if is_shouted(words):
        words = [w.lower() for w in words]
    out = []
    for i, word in enumerate(words):
        last = i == len(words) - 1
        if is_acronym(word):
            out.append(word[:-1] if last and _ACRONYM_PLURAL.fullmatch(word) else word)
        else:
            out.append(singular(word) if last else word.lower())
    return " ".join(out)


# "LLMs", "GNNs", "CoTs", "GFlowNets": an acronym's plural drops its final lower-case s.
_ACRONYM_PLURAL = re.compile(r"(?=(?:.*[A-Z]){2})[A-Za-z0-9]{2,}[A-Z0-9a-z]s")


@dataclass(frozen=True, slots=True)
class Abbreviation:
    """`short` is defined in the text as `long` ("LLMs" / "large language models")."""

    short: str
    long: str


_PAREN = re.compile(r"\(([^()]{1,40})\)")
# "Low-rank adaptation, also known as LoRA, ...": a definition without parentheses
_ALIAS = re.compile(r",?\s+\(?(?:also known as|a\.k\.a\.?|aka|also called|abbreviated as)\s+"
                    r"([A-Za-z0-9][A-Za-z0-9\-+&/]{1,9})(?=[\s,;:)]|\.(?:\s|$))")
_SHORT = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-.+&/]*[A-Za-z0-9+]?s?")
_CLAUSE_BREAK = re.compile(r"[.;:!?()\[\]—―]|,\s|\bthe\s|\ba\s|\ban\s|\bof\s(?:the|a)\s")
# what may stand around a long form: "referred to as “World Models” (WMs)"
_QUOTES = " -'\"‘’“”«»"
_LEADING_JUNK = re.compile(
    r"^(?:(?:a|an|the|our|its|their|this|these|novel|new|called|named|termed|dubbed|"
    r"namely|i\.e\.|e\.g\.|we|is|are)\s+)+", re.IGNORECASE)


def _is_short_form(text: str) -> bool:
    """Two to ten characters, a letter among them, one word, a capital or digit in it."""
    if not 2 <= len(text) <= 10 or " " in text or not _SHORT.fullmatch(text):
        return False
    if not any(c.isalpha() for c in text):
        return False
    return sum(c.isupper() for c in text) >= 1 and not (text[0].isupper() and text[1:].islower())


def _by_initials(short: str, words: list[str]) -> str | None:
    """The shortest tail of `words` whose word initials spell the short form exactly:
    "Proximal Policy Optimization" for "PPO", where character matching alone would stop
    at "Policy Optimization" (the p of "Optimization")."""
    letters = "".join(c for c in short.lower() if c.isalnum())
    for k in range(1, len(words) + 1):
        tail = words[-k:]
        if letters in (_initials(tail, inside=False), _initials(tail, inside=True)):
            return " ".join(tail)
    return None


def _initials(words: list[str], inside: bool) -> str:
    """The initials of the words' parts (split at hyphens) but linking words; `inside`:
    a linking word inside a hyphenated word counts ("in-context learning (ICL)",
    "mixture-of-experts (MoE)"; not "question-and-answer (QA)")."""
    out = []
    for w in words:
        parts = [p for p in re.split(r"[-‐-―]", w.strip(_QUOTES)) if p]
        out += [p[0].lower() for p in parts
                if p.lower() not in _LINK_WORDS or inside and len(parts) > 1]
    return "".join(out)


def _best_long_form(short: str, window: str) -> str | None:
    """Schwartz & Hearst: match the short form's characters right to left in the window,
    the first one at the start of a word; the long form starts at that word."""
    s, w = len(short) - 1, len(window) - 1
    while s >= 0:
        c = short[s].lower()
        if not c.isalnum():
            s -= 1
            continue
        while w >= 0 and (window[w].lower() != c
                          or (s == 0 and w > 0 and window[w - 1].isalnum())):
            w -= 1
        if w < 0:
            return None
        w -= 1
        s -= 1
    start = window.rfind(" ", 0, w + 1) + 1
    return window[start:].strip()


_LINK_WORDS = frozenset("of for from in on with and to by via the a an".split())


def _initials_fit(short: str, long: str) -> bool:
    """Every content word of the long form starts with a letter the short form has:
    rejects "language to direct language models" for "LLMs"."""
    letters = short.lower()
    return all(w[0].lower() in letters for w in long.split()
               if w.lower() not in _LINK_WORDS and w[0].isalpha())


def abbreviations(text: str) -> list[Abbreviation]:
    """Every "long form (SHORT)" or "long form, also known as SHORT" definition in a text,
    in order, first definition wins."""
    found: dict[str, Abbreviation] = {}
    defs = sorted([*_PAREN.finditer(text), *_ALIAS.finditer(text)], key=lambda m: m.start())
    for match in defs:
        inner = re.split(r"[;,]|\s+-\s+|\s+or\s+", match.group(1))[0].strip()
        inner, modifier = _modified(inner)
        short = f"{modifier} {inner}" if modifier else inner
        if not _is_short_form(inner) or short in found:
            continue
        before = text[: match.start()].rstrip()
        cut = max((m.end() for m in _CLAUSE_BREAK.finditer(before)), default=0)
        words = before[cut:].split()
        core = len(inner.rstrip("s")) if inner.endswith("s") and not inner.isupper() else len(inner)
        words = words[-min(core + 5, 2 * core):]
        long = _by_initials(inner[:core], words) or _best_long_form(inner, " ".join(words))
        if long is None:
            continue
        long = _LEADING_JUNK.sub("", long).strip(_QUOTES)
        n_words = len(long.split())
        if not _initials_fit(inner, long):
            continue
        if n_words < 2 and "-" not in long or long.lower() == inner.lower():
            continue
        if len(long) <= len(inner) or n_words > core + 2:
            continue
        if modifier:  # "robust principal component analysis (robust PCA)" only
            said = re.search(rf"(?:^|\s)({re.escape(modifier)})\s+{re.escape(long)}$", before,
                             re.IGNORECASE)
            if said is None:
                continue
            long = f"{said.group(1)} {long}"
        found[short] = Abbreviation(short, long)
    return list(found.values())


def _modified(inner: str) -> tuple[str, str]:
    """("PCA", "robust") of "robust PCA": one or two lower-case words before a short form,
    defined by the same words before its long form ("robust principal component analysis
    (robust PCA)"); else (inner, "")."""
    words = inner.split()
    if 2 <= len(words) <= 3 and all(w.isalpha() and w.islower() for w in words[:-1]) \
            and words[0] not in _LINK_WORDS and _is_short_form(words[-1]):
        return words[-1], " ".join(words[:-1])
    return inner, ""
