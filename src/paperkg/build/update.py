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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from paperkg.build.ingest import Paper, Reject
from paperkg.build.pipeline import (
    Content,
    check_settings,
    compute,
    kg_triples,
    make_manifest,
    read_inputs,
    write_files,
    write_manifest,
)
from paperkg.build.writer import kg_lock, read_papers_file, swap_in
from paperkg.errors import BuildError, KGNotFound, UsageError
from paperkg.kgdir import PAPERS, REJECTS, STORE, read_manifest
from paperkg.progress import Reporter
from paperkg.settings import Settings
from paperkg.store import ntriples_stream

__all__ = ["Delta", "triple_delta", "update_kg"]


@dataclass(frozen=True, slots=True)
class Delta:
    """The triples to take out of the store and to put in."""

    removed: list[ox.Quad]
    added: list[ox.Quad]


def _plain(q: ox.Quad) -> bool:
    """Blank nodes exist only in the ontology, which an update leaves as it is."""
    return not (isinstance(q.subject, ox.BlankNode) or isinstance(q.object, ox.BlankNode))


def triple_delta(old: Iterable[ox.Quad], content: Content) -> Delta:
    """What changes between the triples `old` and the KG of `content`."""
    new = {q for q in ox.parse(ntriples_stream(kg_triples(content)),
                               format=ox.RdfFormat.N_TRIPLES) if _plain(q)}
    removed: list[ox.Quad] = []
    for q in old:
        if _plain(q) and q not in new:
            removed.append(q)
        new.discard(q)
    return Delta(removed, sorted(new, key=str))


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
        new_ids = [p.id for p in incoming if p.id not in old]
        changed = [p.id for p in incoming if p.id in old and old[p.id] != p]
        papers.update({p.id: p for p in incoming})
        if not papers:
            raise BuildError(f"this would leave {kg} without papers; nothing changed")
        content = compute(list(papers.values()), settings, rep)
        tmp = kg.with_name(f".{kg.name}.building-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            delta = _update_store(kg / STORE, tmp / STORE, content, rep)
            triples = len(ox.Store.read_only(str(tmp / STORE)))
            counts = write_files(tmp, content, [*_old_rejects(kg), *rejects], rep)
            new = make_manifest(content, settings, rep, began,
                                {**counts, "rejected": manifest["counts"].get("rejected", 0)
                                 + len(rejects), "triples": triples})
            new["inputs"] = manifest.get("inputs", [])
            new["update"] = {
                "at": datetime.now(UTC).isoformat(timespec="seconds"),
                "added": len(new_ids), "changed": len(changed), "removed": len(remove),
                "inputs": [str(p) for p in add],
                "triples_removed": len(delta.removed), "triples_added": len(delta.added),
            }
            new["updates"] = [*manifest.get("updates", []), new["update"]]
            write_manifest(tmp, new)
            swap_in(tmp, kg)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    rep.step(f"{kg} updated: {len(new_ids)} added, {len(changed)} changed, {len(remove)} "
             f"removed; {len(delta.removed)} triples out, {len(delta.added)} in")
    return new


def _update_store(current: Path, target: Path, content: Content, rep: Reporter) -> Delta:
    """A checkpoint of the store at `target`, with the difference applied."""
    try:
        source = ox.Store.read_only(str(current))
    except OSError as err:
        raise KGNotFound(f"{current}: cannot open the store ({err}); rebuild the KG") from None
    rep.step("checkpointing the store (hard links) and computing the difference")
    source.backup(str(target))
    store = ox.Store(str(target))
    delta = triple_delta(store.quads_for_pattern(None, None, None, ox.DefaultGraph()), content)
    rep.step(f"writing the difference: {len(delta.removed)} triples out, "
             f"{len(delta.added)} in")
    for q in delta.removed:
        store.remove(q)
    store.extend(delta.added)
    store.flush()
    del store
    return delta


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
