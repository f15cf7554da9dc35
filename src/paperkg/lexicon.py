"""English word facts, each stated once (the build's candidates, the read side's search).

- `FUNCTION_WORDS`: the one stop-word list (determiners, pronouns, prepositions,
  conjunctions, auxiliaries) — a concept never contains one, except linking words inside
  a known term ("mixture of experts").
- `GENERIC_MODIFIERS`, `GENERIC_NOUNS`, `GENERIC_HEADS`: evaluative adjectives that never
  start a concept, single words too broad to tag a paper with, and nouns that never head a
  concept ("ongoing progress", "irrelevant ones", "research significance").
- `WORD_PREFIXES`: prefixes written before a hyphen ("pre-", "bi-", "non-"), never names.
- `is_acronym`: the one rule for "this word is written as a name or abbreviation and keeps
  its case" ("LLMs", "MoE", "GSM8K", "Llama3"), which refuses an all-caps spelling of a
  common English word ("INCREMENTAL LEARNING" is "incremental learning").
- `singular`: the one plural rule; `pos` and `verb_forms` ask lemminflect's lexicon;
  `stem` is the Snowball (Porter2) stem, which joins derived forms ("optimizer",
  "optimization") that no plural rule does.
The text repairs that use these facts (glued words, boilerplate, citations, backronyms) are
in `paperkg.repair`.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from paperkg.memo import WordMemo

__all__ = ["FIELD_WORDS", "FUNCTION_WORDS", "GENERIC_HEADS", "GENERIC_MODIFIERS",
           "GENERIC_NOUNS", "GRADING_MODIFIERS", "KIND_NOUNS", "PERSON_ROLES", "PLURAL_HEADS",
           "QUANTITY_NOUNS", "UNITS", "WORD_PREFIXES", "edit_distance_one", "field_words_digest",
           "generic_modifier_forms", "is_acronym", "is_common_word", "is_field_word",
           "is_known_piece", "is_shouted", "is_verb_ed", "is_verb_ing", "is_verb_only",
           "phrase_breaking_verbs", "pos", "singular", "stem", "verb_forms"]

# prefixes written before a hyphen ("pre-trained", "Bi-directional" in a title): never names
WORD_PREFIXES = frozenset("""
anti auto bi co counter cross de extra hyper inter intra macro meta micro mid mini mono multi
neo non omni over poly post pre proto pseudo quasi re self semi sub super trans tri ultra un
under uni
""".split())

FUNCTION_WORDS = frozenset("""
a about above across after afterwards again against all almost alone along already also although
always am among amongst amid an and another any anyhow anyone anything anyway anywhere are around
as at be became because become becomes becoming been before beforehand behind being below beside
besides between beyond both but by can cannot could despite did do does doing done down during
each eg e.g either else elsewhere enough especially etc even ever every everyone everything
everywhere except few for former formerly from further furthermore had has have having he hence
her here hereby herein hers herself him himself his how however i ie i.e if in inc indeed into
is it its itself just least less many may me meanwhile might mine more moreover most mostly much
must my myself namely neither never nevertheless next no nobody none noone nor not nothing now
nowhere of off often on once one only onto or other others otherwise our ours ourselves out over
own per perhaps rather same seem seemed seeming seems several she should since so some somehow
someone something sometime sometimes somewhat somewhere still such than that the their theirs
them themselves then thence there thereafter thereby therefore therein thereupon these they this
those though through throughout thus to today together too toward towards two three four five six
seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen
nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand
under unlike until up upon us very via vs versus modulo was we well were what
whatever when whence whenever where whereas whereby wherein whereupon wherever whether which
while whilst who whoever whole whom whose why will with within without would yet you your yours
yourself let lets let's can't won't don't doesn't isn't aren't wasn't it's we're they're thereof
regarding concerning alongside amidst nowadays alike unless et al quite
inside outside beneath underneath atop aboard till instead in-between plus minus
""".split())

# Evaluative and generic modifiers: they start many spans but never name a concept.
GENERIC_MODIFIERS = frozenset("""
novel new various different existing extensive promising competitive significant effective
superior comprehensive remarkable substantial strong simple key crucial critical important
challenging impressive great good better best specific particular certain additional previous
prior recent current traditional conventional typical common overall original possible similar
entire diverse numerous multiple unique broad wide primary main major minor notable fundamental
essential first second third last final initial underlying like able due many much several whole
such considerable notably significantly clear easy difficult hard efficient powerful popular
practical theoretical empirical experimental rich desirable favorable limited natural vast
increasing growing widespread emerging prominent leading improved enhanced optimal suboptimal
proposed resulting given respective corresponding relevant necessary sufficient successful
accurate fast slow small large huge tiny big higher lower high low better worse more less full
free open fewer latter former state-of-the-art well-known well-established well-studied so-called
called ongoing irrelevant relevant unseen remaining rapid massive severe serious poor
advanced flexible supplementary standard comparative average wider innovative outstanding
excellent extra further detailed illustrative reasonable judicious intensive long-standing
unknown careful thorough interesting surprising elegant straightforward based related
future rival ideal closest hundred thousand million billion trillion dozen dozens
longstanding daunting unusual plausible peculiar intolerable irreparable sheer lengthy
brief meaningful rigorous insufficient twofold threefold unprecedented tremendous enormous
useful valuable helpful beneficial complicated unresolved dramatic extant
general appropriate inappropriate adequate inadequate arbitrary longer shorter sharper tighter
coming upcoming forthcoming realistic unrealistic latest urgent pressing little abundant
suitable available worth widely-used commonly-used
fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth
sixteenth seventeenth eighteenth nineteenth twentieth thirtieth hundredth thousandth
""".split())
# The generic modifiers that grade a thing rather than classify it: a writer's claim even
# where they open a known term ("efficient training recipe", "theoretical analysis
# framework"), unlike "natural language", "optimal transport", "free energy", "whole slide
# images" (`build.tails`).
GRADING_MODIFIERS = frozenset("""
efficient effective fast accurate powerful theoretical empirical diverse comprehensive
extensive competitive simple
""".split())

# Units of measure, lower-cased: after a number ("72.6 m3 ha-1", "4.4 rad s-2") they are
# a quantity, not the start of a concept.
UNITS = frozenset("""
m m2 m3 km km2 cm cm2 cm3 mm nm pm µm um ha kg g mg µg ng s ms µs ns min h hr hrs yr yrs d
hz khz mhz ghz thz ev kev mev gev tev w kw mw gw kwh twh j kj mj v kv mv pa kpa mpa gpa
mol mmol µmol l ml µl db dbm rpm rad
""".split())
# A single word that is only ever a generic noun, or names a whole area rather than
# something a paper can be tagged with: never a concept on its own (a reader's rule: a
# concept must be specific enough to connect papers meaningfully).
GENERIC_NOUNS = frozenset("""
approach approaches method methods framework frameworks paper papers work works model models
result results performance problem problems task tasks data experiment experiments study studies
survey surveys overview review reviews tutorial
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
output learning training network networks structure structures representation representations
parameter parameters error errors assumption assumptions operation operations variant variants
iteration iterations token tokens user users weight weights pattern patterns scheme schemes
observation observations condition conditions requirement requirements success effort efforts
gain gains difficulty difficulties superiority promise combination combinations answer answers
characteristic characteristics family families world nature human humans content presence
access usage contrast demand demands support help lead guide release use aim handle train
search bias optimization diffusion retrieval generation inference memory behavior behaviour
dynamics distribution distributions flow flows classes class circuit circuits evaluation
evaluations reasoning efficiency accuracy robustness generalization alignment adaptation
prediction predictions classification detection segmentation estimation planning control
sampling scaling attention language languages vision image images video videos text texts
graph graphs knowledge feature features architecture architectures algorithm algorithms
objective objectives loss losses metric metrics agent agents environment environments
policy policies reward rewards signal signals space spaces theory theories research
interpretation test tests increase increases decrease decreases measure measures call calls
""".split())

# What a person is, before a name or alone: "the British mathematician and logician Alan
# M. Turing", "scientists Alfred Gierer": about people, not a concept of the work.
PERSON_ROLES = frozenset("""
mathematician mathematicians logician logicians physicist physicists scientist scientists
biologist biologists chemist chemists economist economists philosopher philosophers
researcher researchers professor professors author authors pioneer pioneers inventor
""".split())

# Nouns that never head a multi-word concept: "research significance", "ongoing
# progress", "irrelevant ones", "embedding perspective", "model fusion techniques" is
# "model fusion" (the head adds nothing); nor do -s words that are the verb after a
# singular noun ("the algorithm works", "language plays", "text-video retrieval works").
GENERIC_HEADS = frozenset("""
ones one significance progress advances advance importance potential limitation limitations
drawback drawbacks advantage advantages benefit benefits trend trends perspective perspectives
direction directions success attempt attempts efforts effort way ways manner kind kinds sort
sorts lot lots aspect aspects regard respect view views insight insights gains fashion
performance performances outcome outcomes capabilities abilities detail details
version versions introduction introductions notion notions counterpart counterparts
decade decades works plays remains seems tends fails suffers deals
developments amount amounts interest merit picture
journal journals proceedings university universities institute academy publishers society
foundation
""".split()) | PERSON_ROLES - {"scientist", "researcher"}  # "AI scientist" is a system; the
# two lines above: where a work appeared or who funded it ("Royal Society")

# Nouns that say what kind of thing the words before them name: "OCR-2.0 model", "OCR
# systems", "federated learning framework", "molecular dynamics simulations" add nothing to
# "OCR-2.0", "federated learning" or "molecular dynamics" where the paper has that concept
# already (`keep.trusted`). As merge keys give them: singular.
KIND_NOUNS = frozenset("""
model system task method approach framework technique algorithm architecture modeling
paradigm pipeline strategy scheme setting problem dataset benchmark data research study project
tool solution simulation synthesis
""".split())

# Nouns that count something: "a logarithmic number of rounds", "an arbitrary amount of
# data" name a quantity of what follows "of", not a concept.
QUANTITY_NOUNS = frozenset("""
number numbers amount amounts variety multitude plethora handful majority fraction
proportion percentage portion lot lots couple dozens
""".split())


def _pos(word: str) -> frozenset[str]:
    from lemminflect import getAllLemmas

    return frozenset(getAllLemmas(word.lower()))


# The parts of speech lemminflect's lexicon knows for a word (empty if unknown): 0.1 ms a
# word, so kept from one build to the next (`paperkg.memo`)
pos: WordMemo[frozenset[str]] = WordMemo("pos", _pos, sorted, frozenset)  # type: ignore[arg-type]


def is_known_piece(text: str) -> bool:
    """Whether the lexicon knows `text`, asked without remembering the answer: for the
    pieces of a word tried as a split (`prior`), which are no words of any text and would
    fill the remembered answers."""
    return bool(_pos(text))


def is_verb_only(word: str) -> bool:
    """A word the lexicon knows only as a verb ("imposes", "degrade"; not "fail", a noun
    too)."""
    return pos(word) == {"VERB"}


def is_common_word(word: str) -> bool:
    """An English word the lexicon knows (not a coined name such as "Pangea")."""
    return bool(pos(word))


# counted by `bench/build_field_words.py` over the ICLR 2025 abstracts (counts, no text)
FIELD_WORDS = Path(__file__).parent / "build" / "data" / "field_words.json"


def is_field_word(word: str) -> bool:
    """A word the field writes in lower case that English's lexicon lacks ("autoencoders",
    "classifier", "peptide", "sparsification"): a common noun of the field, no name,
    whatever capitals a title gives it."""
    return word.lower() in _field_words()


@cache
def field_words_digest() -> str:
    """8 hex of the field's word list: answers cased by it are valid for it alone."""
    return hashlib.sha256(FIELD_WORDS.read_bytes()).hexdigest()[:8]


