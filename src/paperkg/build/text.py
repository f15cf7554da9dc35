"""Clean abstracts and cut them into candidate concept phrases.

Vanilla KeyBERT scores every 1-3-gram, so it proposes phrases that cross clause
boundaries ("pt emerged promising", "input maintaining competitive") and LaTeX
debris ("sqrt log mathcal"). Here a candidate is a tail of a run of content words that
never crosses punctuation, math, a function word or a verb form, and that ends in a
noun-like word (the rules are in `grammar`, the tails of the runs in `tails`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass, replace
from functools import lru_cache

from paperkg.build.afterto import verbs_taking_objects
from paperkg.build.grammar import only_modifies
from paperkg.build.ingest import Paper
from paperkg.build.tails import known_spans, tails
from paperkg.build.terms import Abbreviation, abbreviations, term_key
from paperkg.build.wordclass import noun_like_end
from paperkg.lexicon import (
    is_acronym,
    is_verb_ing,
)
from paperkg.repair import repair_text, strip_boilerplate, strip_citations

__all__ = ["Candidate", "KnownTerms", "candidates", "clean_text", "code_links", "document_text",
           "tokens"]

MAX_WORDS = 4

_TOKEN_RE = re.compile(  # letters of any script: "Gröbner", "Djoković" are one word
    r"[^\W_](?:[^\W_]|\+)*(?:[-'’.](?:[^\W_]|\+)+)*|\S"
)
_MATH_RE = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]", re.DOTALL)
_TEXT_CMD_RE = re.compile(
    r"\\(?:text\w*|emph|mathrm|mathbf|mathit|mathtt|operatorname)\s*\{([^{}]*)\}"
)
_CMD_RE = re.compile(r"\\[A-Za-z]+\*?")
# a citation, reference or link command goes with its key: "\\citep{Shen2019TheRandomized}"
# was a concept "Shen2019"
_KEY_CMD_RE = re.compile(
    r"\\(?:cite[a-z]*|[a-z]*ref|label|url)\*?\s*(?:\[[^\]]*\]\s*)*\{[^{}]*\}", re.IGNORECASE)
# a one-letter symbol or a number hyphenated to a word is part of its name: "$k$-means",
# "$Q$-learning", "$n$-gram", "$\\epsilon$-differential privacy" (413 in ICLR 2025's
# abstracts), "$1$-step attacks"
_GREEK = dict(zip(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma "
    "tau upsilon phi chi psi omega".split(), "αβγδεζηθικλμνξπρστυφχψω", strict=True))
_SYMBOL_WORD = re.compile(
    rf"\$(?:([A-Za-z]|\d+)|\\(?:var)?({'|'.join(_GREEK)}))\$(?=-[^\W\d_])")
# a link glued to the word before it ("athttps://github.com/…") is a link too, and so is a
# domain with a path but no scheme ("Code:anonymous.4open.science/r/GCB", "https//:…")
_URL_RE = re.compile(r"(?:https?:?//:?|www\.)\S+|\b(?:[A-Za-z0-9-]+\.)+"
                     r"(?:com|org|io|net|ai|science|edu|dev)/\S*", re.IGNORECASE)
BREAK = " ; "


# LaTeX accents (arXiv writes "Gr\\"obner", "R\\'ev\\'esz", "Djokovi\\'c", "\\c{c}"):
# the combining mark each command puts on the next letter, and letters of their own.
_ACCENT_MARKS = {'"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303",
                 "=": "\u0304", ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b",
                 "c": "\u0327", "k": "\u0328", "r": "\u030a"}
_ACCENT_RE = re.compile(r"\{?\\(?:([\"'`^~=.])\s*|([uvHckr])(?:\s+|(?=\{)))"
                        r"\{?\s*(\\i|\\j|[A-Za-z])\s*\}?\}?")
_LETTERS = {"ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ",
            "aa": "å", "AA": "Å", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ"}
# a quote between letters, before a vowel: an umlaut without its backslash (in ICLR 2025
# only so: "Schr"odinger", "Nystr"om"); a quotation mark has a space or a word's end beside
_BARE_UMLAUT = re.compile(r'(?<=[A-Za-z])"([aeiouyAEIOU])(?=[a-z])')
_BARE_GRAVE = re.compile(r"(?<=[A-Za-z])`([aeiouAEIOU])(?=[a-z])")  # "Karhunen-Lo`eve"
_OPEN_QUOTE = re.compile(r"(?<![A-Za-z])`")
# a norm's symbol glued to the words around it where a title lost its math's spaces:
# "Exploitsℓ∞-geometry", "Certifiedℓ2Attribution" (11 in ICLR 2025's titles)
_ELL_SEAM = re.compile(r"(?<=[A-Za-z])(?=ℓ)|(?<=ℓ[0-9p∞])(?=[A-Z][a-z])")
_LETTER_RE = re.compile(r"\{?\\(ss|ae|AE|oe|OE|aa|AA|[oOlL])(?![A-Za-z])\s*(?:\{\})?\}?")


def latex_accents(text: str) -> str:
    """Accented letters written as LaTeX commands, as Unicode: "Gr\\"obner" → "Gröbner",
    and so a diaeresis whose backslash a form lost: "Schr"odinger", "H"older", "na"ive".
    (pylatexenc would convert all of LaTeX, math included; the rest is broken apart by
    `clean_text` on purpose, so only accents are converted here.)"""
    if '"' in text:
        text = _BARE_UMLAUT.sub(lambda m: unicodedata.normalize("NFC", m[1] + "\u0308"), text)
    if "`" in text:
        text = _BARE_GRAVE.sub(lambda m: unicodedata.normalize("NFC", m[1] + "\u0300"), text)
    if "\\" not in text:
        return text

    def accent(m: re.Match[str]) -> str:
        letter = m.group(3)
        base = letter[1:] if letter.startswith("\\") else letter  # \'{\i}: the dotless i
        return unicodedata.normalize("NFC", base + _ACCENT_MARKS[m.group(1) or m.group(2)])

    text = _ACCENT_RE.sub(accent, text)
    return _LETTER_RE.sub(lambda m: _LETTERS[m.group(1)], text)


def _symbol(m: re.Match[str]) -> str:
    return m[1] or _GREEK[m[2]]


# invisible marks a PDF or a web page leaves inside words (a soft hyphen: "optimi\u00adzation",
# a zero-width space: "stochastic\u200b optimization") go; the hyphens U+2010 and U+2011 are
# hyphens ("warm\u2010up")
_INVISIBLE = str.maketrans({"\u00ad": None, "\u200b": None, "\u200c": None, "\u200d": None,
                            "\u2060": None, "\ufeff": None, "\u2010": "-", "\u2011": "-"})


def clean_text(text: str) -> str:
    """Plain text for embedding: publisher boilerplate and author-year citations
    (`repair`), LaTeX and URLs out, accents and escaped symbols back, glued sentences and
    words split (`repair.repair_text`), spaces single."""
    text = _URL_RE.sub(BREAK, latex_accents(strip_citations(strip_boilerplate(
        text.translate(_INVISIBLE)))))
    if "`" in text:  # LaTeX's quotation marks: ``feeling of knowing'', `bright ending'
        text = _OPEN_QUOTE.sub("'", text.replace("``", '"').replace("''", '"'))
    if "\\" in text:
        text = _KEY_CMD_RE.sub(BREAK, text)
    if "ℓ" in text:
        text = _ELL_SEAM.sub(" ", text)
    text = _TEXT_CMD_RE.sub(r"\1", text)
    if "$-" in text:
        text = _SYMBOL_WORD.sub(_symbol, text)
    text = _MATH_RE.sub(BREAK, text)
    text = text.replace("\\%", "%").replace("\\&", "&").replace("\\_", "_")
    text = _CMD_RE.sub(BREAK, text)
    text = re.sub(r"[{}^_~\\]", " ", text)
    return " ".join(repair_text(text).split())


def document_text(paper: Paper) -> str:
    """What a paper is embedded and mined as: its title (when it has one) and its abstract."""
    return _document_text(paper.title, paper.abstract)


# an update asks for each new paper's text five times (cache key, candidates, text facts,
# vector, cache row); a full build asks stage by stage, so a small cache keeps it from
# holding every abstract twice
@lru_cache(maxsize=1 << 11)
def _document_text(title: str | None, abstract: str) -> str:
    body = clean_text(abstract)
    return f"{clean_text(title)}. {body}" if title else body


# with its scheme, or without one (or a broken one, "https//:") if a path follows the host:
# "Code: github.com/org/repo", "anonymous.4open.science/r/GCB"
_CODE_HOSTS = re.compile(
    r"(?:(https?):?//:?|(?<![\w.-]))(www\.)?((?:github\.com|gitlab\.com|bitbucket\.org|huggingface\.co|"
    r"anonymous\.4open\.science|[\w-]+\.github\.io|codeberg\.org)(/[^\s,;(){}\[\]]*)?)",
    re.I)


def code_links(abstract: str) -> list[str]:
    """Links to code (GitHub, GitLab, Hugging Face, anonymous review mirrors...) in a text,
    each with its scheme."""
    out: list[str] = []
    for m in _CODE_HOSTS.finditer(abstract.replace("\\url{", " ").replace("\\href{", " ")):
        scheme, www, link, path = m.groups()
        if scheme is None and not (path or "").strip("/"):
            continue  # "we use github.com": a name, no link
        url = f"{scheme or 'https'}://{www or ''}{link}".rstrip(".:'\"")
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
    Corruption (DPC)"): its uses of the short form are counted here too. `inside_only`
    marks a tail that never stands alone: every use is the end of a longer candidate
    ("salesman problem" where the text only says "traveling salesman problem").
    `verb_led` marks a phrase opened by a verb's -ing form wherever it occurs, never
    after a determiner nor inside a longer run: a gerund and its object ("Learning
    compact models is hard", "methods for testing GUIs") or a term ("Downsampling layers
    are"); and one opened right after "to", wherever it occurs, by a homograph that takes
    an object there ("to use clickthrough logs"; "applied to model compression" is a
    term); `KnownTerms.gerund_clause` tells the two apart.
    """

    text: str
    position: int
    count: int
    defined: bool = False
    known_only: bool = False
    inside_only: bool = False
    verb_led: bool = False


