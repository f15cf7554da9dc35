"""Write the packaged list of the field's lower-case words that English's lexicon lacks.

    python bench/build_field_words.py [--out src/paperkg/build/data/field_words.json]

A label cased as prose keeps the capital of a word that may be a name: one lemminflect's
lexicon does not know, written with a capital where no sentence starts. Without more,
the field's own nouns look like names: a title's "Sparse Autoencoders", "Deep Classifier"
or "Active Preference Elicitation" became "sparse Autoencoders", "deep Classifier",
"active preference Elicitation". Counted over the ICLR 2025 abstracts (the keyword
benchmark's held-out papers left out, as for the keyword prior): for each word of letters
(and each part of a hyphenated word) not at a sentence's start, how often it is written in
lower case and how often capitalised on its own (no capitalised word beside it, no
definition after it: "Sparse Autoencoders (SAEs)" is capitalised by convention). A word
the lexicon lacks, written in lower case at least MIN_LOWER times and at least RATIO times
as often as capitalised alone, is a common word of the field ("autoencoders" 84 : 2,
"classifier" 267 : 2); names are not ("Langevin" 0 : 25, "Mamba" 6 : 223). Counts per word
only, never text.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import fitting_records, write_word_counts  # noqa: E402

from paperkg.build.text import clean_text  # noqa: E402
from paperkg.lexicon import FIELD_WORDS, is_common_word  # noqa: E402

MIN_LOWER, RATIO = 3, 2
_SENTENCES = re.compile(r"(?<=[.!?:;])\s+")
_WORD = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z-]*[a-z](?![\w-])")


def count(abstracts: list[str]) -> tuple[Counter[str], Counter[str]]:
    """(lower-case uses, capitalised-alone uses) per lower-case word."""
    lower: Counter[str] = Counter()
    capital: Counter[str] = Counter()
    for abstract in abstracts:
        for sentence in _SENTENCES.split(clean_text(abstract)):
            found = list(_WORD.finditer(sentence))
            for k, m in enumerate(found[1:], start=1):
                before = found[k - 1].group(0)
                after = found[k + 1].group(0) if k + 1 < len(found) else ""
                titled = before[:1].isupper() or after[:1].isupper() or sentence[
                    m.end():m.end() + 3].lstrip().startswith("(")
                for part in m.group(0).split("-"):
                    if len(part) < 3 or not part.isalpha():
                        continue
                    if part.islower():
                        lower[part] += 1
                    elif part[0].isupper() and part[1:].islower() and not titled:
                        capital[part.lower()] += 1
    return lower, capital


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=FIELD_WORDS)
    args = ap.parse_args()
    began = time.perf_counter()
    used = [r.abstract for r in fitting_records()]
    print(f"counting the words of {len(used)} abstracts …", flush=True)
    lower, capital = count(used)
    words = {w: [n, capital[w]] for w, n in lower.items()
             if n >= MIN_LOWER and n >= RATIO * capital[w] and not is_common_word(w)}
    write_word_counts(args.out, "words", words,
                      f"not in lemminflect's lexicon; lower case >= {MIN_LOWER} and >= "
                      f"{RATIO} x capitalised alone, in {len(used)} ICLR 2025 abstracts",
                      "word: [lower case, capitalised alone]")
    print(f"{len(words)} field words ({', '.join(sorted(words)[:8])} …) written to "
          f"{args.out} in {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