@cache
def _field_words() -> frozenset[str]:
    return frozenset(json.loads(FIELD_WORDS.read_text(encoding="utf-8"))["words"])


@cache
def is_verb_ing(word: str) -> bool:
    """A verb's -ing form, one word of letters ("learning", "quantizing"), not a word that
    only ends so ("string", "morning") nor a hyphenated modifier ("training-free"). A word
    the lexicon does not know is one if long enough ("backdooring", "demystifying")."""
    lemmas = _lemmas(word, "ing")
    if lemmas is None:
        return False
    return len(word) > 6 if not lemmas else _inflected(word, lemmas)


@cache
def is_verb_ed(word: str) -> bool:
    """A verb's -ed form, one lower-case word of letters ("inspired", "augmented"), not a
    word that only ends so ("speed", "bed"); the lexicon must know the verb."""
    lemmas = _lemmas(word, "ed")
    return lemmas is not None and _inflected(word, lemmas)


def _lemmas(word: str, ending: str) -> dict[str, tuple[str, ...]] | None:
    """lemminflect's lemmas of a lower-case word of letters with this ending; None for
    any other word."""
    if not (word.endswith(ending) and word.isalpha() and word.islower()):
        return None
    from lemminflect import getAllLemmas

    return dict(getAllLemmas(word))