class KnownTerms:
    """Phrases known to be terms of the field (e.g. author keywords of other papers), by key.

    They are candidates wherever they occur, even where the grammar rules would not cut
    them ("large language models", "mixture of experts", "diffusion" in "diffusion models").
    A key that starts with an acronym ("RL agents", "ML") is left to the grammar, which
    keeps acronyms: forcing it would read another field's "ML" (monolayers) as ours.
    """

    def __init__(self, keys: Collection[str]) -> None:
        self.keys = frozenset(keys)
        self.first_words = frozenset(w for k in self.keys if k and (w := k.split()[0]).islower())
        self.openings = frozenset(" ".join(k.split()[:2]) for k in self.keys if " " in k)

    def gerund_clause(self, c: Candidate) -> bool:
        """A verb's -ing form and its object ("learning compact models", "understanding
        human instructions", "quantizing LLMs"): a `verb_led` candidate that is no term of
        the field and opens with two words no term opens with. One that does ("learning
        rate", "training dynamics", "scaling laws") is read as a term."""
        if not c.verb_led:
            return False
        key = term_key(c.text)
        return key not in self.keys and " ".join(key.split()[:2]) not in self.openings


def candidates(
    text: str, max_words: int = MAX_WORDS, known: KnownTerms | None = None
) -> list[Candidate]:
    """Distinct candidate phrases of a cleaned abstract, in order of first appearance.

    English noun phrases are head-final, so a candidate is a tail of a run of content words
    (after trailing non-nouns are trimmed): "trainable continuous prompt vectors" gives
    "prompt vectors" and "continuous prompt vectors" but not "continuous prompt".
    Long forms of abbreviations the text defines are candidates too, and absorb their
    short form; so are `known` terms wherever they occur, but not a hyphenated modifier the
    text only ever puts before a noun ("long-context", `grammar.only_modifies`) nor a
    word the text only ever puts before another noun of its phrase ("Hamiltonian" of
    "Hamiltonian Monte Carlo", "diffusion" of "diffusion models"): it is a modifier there
    (an acronym is a name even so: "CLIP features").
    """
    toks = tokens(text)
    defs = abbreviations(text)
    seen, alone, inside, inner, after_to = tails(toks, max_words, known,
                                                  {a.short: a.long.lower() for a in defs})
    from_tails = set(seen)
    if known is not None:
        standalone: set[str] = set()
        for pos, phrase in known_spans(toks, known, max_words):
            key = phrase.lower()
            if key in from_tails or " " in key or pos not in inner or is_acronym(phrase):
                standalone.add(key)  # here not a modifier of a later word
            first, count, form = seen.get(key, (pos, 0, phrase))
            seen[key] = (min(first, pos), count + (key not in from_tails), form)
        seen = {k: v for k, v in seen.items() if k in from_tails or k in standalone}
    out = [Candidate(form, pos, count, known_only=key not in from_tails,
                     inside_only=key in from_tails and key not in alone,
                     verb_led=key in from_tails and " " in key and _verb_led(
                         key, key not in inside, key in after_to))
           for key, (pos, count, form) in seen.items()
           if " " in key or not only_modifies(toks, form)]
    return _fold_initials(_fold_abbreviations(out, defs, text))


