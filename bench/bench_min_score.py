"""What the least probability (`--min-score`) costs in keyword F1 and how much it cuts.

    python bench/bench_min_score.py [--n 200] [--embedders onnx,static] [--scores 0,0.005,0.01]

Each input is extracted once per embedder with `--min-score 0`; every threshold is then
applied as the extractor applies it (a paper keeps its best `MIN_KEPT`, then only picks at
or above the threshold; the output is best first). Reported:
- on the first n held-out ICLR papers (bench/keywords_eval.held_out; id, title and abstract
  only, so the packaged statistics rank them): labels a paper and P/R/F1 @5 and @10 against
  the authors' keywords, which a threshold can only lower;
- on the real arXiv, OpenAlex and Semantic Scholar samples (../shared/data/sources), text
  unlike ICLR: labels a paper, the share a reader no longer sees.
Whether what is cut was worth reading is judged by bench/judge_sample.py (--input FILE).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import held_out, load_corpus, mean_prf  # noqa: E402

from paperkg.build.extract import MIN_KEPT  # noqa: E402

SOURCES = Path(__file__).resolve().parents[2] / "shared" / "data" / "sources"
OTHER_TEXT = ("arxiv_oai.xml", "arxiv_snapshot.jsonl", "openalex_works.json", "s2_papers.json")

Scored = dict[str, list[tuple[str, float]]]


def _extract(src: Path, out: Path, embedder: str, cache: Path) -> Scored:
    subprocess.run(["paperkg", "extract", str(src), "--out", str(out), "--embedder", embedder,
                    "--cache-dir", str(cache), "--min-score", "0", "--skip-invalid"],
                   check=True)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return {r["id"]: [(c["label"], c["score"]) for c in r["concepts"]
                      if c["role"] == "mentions"] for r in rows}


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
    ap.add_argument("--work", type=Path, default=Path("/tmp/pkg-min-score"))
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    scores = [float(s) for s in args.scores.split(",")]
    chosen = held_out(load_corpus())[:args.n]
    sample = args.work / f"sample-{args.n}.jsonl"
    sample.write_text("".join(json.dumps({"id": r.id, "title": r.title, "abstract": r.abstract})
                              + "\n" for r in chosen), encoding="utf-8")
    for embedder in args.embedders.split(","):
        cache = args.work / "cache"
        iclr = _extract(sample, args.work / f"iclr-{embedder}.jsonl", embedder, cache)
        other = {name: _extract(SOURCES / name, args.work / f"{name}-{embedder}.jsonl",
                                embedder, cache) for name in OTHER_TEXT}
        print(f"\n{embedder}: ICLR ({args.n} held-out papers) F1 against author keywords; "
              "labels a paper on each sample")
        print(f"{'min-score':>9s} {'ICLR':>6s} {'F1@5':>6s} {'F1@10':>6s}"
              + "".join(f" {name.split('.')[0][:14]:>14s}" for name in OTHER_TEXT))
        for least in scores:
            kept = _cut(iclr, least)
            f5, f10 = mean_prf(kept, chosen, 5)["F1@5"], mean_prf(kept, chosen, 10)["F1@10"]
            print(f"{least:9.4f} {_per_paper(kept):6.2f} {f5:6.2f} {f10:6.2f}"
                  + "".join(f" {_per_paper(_cut(s, least)):14.2f}" for s in other.values()))


if __name__ == "__main__":
    main()
