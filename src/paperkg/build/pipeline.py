"""The build pipeline end to end: read, extract, canonicalise, write the KG directory, swap in.

`compute` turns a set of papers into everything a KG is made of; it is a function of the
papers, the settings and the corpus statistics only (papers are taken in id order, caches
only save work). A plain build learns the statistics from all its papers; with an `Epoch`
(`build.statistics`: stored in a KG directory, `--statistics-from KG_DIR`) every paper is
extracted under those instead, which is what `paperkg add` equals. `build_kg` writes that
into a new directory; `build.update` (add/remove) writes only the difference. The
directory's layout is `paperkg.kgdir`; writing it safely (lock, swap) is `build.writer`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperkg.build.canon import ConceptScheme, TextFacts
from paperkg.build.embed import Embedder
from paperkg.build.extract import ExtractorInfo, ExtractSettings
from paperkg.build.extraction import Ranked, _extract, _extract_under
from paperkg.build.gcpause import paused_gc
from paperkg.build.ingest import IngestResult, Paper, Reject, read_papers
from paperkg.build.statistics import (
    Epoch,
    content_key,
    facts_code,
    load_epoch,
    statistics_entry,
)
from paperkg.build.writer import check_target, kg_lock, swap_in
from paperkg.errors import BuildError, IngestError, UsageError
from paperkg.kgdir import (
    MANIFEST,
    STATISTICS,
)
from paperkg.memo import remembered
from paperkg.progress import Reporter
from paperkg.settings import CONCEPT_SETTINGS, Settings
from paperkg.vocab import CONCEPT_TYPES

if TYPE_CHECKING:
    from paperkg.build.naming import NamingMemo

__all__ = ["Content", "build_kg", "check_settings", "compute", "kg_triples", "read_inputs"]


@dataclass(frozen=True, slots=True)
class Content:
    """Everything a KG is made of, computed from its papers (in id order) under the
    statistics of `epoch`; `ranked` is each paper's extraction result."""

    papers: list[Paper]
    info: ExtractorInfo
    scheme: ConceptScheme
    embedder: Embedder
    validated: str
    epoch: Epoch
    ranked: dict[str, Ranked]
    facts: dict[str, TextFacts]
    keys: dict[str, str]  # content keys by paper id (`statistics.content_key`)


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
    if settings.min_score is not None and not 0.0 <= settings.min_score <= 1.0:
        raise UsageError(f"--min-score {settings.min_score}: a probability, between 0 and 1")
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
    from paperkg.build.kgfiles import write_files, write_terms
    from paperkg.build.storewrite import create_store, drop_old_graph

    rep = reporter or Reporter()
    began = time.perf_counter()
    out = Path(out)
    check_settings(settings)
    check_target(out)
    with kg_lock(out, rep.stream):
        epoch = _epoch_from(settings.statistics_from) if settings.statistics_from else None
        result = read_inputs(inputs, skip_invalid, rep, settings)
        if not result.papers:
            raise BuildError(_nothing_to_build(inputs, result.rejects))
        tmp = out.with_name(f".{out.name}.building-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            rep.step("counting the terms of every title and abstract")
            write_terms(tmp, result.papers)
            content = compute(result.papers, settings, rep, epoch)
            triples, store = create_store(tmp, content, settings.store, out.name, rep)
            counts = write_files(tmp, content, result.rejects, rep, terms=False)
            manifest = make_manifest(content, settings, rep, began, {**counts,
                                     "rejected": len(result.rejects), "triples": triples})
            manifest["inputs"] = [{"path": str(p), "sha256": _sha256(Path(p))} for p in inputs]
            if settings.statistics_from:
                manifest["statistics"]["from"] = str(settings.statistics_from)
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


def _epoch_from(kg: Path) -> Epoch:
    """The statistics stored in the KG at `kg` (`--statistics-from`)."""
    from paperkg.kgdir import read_manifest

    read_manifest(kg)  # not a KG: say so in its words
    epoch = load_epoch(kg)
    if epoch is None:
        raise UsageError(f"--statistics-from {kg}: that KG has no {STATISTICS} (built before "
                         "statistics were stored); rebuild it first")
    return epoch


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


def compute(
    papers: Sequence[Paper], settings: Settings, rep: Reporter, epoch: Epoch | None = None,
    known: Mapping[str, Ranked] | None = None, validate: bool = True,
    facts: Mapping[str, TextFacts] | None = None,
    casing: Mapping[str, tuple[str, dict[str, str]]] | None = None,
    cleaned: MutableMapping[str, tuple[str, str]] | None = None,
    naming: NamingMemo | None = None,
) -> Content:
    """Extract, canonicalise and validate: what the KG of `papers` is made of.

    Without `epoch` the corpus statistics are learned from `papers` (a new epoch); with
    it, every paper is ranked under its statistics, and the papers in `known` (results
    made under the same epoch, by id) are not extracted again; `facts` are text facts of
    unchanged papers (`canon.text_facts`) and `casing` the label memo of the scheme they
    were in (`canon.ConceptScheme.casing`); `cleaned` and `naming` are what a resident
    process keeps between updates (`canon.build_scheme`). `validate=False` leaves SHACL to
    the caller (an update checks only what changed).
    """
    from paperkg.build.canon import build_scheme, text_facts
    from paperkg.build.embed import release_memory

    # the words' merge keys and parts of speech (`paperkg.memo`)
    with remembered(settings.cache, _words_code(), paused_gc):
        ordered = sorted(papers, key=lambda p: p.id)
        keys = {p.id: content_key(p) for p in ordered}
        if epoch is None:
            info, extracted, embedder, stats = _extract(ordered, settings, rep)
            epoch = Epoch(stats, str(info.params["corpus"]),
                          datetime.now(UTC).isoformat(timespec="seconds"),
                          ExtractSettings().max_words, keys)
        else:
            info, extracted, embedder = _extract_under(ordered, epoch, known or {}, settings, rep)
        release_memory(embedder)  # the rest of the build asks for its abstracts' vectors only
        rep.step("canonicalising concepts")
        with paused_gc():
            read = {p.id: facts[p.id] if facts and p.id in facts else text_facts(p)
                    for p in ordered}
            scheme = build_scheme(extracted, ordered, read, casing,
                                  fresh=[p.id for p in ordered if not (facts and p.id in facts)],
                                  corpus_size=epoch.papers, cleaned=cleaned, naming=naming)
        rep.step(f"{len(scheme.concepts)} concepts")
        validated = _validate(ordered, scheme, info, settings.cache, rep) if validate else ""
    return Content(ordered, info, scheme, embedder, validated, epoch, extracted, read, keys)


def _words_code() -> str:
    """What the remembered word answers (`paperkg.memo`) depend on: the code of the merge
    key, the lexicon and the label rules, the field's words and lemminflect's version."""
    from paperkg.build.fingerprint import source_fingerprint
    from paperkg.lexicon import field_words_digest

    try:
        lemmas = version("lemminflect")
    except PackageNotFoundError:
        lemmas = "unknown"
    code = source_fingerprint("paperkg.build.terms", "paperkg.lexicon",
                              "paperkg.build.labels", "paperkg.build.grammar")
    return f"{code}-{field_words_digest()}-{lemmas}"


def kg_triples(content: Content) -> Iterator[Any]:
    """Every triple of the KG: the papers' and the concepts', then the ontology's."""
    from paperkg.build.rdf import iter_triples, load_ontology

    yield from iter_triples(content.papers, content.scheme, content.info)
    yield from load_ontology()


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
        "settings": {n: getattr(settings, n) for n in CONCEPT_SETTINGS},
        "statistics": statistics_entry(content.epoch, content.keys),
        "facts_code": facts_code(),
        "shacl": content.validated,
        "timings_s": {k: round(v, 2) for k, v in rep.timings.items()},
        "build_seconds": round(time.perf_counter() - began, 2),
    }