def _verb_led(key: str, leads: bool, after_to: bool) -> bool:
    """Opened by a verb wherever it occurs: an -ing form opening its run ("Learning compact
    models is"), or, right after "to", a homograph that takes an object there ("to use
    clickthrough logs", `afterto.verbs_taking_objects`)."""
    first = key.split(" ", 1)[0]
    return leads and is_verb_ing(first) or after_to and first in verbs_taking_objects()


def _fold_abbreviations(
    cands: list[Candidate], abbrevs: list[Abbreviation], text: str
) -> list[Candidate]:
    """Add each defined long form, counting its short form's uses, and drop the short form.
    A long form that is no noun phrase ("zeroth-order (ZO) optimization", "visual
    autoregressive (VAR) modeling") is defined with the head that follows its definition
    (`build.tails`), when there is one."""
    if not abbrevs:
        return cands
    by_lower = {c.text.lower(): c for c in cands}
    shorts = {a.short.lower() for a in abbrevs}
    out = [c for c in cands if c.text.lower() not in shorts]
    for a in abbrevs:
        if not noun_like_end(a.long.split()[-1]):
            a = Abbreviation(a.short, next((c.text for c in cands if c.text.lower().startswith(
                a.long.lower() + " ")), a.long))
        long_c = by_lower.get(a.long.lower())
        short_c = by_lower.get(a.short.lower())
        count = (long_c.count if long_c else 1) + (short_c.count if short_c else 0)
        pos = min(c.position for c in (long_c, short_c) if c) if long_c or short_c else (
            len(tokens(text[: text.find(a.long)])) if a.long in text else 0)
        out = [c for c in out if c.text.lower() != a.long.lower()]
        out.append(Candidate(a.long, pos, count, defined=True))
    return sorted(out, key=lambda c: c.position)