def _inflected(word: str, lemmas: dict[str, tuple[str, ...]]) -> bool:
    """Whether the lexicon reads the word as a form of a verb other than itself."""
    verb = lemmas.get("VERB", ())
    return bool(verb) and verb[0] != word


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The English Snowball stem of a lower-case word ("adapters", "adaptation" → "adapt")."""
    return _stemmer().stemWord(word)


@cache
def _stemmer() -> Any:
    """snowballstemmer's English stemmer, run by PyStemmer's C code when that is installed
    (a dependency): the same stems (all 83,805 words of the ICLR 2025 texts compared), and
    no import of its 30 pure-Python languages (0.5 s of every `paperkg add`)."""
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@cache
def verb_forms(verb: str) -> frozenset[str]:
    """Every inflection of a verb ("propose" → proposes, proposed, proposing)."""
    from lemminflect import getAllInflections, getAllInflectionsOOV

    forms = getAllInflections(verb, upos="VERB") or getAllInflectionsOOV(verb, upos="VERB")
    return frozenset(f for fs in forms.values() for f in fs)


@lru_cache(maxsize=1 << 18)  # asked ~360k times of ~70k words by a full build's scheme
def is_acronym(word: str) -> bool:
    """Written as an abbreviation or a name that keeps its case: two or more capitals making
    up at least 30 % of its letters ("LLMs", "MoE", "GSM8K", "AQuA", "CLIP") or a capital
    and a digit ("Llama3"). An all-caps word of five or more letters that the lexicon knows
    ("INCREMENTAL", "SEARCH") is shouting, not an acronym, and a short hyphenated word of
    capitalised parts ("Try-On", "Add-On") is a title's casing."""
    if word.lower() == word:  # no capital at all: most words, answered at C speed
        return False
    if "-" in word and all(len(p) > 1 and p[0].isupper() and p[1:].islower()
                           for p in word.split("-")):
        return False
    letters = sum(c.isalpha() for c in word)
    upper = sum(c.isupper() for c in word)
    if word.isupper() and letters >= 5 and word.isalpha() and is_common_word(word):
        return False
    return (upper >= 2 and upper >= 0.3 * letters) or (
        word[:1].isupper() and any(c.isdigit() for c in word))


