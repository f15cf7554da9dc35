"""The build pipeline end to end: read, extract, canonicalise, write the KG directory, swap in.

`compute` turns a set of papers into everything a KG is made of; it is a function of the
papers and the settings only (papers are taken in id order, the corpus statistics always
cover all of them, caches only save work). `build_kg` writes that into a new directory;
`build.update` (add/remove) writes only the difference. The directory's layout is
`paperkg.kgdir`; writing it safely (lock, swap) is `build.writer`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

from paperkg.build.canon import ConceptScheme
from paperkg.build.embed import Embedder
from paperkg.build.extract import ExtractorInfo, ExtractSettings
from paperkg.build.ingest import IngestResult, Paper, Reject, read_papers
from paperkg.build.prior import KeywordPrior
from paperkg.build.writer import check_target, kg_lock, swap_in, write_papers_file
from paperkg.errors import BuildError, IngestError, UsageError
from paperkg.kgdir import DOC_VECTORS, GRAPH, MANIFEST, MERGES, PAPERS, REJECTS, TERMS, save_graph
from paperkg.lexical import write_term_counts
from paperkg.progress import Reporter
from paperkg.settings import Settings
from paperkg.vocab import CONCEPT_TYPES

__all__ = ["Content", "build_kg", "check_settings", "compute", "extract_papers",
           "keyword_prior", "kg_triples", "read_inputs", "write_files"]

Ranked = list[tuple[str, float]]


@dataclass(frozen=True, slots=True)
class Content:
    """Everything a KG is made of, computed from its papers (in id order)."""

    papers: list[Paper]
    info: ExtractorInfo
    scheme: ConceptScheme
    embedder: Embedder
    validated: str


def _package_version() -> str:
    try:
        return version("paperkg")
    except PackageNotFoundError:
        return "0+unknown"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_settings(settings: Settings) -> None:
    """Refuse extraction settings that cannot mean anything, before any work."""
    if settings.top_n < 1:
        raise UsageError(f"--top-n {settings.top_n}: keep at least 1 concept per paper")
    if not 0.0 <= settings.diversity <= 1.0:
        raise UsageError(f"--diversity {settings.diversity}: must be between 0 and 1")
    if settings.on_cluster:  # an unreachable scheduler fails here, before any work
        from paperkg.build.distributed import check_cluster
        check_cluster(settings)


def read_inputs(inputs: Sequence[Path], skip_invalid: bool, rep: Reporter,
                settings: Settings | None = None) -> IngestResult:
    rep.step(f"reading {len(inputs)} input file(s)")
    try:
        result = read_papers(inputs, settings.input_format if settings else None,
                             settings.columns if settings else None)
    except FileNotFoundError as err:
        raise UsageError(str(err)) from None
    if result.rejects and not skip_invalid:
        raise IngestError(result.rejects[0], more=len(result.rejects) - 1)
    rep.step(f"{len(result.papers)} papers, {len(result.rejects)} rejected")
    return result


def build_kg(
    inputs: Sequence[Path],
    out: Path,
    settings: Settings,
    skip_invalid: bool = False,
    reporter: Reporter | None = None,
) -> dict[str, Any]:
    """Ingest, extract, canonicalise, build RDF + NetworkX, validate, store, swap in.

    Returns the manifest. Raises IngestError (bad input, nothing written), UsageError or
    BuildError; the KG at `out` (if any) is left as it was on any error.
    """
    from paperkg.build.storewrite import create_store, drop_old_graph

    rep = reporter or Reporter()
    began = time.perf_counter()
    out = Path(out)
    check_settings(settings)
    check_target(out)
    with kg_lock(out, rep.stream):
        result = read_inputs(inputs, skip_invalid, rep, settings)
        if not result.papers:
            raise BuildError(_nothing_to_build(inputs, result.rejects))
        content = compute(result.papers, settings, rep)
        tmp = out.with_name(f".{out.name}.building-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            triples, store = create_store(tmp, content, settings.store, out.name, rep)
            counts = write_files(tmp, content, result.rejects, rep)
            manifest = make_manifest(content, settings, rep, began, {**counts,
                                     "rejected": len(result.rejects), "triples": triples})
            manifest["inputs"] = [{"path": str(p), "sha256": _sha256(Path(p))} for p in inputs]
            if store:
                manifest["store"] = store
            old = _old_store(out)
            write_manifest(tmp, manifest)
            swap_in(tmp, out)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        drop_old_graph(old, store)
    rep.step(f"KG written to {out}")
    return manifest


def _old_store(out: Path) -> dict[str, Any] | None:
    """The "store" entry of the KG being replaced (its server graph goes after the swap)."""
    try:
        entry = json.loads((out / MANIFEST).read_text(encoding="utf-8")).get("store")
    except (OSError, ValueError, AttributeError):
        return None
    return entry if isinstance(entry, dict) else None


def _nothing_to_build(inputs: Sequence[Path], rejects: Sequence[Reject]) -> str:
    """Why there is nothing to build, naming the file(s)."""
    empty = [str(p) for p in inputs if Path(p).stat().st_size == 0]
    if empty:
        return f"{empty[0]} is empty: nothing to build" + (
            f" (and {len(empty) - 1} more empty file(s))" if len(empty) > 1 else "")
    named = ", ".join(str(p) for p in inputs[:3]) + (" …" if len(inputs) > 3 else "")
    why = f": all {len(rejects)} record(s) rejected, e.g. {rejects[0]}" if rejects else (
        ": no records found")
    return f"no valid papers in {named}{why}; nothing to build"


def compute(papers: Sequence[Paper], settings: Settings, rep: Reporter) -> Content:
    """Extract, canonicalise and validate: what the KG of `papers` is made of."""
    from paperkg.build.canon import build_scheme

    ordered = sorted(papers, key=lambda p: p.id)
    info, extracted, embedder = _extract(ordered, settings, rep)
    rep.step("canonicalising concepts")
    scheme = build_scheme(extracted, ordered)
    rep.step(f"{len(scheme.concepts)} concepts")
    validated = _validate(ordered, scheme, info, settings.cache, rep)
    return Content(ordered, info, scheme, embedder, validated)


def kg_triples(content: Content) -> Iterator[Any]:
    """Every triple of the KG: the papers' and the concepts', then the ontology's."""
    from paperkg.build.rdf import iter_triples, load_ontology

    yield from iter_triples(content.papers, content.scheme, content.info)
    yield from load_ontology()