_WORD_PARTS = re.compile(r"[\s-]+")


def _fold_initials(cands: list[Candidate]) -> list[Candidate]:
    """An undefined short form of three capitals or more whose capitals are the initials of
    one phrase of the same text ("DPO" beside a title's "Direct Preference Optimization",
    "LoRA" beside "Low-Rank Adaptation", "VLMs" beside "Visual Language Models" and
    "visual-language models") is a use of it (of its most used spelling): the two would
    fill two of the paper's best places with one idea. Two letters ("RL", "LM") name too
    many things to guess."""
    shorts = {c.text: caps for c in cands
              if c.text.isalpha() and is_acronym(c.text) and not c.defined
              and len(caps := "".join(ch for ch in c.text if ch.isupper()).lower()) >= 3}
    if not shorts:
        return cands
    by_initials: dict[str, list[tuple[Candidate, str]]] = {}
    for c in cands:
        words = _WORD_PARTS.split(c.text.lower())
        if len(words) >= 3:
            by_initials.setdefault("".join(w[:1] for w in words), []).append((c, " ".join(words)))
    out = {c.text: c for c in cands}
    for short, caps in shorts.items():
        longs = by_initials.get(caps, [])  # one phrase, however spelled: "visual(-)language"
        if len({spelled for _, spelled in longs}) != 1:
            continue
        long_text = max((c for c, _ in longs), key=lambda c: (c.count, -c.position)).text
        long_c, short_c = out.pop(long_text), out.pop(short)
        out[long_text] = replace(long_c, count=long_c.count + short_c.count,
                                 position=min(long_c.position, short_c.position))
    return sorted(out.values(), key=lambda c: c.position)
