"""Text repairs made before anything reads an abstract, each stated once.

- `repair_text`: sentences and words glued together by a scrape ("sets.Our",
  "dataPre-Training viaMeta-representation") are split, a drop capital is joined, and a
  backronym's words are spelled as words (`uncase_backronyms`: "COntinuAl inStruction
  Tuning (COAST)").
- `strip_boilerplate`: the copyright, funding and DOI sentences that metadata services
  leave in abstracts ("Copyright © 2005 John Wiley & Sons", "HG and ZG acknowledge support
  from … Grant EP/N510129/1") are dropped, and a scraped landing page's furniture around
  an abstract; `strip_citations` drops author-year citations ("King & Wynn (1999)",
  "(Vaswani et al., 2017)").
They ask the lexicon (`paperkg.lexicon`) which words are English.
"""

from __future__ import annotations

import re

from paperkg.lexicon import (
    FUNCTION_WORDS,
    GENERIC_MODIFIERS,
    is_common_word,
    is_verb_only,
    pos,
)
from paperkg.ligatures import restore_ligatures

__all__ = ["repair_text", "strip_boilerplate", "strip_citations", "uncase_backronyms"]

# "sets.Our", "algorithms.We", "etc.GUI", "LLMs.In", "to 128K.We": a sentence end glued to
# the next sentence's first word (after a number, only a word: "Fig.3", "2.5" are no seams).
_GLUED_SENTENCE = re.compile(r"(?:(?:(?<=[a-z]{2})|(?<=[A-Z]s))([.!?;:])"
                             r"(?=[A-Z][a-z]|[A-Z]{2,}[a-z]?\b)"
                             r"|(?:(?<=\d)|(?<=\d[A-Z]))([.!?;:])(?=[A-Z][a-z]+\b))")
# "dataPre-Training", "viaMeta-representation", "introduceTAMA": a lower-case word glued
# to a capitalised one or to an acronym.
_CAMEL_SEAM = re.compile(r"\b([a-z]{2,})([A-Z][a-z]{2,}[\w-]*|[A-Z]{2,}[\w-]*)")
# "November 2020The impact", "Poverty24 March 2018": a number glued to the next
# sentence's first word, a title glued to the date after it (scraped reference lists).
_MONTH = ("(?:January|February|March|April|May|June|July|August|September|October|November|"
          "December)")
_NUMBER_CLUE = re.compile(rf"[0-9](?:[A-Z][a-z][a-z]|[0-9]? {_MONTH}\b)")  # a fast first look
_NUMBER_SEAM = re.compile(rf"(?<=[0-9]{{2}})(?=[A-Z][a-z]{{2,}})|(?<=[a-z]{{3}})(?=[0-9]{{1,2}} "
                          rf"{_MONTH}\b)")


# "one dimensional quantum liquid", "few shot learning", "first order logic", "high
# probability excess risk bounds": a compound modifier written with a space, whose first
# word alone would end a phrase (a number, a quantity), leaving "dimensional quantum
# liquid", "probability excess risk bounds"; hyphenated before a word that goes on. Per
# second word, the first words it makes such a compound with (and a number, for
# "dimensional"); the regex finds a word before a second word and `_hyphenated` looks the
# pair up (one alternation of every pair took 3.7 s over the ICLR corpus, this 1.3 s).
_COMPOUND_FIRSTS = {
    "dimensional": frozenset("one two three four five six seven eight nine ten single multi "
                             "high higher low lower".split()),
    "order": frozenset("first second third high higher low lower zero".split()),
    "scale": frozenset("large small multi full fine coarse".split()),
    "shot": frozenset("zero one few many multi single".split()),
    "level": frozenset("high higher low lower multi single two".split()),
    "grained": frozenset({"fine", "coarse"}),
    "stage": frozenset("one two three single multi".split()),
    "range": frozenset({"long", "short"}),
    "term": frozenset({"long", "short"}),
    # a count or "single"/"multi" and the noun it counts, as a modifier: "three layer
    # network", "one pass streaming algorithm", "multi head attention" (else "layer
    # network", "pass streaming algorithm", "head attention" were candidates)
    **{second: frozenset("one two three four single multi".split()) for second in (
        "pass layer step stream round hop").split()},
    **{second: frozenset("single multi".split()) for second in (
        "agent task view head turn domain label objective channel source cell lingual"
        ).split()},
    "player": frozenset("one two three single multi".split()),
    "class": frozenset("one two multi single".split()),
    "tower": frozenset({"two"}),
    "sample": frozenset({"one", "two"}),
    "body": frozenset({"two", "three", "many"}),
    "armed": frozenset({"two", "multi"}),
    "sided": frozenset({"one", "two"}),
    "way": frozenset({"one", "two", "three"}),
    "modal": frozenset({"multi", "cross", "uni"}),
    **{second: frozenset({"high", "low"}) for second in (
        "probability resolution fidelity rank frequency precision variance entropy energy "
        "resource").split()},
}
_SPACED_COMPOUND = re.compile(
    rf"\b([A-Za-z]+|[0-9]+) ({'|'.join(_COMPOUND_FIRSTS)})(?= ([A-Za-z][\w-]*))", re.IGNORECASE)

