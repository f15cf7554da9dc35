"""Keys that name one term though they differ: spacing, case of a coined name, a head
noun after a name, a typo. Each rule returns key → (target key, why), so the merge is
recorded with its reason; none ever merges across two acronyms that differ.

- spacing: "multi modal" / "multimodal" (the key most used wins);
- case of a name: "PANGEA" / "Pangea" — an all-caps and a capitalised spelling of a word
  the lexicon does not know is one name ("CLIP" / "clips", "MATH" / "math" stay apart:
  the lexicon knows "clip" and "math"); so are a name's spellings with and without a
  hyphen ("CIFAR-10" / "CIFAR10", "MT-Bench" / "MTBench");
- head noun: "GSM8K dataset" / "GSM8K", "CIFAR-100 datasets" / "CIFAR-100": a name
  (starting with an acronym, and not a short form some paper defines: "QA dataset" is not
  "QA") followed by dataset/benchmark/corpus/suite, when the bare name is a concept;
- typo: "languange model" / "language model": one word, eight letters or more, unknown to
  the lexicon and used at most MAX_TYPO_USES times in the corpus, one edit away (inside
  the word, not at its ends) from a known word in an otherwise equal key that is used at
  least as often ("perceptron" is no typo of "perception": papers keep writing it).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Mapping
from functools import cache
from typing import Any

from paperkg.lexicon import edit_distance_one, is_acronym, is_common_word

__all__ = ["HEAD_NOUNS", "compact", "variant_targets"]

HEAD_NOUNS = frozenset("dataset benchmark corpus suite".split())
MAX_TYPO_USES = 2  # a misspelling is rare: more uses than this make a word a term


def compact(key: str) -> str:
    """A key without spaces: "multi modal" and "multimodal" are one term."""
    return key.replace(" ", "")


# every key of the corpus is folded at every update (0.3 s of each): a resident process
# (`paperkg add --watch`) folds each once; not saved (`paperkg.memo`): reading and writing
# 65k more answers took as long as folding them
@cache
def _name_fold(key: str) -> str:
    """Spacing removed, and a name lower-cased: a single word the lexicon does not know,
    or several words run together whose first is no lower-case English word and whose
    capitals make no English word ("CIFAR 10" of "CIFAR-10" is "CIFAR10", "MT bench" is
    "MTBench", "MLLM evaluation" a shouted "MLLM EVALUATION"; "route LLMs" is not
    "RouteLLM", "MATH dataset" not "math dataset")."""
    c = compact(key)
    words = key.split()
    if len(words) == 1:
        return c.lower() if not is_common_word(key) else c
    if words[0].islower() and is_common_word(words[0]) or any(
            not w.islower() and is_common_word(w.lower()) for w in words):
        return c
    return c.lower()


def variant_targets(
    used: Mapping[str, int], short_forms: Collection[str] = (),
    capitalised: Collection[str] = (),
) -> dict[str, tuple[str, str]]:
    """key → (target key, reason) for every key that is a variant of another; `used`
    counts each key's uses; `short_forms` are keys some paper defines as an abbreviation
    (a task or field such as "QA" or "EEG": "QA dataset" is not "QA"); `capitalised` are
    keys never written in lower case (names such as "ResFormer", "Sparling": never a
    typo). Targets are final (no chains)."""
    out: dict[str, tuple[str, str]] = {}
    best: dict[str, str] = {}
    fold = {key: _name_fold(key) for key in used}
    for key in sorted(used, key=lambda k: (-used[k], k)):
        best.setdefault(fold[key], key)
    for key in used:
        target = best[fold[key]]
        if target != key:
            why = ("spacing" if compact(key) == compact(target) else "case")
            out[key] = (target, f"the same term up to {why}")
    for key, (target, why) in _head_nouns(used, frozenset(short_forms), best).items():
        out.setdefault(key, (target, why))
    for key, (target, why) in _typos(used, frozenset(capitalised)).items():
        out.setdefault(key, (target, why))
    return {key: _final(key, out) for key in out}


def _final(key: str, out: Mapping[str, tuple[str, str]]) -> tuple[str, str]:
    """The end of a chain of targets, with the reason that says most: "CIFAR100 dataset"
    is "CIFAR-100 dataset" by its spacing, which is "CIFAR-100" by its head noun."""
    target, why = out[key]
    seen = {key, target}
    while target in out and out[target][0] not in seen:
        target, reason = out[target]
        seen.add(target)
        if why.startswith("the same term"):
            why = reason
    return target, why


def _head_nouns(used: Mapping[str, int], short_forms: frozenset[str],
                best: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """A name followed by its head noun is the name, found as spelled or by its spacing
    (`best`: the most used key of each name fold): "GSM-8K benchmark" is "GSM8K"."""
    out: dict[str, tuple[str, str]] = {}
    for key in used:
        words = key.split()
        if len(words) < 2 or words[-1] not in HEAD_NOUNS or not is_acronym(words[0]):
            continue
        name = " ".join(words[:-1])
        target = name if name in used else best.get(_name_fold(name))
        if target is not None and name not in short_forms and target not in short_forms:
            out[key] = (target, f"a name followed by its head noun {words[-1]!r}")
    return out


def _interior_edit(a: str, b: str) -> bool:
    """One edit, at least two letters from either end of the word: "languange" /
    "language", but not a changed ending ("updater" / "updates", "complexify" /
    "complexity") or a clipped start ("odeling", "iTransformer")."""
    if not edit_distance_one(a, b):
        return False
    head = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)))
    tail = next((i for i, (x, y) in enumerate(zip(a[::-1], b[::-1], strict=False)) if x != y),
                min(len(a), len(b)))
    return head >= 2 and tail >= 2


def _typos(used: Mapping[str, int], capitalised: frozenset[str],
           ) -> dict[str, tuple[str, str]]:
    """Rare unknown words first, then only the keys that could be their right spelling
    (the same other words, a common word in their place): indexing every word of every
    key took a second of each update."""
    split = {key: key.split() for key in used}
    unknown = {w for w in {w for ws in split.values() for w in ws}
               if len(w) >= 8 and w.isalpha() and w.islower() and not is_common_word(w)}
    word_uses: Counter[str] = Counter()
    for key, words in split.items():
        if not unknown.isdisjoint(words):
            for w in unknown.intersection(words):
                word_uses[w] += used[key]
    # a word several papers write is a term ("perceptron", "adaption"), not a typo
    rare = {w for w in unknown if word_uses[w] <= MAX_TYPO_USES}
    typos = [(key, words) for key, words in split.items()
             if key not in capitalised and not rare.isdisjoint(words)]
    wanted = {_pattern(words, i) for _, words in typos
              for i, w in enumerate(words) if w in rare}
    places = {(p[0], p[1]) for p in wanted}
    by_pattern: dict[tuple[Any, ...], list[str]] = defaultdict(list)
    for key, words in split.items():
        for i, w in enumerate(words):
            if (len(words), i) in places and len(w) >= 6 and w.isalpha() and w.islower():
                pattern = _pattern(words, i)
                if pattern in wanted and is_common_word(w):
                    by_pattern[pattern].append(key)
    out: dict[str, tuple[str, str]] = {}
    for key, words in typos:
        for i, w in enumerate(words):
            if w not in rare:
                continue
            matches = [other for other in by_pattern.get(_pattern(words, i), ())
                       if _interior_edit(w, split[other][i]) and used[other] >= used[key]]
            if len(matches) == 1:  # one known word one edit away: a typo of it
                other = matches[0]
                out[key] = (other, f"{w!r} is a misspelling of {split[other][i]!r} "
                                   "(one edit away, not an English word)")
                break
    return out


def _pattern(words: list[str], i: int) -> tuple[Any, ...]:
    """A key with its i-th word left open but for its ends, which an interior edit keeps
    (`_interior_edit`): (word count, i, the word's first and last two letters, the other
    words). With the ends, a one-word key is compared with a few others, not with every
    common word of six letters or more (251k edit-distance tests over the keys of the full
    ICLR KG's labels)."""
    w = words[i]
    return (len(words), i, w[:2], w[-2:], *words[:i], *words[i + 1:])
