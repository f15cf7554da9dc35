"""How close the fast embedders' concepts are to plain MiniLM's, on real abstracts.

    python bench/bench_agreement.py [--n 200] [--embedders minilm static onnx]

Samples N papers of the ICLR 2025 corpus (fixed seed), extracts concepts with each
embedder (no cache) and reports, against `minilm` (all-MiniLM-L6-v2 through
sentence-transformers, the reference): mean overlap of the top-5 and top-10 concepts
(compared by merge key, so "language models" = "language model"), and papers/s.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import time
from pathlib import Path

from paperkg.build.canon import concept_key
from paperkg.build.embed import make_embedder
from paperkg.build.extract import ExtractSettings, extract_concepts
from paperkg.build.ingest import read_papers

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "iclr2025" / "papers.jsonl.gz"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--embedders", nargs="+", default=["minilm", "static"])
    ap.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache" / "paperkg",
                    help="where derived models (static, onnx) are kept; embeddings not cached")
    ap.add_argument("--work", type=Path, default=Path("/tmp/paperkg-agreement"))
    args = ap.parse_args()

    with gzip.open(CORPUS, "rt", encoding="utf-8") as fh:
        lines = fh.readlines()
    sample = random.Random(13).sample(lines, args.n)
    args.work.mkdir(parents=True, exist_ok=True)
    path = args.work / f"sample{args.n}.jsonl"
    path.write_text("".join(sample), encoding="utf-8")
    papers = read_papers([path]).papers

    results: dict[str, dict[str, list[str]]] = {}
    speed: dict[str, float] = {}
    for name in args.embedders:
        embedder = make_embedder(name, None)
        if hasattr(embedder, "cache_dir"):
            embedder.cache_dir = args.cache_dir
        embedder.encode(["warm up the model"])  # model load is not extraction speed
        began = time.perf_counter()
        out = extract_concepts(papers, embedder, ExtractSettings())
        speed[name] = len(papers) / (time.perf_counter() - began)
        results[name] = {pid: [concept_key(lab) for lab, _ in ranked]
                         for pid, ranked in out.items()}

    ref = results[args.embedders[0]]
    report: dict[str, dict[str, float]] = {}
    for name in args.embedders:
        row: dict[str, float] = {"papers_per_s": round(speed[name], 2)}
        for k in (5, 10):
            overlaps = [len(set(results[name][pid][:k]) & set(ref[pid][:k])) / k for pid in ref]
            row[f"overlap@{k}"] = round(statistics.mean(overlaps), 3)
        report[name] = row
    print(json.dumps({"reference": args.embedders[0], "papers": len(papers),
                      "results": report}, indent=2))


if __name__ == "__main__":
    main()
