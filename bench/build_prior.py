"""Write the packaged keyword prior: the ICLR 2025 corpus's keyword statistics.

    python bench/build_prior.py [--out src/paperkg/build/data/keyword_prior.json.gz]

Counts per term key only (papers listing it as a keyword, offering it as a candidate, and
both), never text. Learned from every paper with author keywords EXCEPT the keyword
benchmark's held-out sample (bench/keywords_eval.held_out: 1,000 papers, seed 2025), so
`bench/bench_keywords.py` can score the packaged default honestly. Rare keys are pruned:
keyword counts of keys at least two papers list, candidate counts of keys at least three
papers offer (a pruned key scores at the corpus base rate, as an unseen one does).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import CORPUS, held_out, load_corpus  # noqa: E402

from paperkg.build.ingest import read_papers  # noqa: E402
from paperkg.build.prior import PACKAGED_PRIOR, KeywordPrior, learn_prior  # noqa: E402
from paperkg.build.text import document_text  # noqa: E402


def prune(prior: KeywordPrior) -> KeywordPrior:
    keyword = Counter({k: n for k, n in prior.keyword.items() if n >= 2})
    candidate = Counter({k: n for k, n in prior.candidate.items() if n >= 3})
    both = Counter({k: n for k, n in prior.both.items() if k in candidate})
    return KeywordPrior(keyword, candidate, both, prior.papers)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=PACKAGED_PRIOR)
    args = ap.parse_args()
    skip = {r.id for r in held_out(load_corpus())}
    papers = [p for p in read_papers([CORPUS]).papers if p.keywords and p.id not in skip]
    t = time.perf_counter()
    prior = prune(learn_prior(papers, document_text))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    prior.save(args.out)
    print(f"{prior.papers} papers, {len(prior.keyword)} keyword keys, {len(prior.candidate)} "
          f"candidate keys, {args.out.stat().st_size:,} bytes, {time.perf_counter() - t:.0f} s")


if __name__ == "__main__":
    main()
