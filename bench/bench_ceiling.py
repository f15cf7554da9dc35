"""How far any ranking of a paper's phrases can go against author keywords (issue #14).

    python bench/bench_ceiling.py [--n 200]

F1@10 against author keywords counts the keywords found among ten picks. Whatever ranks
the phrases, it can only find keywords that are among them, so an oracle that puts every
phrase matching a keyword first gives the ceiling of a phrase set. On the keyword
benchmark's papers (the first n of bench/keywords_eval.held_out; only their text is read,
their keywords only to score, as bench_keywords.py does), with the packaged statistics:

- paperkg's candidates after its filters (what its ranker chooses from, `extract.rankable`:
  no generic single word, no tail used only inside a longer term, no verb and object);
- all of paperkg's candidates (before those filters);
- every run of 1-4 words of the text (any extractive method's ceiling).

Against these, `bench_keywords.py` gives what the ranking achieves.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import Record, held_out, load_corpus, mean_prf, stem_phrase  # noqa: E402

from paperkg.build.extract import rankable  # noqa: E402
from paperkg.build.ingest import Paper, make_paper  # noqa: E402
from paperkg.build.prior import packaged_prior  # noqa: E402
from paperkg.build.text import MAX_WORDS, candidates, document_text  # noqa: E402


def oracle(records: Sequence[Record], phrases: Callable[[Paper], list[str]],
           k: int = 10) -> dict[str, float]:
    """Mean P/R/F1@k when the phrases that match a keyword are ranked first."""
    preds: dict[str, list[str]] = {}
    for r in records:
        paper = make_paper(id=r.id, abstract=r.abstract, title=r.title, location="bench:0",
                           fmt="jsonl")
        gold = {stem_phrase(kw) for kw in r.keywords}
        found = phrases(paper)
        preds[r.id] = ([p for p in found if stem_phrase(p) in gold]
                       + [p for p in found if stem_phrase(p) not in gold])
    return mean_prf(preds, records, k)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200)
    args = ap.parse_args()
    records = held_out(load_corpus())[:args.n]
    prior = packaged_prior()
    known = prior.known()

    def all_candidates(p: Paper) -> list[str]:
        return [c.text for c in candidates(document_text(p), MAX_WORDS, known)]

    def filtered(p: Paper) -> list[str]:
        # what `extract.extract_concepts` ranks with keyword statistics
        return [c.text for c in candidates(document_text(p), MAX_WORDS, known)
                if rankable(c, prior, known)]

    def ngrams(p: Paper) -> list[str]:
        words = re.findall(r"[A-Za-z0-9]+", document_text(p))
        return [" ".join(words[i:i + n]) for n in range(1, 5)
                for i in range(len(words) - n + 1)]

    print(f"{len(records)} papers, {sum(len(r.keywords) for r in records)} author keywords;"
          " oracle ranking of each phrase set (P/R/F1@10, %):")
    for name, phrases in (("paperkg's candidates, filtered", filtered),
                          ("paperkg's candidates, all", all_candidates),
                          ("every 1-4 word run of the text", ngrams)):
        row = oracle(records, phrases)
        print(f"  {name:32s} P@10 {row['P@10']:5.1f}  R@10 {row['R@10']:5.1f}  "
              f"F1@10 {row['F1@10']:5.1f}", flush=True)


if __name__ == "__main__":
    main()