def is_shouted(words: list[str]) -> bool:
    """An all-caps phrase of common words ("DEEP LEARNING", "REPRESENTATION LEARNING"): a
    heading's spelling of a common term, not a name. Half of its words common, or one
    common word of five letters or more: a shouted title's "TURING-HOPF BIFURCATION"."""
    alpha = [w for w in words if any(c.isalpha() for c in w)]
    if len(alpha) < 2 or not all(w.isupper() for w in alpha):
        return False
    common = [w for w in alpha if is_common_word(w)]
    return 2 * len(common) >= len(alpha) or any(len(w) >= 5 for w in common)


_INVARIANT_S = (
    "ss", "us", "is", "ics", "ous", "ness", "ias", "sis", "xis", "sus", "ys", "series",
    "species", "-means",  # "k-means clustering", "fuzzy c-means": one method
)
_IRREGULAR = {"indices": "index", "matrices": "matrix", "vertices": "vertex", "data": "data",
              "analyses": "analysis", "hypotheses": "hypothesis", "criteria": "criterion",
              "phenomena": "phenomenon", "children": "child", "people": "person",
              "bases": "basis", "axes": "axis", "mice": "mouse", "lemmata": "lemma"}


@cache
def _is_own_singular(word: str) -> bool:
    """A noun that ends in "s" in the singular or has no singular ("lens", "chaos", "news",
    "odds"), as lemminflect's lexicon knows it: its only lemma ("representations" lists
    "representation" too, "means" "mean": plurals)."""
    from lemminflect import getAllLemmas

    return getAllLemmas(word).get("NOUN") == (word,)


