"""Write the packaged short forms: which long form ICLR 2025 papers define each acronym as.

    python bench/build_short_forms.py [--out src/paperkg/build/data/short_forms.json]

Statistics, no text: for every acronym that at least MIN_PAPERS papers define (outside
the keyword benchmark's held-out sample), the term key of the long form most of them give,
kept when at least SHARE of the definitions agree ("NLP" → "natural language processing";
"CL", defined as continual, contrastive and curriculum learning, is left out). The keyword
statistics then judge an undefined "NLP" by its long form (`prior.KeywordPrior.passing_term`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import CORPUS, held_out, load_corpus  # noqa: E402

from paperkg.build.ingest import read_papers  # noqa: E402
from paperkg.build.prior import SHORT_FORMS  # noqa: E402
from paperkg.build.terms import abbreviations, term_key  # noqa: E402
from paperkg.build.text import document_text  # noqa: E402

MIN_PAPERS = 3
SHARE = 0.75


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=SHORT_FORMS)
    args = ap.parse_args()
    skip = {r.id for r in held_out(load_corpus())}
    longs: dict[str, Counter[str]] = defaultdict(Counter)
    papers = [p for p in read_papers([CORPUS]).papers if p.id not in skip]
    for p in papers:
        defined = {(term_key(a.short), term_key(a.long)) for a in abbreviations(document_text(p))}
        for short, long in defined:
            longs[short][long] += 1
    table = {}
    for short, counts in sorted(longs.items()):
        (long, n), total = counts.most_common(1)[0], sum(counts.values())
        if total >= MIN_PAPERS and n >= SHARE * total and short and long:
            table[short] = long
    args.out.write_text(json.dumps({"about": __doc__.split("\n")[0], "papers": len(papers),
                                    "short_forms": table}, indent=0, sort_keys=True) + "\n",
                        encoding="utf-8")
    print(f"{len(table)} short forms from {len(papers)} papers, {args.out.stat().st_size:,} "
          f"bytes: {args.out}")


if __name__ == "__main__":
    main()
