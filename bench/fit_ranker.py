"""Fit the extractor's ranking weights on papers OUTSIDE the keyword benchmark's sample.

    python bench/fit_ranker.py [--dev 600] [--embedder onnx|static] [--no-prior] [--write]

The keyword prior is the packaged one (bench/build_prior.py: every paper with author
keywords except the benchmark's held-out papers, bench/keywords_eval.held_out); the dev
papers are a random subset of the papers outside the held-out set, scored with their own
keywords left out of the prior. Labels: a candidate is positive when its Porter-stemmed
form equals one of the paper's stemmed author keywords. Prints the logistic-regression
weights and dev F1 for a few MMR diversities; `--write` stores the weights for the
embedder's family in paperkg/build/data/ranker.json (the ranker is fitted per embedder:
the static model's cosines are distributed differently from MiniLM's).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import CORPUS, held_out, load_corpus, mean_prf, stem_phrase  # noqa: E402

from paperkg.build.embed import make_embedder  # noqa: E402
from paperkg.build.extract import (  # noqa: E402
    FEATURES,
    RANKER,
    CorpusShare,
    ExtractSettings,
    candidate_features,
    document_text,
)
from paperkg.build.ingest import read_papers  # noqa: E402
from paperkg.build.prior import KeywordPrior, packaged_prior  # noqa: E402
from paperkg.build.select import select  # noqa: E402
from paperkg.build.terms import term_key  # noqa: E402
from paperkg.build.text import candidates  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dev", type=int, default=600)
    ap.add_argument("--work", type=Path, default=Path("/tmp/pkg-bench"))
    ap.add_argument("--embedder", default="onnx")
    ap.add_argument("--no-prior", action="store_true",
                    help="fit the weights used when the corpus has no author keywords")
    ap.add_argument("--write", action="store_true", help="store the weights in ranker.json")
    args = ap.parse_args()

    skip = {r.id for r in held_out(load_corpus())}
    papers = [p for p in read_papers([CORPUS]).papers if p.keywords and p.id not in skip]
    prior: KeywordPrior | None = None if args.no_prior else packaged_prior()
    dev = random.Random(7).sample(papers, args.dev)
    known = prior.known() if prior else None
    docs = [document_text(p) for p in dev]
    cands = [candidates(d, 4, known) for d in docs]
    embedder = make_embedder(args.embedder, args.work / "cache")
    vocab = sorted({c.text.lower() for cs in cands for c in cs})
    row = {v: i for i, v in enumerate(vocab)}
    pv = embedder.encode(vocab)
    dv = embedder.encode(docs)
    share = CorpusShare(cands)
    xs, ys, per_doc = [], [], []
    for p, d, vec, cs in zip(dev, docs, dv, cands, strict=True):
        if not cs:
            continue
        vecs = pv[[row[c.text.lower()] for c in cs]]
        x = candidate_features(p, d, cs, vecs @ vec, prior, share)
        gold = {stem_phrase(k) for k in p.keywords}
        y = np.array([stem_phrase(c.text) in gold for c in cs], dtype=int)
        xs.append(x)
        ys.append(y)
        per_doc.append((p, cs, vecs, vec, x))
    from sklearn.linear_model import LogisticRegression

    lr = LogisticRegression(C=1.0, max_iter=2000).fit(np.vstack(xs), np.concatenate(ys))
    weights = tuple(round(float(w), 3) for w in lr.coef_[0])
    bias = round(float(lr.intercept_[0]), 3)
    print("weights:", dict(zip(FEATURES, weights, strict=True)), "bias:", bias)
    family = "static" if "static" in embedder.name else "minilm"
    if args.write:
        table = json.loads(RANKER.read_text(encoding="utf-8"))
        table[family]["no_prior" if args.no_prior else "prior"] = {
            "weights": list(weights), "bias": bias, "dev_papers": args.dev}
        RANKER.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
        print(f"written to {RANKER} ({family})")
    settings = ExtractSettings(weights=weights, bias=bias)
    w = np.asarray(weights)
    records = {r.id: r for r in load_corpus()}
    for diversity in (0.0, 0.1, 0.2, 0.3, 0.5):
        preds = {}
        for p, cs, vecs, vec, x in per_doc:
            picked = select(x, w, bias, vecs, vec, 10, diversity, settings.nr_candidates,
                            [term_key(c.text) for c in cs])
            preds[p.id] = [cs[i].text for i, _ in picked]
        dev_recs = [records[p.id] for p, *_ in per_doc]
        print(f"diversity {diversity}: dev", mean_prf(preds, dev_recs, 5),
              mean_prf(preds, dev_recs, 10))


if __name__ == "__main__":
    main()
