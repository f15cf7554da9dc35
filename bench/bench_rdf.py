"""Time the RDF stage on a graph shaped like the full ICLR 2025 corpus.

    PYTHONPATH=src python bench/bench_rdf.py [--papers 11565] [--phrases 80000]
        [--corpus ../shared/data/iclr2025/papers.jsonl.gz] [--nested-shacl] [--keep DIR]

Synthetic by default (seeded, so runs compare): 11,565 papers with ~1,300-character
abstracts, ~5 authors each from a shared pool, ~10 mentions each drawn Zipf-like from
80,000 phrases (~40,000 get used), grouped into concepts by `canon.build_scheme` as the
real pipeline does.
With --corpus, the real papers are used (ids, titles, authors, decisions) and only the
mentions are synthetic. Prints triples, build, SHACL, bulk-load and query seconds.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

from rdflib import Graph

from paperkg.build.canon import ConceptScheme, build_scheme
from paperkg.build.extract import ExtractorInfo
from paperkg.build.ingest import Paper, read_papers
from paperkg.build.rdf import build_graph, iter_triples, load_shapes, validate
from paperkg.store import OxigraphStore
from paperkg.vocab import RDF, SH, SPARQL_PREFIXES, paper_iri

T = TypeVar("T")

_WORDS = [
    "neural", "network", "language", "model", "graph", "diffusion", "transformer",
    "attention", "policy", "reward", "agent", "learning", "representation", "embedding",
    "contrastive", "robust", "adversarial", "federated", "privacy", "causal", "inference",
    "bayesian", "optimization", "gradient", "sparse", "kernel", "vision", "image", "video",
    "audio", "speech", "protein", "molecule", "reasoning", "benchmark", "dataset",
    "evaluation", "token", "retrieval", "generation", "alignment", "preference", "fine",
    "tuning", "quantization", "pruning", "memory",
]

RELATED = """
SELECT ?other (SUM(?w) AS ?score) (COUNT(?c) AS ?shared) WHERE {
  ?p pkg:mentions ?c .
  ?other pkg:mentions ?c .
  ?c pkg:weight ?w .
  FILTER(?other != ?p)
} GROUP BY ?other ORDER BY DESC(?score) LIMIT 10
"""


def timed(label: str, fn: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    value = fn()
    seconds = time.perf_counter() - start
    print(f"{label:<34} {seconds:9.2f} s", flush=True)
    return value, seconds


def synthetic_papers(n: int, rng: random.Random) -> list[Paper]:
    first = [f"Given{i}" for i in range(400)] + ["José", "Zoë", "Jean-Pierre", "Łukasz"]
    last = [f"Family{i}" for i in range(150)] + ["García", "Müller", "O'Neil"]
    pool = [f"{rng.choice(first)} {rng.choice(last)}" for _ in range(40_000)]
    decisions = ["poster", "reject", "withdrawn", "spotlight", "oral", "desk_reject", None]
    papers = []
    for i in range(n):
        pid = f"p{i:06d}X{rng.randrange(36**3):04d}"
        abstract = " ".join(rng.choice(_WORDS) for _ in range(190))
        title = " ".join(rng.choice(_WORDS) for _ in range(9)).title() if i % 50 else None
        authors = tuple(dict.fromkeys(rng.choice(pool) for _ in range(rng.randint(1, 10))))
        papers.append(Paper(
            id=pid, abstract=abstract, label=f"Label {i}", source=f"synthetic:{i}",
            title=title, authors=authors,
            keywords=tuple(rng.sample(_WORDS, 4)), decision=rng.choice(decisions),
            url=f"https://openreview.net/forum?id={pid}",
        ))
    return papers


def synthetic_scheme(papers: list[Paper], n_phrases: int, rng: random.Random) -> ConceptScheme:
    phrases = [f"{rng.choice(_WORDS)} {rng.choice(_WORDS)} c{i}" for i in range(n_phrases)]
    weights = [1.0 / (rank + 1) ** 0.8 for rank in range(n_phrases)]
    extracted: dict[str, list[tuple[str, float]]] = {}
    for paper in papers:
        picked = dict.fromkeys(rng.choices(phrases, weights, k=12))
        scores = sorted((rng.uniform(0.2, 0.8) for _ in picked), reverse=True)
        extracted[paper.id] = list(zip(list(picked)[:10], scores, strict=False))
    return build_scheme(extracted)


def nested_shapes(flat: Graph) -> Graph:
    """shapes.ttl rewritten the usual way: property shapes under their node shape's
    sh:property instead of carrying their own target (same constraints, same meaning)."""
    nested = Graph()
    for triple in flat:
        nested.add(triple)
    for prop in list(nested.subjects(RDF.type, SH.PropertyShape)):
        target = nested.value(prop, SH.targetClass)
        node = next(n for n in nested.subjects(SH.targetClass, target)
                    if (n, RDF.type, SH.NodeShape) in nested)
        nested.remove((prop, SH.targetClass, None))
        nested.add((node, SH.property, prop))
    return nested


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, default=11_565)
    ap.add_argument("--phrases", type=int, default=80_000,
                    help="distinct phrases to draw from (80k gives ~40k concepts)")
    ap.add_argument("--corpus", type=Path, help="real papers.jsonl.gz instead of synthetic")
    ap.add_argument("--nested-shacl", action="store_true",
                    help="also time the same constraints nested under node shapes (slow)")
    ap.add_argument("--keep", type=Path, help="keep the Oxigraph store in this new dir")
    args = ap.parse_args(argv)

    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    rng = random.Random(2025)
    if args.corpus:
        papers = read_papers([args.corpus]).papers[: args.papers]
    else:
        papers = synthetic_papers(args.papers, rng)
    scheme = synthetic_scheme(papers, args.phrases, rng)
    extractor = ExtractorInfo("keybert-minilm", "sentence-transformers/all-MiniLM-L6-v2",
                              "0.1.0", {"top_n": 10, "diversity": 0.5, "mmr": True})
    n_mentions = sum(len(v) for v in scheme.mentions.values())
    print(f"papers {len(papers)}  concepts {len(scheme.concepts)}  mentions {n_mentions}  "
          f"authors {sum(len(p.authors) for p in papers)}")

    graph, _ = timed("build_graph (rdflib)", lambda: build_graph(papers, scheme, extractor))
    print(f"{'triples':<34} {len(graph):9d}")

    report, _ = timed("validate() (pySHACL, flat shapes)", lambda: validate(graph))
    print(f"  conforms={report.conforms} violations={report.violations}")
    if args.nested_shacl:
        import pyshacl

        shapes = nested_shapes(load_shapes())
        nested, _ = timed("pySHACL, same shapes nested", lambda: pyshacl.validate(
            graph, shacl_graph=shapes, inference="none", inplace=True))
        print(f"  conforms={nested[0]}")

    root = args.keep or Path(tempfile.mkdtemp(prefix="paperkg-bench-"))
    try:
        store, _ = timed("OxigraphStore.create (bulk load)",
                         lambda: OxigraphStore.create(root / "store", graph))
        print(f"{'store triples':<34} {store.triple_count():9d}")
        store.close()
        ro, _ = timed("OxigraphStore.open (read-only)",
                      lambda: OxigraphStore.open(root / "store"))
        latencies = []
        for paper in rng.sample(papers, 20):
            query = SPARQL_PREFIXES + RELATED.replace("?p ", f"<{paper_iri(paper.id)}> ")
            query = query.replace("?other != ?p", f"?other != <{paper_iri(paper.id)}>")
            start = time.perf_counter()
            rows = ro.query(query).rows
            latencies.append(time.perf_counter() - start)
            assert rows, "a paper with mentions shares concepts with some other paper"
        print(f"{'related-papers SPARQL, median':<34} {statistics.median(latencies) * 1000:9.1f} ms"
              f"   (max {max(latencies) * 1000:.1f} ms, 20 papers)")
        for fmt in ("nt", "ttl", "jsonld"):
            path, _ = timed(f"export {fmt}", partial(ro.export, root / f"kg.{fmt}", fmt))
            print(f"  {path.stat().st_size / 1e6:.0f} MB")
        ro.close()
        _, _ = timed("OxigraphStore.create from iter_triples",
                     lambda: OxigraphStore.create(
                         root / "store2", iter_triples(papers, scheme, extractor)).close())
        print(f"load average at end: {os.getloadavg()[0]:.1f}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
