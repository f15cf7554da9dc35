"""Write the packaged list of noun/verb homographs that are verbs after "to".

    python bench/build_verbs.py [--out src/paperkg/build/data/verbs_after_to.json]

Without a POS tagger (none ships offline) "to train Megatron-Turing NLG" and "How to fool
radiologists" gave the candidates "train Megatron-Turing NLG" and "fool radiologists":
"train" and "fool" are nouns too. Counted over the ICLR 2025 abstracts (the keyword
benchmark's held-out papers left out, as for the keyword prior): how often each word the
lexicon lists as both NOUN and VERB (not ADJ), in its base form, follows "to" and how often
a determiner ("the", "a", "our"…) or "of" (a noun that takes no article: "related to
suicide", "risk of suicide"). Every word written after "to" at least MIN_TO times and at
least as often as after those is listed with both counts; the grammar reads them
(`grammar._splits`): three times as often or more, a verb there ("train" 392 : 12);
less, a verb only where no noun follows it ("to answer queries", "to help students", but
"to support vector machines"); a word seen mostly after a determiner is listed only when
at least a quarter of its uses after "to" go on with a determiner or pronoun, its object
("to model the dynamics", "to use their tools"): there a phrase it opens right after "to"
is read as a verb and its object unless the field knows the phrase ("to use clickthrough
logs", but "applied to model compression"; `text.Candidate.verb_led`). "image" and
"time" never take an object after "to". A third count says how often. Counts per word
only, never text.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import fitting_records, write_word_counts  # noqa: E402

from paperkg.build.afterto import VERBS_AFTER_TO  # noqa: E402
from paperkg.build.text import clean_text, tokens  # noqa: E402
from paperkg.lexicon import pos  # noqa: E402

MIN_TO, RATIO = 8, 1  # the grammar reads the ratio: >= 3 a verb there, else by what follows
OBJECT_SHARE = 0.25  # after "to", this share of uses followed by an object: verb-led there
_DETERMINERS = frozenset("the a an this these that those its their our his her each every any "
                         "some no".split())
_OBJECTS = _DETERMINERS | {"it", "them"}


def main() -> None:
    from lemminflect import getLemma

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=VERBS_AFTER_TO)
    args = ap.parse_args()
    t = time.perf_counter()
    records = fitting_records()
    after_to: Counter[str] = Counter()
    after_det: Counter[str] = Counter()  # and after "of": a noun without determiner
    objects: Counter[str] = Counter()  # after "to", then a determiner or pronoun
    for r in records:
        toks = [w.lower() for w in tokens(clean_text(r.abstract))]
        for i, (prev, word) in enumerate(zip(toks, toks[1:], strict=False)):
            if prev == "to":
                after_to[word] += 1
                objects[word] += i + 2 < len(toks) and toks[i + 2] in _OBJECTS
            elif prev in _DETERMINERS or prev == "of":
                after_det[word] += 1
    verbs = {}
    for word, n in after_to.items():
        tags = pos(word)
        if ("NOUN" in tags and "VERB" in tags and "ADJ" not in tags
                and word in getLemma(word, upos="VERB") and n >= MIN_TO
                and (n >= RATIO * after_det[word] or objects[word] >= OBJECT_SHARE * n)):
            verbs[word] = [n, after_det[word], objects[word]]
    write_word_counts(args.out, "verbs", verbs,
                      f"after 'to' >= {MIN_TO}, and >= {RATIO} x after a determiner or 'of' "
                      f"or followed by a determiner or pronoun in >= {OBJECT_SHARE:.0%} of "
                      f"those, in {len(records)} ICLR 2025 abstracts",
                      "word: [after 'to', after a determiner or 'of', after 'to' and before "
                      "a determiner or pronoun]")
    print(f"{len(verbs)} verbs after 'to' ({', '.join(sorted(verbs)[:8])} …) written to "
          f"{args.out} in {time.perf_counter() - t:.0f} s")


if __name__ == "__main__":
    main()
