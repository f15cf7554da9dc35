"""Writing a KG directory's files: everything but the store and the manifest.

`build_kg` writes them all; an update (`build.update`) writes them again for the new
papers, linking what did not change (the statistics file of the epoch) and copying the
abstract vectors and term counts of unchanged papers instead of computing them again.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from paperkg.build.canon import ConceptScheme
from paperkg.build.forked import Forked
from paperkg.build.gcpause import paused_gc
from paperkg.build.ingest import Paper, Reject
from paperkg.build.statistics import Epoch, save_epoch, write_results
from paperkg.build.writer import write_papers_file
from paperkg.kgdir import (
    DOC_VECTORS,
    GRAPH,
    MERGES,
    PAPERS,
    RANKED,
    REJECTS,
    SCHEME,
    STATISTICS,
    TERMS,
)
from paperkg.progress import Reporter

if TYPE_CHECKING:
    from paperkg.build.pipeline import Content

__all__ = ["files_beside", "paper_files_beside", "write_files", "write_terms"]


@paused_gc()
def write_files(
    target: Path, content: Content, rejects: Sequence[Reject], rep: Reporter,
    statistics_of: Path | None = None, unchanged: Collection[str] | None = None,
    terms: bool = True,
) -> dict[str, int]:
    """Everything of a KG directory but the store and the manifest; returns counts.

    `statistics_of`: the KG directory being updated, whose statistics file is
    `content.epoch`'s (linked, not written again); `unchanged`: the ids of its papers
    whose text is the same (their abstract vectors are copied from it). `terms=False`:
    the term counts are written already (`write_terms`)."""
    vectors = _doc_vectors(content, statistics_of, unchanged)
    return _write(target, content, rejects, rep, statistics_of, unchanged, vectors, terms)


def write_terms(target: Path, papers: Sequence[Paper],
                previous: tuple[Path, Collection[str]] | None = None) -> None:
    """Each paper's term counts (`lexical.write_term_counts`), in id order as the KG's
    papers are; `previous`: the KG directory updated and the ids of its papers whose text
    is unchanged. A build writes them before anything else, while the process is small:
    their scratch (750k terms, 10M counts: 250 MB at 46k papers) was the peak of a large
    build when it came last."""
    from paperkg.lexical import write_term_counts  # scipy: not in an update's main process

    ordered = sorted(papers, key=lambda p: p.id)
    write_term_counts(target / TERMS, [p.id for p in ordered],
                      (f"{p.title or ''}. {p.abstract}" for p in ordered),
                      None if previous is None else (previous[0] / TERMS, previous[1]))


def paper_files_beside(target: Path, papers: Sequence[Paper], rep: Reporter,
                       statistics_of: Path | None = None,
                       unchanged: Collection[str] | None = None) -> Forked[None]:
    """The files made of the papers alone (the papers, their term counts), written in a
    forked process while an update extracts and canonicalises: that is one core's work,
    and these were a second of the files written after it. `files_beside` then writes
    the rest."""
    rep.step("writing the papers and their term counts (a second process)")
    return Forked("writing the papers", _write_papers, target, papers, statistics_of,
                  unchanged)


@paused_gc()
def _write_papers(target: Path, papers: Sequence[Paper], statistics_of: Path | None,
                  unchanged: Collection[str] | None, terms: bool = True) -> None:
    if terms:
        write_terms(target, papers, (statistics_of, unchanged)
                    if statistics_of and unchanged is not None else None)
    write_papers_file(target / PAPERS, sorted(papers, key=lambda p: p.id))


def files_beside(target: Path, content: Content, rejects: Sequence[Reject], rep: Reporter,
                 statistics_of: Path | None = None, unchanged: Collection[str] | None = None,
                 ) -> Forked[dict[str, int]]:
    """`write_files` but the papers and their term counts (`paper_files_beside` writes
    those), in a forked process (`build.forked`), so that an update writes its files while
    it checks SHACL and writes the store. The abstract vectors are made here first: an
    embedder's model must not run in a forked child."""
    vectors = _doc_vectors(content, statistics_of, unchanged)
    rep.step("writing the NetworkX graph and the abstract vectors (a second process)")
    return Forked("writing the KG files", _write, target, content, rejects, rep,
                  statistics_of, unchanged, vectors, False, False)


