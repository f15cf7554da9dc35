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
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from functools import cache

from paperkg.build.ingest import Paper
from paperkg.build.terms import Abbreviation, abbreviations, term_key

__all__ = ["Candidate", "KnownTerms", "candidates", "clean_text", "code_links", "document_text",
           "tokens"]

MAX_WORDS = 4

_FUNCTION_WORDS = frozenset("""
a about above across after afterwards again against all almost alone along already also although
always am among amongst an and another any anyhow anyone anything anyway anywhere are around as
at be became because become becomes becoming been before beforehand behind being below beside
besides between beyond both but by can cannot could did do does doing done down during each eg
e.g either else elsewhere enough especially etc even ever every everyone everything everywhere
except few for former formerly from further furthermore had has have having he hence her here
hereby herein hers herself him himself his how however i ie i.e if in inc indeed into is it its
itself just least less many may me meanwhile might mine more moreover most mostly much must my
myself namely neither never nevertheless next no nobody none noone nor not nothing now nowhere
of off often on once one only onto or other others otherwise our ours ourselves out over own per
perhaps rather same seem seemed seeming seems several she should since so some somehow someone
something sometime sometimes somewhat somewhere still such than that the their theirs them
themselves then thence there thereafter thereby therefore therein thereupon these they this
those though through throughout thus to together too toward towards two three four five six
seven eight nine ten under until up upon us very via vs versus was we well were what whatever
when whence whenever where whereas whereby wherein whereupon wherever whether which while who
whoever whole whom whose why will with within without would yet you your yours yourself let lets
let's can't won't don't doesn't isn't aren't wasn't it's we're they're thereof
""".split())

# Evaluative and generic modifiers: they start many spans but never name a concept.
_GENERIC_MODIFIERS = frozenset("""
novel new various different existing extensive promising competitive significant effective
superior comprehensive remarkable substantial strong simple key crucial critical important
challenging impressive great good better best specific particular certain additional previous
prior recent current traditional conventional typical common overall original possible similar
entire diverse numerous multiple unique broad wide primary main major minor notable fundamental
essential first second third last final initial underlying like able due many much several whole
such considerable notably significantly clear easy difficult hard efficient powerful popular
practical theoretical empirical experimental rich desirable favorable limited natural? vast
increasing growing widespread emerging prominent leading improved enhanced optimal suboptimal
proposed resulting given respective corresponding relevant necessary sufficient successful
accurate fast slow small large huge tiny big higher lower high low better worse more less full
free open fewer latter former state-of-the-art well-known well-established well-studied so-
called
""".replace("?", "").split())

# Verbs whose forms split phrases; their -ing/-ed forms rarely head a concept.
_VERBS = """
achieve address affect allow append argue assume attain avoid become boost capture compare
consider contain demonstrate derive describe determine develop enable enhance ensure establish
evaluate exhibit explore extend facilitate fail find follow give highlight identify illustrate
improve include incorporate increase indicate integrate introduce investigate involve leverage
maintain make mitigate motivate observe obtain offer outperform overcome perform present
preserve produce propose prove provide reach reduce refer remain require reveal rely seek serve
show solve suffer suggest surpass take tend utilize validate emerge appear employ exploit
conduct confirm define depend exceed examine explain express extract focus hinder hold keep lack
lead lie limit need outline overlook pose possess raise receive recognize regard remove replace
report result satisfy select share signify struggle study support adopt apply aim attempt
benefit build combine design help measure use yield optimize degrade interfere adjust call dub
seek name term ignore
""".split()
_AMBIGUOUS_BASE = frozenset("""
attempt benefit build combine design focus help lack limit measure need result share study
support use yield report hold lead aim apply name term
""".split())


def _inflections(verb: str) -> set[str]:
    forms = {verb + "s", verb + "ed", verb + "ing"}
    if verb.endswith("e"):
        forms |= {verb + "d", verb[:-1] + "ing"}
    if verb.endswith("y"):
        forms |= {verb[:-1] + "ies", verb[:-1] + "ied"}
    if verb.endswith(("s", "sh", "ch", "x")):
        forms.add(verb + "es")
    if re.search(r"[^aeiou][aeiou][bdgmnprt]$", verb) and len(verb) <= 5:
        forms |= {verb + verb[-1] + "ed", verb + verb[-1] + "ing"}
    return forms


_IRREGULAR_VERB_FORMS = frozenset("""
made found shown given taken held led kept lay lain became sought built proven drawn grown known
thought brought seen chosen called named dubbed termed
""".split())
_VERB_FORMS = frozenset(
    {f for v in _VERBS for f in _inflections(v)}
    | {v for v in _VERBS if v not in _AMBIGUOUS_BASE}
    | _IRREGULAR_VERB_FORMS
)

_BREAK_WORDS = _FUNCTION_WORDS | _GENERIC_MODIFIERS | _VERB_FORMS

