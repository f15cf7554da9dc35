"""Cold builds of the corpus and of a k-times larger copy of it: time and peak memory (#11).

    python3 bench/bench_scale.py --scales 1,4 [--embedder static] [--models DIR]
        [--code OLD/src --tag before] [--work DIR]

A k-times corpus is the ICLR 2025 corpus plus k-1 replicas of every paper under new ids
and titles, each abstract's sentences rotated by the replica's number (lightly varied:
new texts, the same vocabulary, as a field's literature grows). Each build is its own
`paperkg build` process with an empty cache, except the distilled static model (derived
once per machine; `--models` names a cache's `models` directory to link, else it is
distilled by the first build and kept for the rest). Wall time and peak RSS come from
os.wait4 on that process. `--code` runs another paperkg source tree (before/after).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "iclr2025" / "papers.jsonl.gz"


def replica(line: str, k: int) -> str:
    """Paper `line` as its k-th replica: new id and title, sentences rotated by k."""
    record: dict[str, Any] = json.loads(line)
    sentences = re.split(r"(?<=[.!?])\s+", record["abstract"].strip())
    turn = k % len(sentences)
    record.update(id=f"{record['id']}-x{k}", abstract=" ".join(sentences[turn:] +
                                                                sentences[:turn]),
                  title=f"{record.get('title') or ''} (replica {k})".strip(),
                  title_final=None)
    return json.dumps(record, ensure_ascii=False) + "\n"


def scaled_corpus(scale: int, work: Path) -> Path:
    if scale == 1:
        return CORPUS
    out = work / f"corpus-x{scale}.jsonl.gz"
    if not out.is_file():
        with gzip.open(CORPUS, "rt", encoding="utf-8") as fh:
            lines = fh.readlines()
        with gzip.open(out, "wt", encoding="utf-8", compresslevel=1) as dst:
            dst.writelines(lines)
            for k in range(1, scale):
                dst.writelines(replica(line, k) for line in lines)
        print(f"wrote {out}: {scale * len(lines)} papers", file=sys.stderr)
    return out


def build(corpus: Path, out: Path, cache: Path, env: dict[str, str]) -> dict[str, Any]:
    """Wall seconds, peak RSS (MB) and counts of one `paperkg build` process."""
    began = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "paperkg.cli", "build", str(corpus),
                             "--out", str(out), "--skip-invalid", "--cache-dir", str(cache)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    log = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    out.with_suffix(".log").write_text(log, encoding="utf-8")  # its step lines, timed
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"build of {corpus} failed:\n{log[-3000:]}")
    manifest = json.loads((out / "manifest.json").read_text())
    counts = manifest["counts"]
    return {"seconds": round(time.perf_counter() - began, 1),
            "peak_rss_mb": round(usage.ru_maxrss / 1024), "papers": counts["papers"],
            "concepts": counts["concepts"], "triples": counts["triples"],
            "stages_s": manifest.get("timings_s", {})}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", default="1,4", help="comma-separated corpus multiples")
    ap.add_argument("--embedder", default="static")
    ap.add_argument("--models", type=Path, help="a cache's models/ directory to link")
    ap.add_argument("--code", type=Path, help="another paperkg src/ to run")
    ap.add_argument("--tag", default="", help="a name for this run in the output")
    ap.add_argument("--work", type=Path, help="keep corpora and KGs here (default: temp)")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PAPERKG_EMBEDDER": args.embedder}
    if args.code:
        env["PYTHONPATH"] = str(args.code.resolve())
    models = args.models
    results: dict[str, Any] = {"tag": args.tag, "embedder": args.embedder}
    for scale in (int(s) for s in args.scales.split(",")):
        corpus = scaled_corpus(scale, work)
        cache = work / f"cache{args.tag}-x{scale}"
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir()
        if models is not None:
            (cache / "models").symlink_to(models.resolve())
        out = work / f"kg{args.tag}-x{scale}"
        shutil.rmtree(out, ignore_errors=True)
        print(f"building the x{scale} corpus ({corpus.name})", file=sys.stderr, flush=True)
        results[f"x{scale}"] = build(corpus, out, cache, env)
        print(json.dumps(results[f"x{scale}"]), file=sys.stderr, flush=True)
        models = models or cache / "models"
        shutil.rmtree(out, ignore_errors=True)
    base = results.get("x1")
    if base:
        for key, row in results.items():
            if key.startswith("x") and row is not base:
                row["memory_vs_x1"] = round(row["peak_rss_mb"] / base["peak_rss_mb"], 2)
                row["seconds_per_paper_vs_x1"] = round(
                    (row["seconds"] / row["papers"]) / (base["seconds"] / base["papers"]), 2)
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
