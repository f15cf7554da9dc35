"""A judged-precision sample: every top-10 label of papers nobody tuned on, marked by a rule.

    python bench/judge_sample.py run --n 15 [--code OLD_SRC --tag=-before] [--embedder onnx]
    python bench/judge_sample.py sheet --n 15          # one line per distinct label to judge
    python bench/judge_sample.py score --n 15          # precision per system, from the sheet
    python bench/judge_sample.py changes --n 15 --against=-before  # what one keeps, not the other
    python bench/judge_sample.py run --input ../shared/data/sources/arxiv_oai.xml  # any source

The papers are the LAST n (before the last --skip) of the keyword benchmark's held-out sample
(bench/keywords_eval.held_out), so neither the benchmark's first papers nor anything used
for fitting; their keywords are not given (a corpus without keywords); or, with --input,
every record of a source file (text unlike ICLR: arXiv, OpenAlex). `run` writes each
system's `paperkg extract` output, of which the labels a KG keeps (`kept`) are judged;
`sheet` writes every distinct (paper, label) pair of all systems, sorted, without saying
which system produced it, with an empty verdict column; the judge fills in 1 (good) or 0
by THE RULE below; `score` reports, per system, the precision of its top-10, and three
mechanical counts: labels ending in a number suffix ("(44800)"), glued-sentence artefacts
("sets.Our"), and papers with more than one pair of nested labels ("model fusion" /
"deep model fusion").

THE RULE. A label is good when all of these hold:
  (a) it names something specific a researcher would tag the paper with: a method, model,
      dataset or benchmark, task, problem, phenomenon, property, or field of study;
  (b) it is a well-formed noun phrase: no glued words, no clause fragment ("knowledge
      despite"), no dangling verb or modifier;
  (c) it is specific enough to connect papers meaningfully: not a generic single word
      ("performance", "search", "bias", "optimization") and not a phrase that fits most
      papers ("experimental results", "model performance", "negative effects");
  (d) it is about what the abstract studies, not an aside.
A label that only differs from a better label of the same paper by a generic word ("model
fusion techniques" after "model fusion") is not good: repetition adds nothing.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import held_out, load_corpus  # noqa: E402

WORK = Path("/tmp/pkg-judge")


def _papers(n: int, skip: int = 0) -> list[dict[str, str]]:
    """The n papers before the last `skip` of the held-out sample."""
    pool = held_out(load_corpus())
    return [{"id": r.id, "title": r.title, "abstract": r.abstract}
            for r in pool[len(pool) - skip - n:len(pool) - skip]]


def _name(args: argparse.Namespace) -> str:
    """What a sample's files are called: the source file's name, or the ICLR sample's size."""
    return args.input.name.replace(".", "-") if args.input else str(args.n)


def run(args: argparse.Namespace) -> None:
    args.work.mkdir(parents=True, exist_ok=True)
    src = args.input
    if src is None:
        src = args.work / f"judge-{args.n}.jsonl"
        src.write_text("".join(json.dumps(p) + "\n" for p in _papers(args.n, args.skip)),
                       encoding="utf-8")
    out = args.work / f"out-{_name(args)}{args.tag}.jsonl"
    env = dict(os.environ)
    cmd = ["paperkg"]
    if args.code:
        env["PYTHONPATH"] = str(args.code)
        cmd = [sys.executable, "-c", "from paperkg.cli import main; main()"]
    subprocess.run([*cmd, "extract", str(src), "--out", str(out), "--embedder", args.embedder,
                    "--cache-dir", str(args.work / "cache"), "--skip-invalid", *args.extra],
                   check=True, env=env)
    print(f"wrote {out}")


def _outputs(work: Path, n: str) -> dict[str, dict[str, list[str]]]:
    systems: dict[str, dict[str, list[str]]] = {}
    for path in sorted(work.glob(f"out-{n}*.jsonl")):
        name = path.stem.removeprefix(f"out-{n}") or "after"
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        systems[name] = {r["id"]: [c["label"] for c in r["concepts"]  # what a KG shows
                                   if c["role"] == "mentions" and c.get("kept", True)][:10]
                         for r in rows}
    return systems


def sheet(args: argparse.Namespace) -> None:
    systems = _outputs(args.work, _name(args))
    pairs = sorted({(pid, label) for s in systems.values() for pid, labels in s.items()
                    for label in labels})
    path = args.work / f"sheet-{_name(args)}.tsv"
    known: dict[tuple[str, str], str] = {}
    if path.is_file():  # verdicts already given stay; only new labels are added
        with path.open(encoding="utf-8") as fh:
            known = {(r["paper"], r["label"]): r["verdict"]
                     for r in csv.DictReader(fh, delimiter="\t")}
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t")
        w.writerow(["paper", "label", "verdict"])
        w.writerows([pid, label, known.get((pid, label), "")] for pid, label in pairs)
    todo = sum(1 for p in pairs if not known.get(p))
    print(f"wrote {path}: {len(pairs)} labels, {todo} to judge")