def write_files(
    target: Path, content: Content, rejects: Sequence[Reject], rep: Reporter
) -> dict[str, int]:
    """Everything of a KG directory but the store and the manifest; returns counts."""
    from paperkg.build.graph import build_nx

    rep.step("writing the NetworkX graph")
    g = build_nx(content.papers, content.scheme)
    save_graph(g, target / GRAPH)
    if rejects:
        _write_rejects(target / REJECTS, rejects)
    _write_merges(target / MERGES, content.scheme)
    rep.step("writing the abstract vectors and the papers")
    _write_doc_vectors(target / DOC_VECTORS, content.papers, content.embedder)
    write_term_counts(target / TERMS, [p.id for p in content.papers],
                      [f"{p.title or ''}. {p.abstract}" for p in content.papers])
    write_papers_file(target / PAPERS, content.papers)
    return {"nx_nodes": g.number_of_nodes(), "nx_edges": g.number_of_edges()}


def make_manifest(
    content: Content, settings: Settings, rep: Reporter, began: float, counts: Mapping[str, int]
) -> dict[str, Any]:
    scheme = content.scheme
    rep.close()
    return {
        "paperkg_version": _package_version(),
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "counts": {
            "papers": len(content.papers),
            "rejected": counts.get("rejected", 0),
            "concepts": len(scheme.concepts),
            "mentions": sum(len(v) for v in scheme.mentions.values()),
            "merges": len(scheme.merges),
            "topics": len(scheme.topics),
            "typed_concepts": {k: sum(1 for c in scheme.concepts.values() if c.kind == k)
                               for k in CONCEPT_TYPES},
            "triples": counts["triples"],
            "nx_nodes": counts["nx_nodes"],
            "nx_edges": counts["nx_edges"],
        },
        "extractor": asdict(content.info),
        "embedder": settings.embedder,
        "shacl": content.validated,
        "timings_s": {k: round(v, 2) for k, v in rep.timings.items()},
        "build_seconds": round(time.perf_counter() - began, 2),
    }


