"""Merging against a hand-checked list of variant groups (tests/data/merge_groups.json).

    python bench/bench_merge.py --kg KG_DIR

Each label is looked up the way `paperkg.read.questions.resolve_node` does: as a concept's
prefLabel, else an altLabel (the concept more papers mention, if several), else by its
merge key's concept id. Then, over label
pairs: recall = pairs of the same group that land on one concept; wrong merges = pairs of
different groups, or listed "apart" pairs, that land on one concept. Labels found nowhere
count as not merged, and are listed.
"""

from __future__ import annotations

import argparse
import json
from itertools import combinations
from pathlib import Path

from paperkg.build.canon import concept_key, slugify
from paperkg.read.kg import open_kg

GROUPS = Path(__file__).resolve().parents[1] / "tests/data/merge_groups.json"


def label_index(kg_dir: Path) -> dict[str, str]:
    """Every prefLabel and altLabel of the KG → concept id."""
    kg = open_kg(kg_dir)
    res = kg.sparql("""SELECT ?c ?l WHERE { ?c a skos:Concept ; pkg:paperCount ?n .
        { ?c skos:prefLabel ?l BIND(0 AS ?alt) } UNION { ?c skos:altLabel ?l BIND(1 AS ?alt) }
        } ORDER BY DESC(?alt) ?n""")
    # later rows win: a prefLabel over an altLabel, then the concept with more papers
    return {row[1].value: row[0].value.rsplit("/", 1)[-1] for row in res.rows
            if row[0] is not None and row[1] is not None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kg", type=Path, required=True)
    args = ap.parse_args()
    data = json.loads(GROUPS.read_text(encoding="utf-8"))
    labels = label_index(args.kg)
    ids = set(labels.values())

    def resolve(label: str) -> str | None:
        if label in labels:
            return labels[label]
        slug = slugify(concept_key(label))
        return slug if slug in ids else None

    where = {lab: resolve(lab) for g in data["groups"] for lab in g}
    where.update({lab: resolve(lab) for pair in data["apart"] for lab in pair})
    missing = sorted(lab for lab, c in where.items() if c is None)
    same = [(a, b) for g in data["groups"] for a, b in combinations(g, 2)]
    merged = [(a, b) for a, b in same if where[a] is not None and where[a] == where[b]]
    group_of = {lab: i for i, g in enumerate(data["groups"]) for lab in g}
    cross = [(a, b) for a, b in combinations(list(group_of), 2)
             if group_of[a] != group_of[b] and where[a] is not None and where[a] == where[b]]
    apart = [(a, b) for a, b in data["apart"] if where[a] is not None and where[a] == where[b]]
    wrong = cross + apart
    judged_pairs = len(same) + len(data["apart"]) + sum(
        1 for a, b in combinations(list(group_of), 2) if group_of[a] != group_of[b])
    print(f"{len(data['groups'])} groups, {len(group_of)} labels, {len(data['apart'])} "
          f"pairs that must stay apart; KG {args.kg}")
    print(f"labels found in the KG: {len(where) - len(missing)} of {len(where)}")
    print(f"recall: {len(merged)} of {len(same)} same-concept pairs merged "
          f"({100 * len(merged) / len(same):.1f} %)")
    print(f"wrong merges: {len(wrong)} of {judged_pairs} different-concept pairs "
          f"(precision {100 * len(merged) / max(len(merged) + len(wrong), 1):.1f} %)")
    for a, b in wrong:
        print(f"  WRONG: {a!r} and {b!r} -> {where[a]}")
    unmerged = [(a, b) for a, b in same if (a, b) not in set(merged)]
    for a, b in unmerged[:40]:
        print(f"  not merged: {a!r} -> {where[a]}, {b!r} -> {where[b]}")
    if missing:
        print("  not in the KG at all:", ", ".join(missing))


if __name__ == "__main__":
    main()
