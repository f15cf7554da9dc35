"""After "to": which noun/verb homographs are the verb there ("used to train
Megatron-Turing NLG", "to answer queries", "to use clickthrough logs"), from how often the
field writes each after "to", after a determiner, and with an object after "to" (counted in
the ICLR 2025 abstracts by `bench/build_verbs.py`; counts per word, no text)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from paperkg.build.wordclass import ADJ_SUFFIX, adverb, is_word
from paperkg.lexicon import is_acronym, is_verb_ed, singular
from paperkg.lexicon import pos as word_pos

__all__ = ["VERBS_AFTER_TO", "verb_after_to", "verbs_taking_objects"]

VERBS_AFTER_TO = Path(__file__).parent / "data" / "verbs_after_to.json"


@cache
def _counts() -> dict[str, list[int]]:
    """Per word: [after "to", after a determiner or "of", after "to" and before an object]."""
    counts: dict[str, list[int]] = json.loads(VERBS_AFTER_TO.read_text(encoding="utf-8"))["verbs"]
    return counts


@cache
def _verbs_after_to() -> tuple[frozenset[str], frozenset[str]]:
    """(the homographs the field writes as verbs after "to" three times as often as after
    a determiner, those it writes so only as often or more): `bench/build_verbs.py`."""
    counts = _counts()
    strong = frozenset(w for w, (to, det, _) in counts.items() if to >= 3 * det)
    return strong, frozenset(w for w, (to, det, _) in counts.items() if to >= det) - strong


@cache
def verbs_taking_objects() -> frozenset[str]:
    """The homographs that, after "to", go on with an object often enough (a quarter of
    their uses there: "to model the dynamics", "to use their tools") that a phrase they open
    right after "to" is a verb and its object unless the field knows it as a term
    (`text.Candidate.verb_led`): "to use clickthrough logs", "to study user behavior"; but
    "applied to model compression". `bench/build_verbs.py`."""
    return frozenset(w for w, (to, _, objects) in _counts().items() if 4 * objects >= to)


def verb_after_to(toks: list[str], idx: int, low: str) -> bool:
    """A homograph after "to" that is the verb: always for the strong ones ("to train
    Megatron-Turing NLG"), for the others where no noun follows to make it a modifier:
    "to answer queries", "to help students", "to map discriminative models", "to support
    CLIP"; "to support vector machines" stays."""
    strong, weak = _verbs_after_to()
    if low not in strong and low not in weak or not _after_to(toks, idx):
        return False
    nxt = toks[idx + 1] if idx + 1 < len(toks) else ""
    if low in strong or not nxt or not is_word(nxt):
        return low in strong
    low_next, tags = nxt.lower(), word_pos(nxt.lower())
    plural = low_next.endswith("s") and singular(low_next) != low_next  # no verb after a verb
    adjective = "NOUN" not in tags and ("ADJ" in tags or ADJ_SUFFIX.search(low_next) is not None)
    return plural or adjective or is_acronym(nxt) and nxt[:1].isupper() or is_verb_ed(low_next)


_ADVERBS_AFTER_TO = frozenset({"better", "further"})  # "to better capture", "to further improve"


def _after_to(toks: list[str], idx: int) -> bool:
    """Right after "to", or after "to" and an adverb ("to accurately estimate", "to better
    capture")."""
    prev = toks[idx - 1].lower() if idx else ""
    return prev == "to" or (idx > 1 and (adverb(prev) or prev in _ADVERBS_AFTER_TO)
                            and toks[idx - 2].lower() == "to")
