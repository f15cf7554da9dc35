"""`paperkg add` / `paperkg remove`: change a KG's papers without rewriting its store.

The KG keeps the papers it was built from (`papers.jsonl.gz`). An update takes them, adds
the new and changed papers or drops the removed ones, and recomputes the KG with
`pipeline.compute`: the corpus-wide parts (prior, corpus share, merge votes, weights,
types, broader links, topics) are recomputed from the per-paper results, so the result is
the KG a from-scratch build of the same papers gives. The store receives only the
difference: its checkpoint (hard links, no copy) gets the removed and the new triples,
and the KG directory is swapped in whole, so a reader sees the old KG or the new one.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from paperkg.build.ingest import Paper, Reject
from paperkg.build.pipeline import (
    check_settings,
    compute,
    make_manifest,
    read_inputs,
    write_files,
    write_manifest,
)
from paperkg.build.sources.merge import merge_papers
from paperkg.build.storewrite import drop_old_graph, update_store
from paperkg.build.writer import kg_lock, read_papers_file, swap_in
from paperkg.errors import BuildError, UsageError
from paperkg.kgdir import PAPERS, REJECTS, read_manifest
from paperkg.progress import Reporter
from paperkg.settings import Settings

__all__ = ["update_kg"]


def update_kg(
    kg: Path,
    add: Sequence[Path] = (),
    remove: Sequence[str] = (),
    settings: Settings | None = None,
    skip_invalid: bool = False,
    reporter: Reporter | None = None,
) -> dict[str, Any]:
    """Add (or replace, same id) the papers of `add` and remove the ids of `remove`.

    Returns the new manifest, with an `update` entry saying what changed.
    """
    settings = settings or Settings()
    rep = reporter or Reporter()
    began = time.perf_counter()
    kg = Path(kg)
    check_settings(settings)
    read_manifest(kg)  # not a KG: say so before leaving a lock file beside it
    with kg_lock(kg, rep.stream):
        manifest = read_manifest(kg)
        old = {p.id: p for p in read_papers_file(kg / PAPERS)}
        missing = [i for i in remove if i not in old]
        if missing:
            raise UsageError(f"no paper with id {missing[0]!r} in {kg}"
                             + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
        papers = {i: p for i, p in old.items() if i not in set(remove)}
        incoming: list[Paper] = []
        rejects: list[Reject] = []
        if add:
            result = read_inputs(add, skip_invalid, rep, settings)
            incoming, rejects = result.papers, result.rejects
        papers.update({p.id: p for p in incoming})
        # the same paper from another source (DOI, arXiv id, title + first author) joins
        # the node it already has (issue 13): one node per paper across sources
        papers = {p.id: p for p in merge_papers(list(papers.values()))}
        new_ids = [i for i in papers if i not in old]
        changed = [i for i in papers if i in old and old[i] != papers[i]]
        if not papers:
            raise BuildError(f"this would leave {kg} without papers; nothing changed")
        content = compute(list(papers.values()), settings, rep)
        tmp = kg.with_name(f".{kg.name}.building-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            out_n, in_n, triples, store = update_store(kg, tmp, content,
                                                       manifest.get("store"), rep)
            counts = write_files(tmp, content, [*_old_rejects(kg), *rejects], rep)
            new = make_manifest(content, settings, rep, began,
                                {**counts, "rejected": manifest["counts"].get("rejected", 0)
                                 + len(rejects), "triples": triples})
            new["inputs"] = manifest.get("inputs", [])
            new["update"] = {
                "at": datetime.now(UTC).isoformat(timespec="seconds"),
                "added": len(new_ids), "changed": len(changed), "removed": len(remove),
                "inputs": [str(p) for p in add],
                "triples_removed": out_n, "triples_added": in_n,
            }
            new["updates"] = [*manifest.get("updates", []), new["update"]]
            if store:
                new["store"] = store
            write_manifest(tmp, new)
            swap_in(tmp, kg)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        drop_old_graph(manifest.get("store"), store)
    rep.step(f"{kg} updated: {len(new_ids)} added, {len(changed)} changed, {len(remove)} "
             f"removed; {out_n} triples out, {in_n} in")
    return new


def _old_rejects(kg: Path) -> list[Reject]:
    """Rejects recorded by earlier builds and updates are kept."""
    import json

    path = kg / REJECTS
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        out.append(Reject(row["file"], row["line"], row["reason"], row["record"]))
    return out
