"""Related papers: do the top 10 share an author keyword with the query paper?

    python bench/bench_related.py [--n 300] [--work /tmp/pkg-bench] [--embedder static]

A fixed random sample of accepted papers (oral/spotlight/poster) with author keywords
(seed 2025) are the queries. The KG is built from the whole corpus with the sampled papers'
keywords removed, so the keyword prior never sees what is being measured. Every system
ranks the same pool: the other papers with author keywords. Reported: the share of top-10
results that have at least one Porter-stemmed author keyword in common with the query,
for paperkg's related (shared canonical concepts weighted by rarity; and blended with
abstract similarity), TF-IDF cosine of the abstracts, and MiniLM abstract neighbours.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import Record, baseline_text, load_corpus, stem_phrase  # noqa: E402

ACCEPTED = {"oral", "spotlight", "poster"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--work", type=Path, default=Path("/tmp/pkg-bench"))
    ap.add_argument("--embedder", default="static", help="the KG build's embedder")
    ap.add_argument("--minilm-cache", type=Path, default=None,
                    help="embedding cache dir for the MiniLM baseline (default WORK/cache)")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)

    records = load_corpus()
    pool_ids = [r.id for r in records if r.keywords]
    accepted = sorted((r for r in records if r.keywords and r.decision in ACCEPTED),
                      key=lambda r: r.id)
    queries = random.Random(2025).sample(accepted, args.n)
    hidden = {r.id for r in queries}
    kg = _build(records, hidden, args)

    gold = {r.id: {stem_phrase(k) for k in r.keywords} for r in records if r.keywords}
    pool = set(pool_ids)
    systems: dict[str, dict[str, list[str]]] = {}

    from paperkg.read.kg import open_kg

    index = open_kg(kg).reader("memory")
    for blend in (0.0, 0.3, 0.5):
        name = "paperkg related" + (f" (blend {blend})" if blend else "")
        systems[name] = {q.id: [r.paper_id for r in index.related(q.id, 200, blend)
                                if r.paper_id in pool][: args.k] for q in queries}

    texts = {r.id: baseline_text(r) for r in records}
    systems["TF-IDF cosine"] = _tfidf(texts, queries, pool_ids, args.k)
    systems["MiniLM neighbours"] = _minilm(texts, queries, pool_ids, args.k,
                                           args.minilm_cache or args.work / "cache")

    print(f"\n{args.n} accepted query papers; share of top-{args.k} results sharing >= 1 "
          "stemmed author keyword with the query (pool: papers with keywords)")
    table = {}
    for name, ranked in systems.items():
        hits = [sum(1 for o in ranked[q.id] if gold[o] & gold[q.id]) / args.k for q in queries]
        table[name] = 100 * float(np.mean(hits))
        print(f"{name:28s} {table[name]:6.1f} %")
    (args.work / f"bench_related-{args.n}.json").write_text(json.dumps(table, indent=2))


def _build(records: list[Record], hidden: set[str], args: argparse.Namespace) -> Path:
    corpus = args.work / f"corpus-without-{args.n}-query-keywords.jsonl.gz"
    with gzip.open(corpus, "wt", encoding="utf-8") as fh:
        for r in records:
            row = {"id": r.id, "title": r.title, "abstract": r.abstract,
                   "keywords": [] if r.id in hidden else list(r.keywords)}
            fh.write(json.dumps(row) + "\n")
    kg = args.work / f"kg-related-{args.embedder}"
    t = time.perf_counter()
    subprocess.run(["paperkg", "build", str(corpus), "--out", str(kg), "--embedder",
                    args.embedder, "--cache-dir", str(args.work / "cache")], check=True)
    print(f"KG built in {time.perf_counter() - t:.0f} s")
    return kg


def _tfidf(texts: dict[str, str], queries: list[Record], pool: list[str],
           k: int) -> dict[str, list[str]]:
    from sklearn.feature_extraction.text import TfidfVectorizer

    ids = list(texts)
    row = {pid: i for i, pid in enumerate(ids)}
    m = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=2).fit_transform(
        [texts[i] for i in ids])
    pool_rows = np.array([row[p] for p in pool])
    out = {}
    for q in queries:
        sims = (m[pool_rows] @ m[row[q.id]].T).toarray().ravel()
        out[q.id] = _top(sims, pool, q.id, k)
    return out


def _minilm(texts: dict[str, str], queries: list[Record], pool: list[str], k: int,
            cache: Path) -> dict[str, list[str]]:
    from keywords_eval import CORPUS

    from paperkg.build.embed import make_embedder
    from paperkg.build.ingest import read_papers
    from paperkg.build.text import document_text

    papers = {p.id: p for p in read_papers([CORPUS]).papers}
    vecs = make_embedder("onnx", cache).encode([document_text(papers[p]) for p in pool])
    row = {pid: i for i, pid in enumerate(pool)}
    return {q.id: _top(vecs @ vecs[row[q.id]], pool, q.id, k) for q in queries}


def _top(sims: np.ndarray, pool: list[str], own: str, k: int) -> list[str]:
    order = np.argsort(-sims, kind="stable")
    return [pool[i] for i in order if pool[i] != own][:k]


if __name__ == "__main__":
    main()