def _key_words(label: str) -> frozenset[str]:
    words = re.sub(r"[-/]", " ", label.lower()).split()
    if words and words[-1].endswith("s") and len(words[-1]) > 3:
        words[-1] = words[-1][:-1]
    return frozenset(words)


def score(args: argparse.Namespace) -> None:
    with (args.work / f"sheet-{_name(args)}.tsv").open(encoding="utf-8") as fh:
        verdict = {(r["paper"], r["label"]): r["verdict"].strip()
                   for r in csv.DictReader(fh, delimiter="\t")}
    for name, out in _outputs(args.work, _name(args)).items():
        good = judged = numbered = glued = dup_papers = 0
        for pid, labels in out.items():
            seen: list[frozenset[str]] = []
            nested = 0
            for label in labels:
                words = _key_words(label)
                nested += any(words <= s or s <= words for s in seen)
                seen.append(words)
                v = verdict.get((pid, label), "")
                if v in {"0", "1"}:
                    judged += 1
                    good += int(v == "1")
                numbered += bool(re.search(r"\(\d+\)$", label))
                glued += bool(re.search(r"[a-z]{2}[.!?][A-Z][a-z]|\b[a-z]{3,}[A-Z][a-z]{2}", label))
            dup_papers += nested > 1
        shown = sum(len(v) for v in out.values())
        print(f"{name:10s} precision {100 * good / max(judged, 1):5.1f} % ({good}/{judged} "
              f"judged, {shown / max(len(out), 1):.1f} labels a paper) |"
              f" number-suffixed {numbered} | glued {glued} | papers with >1 "
              f"nested pair {dup_papers} of {len(out)}")


def _verdicts(work: Path, name: str) -> dict[tuple[str, str], str]:
    path = work / f"sheet-{name}.tsv"
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8") as fh:
        return {(r["paper"], r["label"]): r["verdict"].strip() or "?"
                for r in csv.DictReader(fh, delimiter="\t")}


def changes(args: argparse.Namespace) -> None:
    """Per paper, the labels one system (`--tag`) keeps and another (`--against`) does not,
    with their verdicts (1 good, 0 poor, ? not judged yet): what a rule took out and what
    took its place."""
    systems = _outputs(args.work, _name(args))
    old, new = systems.get(args.against or "after"), systems.get(args.tag or "after")
    if old is None or new is None:
        raise SystemExit(f"need out-{_name(args)}{args.tag}.jsonl and "
                         f"out-{_name(args)}{args.against}.jsonl in {args.work} (`run`)")
    verdict = _verdicts(args.work, _name(args))
    tally = {"gone": {"0": 0, "1": 0, "?": 0}, "new": {"0": 0, "1": 0, "?": 0}}
    for pid in sorted(old):
        gone = [(pid, x) for x in old[pid] if x not in new.get(pid, [])]
        came = [(pid, x) for x in new.get(pid, []) if x not in old[pid]]
        for kind, pairs in (("gone", gone), ("new", came)):
            for pair in pairs:
                tally[kind][verdict.get(pair, "?")] += 1
        if gone or came:
            print(f"{pid}: gone {_shown(gone, verdict)} | new {_shown(came, verdict)}")
    for kind, counts in tally.items():
        print(f"{kind:5s} good {counts['1']}, poor {counts['0']}, not judged {counts['?']}")


def _shown(pairs: list[tuple[str, str]], verdict: dict[tuple[str, str], str]) -> str:
    return ", ".join(f"{label} [{verdict.get((pid, label), '?')}]" for pid, label in pairs) or "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("step", choices=("run", "sheet", "score", "changes"))
    ap.add_argument("--n", type=int, default=15)
    ap.add_argument("--skip", type=int, default=0,
                    help="leave out the last SKIP held-out papers (a fresh sample after one "
                         "that was looked at)")
    ap.add_argument("--input", type=Path, default=None,
                    help="judge every record of this source file instead of ICLR papers")
    ap.add_argument("--work", type=Path, default=WORK)
    ap.add_argument("--code", type=Path, default=None)
    ap.add_argument("--tag", default="")
    ap.add_argument("--against", default="-before",
                    help="`changes`: the tag of the system --tag is compared with")
    ap.add_argument("--embedder", default="onnx")
    ap.add_argument("extra", nargs="*", help="more `paperkg extract` flags (after --)")
    args = ap.parse_args()
    {"run": run, "sheet": sheet, "score": score, "changes": changes}[args.step](args)


if __name__ == "__main__":
    main()
