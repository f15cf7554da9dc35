"""The merge check of bench/bench_merge.py without building a KG: every candidate phrase of
every corpus paper goes through `build_scheme` (abbreviations, variants, case, head nouns,
typos), and the hand-checked groups of tests/data/merge_groups.json are looked up among
the concepts' labels.

    python bench/bench_merge_scheme.py [--limit 40]

A label is found as a prefLabel or altLabel (the concept with more papers wins), else by its
merge key. Recall = same-group pairs on one concept; wrong merges = pairs of different groups,
or listed "apart" pairs, on one concept. Every candidate counts (not only a paper's top
ten), so this is a harder test of the merge rules than the KG's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from keywords_eval import CORPUS  # noqa: E402

from paperkg.build.canon import build_scheme, concept_key, slugify  # noqa: E402
from paperkg.build.ingest import read_papers  # noqa: E402
from paperkg.build.text import candidates, document_text  # noqa: E402

GROUPS = Path(__file__).resolve().parents[1] / "tests/data/merge_groups.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=40, help="candidates per paper")
    args = ap.parse_args()
    t = time.perf_counter()
    papers = read_papers([CORPUS]).papers
    extracted = {p.id: [(c.text, 0.5) for c in candidates(document_text(p))[:args.limit]]
                 for p in papers}
    scheme = build_scheme(extracted, papers)
    print(f"{len(papers)} papers, {len(scheme.concepts)} concepts, {len(scheme.merges)} merge "
          f"decisions ({time.perf_counter() - t:.0f} s)")
    labels: dict[str, str] = {}
    for c in sorted(scheme.concepts.values(), key=lambda c: c.paper_count):
        for lab in c.alt_labels:
            labels[lab] = c.id
    for c in sorted(scheme.concepts.values(), key=lambda c: c.paper_count):
        labels[c.pref_label] = c.id
    ids = set(scheme.concepts)

    def resolve(label: str) -> str | None:
        if label in labels:
            return labels[label]
        slug = slugify(concept_key(label))
        return slug if slug in ids else None

    data = json.loads(GROUPS.read_text(encoding="utf-8"))
    where = {lab: resolve(lab) for g in data["groups"] for lab in g}
    where.update({lab: resolve(lab) for pair in data["apart"] for lab in pair})
    same = [(a, b) for g in data["groups"] for a, b in combinations(g, 2)]
    merged = [(a, b) for a, b in same if where[a] is not None and where[a] == where[b]]
    group_of = {lab: i for i, g in enumerate(data["groups"]) for lab in g}
    wrong = [(a, b) for a, b in combinations(list(group_of), 2)
             if group_of[a] != group_of[b] and where[a] is not None and where[a] == where[b]]
    wrong += [(a, b) for a, b in data["apart"] if where[a] is not None and where[a] == where[b]]
    missing = sorted(lab for lab, c in where.items() if c is None)
    print(f"recall: {len(merged)} of {len(same)} same-concept pairs merged "
          f"({100 * len(merged) / len(same):.1f} %); wrong merges: {len(wrong)}")
    for a, b in wrong:
        print(f"  WRONG: {a!r} and {b!r} -> {where[a]}")
    for a, b in [p for p in same if p not in set(merged)][:30]:
        print(f"  not merged: {a!r} -> {where[a]}, {b!r} -> {where[b]}")
    if missing:
        print("  not found:", ", ".join(missing))
    numbered = [c.pref_label for c in scheme.concepts.values()
                if c.pref_label.endswith(")") and c.pref_label.rsplit("(", 1)[-1][:-1].isdigit()]
    print(f"labels with a number suffix: {len(numbered)}")
    print("merges by reason:", {r: sum(1 for m in scheme.merges if r in m.detail) for r in
                                ("head noun", "misspelling", "abbreviation", "defined as")})
    typos = [f"{m.label} -> {scheme.concepts[m.concept_id].pref_label}" for m in scheme.merges
             if "misspelling" in m.detail]
    print("typo merges (first 30):", typos[:30])
    heads = [f"{m.label} -> {scheme.concepts[m.concept_id].pref_label}" for m in scheme.merges
             if "head noun" in m.detail]
    print("head-noun merges (first 30):", heads[:30])


if __name__ == "__main__":
    main()