@paused_gc()
def _write(target: Path, content: Content, rejects: Sequence[Reject], rep: Reporter,
           statistics_of: Path | None, unchanged: Collection[str] | None,
           vectors: np.ndarray, terms: bool = True, papers: bool = True) -> dict[str, int]:
    from paperkg.build.delta import save_scheme
    from paperkg.build.graph import write_graph

    _write_epoch(target, content.epoch, statistics_of)
    write_results(target / RANKED, content.papers, content.ranked, content.scheme.mentions,
                  content.facts, content.keys)
    save_scheme(target / SCHEME, content.scheme)

    rep.step("writing the NetworkX graph")
    nodes, links = write_graph(content.papers, content.scheme, target / GRAPH)
    if rejects:
        _write_rejects(target / REJECTS, rejects)
    _write_merges(target / MERGES, content.scheme)
    rep.step("writing the abstract vectors" + (" and the papers" if papers else ""))
    # uncompressed: float16 vectors shrink by a tenth and compressing took 0.25 s of
    # every update
    np.savez(target / DOC_VECTORS, ids=np.array([p.id for p in content.papers]),
             vectors=vectors, model=np.array(content.embedder.name))
    if papers:
        _write_papers(target, content.papers, statistics_of, unchanged, terms)
    return {"nx_nodes": nodes, "nx_edges": links}


def _write_epoch(target: Path, epoch: Epoch, statistics_of: Path | None) -> None:
    if statistics_of is not None and (statistics_of / STATISTICS).is_file():
        try:
            os.link(statistics_of / STATISTICS, target / STATISTICS)
            return
        except OSError:  # another file system: copy
            shutil.copyfile(statistics_of / STATISTICS, target / STATISTICS)
            return
    save_epoch(target, epoch)


def _doc_vectors(content: Content, statistics_of: Path | None,
                 unchanged: Collection[str] | None) -> np.ndarray:
    """Each paper's abstract vector (the extractor's own, from its cache), float16, in
    the papers' order. In an update (`statistics_of`, `unchanged`) the vectors of papers
    whose text is unchanged are taken from the old file, not encoded again."""
    from paperkg.build.text import document_text

    papers, embedder = content.papers, content.embedder
    kept: dict[str, np.ndarray] = {}
    old_file = statistics_of / DOC_VECTORS if statistics_of else None
    if old_file is not None and unchanged is not None and old_file.is_file():
        with np.load(old_file) as old:
            if str(old["model"]) == embedder.name:
                kept = {i: v for i, v in zip(old["ids"].tolist(), old["vectors"], strict=True)
                        if i in unchanged}
    todo = [p for p in papers if p.id not in kept]
    fresh = (embedder.encode([document_text(p) for p in todo]).astype(np.float16) if todo
             else np.zeros((0, 0), dtype=np.float16))
    if not kept:  # a build: no stacked copy (the vectors of a 46k-paper corpus are 35 MB)
        return fresh
    vectors = np.empty((len(papers), len(next(iter(kept.values())))), dtype=np.float16)
    rows = iter(fresh)
    for i, p in enumerate(papers):
        vectors[i] = kept[p.id] if p.id in kept else next(rows)
    return vectors


def _write_merges(path: Path, scheme: ConceptScheme) -> None:
    """Every merge decision, one JSON object a line: what was merged where, and why."""
    with path.open("w", encoding="utf-8") as fh:
        for m in scheme.merges:
            row = {"label": m.label, "concept": m.concept_id,
                   "pref_label": scheme.concepts[m.concept_id].pref_label,
                   "rule": m.rule, "why": m.detail, "paper": m.paper_id}
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def _write_rejects(path: Path, rejects: Sequence[Reject]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for r in rejects:
            row = {"file": r.path, "line": r.line, "reason": r.reason, "record": r.raw}
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
