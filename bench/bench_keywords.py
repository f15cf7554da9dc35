"""Concept extraction against author keywords: paperkg's settings vs KeyBERT vs YAKE.

    python bench/bench_keywords.py [--n 200] [--embedders onnx,static] [--baselines]
    python bench/bench_keywords.py --benchmark SET.jsonl --configs "default,no keyword data"

The papers are the first n of the held-out sample (bench/keywords_eval.held_out: 1,000
papers with author keywords, seed 2025), never used to fit weights or to build the packaged
keyword prior. Each is written with only id, title and abstract and run through
`paperkg extract`, per embedder, as:
- "default": no keywords in the input, so the packaged ICLR prior (which excludes them);
- "corpus keywords": `--keywords-from` every OTHER paper of the corpus with keywords;
- "no keyword data": `--no-packaged-prior`, nothing learned from any keywords;
- "keybert": `--extractor keybert`, KeyBERT's extract_keywords on paperkg's candidates.
`--baselines` adds vanilla KeyBERT (1-3-grams, MMR 0.5, MiniLM) and YAKE, cached per
paper in the work directory. P/R/F1 @5 and @10 by Porter-stemmed exact match, P
dividing by k, macro-averaged over papers.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import (  # noqa: E402
    held_out,
    load_benchmark,
    load_corpus,
    mean_prf,
    run_keybert,
    run_yake,
)

CONFIGS = {"default": [], "corpus keywords": ["--keywords-from", "TRAIN"],
           "no keyword data": ["--no-packaged-prior"], "keybert": ["--extractor", "keybert"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--work", type=Path, default=Path("/tmp/pkg-bench"))
    ap.add_argument("--embedders", default="onnx,static")
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--baselines", action="store_true")
    ap.add_argument("--code", type=Path, default=None,
                    help="run paperkg from this source tree (e.g. an older commit's src/), "
                         "for a before/after on the same papers")
    ap.add_argument("--tag", default="", help="suffix for output names (e.g. 'before')")
    ap.add_argument("--benchmark", type=Path, default=None,
                    help="score on this public keyphrase set instead of the ICLR sample "
                         "(JSON Lines: id, title, abstract, keywords; kept outside the "
                         "repository); its first n records")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)

    records = load_corpus()
    chosen = (load_benchmark(args.benchmark) if args.benchmark else held_out(records))[:args.n]
    ids = {r.id for r in held_out(records)}
    if args.benchmark:
        args.tag = f"-{args.benchmark.stem}{args.tag}"
    sample_file = args.work / f"sample-{args.n}{args.tag}.jsonl"
    train_file = args.work / "train-without-held-out.jsonl.gz"
    with sample_file.open("w", encoding="utf-8") as fh:
        for r in chosen:
            fh.write(json.dumps({"id": r.id, "title": r.title, "abstract": r.abstract}) + "\n")
    if not train_file.is_file():
        with gzip.open(train_file, "wt", encoding="utf-8") as fh:
            for r in records:
                if r.keywords and r.id not in ids:
                    fh.write(json.dumps({"id": r.id, "title": r.title, "abstract": r.abstract,
                                         "keywords": list(r.keywords)}) + "\n")

    def extract(name: str, embedder: str, extra: list[str]) -> dict[str, list[str]]:
        out = args.work / f"{name.replace(' ', '-')}-{embedder}-{args.n}{args.tag}.jsonl"
        extra = [str(train_file) if e == "TRAIN" else e for e in extra]
        env = dict(os.environ)
        cmd = ["paperkg"]
        if args.code:
            env["PYTHONPATH"] = str(args.code)
            cmd = [sys.executable, "-c", "from paperkg.cli import main; main()"]
        subprocess.run([*cmd, "extract", str(sample_file), "--out", str(out),
                        "--embedder", embedder, "--cache-dir",
                        str(args.work / f"cache{args.tag}"), *extra], check=True, env=env)
        ranked: dict[str, list[str]] = {}
        for line in out.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            ranked[row["id"]] = [c["label"] for c in row["concepts"] if c["role"] == "mentions"]
        return ranked

    systems: dict[str, dict[str, list[str]]] = {}
    took: dict[str, float] = {}
    for embedder in args.embedders.split(","):
        for config in args.configs.split(","):
            t = time.perf_counter()
            name = f"paperkg{args.tag} {embedder} {config}"
            systems[name] = extract(config, embedder, CONFIGS[config])
            took[name] = round(time.perf_counter() - t, 1)
    if args.baselines:
        systems["KeyBERT (vanilla)"] = run_keybert(chosen, args.work)
        systems["YAKE (n=3)"] = run_yake(chosen, args.work)
    table = {name: {**mean_prf(p, chosen, 5), **mean_prf(p, chosen, 10)}
             for name, p in systems.items()}
    cols = ["P@5", "R@5", "F1@5", "P@10", "R@10", "F1@10"]
    print(f"\n{len(chosen)} papers of {args.benchmark}" if args.benchmark else
          f"\n{args.n} held-out papers with author keywords (seed 2025)")
    print(f"{'system':34s}" + "".join(f"{c:>8s}" for c in cols) + "   seconds")
    for name, row in table.items():
        print(f"{name:34s}" + "".join(f"{row[c]:8.1f}" for c in cols)
              + f"   {took.get(name, '')}")
    (args.work / f"bench_keywords-{args.n}{args.tag}.json").write_text(
        json.dumps({"n": args.n, "table": table, "seconds": took}, indent=2))


if __name__ == "__main__":
    main()