# "Pareto optimal policies", "model agnostic meta-learning", "sample efficient RL": a
# word and an adjective that make one modifier, written with a space; the word alone would
# end a phrase ("Pareto"). Hyphenated when a content word goes on (`_modifier`).
_SPACED_MODIFIER = re.compile(
    r"\b([A-Za-z][A-Za-z0-9]+) (optimal|efficient|agnostic|aware|driven|guided|"
    r"oriented|dependent|independent|invariant|equivariant|centric|based) "
    r"(?=([A-Za-z][\w-]*))")
# "termed thefunctional homotopy", "anddiversity", "implementationsof", "tasksthat": a
# function word glued to the next or the last word where a scrape dropped the space
# around markup (\\emph{…})
_GLUED_FIRST, _GLUED_LAST = "the|and|of|with|for|to", "of|that|the|and|for|with"
_GLUED_FUNCTION = re.compile(rf"\b(?:(?:{_GLUED_FIRST})[a-z]{{4,}}|"
                             rf"[a-z]{{4,}}?(?:{_GLUED_LAST}))\b")
_GLUED_BEFORE = re.compile(rf"({_GLUED_FIRST})([a-z]{{4,}})")
_GLUED_AFTER = re.compile(rf"([a-z]{{4,}}?)({_GLUED_LAST})")
# "Hierar-\nchical", "approxima-\ntions", "en-\nables": a word a PDF broke at a line end;
# joined only when the whole is a word ("self-\ndebugging", "real-\nworld" stay).
_LINE_HYPHEN = re.compile(r"\b([A-Za-z]+)-[ \t]*\r?\n\s*([a-z]+)\b")
# "mathe- matics", "Chain- of-Thought", "Computer- Aided Design": the same break with the
# line end already turned into a space. Not a suspended hyphen ("first- and second-order")
# nor a dash of prose ("beliefs- we", "the- Middle": a function word on either side), nor
# a particle's charge ("K- e+", "pi- p": one or two letters that make no word with the next
# part; "re- duction" does).
_SPACE_HYPHEN = re.compile(r"\b([A-Za-z]+)- (?!(?:and|or|nor|to|as|vs)\b)([A-Za-z][\w-]+)")
# "mod-els", "ex-emplifying": the same break with the line end dropped altogether; joined
# only when the part after the hyphen is no word and the whole is one ("pre-trained",
# "X-ray", "co-occurrence" stay).
_WORD_HYPHEN = re.compile(r"\b([A-Za-z][a-z]+)-([a-z]{2,})\b")

# "Clebsch--Gordan", "Navier–Stokes", "primal–dual": an en dash (or TeX's "--") joining
# two names, or two words, is a hyphen of one term; split there, a name lost its half
# ("Gordan transform"). A range ("2010–2020") and a spaced dash stay.
_NAME_DASH = re.compile(r"\b([A-Z][a-z]+)(?:--|\u2013)(?=[A-Z][a-z])|\b([a-z]+)\u2013(?=([a-z]+))")

# "H uman impacts on …": a PDF's drop capital, split from the rest of the first word.
_DROP_CAP = re.compile(r"\s*([A-Z]) ([a-z]{2,})\b")


