"""Add 100 papers to a full KG and remove them again, against a warm rebuild (issue #11).

    python3 bench/bench_update.py --kg KG_DIR --corpus ../shared/data/iclr2025/papers.jsonl.gz \
        [--cache-dir DIR]

KG_DIR is a KG built from the corpus by this paperkg (it is copied, never changed). The
100 new papers are the corpus's last 100 records under new ids and titles, with their
first two sentences swapped (lightly varied, so they are new papers and new texts). Side
by side, each step its own `paperkg` process, wall time and peak RSS per process
(os.wait4), all with the same cache:
- add 100 (default: under the KG's stored statistics) with their extraction not yet
  cached, and again (cached), then remove the 100: the KG must be KG_DIR's again (same
  counts; the statistics were never relearned);
- a feed of 6 files of 100 other new papers each (none cached): three added one after
  another by one-shot `paperkg add`s, three dropped one after another into the inbox of
  one resident `paperkg add --watch INBOX` process (each renamed into the inbox once the
  process has read the KG), each timed to its KG swapped in, with the CPU seconds the
  process and its forked writers spent on it;
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
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FEEDS = 6  # files of new papers in the feed: every other one added one-shot, the rest watched


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


def watched(kg: Path, feeds: list[Path], inbox: Path, env: dict[str, str]
            ) -> list[dict[str, float]]:
    """`paperkg add --watch`: for each file, dropped after the one before it was added,
    seconds from its arrival in the inbox (renamed into it whole) to its move to `added/`
    (the KG swapped in), and the watcher's own time for it; the process's peak RSS with
    the last."""
    inbox.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "paperkg.cli", "add", "--kg", str(kg),
                             "--watch", str(inbox), "--interval", "0.1"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:  # ready once it has read the KG (prefetched) and polls
        if "watching" in line:
            break
    out = []
    for path in feeds:
        time.sleep(5)  # the prefetch after the "watching" line or the last add
        shutil.copyfile(path, inbox / "new.part")
        began, cpu = time.perf_counter(), _cpu_seconds(proc.pid)
        (inbox / "new.part").rename(inbox / path.name)
        while not (inbox / "added" / path.name).exists():
            if proc.poll() is not None:
                raise SystemExit(f"the watching process ended: {proc.stderr.read()[-3000:]}")
            time.sleep(0.02)
        out.append({"seconds": round(time.perf_counter() - began, 1),
                    "cpu_seconds": round(_cpu_seconds(proc.pid) - cpu, 1)})
    proc.send_signal(signal.SIGTERM)
    # the watcher's own time of each add (from taking the file to the KG swapped in):
    # what the folder's polling adds to an add is the difference
    inside = dict(re.findall(r"(\S+): \d+ added, \d+ changed in ([\d.]+) s", proc.stderr.read()))
    for row, path in zip(out, feeds, strict=True):
        row["in_process_seconds"] = float(inside[path.name])
    _, _, usage = os.wait4(proc.pid, 0)
    out[-1]["peak_rss_mb"] = round(usage.ru_maxrss / 1024)
    return out


def _cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) of a process and of its children it has waited for
    (an update's forked writers), from /proc: on two busy cores, wall times drift with
    what else runs, CPU times much less."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def varied(line: str, run: str = "", prefix: str = "v") -> str:
    """A new paper from a corpus record; `run` marks its title, so that no earlier run's
    extraction of it is in the cache, and `prefix` its id."""
    record: dict[str, Any] = json.loads(line)
    sentences = re.split(r"(?<=[.!?])\s+", record["abstract"].strip())
    if len(sentences) > 1:
        sentences[0], sentences[1] = sentences[1], sentences[0]
    # a new title too: the same title and first author would be the same paper (merged)
    record.update(id=f"{prefix}-{record['id']}", abstract=" ".join(sentences),
                  title=f"Revisited{run}: {record.get('title') or ''}".strip(),
                  title_final=None)
    return json.dumps(record, ensure_ascii=False) + "\n"


def _fresh(kg: Path, source: Path) -> None:
    """`kg` as a new copy of the KG at `source` (which is never changed)."""
    shutil.rmtree(kg, ignore_errors=True)
    shutil.copytree(source, kg)


def _manifest(kg: Path) -> dict[str, Any]:
    return dict(json.loads((kg / "manifest.json").read_text()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kg", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("--embedder", default="static")
    ap.add_argument("--cache-dir", type=Path, help="the cache KG_DIR was built with")
    ap.add_argument("--no-rebuild", action="store_true",
                    help="skip the relearning add and the warm rebuild (minutes)")
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
        run_tag = f" ({time.strftime('%Y-%m-%d %H:%M:%S')})"
        new.write_text("".join(varied(line, run_tag) for line in last), encoding="utf-8")
        ids = [json.loads(line)["id"] for line in new.read_text().splitlines()]
        kg = work / "kg"
        _fresh(kg, args.kg)
        # the first add extracts the new papers (`run_tag` keeps earlier runs' out of the
        # cache), the second finds their extraction cached
        results[f"add {args.n}, extraction not cached"] = run(
            ["add", "--kg", str(kg), str(new)], env)
        _fresh(kg, args.kg)
        results[f"add {args.n}"] = run(["add", "--kg", str(kg), str(new)], env)
        results[f"add {args.n}: update"] = _manifest(kg)["update"]
        results[f"remove {args.n}"] = run(["remove", "--kg", str(kg), *ids], env)
        results[f"remove {args.n}: update"] = _manifest(kg)["update"]
        results["add + remove gives KG_DIR's counts"] = (
            _manifest(kg)["counts"] == _manifest(args.kg)["counts"])
        # a feed: FEEDS files of n new papers each (none cached), added one after another
        # by one-shot adds to one copy and by one watching process to another
        feeds = []
        for k in range(FEEDS):
            path = work / "feeds" / f"feed-{k}.jsonl"
            path.parent.mkdir(exist_ok=True)
            path.write_text("".join(varied(line, f"{run_tag} #{k}", f"f{k}") for line in last),
                            encoding="utf-8")
            feeds.append(path)
        _fresh(kg, args.kg)
        results["feed: one-shot adds"] = [run(["add", "--kg", str(kg), str(p)], env)
                                          for p in feeds[::2]]
        _fresh(kg, args.kg)
        results["feed: watched adds"] = watched(kg, feeds[1::2], work / "inbox", env)
        added = len(feeds[1::2]) * args.n
        results["watched feed gives the papers"] = (
            _manifest(kg)["counts"]["papers"] == _manifest(args.kg)["counts"]["papers"] + added)
        if not args.no_rebuild:
            _fresh(kg, args.kg)
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
