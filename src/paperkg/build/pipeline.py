"""The build pipeline end to end: read, extract, canonicalise, write the KG directory, swap in.

A build writes everything into a temporary sibling directory and renames it into place
only once the graph is complete and has passed SHACL, so a failed or interrupted build
leaves the previous KG untouched.
The directory's layout is `paperkg.kgdir`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

from paperkg.build.canon import ConceptScheme
from paperkg.build.embed import Embedder
from paperkg.build.extract import ExtractorInfo
from paperkg.build.ingest import Paper, Reject, read_papers
from paperkg.build.prior import KeywordPrior
from paperkg.errors import BuildError, IngestError
from paperkg.kgdir import DOC_VECTORS, GRAPH, MANIFEST, MERGES, REJECTS, STORE, save_graph
from paperkg.progress import Reporter
from paperkg.settings import Settings
from paperkg.store import OxigraphStore
from paperkg.vocab import CONCEPT_TYPES

__all__ = ["build_kg", "keyword_prior"]


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


def build_kg(
    inputs: Sequence[Path],
    out: Path,
    settings: Settings,
    skip_invalid: bool = False,
    reporter: Reporter | None = None,
) -> dict[str, Any]:
    """Ingest, extract, canonicalise, build RDF + NetworkX, validate, store, swap in.

    Returns the manifest. Raises IngestError (bad input, nothing written) or BuildError.
    """
    from paperkg.build.canon import build_scheme
    from paperkg.build.graph import build_nx
    from paperkg.build.rdf import iter_triples, load_ontology

    rep = reporter or Reporter()
    began = time.perf_counter()
    rep.step(f"reading {len(inputs)} input file(s)")
    result = read_papers(inputs)
    if result.rejects and not skip_invalid:
        raise IngestError(result.rejects[0], more=len(result.rejects) - 1)
    if not result.papers:
        raise BuildError("no valid papers in the input: nothing to build")
    papers = result.papers
    rep.step(f"{len(papers)} papers, {len(result.rejects)} rejected")

    info, extracted, embedder = _extract(papers, settings, rep)
    rep.step("canonicalising concepts")
    scheme = build_scheme(extracted, papers)
    rep.step(f"{len(scheme.concepts)} concepts")
    validated = _validate(papers, scheme, info, settings.cache, rep)

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.building-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        rep.step("writing the Oxigraph store (the KG and its ontology)")
        store = OxigraphStore.create(
            tmp / STORE, itertools.chain(iter_triples(papers, scheme, info), load_ontology())
        )
        triples = store.triple_count()
        store.close()
        rep.step("writing the NetworkX graph")
        g = build_nx(papers, scheme)
        save_graph(g, tmp / GRAPH)
        if result.rejects:
            _write_rejects(tmp / REJECTS, result.rejects)
        _write_merges(tmp / MERGES, scheme)
        rep.step("writing the abstract vectors (for blended related-paper ranking)")
        _write_doc_vectors(tmp / DOC_VECTORS, papers, embedder)
        rep.close()
        manifest = {
            "paperkg_version": _package_version(),
            "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "inputs": [{"path": str(p), "sha256": _sha256(Path(p))} for p in inputs],
            "counts": {
                "papers": len(papers),
                "rejected": len(result.rejects),
                "concepts": len(scheme.concepts),
                "mentions": sum(len(v) for v in scheme.mentions.values()),
                "merges": len(scheme.merges),
                "topics": len(scheme.topics),
                "typed_concepts": {k: sum(1 for c in scheme.concepts.values() if c.kind == k)
                                   for k in CONCEPT_TYPES},
                "triples": triples,
                "nx_nodes": g.number_of_nodes(),
                "nx_edges": g.number_of_edges(),
            },
            "extractor": asdict(info),
            "embedder": settings.embedder,
            "shacl": validated,
            "timings_s": {k: round(v, 2) for k, v in rep.timings.items()},
            "build_seconds": round(time.perf_counter() - began, 2),
        }
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        _swap(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rep.step(f"KG written to {out}")
    return manifest


def _extract(
    papers: Sequence[Paper], settings: Settings, rep: Reporter
) -> tuple[ExtractorInfo, dict[str, list[tuple[str, float]]], Embedder]:
    """Ranked concepts per paper; papers whose text was extracted before come from the cache."""
    from paperkg.build.embed import make_embedder
    from paperkg.build.extract import ExtractionCache, ExtractSettings, extract_concepts
    embedder = make_embedder(settings.embedder, settings.cache)
    ext = ExtractSettings(top_n=settings.top_n, diversity=settings.diversity)
    prior = keyword_prior(papers, settings, rep)
    info = ext.info(embedder.name, prior)
    cache = ExtractionCache(settings.cache, info) if settings.cache else None
    hits, todo = cache.split(papers) if cache else ({}, list(papers))
    rep.step(f"extracting concepts: {len(todo)} papers to do, {len(hits)} from the cache")
    fresh = extract_concepts(todo, embedder, ext, rep.stage, prior) if todo else {}
    if cache and todo:
        cache.add(todo, fresh)
    return info, {p.id: hits[p.id] if p.id in hits else fresh[p.id] for p in papers}, embedder


def keyword_prior(
    papers: Sequence[Paper], settings: Settings, rep: Reporter
) -> KeywordPrior | None:
    """The keyword prior learned from these papers' author keywords (cached), or None
    when none of them has keywords."""
    from paperkg.build.prior import cached_prior
    from paperkg.build.text import document_text

    n_kw = sum(1 for p in papers if p.keywords)
    if not n_kw:
        return None
    rep.step(f"learning the keyword prior from the author keywords of {n_kw} papers")
    return cached_prior(papers, document_text, settings.cache, rep.stage("keyword prior", n_kw))


def _validate(
    papers: Sequence[Paper], scheme: ConceptScheme, info: ExtractorInfo,
    cache_dir: Path | None, rep: Reporter,
) -> str:
    """SHACL-validate the graph; a graph validated before (same content) is not re-checked.

    The key hashes everything the triples are made from (papers, concepts, mentions,
    extractor) plus the shapes, the ontology and the code that writes the triples, so a
    hit means the very same graph passed before.
    """
    from paperkg import vocab
    from paperkg.build import rdf, text

    h = hashlib.sha256()
    for part in (papers, sorted(scheme.concepts.items()), sorted(scheme.mentions.items()),
                 scheme.merges, scheme.topics, info):
        h.update(repr(part).encode())
    for f in (rdf.__file__, vocab.__file__, text.__file__, rdf.ontology_path("shapes.ttl"),
              rdf.ontology_path("paperkg.ttl")):
        h.update(Path(str(f)).read_bytes())
    marker = cache_dir / "validated" / h.hexdigest() if cache_dir else None
    if marker is not None and marker.is_file():
        rep.step("SHACL: this exact graph passed validation before; not re-checked")
        return f"conforms (cached {marker.name[:12]})"
    rep.step("building the RDF graph")
    graph = rdf.build_graph(papers, scheme, info)
    rep.step(f"validating {len(graph)} triples against the SHACL shapes")
    report = rdf.validate(graph)
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


def _swap(tmp: Path, out: Path) -> None:
    """Put the new KG in place: two renames, the old one removed only after."""
    if out.exists() and not (out / MANIFEST).is_file():
        raise BuildError(f"{out} exists and is not a paperkg KG directory; refusing to replace it")
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    if out.exists():
        out.rename(old)
    tmp.rename(out)
    shutil.rmtree(old, ignore_errors=True)
