"""Add 100 papers to a full KG and remove them again, against a warm rebuild (issue #11).

    python3 bench/bench_update.py --kg KG_DIR --corpus ../shared/data/iclr2025/papers.jsonl.gz \
        [--cache-dir DIR]

KG_DIR is a KG built from the corpus by this paperkg (it is copied, never changed). The
100 new papers are the corpus's last 100 records under new ids and titles, with their
first two sentences swapped (lightly varied, so they are new papers and new texts). Side
by side, each step its own `paperkg` process, wall time and peak RSS per process
(os.wait4), all with the same cache:
- add 100 (default: under the KG's stored statistics), then remove the 100 again: the KG
  must be KG_DIR's again (same counts; the statistics were never relearned);
- add 100 --relearn-statistics on a fresh copy (every paper re-ranked; its new
  extractions are cached, as a rebuild's would be);
- a warm rebuild of the corpus (caches filled by KG_DIR's build).
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


def run(args: list[str], env: dict[str, str]) -> dict[str, float]:
    """Wall seconds and peak RSS (MB) of one `paperkg` process."""
    began = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "paperkg.cli", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"paperkg {' '.join(args)} failed:\n{out[-3000:]}")
    return {"seconds": round(time.perf_counter() - began, 1),
            "peak_rss_mb": round(usage.ru_maxrss / 1024)}


def varied(line: str) -> str:
    record: dict[str, Any] = json.loads(line)
    sentences = re.split(r"(?<=[.!?])\s+", record["abstract"].strip())
    if len(sentences) > 1:
        sentences[0], sentences[1] = sentences[1], sentences[0]
    # a new title too: the same title and first author would be the same paper (merged)
    record.update(id=f"v-{record['id']}", abstract=" ".join(sentences),
                  title=f"Revisited: {record.get('title') or ''}".strip(),
                  title_final=None)
    return json.dumps(record, ensure_ascii=False) + "\n"


def _manifest(kg: Path) -> dict[str, Any]:
    return dict(json.loads((kg / "manifest.json").read_text()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kg", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("--embedder", default="static")
    ap.add_argument("--cache-dir", type=Path, help="the cache KG_DIR was built with")
    args = ap.parse_args()
    env = {**os.environ, "PAPERKG_EMBEDDER": args.embedder}
    if args.cache_dir:
        env["PAPERKG_CACHE_DIR"] = str(args.cache_dir)
    with gzip.open(args.corpus, "rt", encoding="utf-8") as fh:
        last = fh.readlines()[-args.n:]
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-update-") as tmp:
        work = Path(tmp)
        new = work / "new.jsonl"
        new.write_text("".join(varied(line) for line in last), encoding="utf-8")
        ids = [json.loads(line)["id"] for line in new.read_text().splitlines()]
        kg = work / "kg"
        shutil.copytree(args.kg, kg)
        results[f"add {args.n}"] = run(["add", "--kg", str(kg), str(new)], env)
        results[f"add {args.n}: update"] = _manifest(kg)["update"]
        results[f"remove {args.n}"] = run(["remove", "--kg", str(kg), *ids], env)
        results[f"remove {args.n}: update"] = _manifest(kg)["update"]
        results["add + remove gives KG_DIR's counts"] = (
            _manifest(kg)["counts"] == _manifest(args.kg)["counts"])
        shutil.rmtree(kg)
        shutil.copytree(args.kg, kg)
        results[f"add {args.n} --relearn-statistics"] = run(
            ["add", "--kg", str(kg), str(new), "--relearn-statistics"], env)
        shutil.rmtree(kg)
        results["warm rebuild"] = run(["build", str(args.corpus), "--out",
                                       str(work / "rebuilt"), "--skip-invalid"], env)
        results["warm rebuild gives KG_DIR's counts"] = (
            _manifest(work / "rebuilt")["counts"] == _manifest(args.kg)["counts"])
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