# An abbreviation defined in parentheses: "(COAST)", "(DelTA)", "(MM-VSF)".
_DEFINED_SHORT = re.compile(r"\(([A-Za-z][A-Za-z0-9-]{1,15})\)")
# Letters cased to spell an abbreviation: "COntinuAl", "levEL", "enhancemenT".
_ODD_CASE = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]")
_LETTERS = re.compile(r"[A-Za-z]+")
_WORD = re.compile(r"\S+")


def uncase_backronyms(text: str) -> str:
    """Give the words of a backronym their own spelling back: in "COntinuAl inStruction
    Tuning on LVLMs (COAST)" the capitals spell the abbreviation after it, and a word
    cased only to make it ("COntinuAl", "inStruction", "Document-levEL") is an English
    word ("Continual", "instruction", "Document-level"), not a name nor two glued words.
    Only in such a definition, only where the lower-cased word is one the lexicon knows
    and only a word written once, so names ("LaTeX", "GraphSAGE", "ReLIC") keep their
    case."""
    if "(" not in text:
        return text
    edits: list[tuple[int, int, str]] = []
    for m in _DEFINED_SHORT.finditer(text):
        short = m.group(1)
        if sum(c.isupper() for c in short) < 2:
            continue
        target = "".join(c for c in short.upper() if c.isalpha())
        words = list(_WORD.finditer(text, max(0, m.start() - 240), m.start()))[-12:]
        first = _long_form(words, target)
        for w in words[first:] if first is not None else ():
            if _ODD_CASE.search(w.group(0)):
                fixed = _LETTERS.sub(lambda p: _own_case(p, text), w.group(0))
                if fixed != w.group(0):
                    edits.append((w.start(), w.end(), fixed))
    for start, end, fixed in reversed(edits):
        text = text[:start] + fixed + text[end:]
    return text


def _long_form(words: list[re.Match[str]], target: str) -> int | None:
    """Where the words before an abbreviation start spelling it: the nearest word that
    starts with its first letter and from which the capitals hold its letters in order,
    with at most four others ("COntinuAl inStruction Tuning on LVLMs" for COAST)."""
    caps = ""
    for k in range(len(words) - 1, -1, -1):
        caps = "".join(c for c in words[k].group(0) if c.isupper()) + caps
        if len(caps) > len(target) + 4:
            return None
        if words[k].group(0)[:1] == target[:1] and _in_order(target, caps):
            return k
    return None


def _in_order(letters: str, caps: str) -> bool:
    rest = iter(caps)
    return all(c in rest for c in letters)


def _own_case(m: re.Match[str], text: str) -> str:
    """A backronym's word in its own spelling; a name used again ("ReLIC") keeps its case."""
    part = m.group(0)
    if not _ODD_CASE.search(part) or text.count(part) > 1 or not is_common_word(part.lower()):
        return part
    return part[0] + part[1:].lower() if part[0].isupper() else part.lower()


def _hyphenated(m: re.Match[str]) -> str:
    """"one dimensional" → "one-dimensional" before a word that goes on ("quantum"), not
    before one that ends the phrase ("the first order of", "in the long term we"), and
    only for a pair of `_COMPOUND_FIRSTS`."""
    first, second = m[1].lower(), m[2].lower()
    pair = first in _COMPOUND_FIRSTS[second] or first.isdigit() and second == "dimensional"
    return f"{m[1]}-{m[2]}" if pair and m[3].lower() not in FUNCTION_WORDS else m[0]