def singular(word: str) -> str:
    """English plural to singular, lower-cased; conservative (an unsure word stays as is)."""
    lower = word.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if len(lower) <= 3 or not lower.endswith("s") or lower.endswith(_INVARIANT_S):
        return lower
    if _is_own_singular(lower):
        return lower
    if lower.endswith("ies") and len(lower) > 4:
        return lower[:-3] + "y"
    if lower.endswith(("sses", "shes", "ches", "xes", "zes")):
        return lower[:-2]
    return lower[:-1]


# Verbs whose forms split the build's candidate phrases; their -ing/-ed forms rarely head a
# concept. A base form that is also a common noun ("study", "design") does not split.
_PHRASE_VERBS = """
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
seek name term ignore handle fine-tune consist attract construct accord arise belong comprise
contribute encompass occur originate pertain reside resemble underpin go matter
""".split()
_AMBIGUOUS_BASE = frozenset("""
attempt benefit build combine design focus help lack limit measure need result share study
support use yield report hold lead aim apply name term go matter pose capture increase call
""".split())
# Their -s forms that head a compound noun as often as they are verbs: "ablation studies",
# "similarity measures", "error terms", "API calls", "hand poses", "motion captures". They
# end a phrase as its head where nothing follows them that a verb would take
# (`grammar.runs`); "the model captures the structure" keeps its verb.
PLURAL_HEADS = frozenset("studies measures terms calls poses captures designs".split())

_IRREGULAR_VERB_FORMS = frozenset("""
made found shown given taken held led kept lay lain became sought built proven drawn grown known
thought brought seen chosen called named dubbed termed
""".split())


@cache
def phrase_breaking_verbs() -> frozenset[str]:
    """The forms of `_PHRASE_VERBS` (lemminflect's, worked out on first use) that end a
    noun phrase: "methods improving", "factors leading"."""
    return frozenset({f for v in _PHRASE_VERBS for f in verb_forms(v) if f != v}
                     | {v for v in _PHRASE_VERBS if v not in _AMBIGUOUS_BASE}
                     | _IRREGULAR_VERB_FORMS)


@cache
def generic_modifier_forms() -> frozenset[str]:
    """The comparatives and superlatives of `GENERIC_MODIFIERS` (lemminflect's, worked out
    on first use): "stronger result", "simpler baselines", "larger corpora"."""
    from lemminflect import getAllInflections

    return frozenset(f for word in GENERIC_MODIFIERS
                     for tag, forms in getAllInflections(word, upos="ADJ").items()
                     if tag in ("JJR", "JJS") for f in forms) - GENERIC_MODIFIERS


def edit_distance_one(a: str, b: str) -> bool:
    """True when one insertion, deletion, substitution or adjacent swap turns a into b."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1:] == b[i + 1:] or (
            i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2:] == b[i + 2:])
    return a[i:] == b[i + 1:]
