"""Opening a built KG directory for reading: its manifest, store, graph and vectors.

Everything heavy (the store, the NetworkX graph, the abstract vectors) loads on first use,
once, so a CLI command that only needs the store never parses the graph.
"""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import networkx as nx
import numpy as np

from paperkg.errors import KGNotFound, QueryError, UsageError
from paperkg.kgdir import DOC_VECTORS, EXPORTS, GRAPH, STORE, TERMS, load_graph, read_manifest
from paperkg.lexical import Lexicon
from paperkg.results import QueryResult
from paperkg.sparqltext import explain_query_error, with_prefixes
from paperkg.store import OxigraphStore

if TYPE_CHECKING:
    from paperkg.read.questions import Reader
    from paperkg.remote import RemoteStore

__all__ = ["BACKENDS", "EXPORT_FORMATS", "KnowledgeGraph", "cooccurrence", "open_kg"]

#: Who answers the questions: "sparql" asks the store each time (cheap to open: the
#: CLI), "memory" reads the store once into indexes (fast answers: the server).
Backend = Literal["sparql", "memory"]
BACKENDS: Final = ("sparql", "memory")

#: What `paperkg export` writes: the store's RDF serialisations, plus GraphML for Gephi.
EXPORT_FORMATS: Final = EXPORTS


class KnowledgeGraph:
    """A built KG directory, opened read-only; store and graph load on first use."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.manifest: dict[str, Any] = read_manifest(self.path)

    @cached_property
    def store(self) -> OxigraphStore | RemoteStore:
        """The embedded store, or the SPARQL server graph the manifest names (--store)."""
        remote = self.manifest.get("store")
        if isinstance(remote, dict) and remote.get("url"):
            from paperkg.remote import RemoteStore

            return RemoteStore(str(remote["url"]), str(remote["graph"]))
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
    def lexicon(self) -> Lexicon | None:
        """Each paper's term counts as TF-IDF rows, or None for a KG built without them."""
        path = self.path / TERMS
        return Lexicon.load(path) if path.is_file() else None

    @cached_property
    def graph(self) -> nx.Graph:
        return load_graph(self.path / GRAPH)

    def reader(self, backend: Backend = "sparql", where: str | None = None) -> Reader:
        """The questions of `read.questions.Reader`, answered by `backend`. `where` is how
        its messages name the KG (default: its directory; a server names no path)."""
        where = str(self.path) if where is None else where
        if backend == "memory":
            from paperkg.read.memory import CorpusData, MemoryReader

            return MemoryReader(CorpusData.from_store(self.store), self.graph,
                                self.lexicon, where=where)
        if backend == "sparql":
            from paperkg.read.sparql import SparqlReader

            return SparqlReader(self.store, where=where,
                                lexicon=lambda: self.lexicon)
        raise UsageError(f"unknown back end {backend!r}; choose one of {BACKENDS}")

    def sparql(self, text: str) -> QueryResult:
        """Run a person's query (standard prefixes added); a syntax error points at their
        text, in one readable line."""
        full = with_prefixes(text)
        try:
            return self.store.query(full)
        except QueryError as err:
            shift = full.count("\n") - text.count("\n")
            raise QueryError(explain_query_error(str(err), shift, text)) from err

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