# A single word that is only ever a generic noun in an abstract: not a concept on its own.
_GENERIC_NOUNS = frozenset("""
approach approaches method methods framework frameworks paper papers work works model models
result results performance problem problems task tasks data experiment experiments study studies
analysis effectiveness improvement improvements way ways number set sets ability abilities
capability capabilities issue issues challenge challenges process processes system systems
technique techniques strategy strategies solution solutions setting settings scenario scenarios
baseline baselines state art field fields domain domains application applications quality
information insight insights finding findings term terms aspect aspects case cases type types
form forms level levels range order time times need gap impact influence role effect effects
evidence example examples instance instances property properties value values variety
implementation component components end goal goals researcher researchers community practice
practices idea ideas fact manner means lot part parts point points question questions reason
reasons respect factor factors step steps stage stages mechanism mechanisms module modules
design designs function functions amount amounts degree cost costs size sizes benchmark
benchmarks dataset datasets code understanding tool tools complex soft hard standard input
output
learning training network networks structure structures representation representations
parameter parameters error errors assumption assumptions operation operations variant variants
iteration iterations token tokens user users weight weights pattern patterns scheme schemes
observation observations condition conditions requirement requirements success effort efforts
gain gains difficulty difficulties superiority promise combination combinations answer answers
characteristic characteristics family families world nature human humans content presence
access usage contrast demand demands support help lead guide release use aim handle train
""".split())

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


@cache
def _pos(word: str) -> frozenset[str]:
    """The parts of speech an English lexicon knows for a word (empty if it does not know it)."""
    from lemminflect import getAllLemmas

    return frozenset(getAllLemmas(word))


_TOKEN_RE = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9+]*(?:[-'’.][A-Za-z0-9+]+)*|\S", re.UNICODE
)
_MATH_RE = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]", re.DOTALL)
_TEXT_CMD_RE = re.compile(
    r"\\(?:text\w*|emph|mathrm|mathbf|mathit|mathtt|operatorname)\s*\{([^{}]*)\}"
)
_CMD_RE = re.compile(r"\\[A-Za-z]+\*?")
_URL_RE = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)
BREAK = " ; "


def clean_text(text: str) -> str:
    """Plain text for embedding: LaTeX and URLs out, escaped symbols back, spaces single."""
    text = _URL_RE.sub(BREAK, text)
    text = _TEXT_CMD_RE.sub(r"\1", text)
    text = _MATH_RE.sub(BREAK, text)
    text = text.replace("\\%", "%").replace("\\&", "&").replace("\\_", "_")
    text = _CMD_RE.sub(BREAK, text)
    text = re.sub(r"[{}^_~\\]", " ", text)
    return " ".join(text.split())


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
    if not _is_word(tok):
        return True
    low = tok.lower().replace("’", "'")
    if low in _BREAK_WORDS or low.endswith(("'s", "'")):
        return True
    if re.fullmatch(r"[0-9][0-9.,]*(?:%|[kmbt]|x|st|nd|rd|th)?|[0-9.,%]+", low):
        return True
    if len(low) > 4 and low.endswith("ly"):
        return low not in {"family", "anomaly", "assembly", "supply", "early", "monopoly"}
    # a finite verb ("imposes", "believe") ends a phrase; participles may modify a noun
    return _verb_only(low) and not low.endswith(("ed", "ing"))


def _is_acronym(tok: str) -> bool:
    """"LLMs", "MoE", "GSM8K", "AQuA" — but not "Parameter-Efficient"."""
    upper = sum(c.isupper() for c in tok)
    letters = sum(c.isalpha() for c in tok)
    has_digit = any(c.isdigit() for c in tok)
    return (upper >= 2 and upper >= 0.3 * letters) or (tok[:1].isupper() and has_digit)


def _verb_only(low: str) -> bool:
    return _pos(low) == {"VERB"}


def _noun_like_end(tok: str) -> bool:
    """Can this word end a noun phrase? The lexicon decides where it knows the word."""
    if _is_acronym(tok):
        return True
    low = tok.lower()
    if low in _ING_NOUNS or low.endswith("ing") and len(low) > 5:
        return True  # a gerund ends a noun phrase ("prompt tuning"); single words: see below
    if low in {"offline", "online"} or _HYPHEN_ADJ.search(low):
        return False
    if low.endswith("ed") and not low.endswith("eed"):
        return False
    pos = _pos(low)
    if pos:
        return "NOUN" in pos or "PROPN" in pos
    last = low.rsplit("-", 1)[-1]
    if last != low and _pos(last):
        return "NOUN" in _pos(last)
    return not _ADJ_SUFFIX.search(low) or low.endswith(("ial", "ual"))


def _valid_span(words: list[str]) -> bool:
    if not _noun_like_end(words[-1]):
        return False
    first = words[0].lower()
    if len(words) == 1:
        if first in _GENERIC_NOUNS or _verb_only(first) and first not in _ING_NOUNS:
            return False
        if "ADJ" in _pos(first) and (_ADJ_SUFFIX.search(first) or first.endswith("ic")):
            return False  # "beneficial", "quadratic": adjectives the lexicon also lists as nouns
        return len(first) >= 3 or _is_acronym(words[0])
    # "detecting distribution shifts": a verb-only -ing form does not start a concept
    return not (first.endswith("ing") and _verb_only(first) and first not in _ING_NOUNS)


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
            if term_key(phrase) in known.keys:
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


_VERB_CONTEXT = frozenset("the a an this these that those its their our his her it them both each"
                          " such more".split())


def _runs(toks: list[str]) -> Iterator[tuple[int, list[str]]]:
    """Maximal runs of content words, with the token index where each starts.

    A noun/verb homograph ending in -s right before a determiner is read as a verb:
    "the model breaks the curse" splits at "breaks".
    """
    run: list[str] = []
    start = 0
    for idx, tok in enumerate(toks):
        nxt = toks[idx + 1].lower() if idx + 1 < len(toks) else ""
        low = tok.lower()
        verb_here = (nxt in _VERB_CONTEXT and low.endswith("s") and len(low) > 3
                     and "VERB" in _pos(low))
        if _breaks(tok) or verb_here:
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