def _modifier(m: re.Match[str]) -> str:
    """"the model agnostic meta-learning" → "the model-agnostic meta-learning"; only for a
    word that opens its phrase (in "statistical mechanics based analysis" it ends a longer
    term, which the hyphen would cut), not a function word, an adverb, an adjective or a
    verb ("is data efficient and", "highly efficient", "dynamic optimal control",
    "enabling efficient exploration"), and not before an adverb or a function word ("based
    solely on")."""
    low, after = m[1].lower(), m[3].lower()
    before = m.string[max(0, m.start() - 40):m.start()].split()
    prev = before[-1].lower() if before else ""
    if prev[-1:].isalnum() and prev not in FUNCTION_WORDS and prev not in GENERIC_MODIFIERS:
        return m[0]  # "statistical mechanics based analysis": the word ends a longer term
    tags = pos(low)
    if (low in FUNCTION_WORDS or low in GENERIC_MODIFIERS or low.endswith(("ly", "ing"))
            or "ADJ" in tags or not tags and _ADJ_ENDING.search(low)
            or after in FUNCTION_WORDS or after.endswith("ly") or is_verb_only(after)):
        return m[0]
    # "optimal" and "efficient" also stand before a noun after a verb or noun that is one
    # too ("find optimal solutions", "sample efficient"): only after a noun that is nothing else
    if "VERB" in tags and ("NOUN" not in tags or m[2] in ("optimal", "efficient")):
        return m[0]
    return f"{m[1]}-{m[2]} "


_ADJ_ENDING = re.compile(r"(?:ive|ous|ful|able|ible|less|ic|al|ian|ar)$")


def _one_word(whole: str, m: re.Match[str]) -> bool:
    """A word the lexicon knows, or one the same text writes whole elsewhere: "resampling"
    for "resam- pling" where the abstract also says "resampling"."""
    if is_common_word(whole.lower()):
        return True
    return len(whole) >= 6 and re.search(rf"(?<![\w-]){re.escape(whole)}(?![\w-])",
                                         m.string, re.IGNORECASE) is not None


def _line_join(m: re.Match[str]) -> str:
    whole = m[1] + m[2]
    return whole if _one_word(whole, m) else f"{m[1]}-{m[2]}"


def _broken_word(m: re.Match[str]) -> bool:
    """The part after the hyphen is no word and the whole is one ("mod-els", "per- formance")."""
    return not is_common_word(m[2].lower()) and _one_word(m[1] + m[2], m)


def _word_join(m: re.Match[str]) -> str:
    return m[1] + m[2] if _broken_word(m) else m[0]


def _space_join(m: re.Match[str]) -> str:
    whole = m[1] + m[2]
    if m[1].lower() in FUNCTION_WORDS or m[2].lower() in FUNCTION_WORDS:
        # a dash of prose, unless the part after it is no word and the whole is one:
        # "per- formance", "in- frastructure"
        return whole if m[2].islower() and _broken_word(m) else m[0]
    if _one_word(whole, m):
        return whole
    return f"{m[1]}-{m[2]}" if len(m[1]) >= 3 else m[0]


def _function_seam(m: re.Match[str]) -> str:
    """"the functional" for "thefunctional", "tasks that" for "tasksthat": only where the
    whole is no word the lexicon knows ("towards", "forward", "theorem", "breathe" stay)
    and the rest is one."""
    whole = m[0]
    if whole in FUNCTION_WORDS or is_common_word(whole):
        return whole
    before = _GLUED_BEFORE.fullmatch(whole)
    if before and is_common_word(before[2]):
        return f"{before[1]} {before[2]}"
    after = _GLUED_AFTER.fullmatch(whole)  # "formulathat" starts like "for" too
    return f"{after[1]} {after[2]}" if after and is_common_word(after[1]) else whole


def _dash(m: re.Match[str]) -> str:
    """A hyphen for the dash between names, or between words unless it is a dash of
    prose, written without spaces: "topics–those elicit", "space–generates"."""
    if m[1]:
        return m[1] + "-"
    after = m[3]
    prose = after in FUNCTION_WORDS or after.endswith("s") and "VERB" in pos(after)
    return m[0] if prose else m[2] + "-"


