"""`paperkg add` / `paperkg remove`: change a KG's papers without rewriting its store.

The KG keeps the papers it was built from (`papers.jsonl.gz`), the corpus statistics its
concepts were ranked under and every paper's ranked concepts (`build.statistics`). By
default an update extracts only the new and changed papers, under those stored
statistics; the other papers keep their stored results. The corpus-wide parts that must
reflect every paper (merge votes, labels, types, broader links, topics, weights) are
recomputed from the per-paper results, and SHACL re-checks the concept scheme and the
papers whose triples changed. The result equals `paperkg build --statistics-from KG_DIR`
of the same papers (a from-scratch build under the same statistics). With
`relearn=True` (`--relearn-statistics`) the statistics are learned again from all papers
and every paper re-ranked: the KG a plain build gives. The store receives only the
difference: its checkpoint (hard links, no copy) gets the removed and the new triples,
and the KG directory is swapped in whole, so a reader sees the old KG or the new one.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from paperkg.build.delta import Delta, plan
from paperkg.build.extraction import extractor_under
from paperkg.build.forked import Forked
from paperkg.build.ingest import Paper, Reject
from paperkg.build.kgfiles import files_beside, paper_files_beside
from paperkg.build.kgreads import KGReads
from paperkg.build.pipeline import (
    Content,
    _validate,
    check_settings,
    compute,
    make_manifest,
    read_inputs,
    write_manifest,
)
from paperkg.build.sources.merge import merge_papers
from paperkg.build.statistics import Epoch, PaperResult, content_key, facts_code
from paperkg.build.storewrite import drop_old_graph, update_store
from paperkg.build.writer import kg_lock, swap_in
from paperkg.errors import BuildError, UsageError
from paperkg.kgdir import REJECTS, read_manifest
from paperkg.progress import Reporter
from paperkg.settings import CONCEPT_SETTINGS, Settings

__all__ = ["kg_settings", "update_kg"]


def update_kg(
    kg: Path,
    add: Sequence[Path] = (),
    remove: Sequence[str] = (),
    settings: Settings | None = None,
    skip_invalid: bool = False,
    reporter: Reporter | None = None,
    relearn: bool = False,
    given: Collection[str] | None = None,
    reads: KGReads | None = None,
) -> dict[str, Any]:
    """Add (or replace, same id) the papers of `add` and remove the ids of `remove`,
    under the KG's stored statistics (or, `relearn`, statistics learned again).

    `given` names the settings the caller chose (the CLI: flags and PAPERKG_* variables);
    the concept settings it does not name are the KG's own. None: all of `settings`.
    `reads`: what a resident process keeps of the KG's files between updates
    (`build.watch`); None reads them.

    Returns the new manifest, with an `update` entry saying what changed.
    """
    settings = settings or Settings()
    rep = reporter or Reporter()
    resident = reads is not None  # a process that makes more updates: it keeps more
    reads = reads or KGReads()
    began = time.perf_counter()
    kg = Path(kg)
    check_settings(settings)
    read_manifest(kg)  # not a KG: say so before leaving a lock file beside it
    with kg_lock(kg, rep.stream):
        manifest = read_manifest(kg)
        settings = _follow(settings, manifest, given, rep)
        check_settings(settings)
        old = {p.id: p for p in reads.papers(kg)}
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
        epoch = None if relearn else reads.epoch(kg)
        stored = reads.results(kg) if epoch is not None else None
        if not relearn and stored is None:
            rep.step(f"{kg} has no stored statistics or results (built by an older "
                     "paperkg): relearning the statistics from all papers")
            epoch = None
        elif epoch is not None and asdict(extractor_under(epoch, settings)[0]) != manifest.get(
                "extractor"):
            rep.step("the extractor differs from the KG's (settings, model or code changed): "
                     "relearning the statistics and ranking every paper again")
            epoch = None
        unchanged: set[str] | None = None
        if epoch is not None and stored is not None:
            keys = {i: content_key(p) for i, p in papers.items()}
            unchanged = {i for i, r in stored.items() if keys.get(i) == r.key}
        tmp = kg.with_name(f".{kg.name}.building-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        early: Forked[None] | None = None
        files: Forked[dict[str, int]] | None = None
        check: Forked[tuple[bool, str, int, str]] | None = None
        try:
            # the papers' own files are written while their concepts are worked out (one
            # core's work), then the other files, the SHACL check and the store's
            # difference side by side; a server's store is written only once SHACL has
            # passed (a graph on a server is not removed with the directory)
            # the KG updated, whose statistics, vectors and term counts the files reuse
            previous = kg if unchanged is not None else None
            early = paper_files_beside(tmp, list(papers.values()), rep, previous, unchanged)
            content, delta = _compute(kg, list(papers.values()), settings, rep, reads,
                                      manifest, epoch, stored, unchanged, old, resident)
            on_server = bool(manifest.get("store"))
            files = files_beside(tmp, content, [*_old_rejects(kg), *rejects], rep,
                                 statistics_of=previous, unchanged=unchanged)
            if delta is not None:
                check = Forked("the SHACL check", _check_changed, content, delta, rep)
                if on_server:
                    content = _verdict(content, check)
            out_n, in_n, triples, store = update_store(
                kg, tmp, content, manifest.get("store"), rep, delta,
                manifest.get("counts", {}).get("triples"))
            if check is not None and not on_server:
                content = _verdict(content, check)
            early.wait()
            early = None
            counts = files.wait()
            files = None
            new = make_manifest(content, settings, rep, began,
                                {**counts, "rejected": manifest["counts"].get("rejected", 0)
                                 + len(rejects), "triples": triples})
            new["inputs"] = manifest.get("inputs", [])
            new["update"] = {
                "at": datetime.now(UTC).isoformat(timespec="seconds"),
                "added": len(new_ids), "changed": len(changed), "removed": len(remove),
                "inputs": [str(p) for p in add],
                "statistics": "relearned" if epoch is None else "stored",
                "triples_removed": out_n, "triples_added": in_n,
            }
            new["updates"] = [*manifest.get("updates", []), new["update"]]
            if store:
                new["store"] = store
            write_manifest(tmp, new)
            swap_in(tmp, kg)
            if resident:
                reads.named(kg)
        finally:
            for child in (early, files, check):
                if child is not None:
                    child.cancel()
            shutil.rmtree(tmp, ignore_errors=True)
        drop_old_graph(manifest.get("store"), store)
    rep.step(f"{kg} updated: {len(new_ids)} added, {len(changed)} changed, {len(remove)} "
             f"removed; {out_n} triples out, {in_n} in")
    return new


def _compute(kg: Path, papers: list[Paper], settings: Settings, rep: Reporter,
             reads: KGReads, manifest: Mapping[str, Any], epoch: Epoch | None,
             stored: Mapping[str, PaperResult] | None, unchanged: set[str] | None,
             old: Mapping[str, Paper], resident: bool) -> tuple[Content, Delta | None]:
    """The new KG's content, and what changed (None: compare everything). With the KG's
    statistics and results (`epoch`, `stored`) only the papers not `unchanged` are
    extracted; without, everything is computed again. `resident`: the concept keys named
    are kept for the process's next update (`build.naming`)."""
    if epoch is None or stored is None or unchanged is None:
        return compute(papers, settings, rep), None
    old_scheme = reads.scheme(kg)
    same_facts = manifest.get("facts_code") == facts_code()
    if not same_facts:
        rep.step("the stored text facts (abbreviations, roles) were read by other "
                 "code: reading them again from every paper's text")
    content = compute(papers, settings, rep, epoch,
                      {i: stored[i].ranked for i in unchanged}, validate=False,
                      facts={i: stored[i].facts for i in unchanged} if same_facts else None,
                      casing=old_scheme.casing if old_scheme else None,
                      cleaned=reads.cleaned, naming=reads.naming(kg) if resident else None)
    if old_scheme is None:
        return replace(content, validated=_validate(
            content.papers, content.scheme, content.info, settings.cache, rep)), None
    return content, plan(old, {i: r.mentions for i, r in stored.items()}, old_scheme,
                         content.papers, content.scheme)


