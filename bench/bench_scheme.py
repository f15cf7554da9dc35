"""Time the concept scheme's stages on a KG's stored per-paper results (issue #11).

    python bench/bench_scheme.py --kg KG_DIR [--rounds 3] [--code OLD/src]

What `paperkg add` spends most of its time on is rebuilding the concept scheme from every
paper's stored results. This runs those stages in-process on KG_DIR's results (no
extraction, no store), each round in its own process so caches start cold, and prints the
median seconds per stage. The label memo is the one a first pass makes, so a KG built by
other code times the same as one built by this code. `--code` runs another checkout's
`src` instead (to compare two versions in one run, alternately).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

_STAGES = """
import json, sys, time
from pathlib import Path
from paperkg.build import canon
from paperkg.build.statistics import read_results
from paperkg.build.writer import read_papers_file
from paperkg.kgdir import PAPERS

kg = Path(sys.argv[1])
papers = sorted(read_papers_file(kg / PAPERS), key=lambda p: p.id)
results = read_results(kg)
extracted = {p.id: results[p.id].ranked for p in papers}
facts = {p.id: results[p.id].facts for p in papers}
out = {}
import gc
gc.disable()  # as `pipeline.compute` runs the scheme (`build.gcpause.paused_gc`)
t = time.perf_counter()
def lap(stage):
    global t
    now = time.perf_counter(); out[stage] = now - t; t = now
resolver = canon._Resolver({i: f.defs for i, f in facts.items()}); lap("abbreviation votes")
linked = canon._link(extracted, {i: f.roles for i, f in facts.items()}, resolver); lap("link")
if hasattr(canon, "_name_concepts"):  # a checkout from before `build.naming`
    def name(casing):
        return canon._name_concepts(linked, resolver, papers, len(papers), casing, set())
else:
    from paperkg.build.labels import CleanAbstracts
    from paperkg.build.naming import name_concepts
    def name(casing):
        return name_concepts(linked, resolver.long_form, CleanAbstracts(papers), len(papers),
                             casing, set())
memo = name(None)[2]
t = time.perf_counter()
concepts, merges, memo, ids = name(memo); lap("name concepts")
mentions = canon._mentions(linked, ids); lap("mentions")
if hasattr(canon, "_topics"):  # a checkout from before it inlined the call (no topics row)
    canon._topics(concepts, mentions, len(papers)); lap("topics")
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kg", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--code", type=Path, action="append", default=[],
                    help="another checkout's src (repeatable); this one's always runs")
    args = ap.parse_args()
    versions = {"this": None, **{str(c): c for c in args.code}}
    times: dict[str, dict[str, list[float]]] = {v: {} for v in versions}
    for r in range(args.rounds):
        for name, src in versions.items():
            env = dict(os.environ)
            if src is not None:
                env["PYTHONPATH"] = str(src)
            done = subprocess.run([sys.executable, "-c", _STAGES, str(args.kg)], env=env,
                                  capture_output=True, text=True, check=True)
            for stage, s in json.loads(done.stdout.splitlines()[-1]).items():
                times[name].setdefault(stage, []).append(s)
            print(f"round {r + 1}: {name} done", file=sys.stderr)
    for name, stages in times.items():
        row = ", ".join(f"{s} {statistics.median(v):.2f} s" for s, v in stages.items())
        print(f"{name}: {row} (medians of {args.rounds})")


if __name__ == "__main__":
    main()