def write_manifest(target: Path, manifest: Mapping[str, Any]) -> None:
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def _extract(
    papers: Sequence[Paper], settings: Settings, rep: Reporter
) -> tuple[ExtractorInfo, dict[str, Ranked], Embedder]:
    """Ranked concepts per paper; papers whose text was extracted before (under the same
    corpus statistics) come from the cache."""
    from paperkg.build.cache import ExtractionCache
    from paperkg.build.corpus import corpus_stats
    from paperkg.build.embed import make_embedder

    embedder = make_embedder(settings.embedder, settings.cache)
    ext = ExtractSettings(top_n=settings.top_n, diversity=settings.diversity,
                          extractor=settings.extractor)
    prior = keyword_prior(papers, settings, rep)
    rep.step("counting the corpus share of every candidate phrase")
    stats = corpus_stats(papers, prior, ext.max_words)
    info = ext.info(embedder.name, prior)
    info = replace(info, params={**info.params,
                                 "corpus": f"{len(papers)} papers, {stats.fingerprint}"})
    cache = ExtractionCache(settings.cache, info) if settings.cache else None
    hits, todo = cache.split(papers) if cache else ({}, list(papers))
    rep.step(f"extracting concepts: {len(todo)} papers to do, {len(hits)} from the cache")
    if todo and settings.on_cluster:  # the same step, on Dask workers
        from paperkg.build.distributed import extract_on_cluster
        fresh, embedder = extract_on_cluster(todo, embedder, ext, stats, rep, settings)
    else:
        fresh = extract_papers(todo, embedder, ext, stats, rep) if todo else {}
    if cache and todo:
        cache.add(todo, fresh)
    return info, {p.id: hits[p.id] if p.id in hits else fresh[p.id] for p in papers}, embedder


def extract_papers(
    todo: Sequence[Paper], embedder: Embedder, ext: ExtractSettings, stats: Any, rep: Reporter
) -> dict[str, Ranked]:
    """The per-paper step: papers in, ranked concepts per paper id out. Each result depends
    on its paper, the settings, the model and the corpus `stats` only, so any split of
    `todo` (cache misses, a worker's share) gives the same results."""
    from paperkg.build.extract import extract_concepts

    return extract_concepts(todo, embedder, ext, rep.stage, stats.prior, stats.share)


def keyword_prior(
    papers: Sequence[Paper], settings: Settings, rep: Reporter
) -> KeywordPrior | None:
    """The keyword prior (`prior.choose_prior`): these papers' own when enough of them have
    author keywords, else the packaged ICLR 2025 statistics (unless turned off), else None."""
    from paperkg.build.prior import choose_prior
    from paperkg.build.text import document_text

    n_kw = sum(1 for p in papers if p.keywords)
    prior = choose_prior(papers, document_text, settings.cache, not settings.no_packaged_prior,
                         rep.stage("keyword prior", n_kw))
    rep.step(f"keyword prior: {prior.source} ({prior.papers} papers)" if prior else
             "keyword prior: none (ranking without keyword statistics)")
    return prior


def _validate(
    papers: Sequence[Paper], scheme: ConceptScheme, info: ExtractorInfo,
    cache_dir: Path | None, rep: Reporter,
) -> str:
    """SHACL-validate the KG as it streams (`build.shacl`); a KG validated before (same
    content) is not re-checked.

    The key hashes everything the triples are made from (papers, concepts, mentions,
    extractor) plus the shapes, the ontology and the code that writes the triples, so a
    hit means the very same graph passed before.
    """
    from paperkg.build import rdf
    from paperkg.build.fingerprint import source_fingerprint

    h = hashlib.sha256(source_fingerprint("paperkg.build.rdf", "paperkg.build.shacl").encode())
    for part in (papers, sorted(scheme.concepts.items()), sorted(scheme.mentions.items()),
                 scheme.merges, scheme.topics, info):
        h.update(repr(part).encode())
    for f in (rdf.ontology_path("shapes.ttl"), rdf.ontology_path("paperkg.ttl")):
        h.update(Path(str(f)).read_bytes())
    marker = cache_dir / "validated" / h.hexdigest() if cache_dir else None
    if marker is not None and marker.is_file():
        rep.step("SHACL: this exact graph passed validation before; not re-checked")
        return f"conforms (cached {marker.name[:12]})"
    from paperkg.build.shacl import validate_stream

    rep.step("validating the triples against the SHACL shapes (paper batches, then the "
             "concept scheme)")
    report = validate_stream(rdf.iter_triples(papers, scheme, info))
    if not report.conforms:
        raise BuildError(f"the built graph fails SHACL validation ({report.violations} "
                         f"violation(s)):\n{report.text}")
    if marker is not None:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(datetime.now(UTC).isoformat() + "\n", encoding="utf-8")
    return "conforms"


def _write_doc_vectors(path: Path, papers: Sequence[Paper], embedder: Embedder) -> None:
    """Each paper's abstract vector (the extractor's own, from its cache), float16."""
    from paperkg.build.text import document_text

    vectors = embedder.encode([document_text(p) for p in papers])
    np.savez_compressed(path, ids=np.array([p.id for p in papers]),
                        vectors=vectors.astype(np.float16), model=np.array(embedder.name))


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