def _check_changed(content: Content, delta: Delta, rep: Reporter
                   ) -> tuple[bool, str, int, str]:
    """SHACL over the changed units (`build.delta`): the concepts, merge decisions,
    topics and fields that changed and the papers whose triples may have (new, changed,
    or with other mentions: a merge decided otherwise); the concepts they link to are
    given by their types. The other triples are the ones validated before.

    (conforms, what was checked, violations, report): run in a child beside the store."""
    from paperkg.build.delta import linked_concepts, sub_scheme
    from paperkg.build.rdf import concept_types, iter_triples
    from paperkg.build.shacl import validate_stream
    from paperkg.vocab import concept_iri

    papers = [p for p in content.papers if p.id in delta.touched]
    mentions = {p.id: content.scheme.mentions.get(p.id, []) for p in papers}
    scheme = sub_scheme(content.scheme, delta.change.concepts, delta.change, mentions)
    # what the changed units link to is checked by its type (its own triples are as
    # they were validated before): topic members, broader concepts, mentioned concepts
    linked = linked_concepts(content.scheme, delta.change,
                             (m.concept_id for ms in mentions.values() for m in ms))
    context = {concept_iri(cid): concept_types(content.scheme.concepts[cid]) for cid in linked}
    what = f"{len(scheme.concepts)} concepts, {len(scheme.topics)} topics, {len(papers)} papers"
    rep.step(f"validating against the SHACL shapes: {what} (the changed ones)")
    report = validate_stream(iter_triples(papers, scheme, content.info,
                                          linked=content.scheme.concepts), context=context)
    return report.conforms, what, report.violations, report.text


def _verdict(content: Content, check: Forked[tuple[bool, str, int, str]]) -> Content:
    conforms, what, violations, text = check.wait()
    if not conforms:
        raise BuildError(f"the updated graph fails SHACL validation ({violations} "
                         f"violation(s)):\n{text}")
    return replace(content, validated=f"conforms (changed units re-checked: {what})")


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


def kg_settings(kg: Path, settings: Settings, given: Collection[str] | None) -> Settings:
    """The settings an update of `kg` runs with (`_follow`), said nowhere: a resident
    process loads their model before its first file."""
    return _follow(settings, read_manifest(kg), given, Reporter(quiet=True))


def _follow(settings: Settings, manifest: Mapping[str, Any], given: Collection[str] | None,
            rep: Reporter) -> Settings:
    """The KG's own concept settings where the caller chose none: an `add` to a KG built
    with `--embedder static` ranks with it, instead of re-ranking every paper with the
    default embedder."""
    if given is None:
        return settings
    # a KG built before the manifest kept its settings recorded its embedder alone
    recorded = manifest.get("settings") or (
        {"embedder": manifest["embedder"]} if "embedder" in manifest else {})
    taken = {n: recorded[n] for n in CONCEPT_SETTINGS
             if n in recorded and n not in given and recorded[n] != getattr(settings, n)}
    if taken:
        rep.step("with the KG's settings: "
                 + ", ".join(f"{n.replace('_', '-')} {v}" for n, v in taken.items()))
    return replace(settings, **taken)