def write_manifest(target: Path, manifest: Mapping[str, Any]) -> None:
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def _hash_repr(h: Any, part: object) -> None:
    """Feed `repr(part)` to `h`, a list item by item: the same bytes without the whole
    string (the papers' alone was 0.3 GB for a 46k-paper corpus, and the freed memory
    stayed with the process through SHACL and the store)."""
    if type(part) is not list:
        h.update(repr(part).encode())
        return
    h.update(b"[")
    for i, item in enumerate(part):
        h.update(b", " if i else b"")
        h.update(repr(item).encode())
    h.update(b"]")


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
                 scheme.merges, scheme.topics, scheme.fields, info):
        _hash_repr(h, part)
    for f in (rdf.ontology_path("shapes.ttl"), rdf.ontology_path("paperkg.ttl")):
        h.update(Path(str(f)).read_bytes())
    marker = cache_dir / "validated" / h.hexdigest() if cache_dir else None
    if marker is not None and marker.is_file():
        rep.step("SHACL: this exact graph passed validation before; not re-checked")
        return f"conforms (cached {marker.name[:12]})"
    from paperkg.build.shacl import validate_stream

    rep.step("validating the triples against the SHACL shapes (the concept scheme, then "
             "batches of papers)")
    report = validate_stream(rdf.iter_triples(papers, scheme, info))
    if not report.conforms:
        raise BuildError(f"the built graph fails SHACL validation ({report.violations} "
                         f"violation(s)):\n{report.text}")
    if marker is not None:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(datetime.now(UTC).isoformat() + "\n", encoding="utf-8")
    return "conforms"
