"""What the least probability (`--min-score`) costs in keyword F1 and how much it cuts.

    python bench/bench_min_score.py [--n 200] [--embedders onnx,static] [--scores 0,0.005,0.01]
    python bench/bench_min_score.py --sample fit --n 300 [-- --no-packaged-prior]

Each input is extracted once per embedder as a ranking (`paperkg extract`, the whole
top-n); every threshold is then applied as a KG applies it (a paper keeps its best
`MIN_KEPT`, then only picks at or above the threshold; the output is best first; the rule
for broad picks inside longer ones, `keep.trusted`, is left out). Reported:
- on the first n held-out ICLR papers (bench/keywords_eval.held_out; id, title and abstract
  only, so the packaged statistics rank them): labels a paper and P/R/F1 @5 and @10 against
  the authors' keywords, which a threshold can only lower; or, with `--sample fit`, n
  papers outside that sample (seed 7), given in files of 150 with their keywords, so the
  packaged statistics rank them with each paper's own keywords left out (under 200 keyword
  papers an input does not learn its own): where a threshold is chosen, not measured;
- on the real arXiv, OpenAlex and Semantic Scholar samples (../shared/data/sources), text
  unlike ICLR: labels a paper, the share a reader no longer sees.
Whether what is cut was worth reading is judged by bench/judge_sample.py (--input FILE).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import Record, held_out, load_corpus, mean_prf  # noqa: E402

from paperkg.build.keep import MIN_KEPT  # noqa: E402

SOURCES = Path(__file__).resolve().parents[2] / "shared" / "data" / "sources"
OTHER_TEXT = ("arxiv_oai.xml", "arxiv_snapshot.jsonl", "openalex_works.json", "s2_papers.json")

Scored = dict[str, list[tuple[str, float]]]


def _extract(srcs: list[Path], out: Path, embedder: str, cache: Path,
             extra: list[str]) -> Scored:
    scored: Scored = {}
    for i, src in enumerate(srcs):
        part = out.with_suffix(f".{i}.jsonl")
        subprocess.run(["paperkg", "extract", str(src), "--out", str(part), "--embedder",
                        embedder, "--cache-dir", str(cache),
                        "--skip-invalid", *extra], check=True)
        rows = [json.loads(line) for line in part.read_text(encoding="utf-8").splitlines()]
        scored.update({r["id"]: [(c["label"], c["score"]) for c in r["concepts"]
                                 if c["role"] == "mentions"] for r in rows})
    return scored


def _papers(args: argparse.Namespace) -> tuple[list[Record], list[Path]]:
    """The ICLR papers scored and the files they are given in."""
    records = load_corpus()
    held = held_out(records)
    if args.sample == "held-out":
        chosen, with_keywords, size = held[:args.n], False, args.n
    else:
        taken = {r.id for r in held}
        pool = sorted((r for r in records if r.keywords and r.id not in taken),
                      key=lambda r: r.id)
        chosen, with_keywords, size = random.Random(7).sample(pool, args.n), True, 150
    files = []
    for start in range(0, len(chosen), size):
        path = args.work / f"{args.sample}-{args.n}-{start}.jsonl"
        path.write_text("".join(json.dumps(
            {"id": r.id, "title": r.title, "abstract": r.abstract,
             **({"keywords": list(r.keywords)} if with_keywords else {})}) + "\n"
            for r in chosen[start:start + size]), encoding="utf-8")
        files.append(path)
    return chosen, files


def _cut(scored: Scored, least: float) -> dict[str, list[str]]:
    return {pid: [label for rank, (label, score) in enumerate(picks)
                  if rank < MIN_KEPT or score >= least] for pid, picks in scored.items()}


def _per_paper(kept: dict[str, list[str]]) -> float:
    return sum(map(len, kept.values())) / max(len(kept), 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--embedders", default="onnx,static")
    ap.add_argument("--scores", default="0,0.003,0.005,0.0075,0.01")
    ap.add_argument("--sample", choices=("held-out", "fit"), default="held-out")
    ap.add_argument("--work", type=Path, default=Path("/tmp/pkg-min-score"))
    ap.add_argument("extra", nargs="*", help="more `paperkg extract` flags (after --)")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    scores = [float(s) for s in args.scores.split(",")]
    chosen, files = _papers(args)
    tag = "-".join([args.sample, *[e.strip("-") for e in args.extra]])
    for embedder in args.embedders.split(","):
        cache = args.work / "cache"
        iclr = _extract(files, args.work / f"iclr-{tag}-{embedder}.jsonl", embedder, cache,
                        args.extra)
        other = {name: _extract([SOURCES / name], args.work / f"{name}-{tag}-{embedder}.jsonl",
                                embedder, cache, args.extra) for name in OTHER_TEXT}
        print(f"\n{embedder} {' '.join(args.extra)}: ICLR ({args.n} {args.sample} papers) F1 "
              "against author keywords; labels a paper on each sample")
        print(f"{'min-score':>9s} {'ICLR':>6s} {'F1@5':>6s} {'F1@10':>6s}"
              + "".join(f" {name.split('.')[0][:14]:>14s}" for name in OTHER_TEXT))
        for least in scores:
            kept = _cut(iclr, least)
            f5, f10 = mean_prf(kept, chosen, 5)["F1@5"], mean_prf(kept, chosen, 10)["F1@10"]
            print(f"{least:9.4f} {_per_paper(kept):6.2f} {f5:6.2f} {f10:6.2f}"
                  + "".join(f" {_per_paper(_cut(s, least)):14.2f}" for s in other.values()))


if __name__ == "__main__":
    main()
