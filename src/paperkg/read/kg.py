"""Opening a built KG directory for reading: its manifest, store, graph and vectors.

Everything heavy (the store, the NetworkX graph, the abstract vectors) loads on first use,
once, so a CLI command that only needs the store never parses the graph.
"""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from itertools import combinations
from pathlib import Path
from typing import Any, Final

import networkx as nx
import numpy as np

from paperkg.errors import KGNotFound, UsageError
from paperkg.kgdir import DOC_VECTORS, GRAPH, STORE, load_graph, read_manifest
from paperkg.store import RDF_EXPORTS, OxigraphStore

__all__ = ["EXPORT_FORMATS", "KnowledgeGraph", "cooccurrence", "open_kg"]

#: What `paperkg export` writes: the store's RDF serialisations, plus GraphML for Gephi.
EXPORT_FORMATS: Final = (*RDF_EXPORTS, "graphml")


class KnowledgeGraph:
    """A built KG directory, opened read-only; store and graph load on first use."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.manifest: dict[str, Any] = read_manifest(self.path)

    @cached_property
    def store(self) -> OxigraphStore:
        try:
            return OxigraphStore.open(self.path / STORE, read_only=True)
        except OSError as err:
            raise KGNotFound(f"{self.path / STORE}: cannot open the store ({err}); rebuild "
                             f"with 'paperkg build INPUT... --out {self.path}'") from None

    @cached_property
    def doc_vectors(self) -> tuple[list[str], np.ndarray] | None:
        """(paper ids, unit abstract vectors), or None for a KG built without them."""
        path = self.path / DOC_VECTORS
        if not path.is_file():
            return None
        with np.load(path) as data:
            return [str(i) for i in data["ids"]], data["vectors"].astype(np.float32)

    @cached_property
    def graph(self) -> nx.Graph:
        return load_graph(self.path / GRAPH)

    def export(self, fmt: str, target: Path | None = None) -> Path:
        """Write the KG as Turtle, N-Triples, JSON-LD or GraphML; returns the file written."""
        if fmt not in EXPORT_FORMATS:
            raise UsageError(f"unknown export format {fmt!r}; choose one of {EXPORT_FORMATS}")
        target = target or self.path / "export" / f"kg.{fmt}"
        target.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "graphml":
            write_graphml(self.graph, target)
        else:
            self.store.export(target, fmt)
        return target


def open_kg(path: Path) -> KnowledgeGraph:
    return KnowledgeGraph(path)


def cooccurrence(g: nx.Graph, min_count: int = 1) -> Counter[tuple[str, str]]:
    """How many papers mention each pair of concepts (pairs as sorted node keys)."""
    counts: Counter[tuple[str, str]] = Counter()
    for node, data in g.nodes(data=True):
        if data.get("kind") != "paper":
            continue
        concepts = sorted(n for n in g[node] if g.nodes[n].get("kind") == "concept")
        counts.update(combinations(concepts, 2))
    if min_count > 1:
        counts = Counter({k: v for k, v in counts.items() if v >= min_count})
    return counts


def write_graphml(g: nx.Graph, path: Path, with_cooccurrence: bool = True) -> None:
    """GraphML for Gephi: the bipartite graph plus weighted concept co-occurrence edges."""
    out = g.copy()
    if with_cooccurrence:
        for (a, b), count in cooccurrence(g, min_count=2).items():
            out.add_edge(a, b, kind="cooccurs", score=float(count), rank=0)
    nx.write_graphml(out, path)
