"""Fit the extractor's ranking weights on papers OUTSIDE the keyword benchmark's sample.

    python bench/fit_ranker.py [--dev 600] [--work /tmp/pkg-bench]

The keyword prior is learned from every paper with author keywords except the benchmark
sample (bench/keywords_eval.sample); the dev papers are a random subset of those, scored
with their own keywords left out of the prior. Labels: a candidate is positive when its
Porter-stemmed form equals one of the paper's stemmed author keywords. Prints the
logistic-regression weights to paste into paperkg.build.extract, and dev F1 for a few MMR
diversities.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import CORPUS, load_corpus, mean_prf, sample, stem_phrase  # noqa: E402

from paperkg.build.embed import make_embedder  # noqa: E402
from paperkg.build.extract import (  # noqa: E402
    FEATURES,
    CorpusShare,
    ExtractSettings,
    candidate_features,
    document_text,
    select,
)
from paperkg.build.ingest import read_papers  # noqa: E402
from paperkg.build.prior import KeywordPrior, learn_prior  # noqa: E402
from paperkg.build.text import candidates  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dev", type=int, default=600)
    ap.add_argument("--work", type=Path, default=Path("/tmp/pkg-bench"))
    ap.add_argument("--embedder", default="onnx")
    ap.add_argument("--no-prior", action="store_true",
                    help="fit the weights used when the corpus has no author keywords")
    args = ap.parse_args()

    held_out = {r.id for r in sample(load_corpus(), 1000)}
    papers = [p for p in read_papers([CORPUS]).papers if p.keywords and p.id not in held_out]
    saved = args.work / "prior-train.json.gz"
    prior: KeywordPrior | None = None
    if args.no_prior:
        pass
    elif saved.is_file():
        prior = KeywordPrior.load(saved)
    else:
        t = time.time()
        prior = learn_prior(papers, document_text)
        print(f"prior from {prior.papers} papers in {time.time() - t:.0f} s; "
              f"{len(prior.keyword)} keyword terms")
        prior.save(saved)
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
    name = "NO_PRIOR" if args.no_prior else "DEFAULT"
    print(f"{name}_WEIGHTS = {weights}\n{name}_BIAS = {bias}")
    settings = ExtractSettings(weights=weights, bias=bias)
    w = np.asarray(weights)
    records = {r.id: r for r in load_corpus()}
    for diversity in (0.0, 0.1, 0.2, 0.3, 0.5):
        preds = {}
        for p, cs, vecs, vec, x in per_doc:
            picked = select(x, w, bias, vecs, vec, 10, diversity, settings.nr_candidates)
            preds[p.id] = [cs[i].text for i, _ in picked]
        dev_recs = [records[p.id] for p, *_ in per_doc]
        print(f"diversity {diversity}: dev", mean_prf(preds, dev_recs, 5),
              mean_prf(preds, dev_recs, 10))


if __name__ == "__main__":
    main()
