"""Concept extraction against author keywords: paperkg vs vanilla KeyBERT vs YAKE.

    python bench/bench_keywords.py [--n 1000] [--work /tmp/pkg-bench] [--embedder onnx]

A fixed random sample of papers with author keywords (bench/keywords_eval.sample, seed
2025) is written with only id, title and abstract, and run through `paperkg extract`. The
keyword prior is learned (`--keywords-from`) from every OTHER paper of the corpus that has
keywords, so no sampled paper's keywords are seen ("paperkg, no prior" runs without any
keyword data, for a corpus that has none). P/R/F1 @5 and @10 by Porter-stemmed
exact match, P dividing by k, macro-averaged over papers. The baselines' outputs are cached
in the work directory; `--embedder onnx` is MiniLM with the same vectors, faster here.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import load_corpus, mean_prf, run_keybert, run_yake, sample  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/pkg-bench"))
    ap.add_argument("--embedder", default="onnx")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)

    records = load_corpus()
    chosen = sample(records, args.n)
    ids = {r.id for r in chosen}
    sample_file = args.work / f"sample-{args.n}.jsonl"
    train_file = args.work / f"train-without-sample-{args.n}.jsonl.gz"
    with sample_file.open("w", encoding="utf-8") as fh:
        for r in chosen:
            fh.write(json.dumps({"id": r.id, "title": r.title, "abstract": r.abstract}) + "\n")
    with gzip.open(train_file, "wt", encoding="utf-8") as fh:
        for r in records:
            if r.keywords and r.id not in ids:
                fh.write(json.dumps({"id": r.id, "title": r.title, "abstract": r.abstract,
                                     "keywords": list(r.keywords)}) + "\n")

    kinds: dict[str, int] = {}

    def extract(name: str, extra: list[str]) -> dict[str, list[str]]:
        out = args.work / f"{name}-{args.n}.jsonl"
        subprocess.run(["paperkg", "extract", str(sample_file), "--out", str(out),
                        "--embedder", args.embedder, "--cache-dir", str(args.work / "cache"),
                        *extra], check=True)
        ranked: dict[str, list[str]] = {}
        for line in out.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            ranked[row["id"]] = [c["label"] for c in row["concepts"] if c["role"] == "mentions"]
            if name == "paperkg":
                for c in row["concepts"]:
                    kinds[c["type"]] = kinds.get(c["type"], 0) + 1
        return ranked

    t = time.perf_counter()
    ours = extract("paperkg", ["--keywords-from", str(train_file)])
    took = time.perf_counter() - t
    systems = {"paperkg": ours, "KeyBERT (vanilla)": run_keybert(chosen, args.work),
               "YAKE (n=3)": run_yake(chosen, args.work),
               "paperkg, no prior": extract("paperkg-no-prior", [])}
    table = {name: {**mean_prf(p, chosen, 5), **mean_prf(p, chosen, 10)}
             for name, p in systems.items()}
    cols = ["P@5", "R@5", "F1@5", "P@10", "R@10", "F1@10"]
    print(f"\n{args.n} papers with author keywords (seed 2025); paperkg extract took {took:.0f} s")
    print(f"{'system':20s}" + "".join(f"{c:>8s}" for c in cols))
    for name, row in table.items():
        print(f"{name:20s}" + "".join(f"{row[c]:8.1f}" for c in cols))
    best_other = {c: max(table[n][c] for n in table if not n.startswith("paperkg"))
                  for c in cols}
    print(f"{'gap to best other':20s}" + "".join(
        f"{table['paperkg'][c] - best_other[c]:+8.1f}" for c in cols))
    print("concept types in paperkg's output:", kinds)
    (args.work / f"bench_keywords-{args.n}.json").write_text(
        json.dumps({"n": args.n, "table": table, "kinds": kinds, "extract_seconds": took},
                   indent=2))


if __name__ == "__main__":
    main()
