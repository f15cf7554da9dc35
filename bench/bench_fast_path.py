"""How close the fast path's concepts are to the transformer's on text unlike ICLR.

    python bench/bench_fast_path.py [--code OLD/src --tag before] [--work DIR]

Runs `paperkg extract` with `onnx` (MiniLM, the reference) and with `static` on each real
source sample (../shared/data/sources: arXiv OAI-PMH, OpenAlex, Semantic Scholar, PMLR
BibTeX, the arXiv snapshot, ICLR 2018 CSV) and scores `static`'s top 10 against `onnx`'s
as a keyword benchmark scores a list against its reference: P/R/F1@10 by Porter-stemmed
exact match. No author keywords are involved, so the packaged statistics rank both. With
`--code OLD/src` the extraction runs another version's code (PYTHONPATH), so two
versions are compared on the same samples in one run; outputs are kept under `--work`
per tag.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import prf  # noqa: E402

SOURCES = Path(__file__).resolve().parents[2] / "shared" / "data" / "sources"
SAMPLES = ("arxiv_oai.xml", "openalex_works.json", "s2_papers.json", "papers.bib",
           "arxiv_snapshot.jsonl", "papers.csv")


def _extract(src: Path, out: Path, embedder: str, cache: Path, code: Path | None
             ) -> dict[str, list[str]]:
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    subprocess.run([sys.executable, "-m", "paperkg.cli", "extract", str(src), "--out",
                    str(out), "--embedder", embedder, "--cache-dir", str(cache),
                    "--skip-invalid"], check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return {r["id"]: [c["label"] for c in r["concepts"] if c["role"] == "mentions"][:10]
            for r in rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--code", type=Path, help="another version's src/ to run instead")
    ap.add_argument("--tag", default="now")
    ap.add_argument("--work", type=Path, default=Path("/tmp/pkg-fast-path"))
    args = ap.parse_args()
    out = args.work / args.tag
    out.mkdir(parents=True, exist_ok=True)
    print(f"static's top 10 against onnx's (P/R/F1@10, %), code {args.code or 'this'}")
    scores = []
    for name in SAMPLES:
        lists = {emb: _extract(SOURCES / name, out / f"{name}.{emb}.jsonl", emb,
                               args.work / "cache", args.code) for emb in ("onnx", "static")}
        rows = [prf(lists["static"].get(pid, []), ref, 10)
                for pid, ref in lists["onnx"].items() if ref]
        p, r, f = (100 * sum(row[i] for row in rows) / len(rows) for i in range(3))
        scores.append(f)
        print(f"{name:22s} {len(rows):4d} papers  P {p:5.1f}  R {r:5.1f}  F1 {f:5.1f}",
              flush=True)
    print(f"{'mean over samples':22s} {'':16s}{'':17s}F1 {sum(scores) / len(scores):5.1f}")


if __name__ == "__main__":
    main()