def repair_text(text: str) -> str:
    """Split glued sentences and glued words, join a first word split at its drop capital,
    join a word a PDF broke at a line end ("Hierar-\\nchical", "mathe- matics", "mod-els"),
    hyphenate a spaced compound modifier ("few shot learning", "Pareto optimal policies")
    and a dashed pair of names ("Clebsch--Gordan").
    A camel seam is split only when the lower-case part is a word the lexicon knows (of
    five letters or more before an acronym) and the whole word starts in lower case, so
    names ("GFlowNet", "AlphaFold", "PyTorch", "iPhone", "xLSTM", "lncRNA") stay whole; a
    drop capital is joined only when the rest is not a word and the whole is ("A new"
    stays). A backronym's words are spelled as words first (`uncase_backronyms`), and words
    that lost a ligature whole (`ligatures.restore_ligatures`)."""
    text = restore_ligatures(uncase_backronyms(text))
    cap = _DROP_CAP.match(text)
    if cap and not is_common_word(cap[2]) and is_common_word(cap[1].lower() + cap[2]):
        text = cap[1] + cap[2] + text[cap.end():]
    text = _GLUED_SENTENCE.sub(lambda m: f"{m[1] or m[2]} ", text)
    if "-\n" in text or "- \n" in text:
        text = _LINE_HYPHEN.sub(_line_join, text)
    if "- " in text:
        text = _SPACE_HYPHEN.sub(_space_join, text)
    if "-" in text:
        text = _WORD_HYPHEN.sub(_word_join, text)
    text = _SPACED_COMPOUND.sub(_hyphenated, text)
    text = _SPACED_MODIFIER.sub(_modifier, text)
    if "--" in text or "\u2013" in text:
        text = _NAME_DASH.sub(_dash, text)
    if _NUMBER_CLUE.search(text):
        text = _NUMBER_SEAM.sub(" ", text)
    text = _GLUED_FUNCTION.sub(_function_seam, text)

    def seam(m: re.Match[str]) -> str:
        left, right = m.group(1), m.group(2)
        if right[1].isupper():  # an acronym: "lncRNA", "scGPT", "textCNN" are names
            known = len(left) >= 5 and is_common_word(left)
        else:
            known = left in FUNCTION_WORDS or (len(left) >= 3 and is_common_word(left))
        return f"{left} {right}" if known else m.group(0)

    return _CAMEL_SEAM.sub(seam, text)


# A sentence about the publication rather than the work: a copyright notice (not a
# sentence about copyright, which papers study), a funding or acknowledgement sentence,
# a DOI. Clues are checked cheaply first.
_BOILERPLATE_CLUES = ("opyright", "OPYRIGHT", "\u00a9", "(c)", "(C)", "ights reserved",
                      "cknowledge", "upported by", "upported in part", "unded by",
                      "unded in part", "rant ", "rants ", "doi:", "doi :", "DOI",
                      "subscription content", "check access", " pages", "Accepted ",
                      "To appear ")
_YEAR = r"(?:19|20)[0-9][0-9]"
_FUNDER = (r"(?:grants?|fellowships?|(?:Science|Research) Foundation|Research Council|NSF|NIH|"
           r"ERC|DFG|EPSRC|NSERC|NSFC|DARPA|ONR|JSPS|ANR)")
_BOILERPLATE = re.compile(
    rf"\b(?:[Cc]opyright|COPYRIGHT)\s*(?:\u00a9|\([cC]\)|{_YEAR})|\u00a9\s*(?:{_YEAR}|[A-Z])"
    rf"|\([cC]\)\s*{_YEAR}|\b[Aa]ll [Rr]ights [Rr]eserved"
    rf"|\backnowledges? (?:the )?(?:\w+ ){{0,2}}(?:support|funding)\b"
    rf"|\b(?:[Ss]upported|[Ff]unded)\s+(?:in part\s+)?by\b[^.]{{0,100}}\b{_FUNDER}\b"
    rf"|\b[Gg]rants?\s+(?:[Nn]o\.?\s*)?[A-Z]{{0,6}}[-/]?[A-Za-z]*[0-9]{{3,}}|\b(?:doi|DOI)\s*:"
    # a publisher's paywall ("This is a preview of subscription content, log in via an
    # institution to check access"), an arXiv comment ("12 pages, 5 figures", "Accepted at
    # ICLR 2024", "To appear in …") at the start of its sentence
    rf"|\bpreview of subscription content\b|\binstitution to check access\b"
    rf"|(?:^|(?<=[.!?] ))\s*[0-9]+\s+pages\b(?:,\s*[0-9]+\s+(?:figures?|tables?))?"
    rf"|(?:^|(?<=[.!?] ))\s*(?:Accepted|To appear)\s+(?:at|to|in|by|for)\b")
# A sentence ends at . ! or ? before white space ("dx.doi.org/10.1/x.y" is one sentence).
_SENTENCE = re.compile(r".*?(?:[.!?](?=\s)|$)", re.DOTALL)


# A scraped landing page ("No AccessPolicy Research Working Papers22 Jun 2013 … Download
# CitationsTrack Citations … Abstract:<the abstract>Previous bookNext book Figures
# ReferencesRecommendedDetailsCited By …"), or a full text's first page ("Abstract Forest
# management … Keywords: Boreal forestsclear-cuts… Acknowledgments Support for …"): the
# abstract is what its label introduces, up to the page's links or the next section.
_ABSTRACT_LABEL = re.compile(r"^\s*(?:Abstract|ABSTRACT)\s*[:.：]\s*|\b(?:Abstract|ABSTRACT)"
                             r"\s*[:：]\s*")
# bare, only on a page whose tail shows it is one ("Abstract visual reasoning" is a field)
_BARE_LABEL = re.compile(r"^\s*(?:Abstract|ABSTRACT)\s+(?=[A-Z])")
_PAGE_TAIL = re.compile(r"(?:Previous (?:book|article|chapter)|Next (?:book|article|chapter)|"
                        r"FiguresReferences|ReferencesRecommended|\b(?:Key ?words|KEYWORDS|"
                        r"Index Terms)\s*[:—-]|\bAcknowledge?ments\b(?=\s*:?\s*[A-Z]))")
# literal pieces of every `_PAGE_TAIL` match, looked for first (the regex alone took 0.4 s
# of cleaning the ICLR corpus)
_PAGE_TAIL_CLUES = ("Previous ", "Next ", "FiguresReferences", "ReferencesRecommended",
                    "Keywords", "Key words", "KEYWORDS", "Index Terms", "cknowledg")


def strip_boilerplate(text: str) -> str:
    """The text without a landing page's furniture around it and without its publisher,
    copyright, funding and DOI sentences."""
    tail = _PAGE_TAIL.search(text) if any(c in text for c in _PAGE_TAIL_CLUES) else None
    if tail:
        text = _BARE_LABEL.sub("", text[:tail.start()])
    if "bstract" in text or "BSTRACT" in text:
        label = _ABSTRACT_LABEL.search(text)
        text = text[label.end():] if label else text
    if not any(clue in text for clue in _BOILERPLATE_CLUES) or not _BOILERPLATE.search(text):
        return text
    return "".join(s for s in _SENTENCE.findall(text) if not _BOILERPLATE.search(s))


# An author-year citation: "Belle et al. (2002)", "Norton et al.", "King & Wynn (1999)",
# "(Vaswani et al., 2017; Smith, 2020)". A surname is a capital then a lower-case letter,
# so "GPT-4 (2023)" or "(WMT 2014)" stay; two names joined by "and" only with a year in
# parentheses ("Markov and Gaussian processes" stays).
_SURNAME = r"[A-Z](?=[^\W\d_A-Z])[^\W\d_]+(?:[-'][^\W\d_]+)*"
_CITATION = re.compile(
    rf"\b{_SURNAME}\s+et\s+al\b\.?(?:,?\s*\(\s*{_YEAR}[a-z]?\s*\))?"
    rf"|\b{_SURNAME}\s*(?:&|and)\s*{_SURNAME},?\s*\(\s*{_YEAR}[a-z]?\s*\)"
    rf"|\((?=[^()]{{0,200}}?(?:et al\b\.?,?|{_SURNAME},)\s*{_YEAR}[a-z]?\b)[^()]{{1,240}}\)")
_A_YEAR = re.compile(_YEAR)


def strip_citations(text: str) -> str:
    """The text without author-year citations, each left as a phrase break (";"): the
    cited names are not concepts of the paper ("King Wynn" from "King & Wynn (1999)").
    Every citation holds "et al" or a year; literal clues go first (a regex alone took
    0.15 s of cleaning the ICLR corpus)."""
    if "et al" not in text and not (("19" in text or "20" in text) and _A_YEAR.search(text)):
        return text
    return _CITATION.sub(" ; ", text)
