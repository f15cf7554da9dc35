"""Where the KG is queried: a small `Store` protocol and its embedded Oxigraph implementation.

Callers see only `Store.query() -> QueryResult` (plain Python terms), so a remote SPARQL
endpoint can implement the same protocol later. Stores here are for reading: updates are
refused, and so is SERVICE (a query must not make this process fetch URLs).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import islice
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO, Final, Protocol, runtime_checkable

import pyoxigraph as ox
from rdflib.term import Node

from paperkg.errors import KGNotFound, QueryError, ResultTooLarge, UsageError
from paperkg.kgdir import EXPORTS
from paperkg.ntriples import ntriples_batches
from paperkg.results import QueryKind, QueryResult, Term
from paperkg.screen import screen
from paperkg.vocab import PREFIXES

__all__ = [
    "GRAPH_FORMATS",
    "RDF_EXPORTS",
    "RESULT_FORMATS",
    "Answer",
    "Dataset",
    "OxigraphStore",
    "QueryResult",
    "Store",
    "Term",
    "Written",
    "graph_bytes",
    "term_of",
]

#: RDF serialisations a store exports, by file extension (Oxigraph's own serialisers).
#: SPARQL results formats (SELECT, ASK) Oxigraph writes, by the name clients use.
RESULT_FORMATS: Final = {
    "json": ox.QueryResultsFormat.JSON,
    "xml": ox.QueryResultsFormat.XML,
    "csv": ox.QueryResultsFormat.CSV,
    "tsv": ox.QueryResultsFormat.TSV,
}
#: RDF formats a CONSTRUCT / DESCRIBE answer is written in (Oxigraph's serialisers).
GRAPH_FORMATS: Final = {
    "ttl": ox.RdfFormat.TURTLE,
    "nt": ox.RdfFormat.N_TRIPLES,
    "jsonld": ox.RdfFormat.JSON_LD,
    "rdfxml": ox.RdfFormat.RDF_XML,
    "nq": ox.RdfFormat.N_QUADS,
    "trig": ox.RdfFormat.TRIG,
}
RDF_EXPORTS: Final = {ext: ox.RdfFormat.from_extension(ext) for ext in EXPORTS
                      if ext != "graphml"}
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
_BULK_BATCH: Final = 50_000  # triples per bulk load (memory ~ batch, see OxigraphStore.create)


@runtime_checkable
class Store(Protocol):
    """What the CLI, server and notebooks need from a KG store."""

    def query(self, sparql: str) -> QueryResult:
        """Run SELECT / ASK / CONSTRUCT / DESCRIBE; raise QueryError otherwise."""
        ...

    def evaluate(self, sparql: str, dataset: Dataset | None = None,
                 base_iri: str | None = None) -> Answer:
        """A person's query, its answer to be written in the format they asked for."""
        ...

    def values(self, sparql: str) -> Iterator[tuple[str, ...]]:
        """A SELECT's rows as plain strings: an IRI or a literal's lexical form, "" where
        unbound. A bulk read that needs neither term kinds nor datatypes (the memory back
        end reads the KG this way); blank nodes' labels are each store's own."""
        ...

    def triple_count(self) -> int: ...

    def close(self) -> None: ...


# ---------------------------------------------------------------- term conversion


def _term(node: object) -> Term | None:
    if node is None:
        return None
    if isinstance(node, ox.NamedNode):
        return Term(node.value, "iri")
    if isinstance(node, ox.BlankNode):
        return Term(node.value, "bnode")
    if isinstance(node, ox.Literal):
        if node.language:
            return Term(node.value, "literal", None, node.language)
        dt = node.datatype.value
        return Term(node.value, "literal", None if dt == _XSD_STRING else dt)
    return Term(str(node), "triple")


def term_of(node: object) -> Term:
    """A pyoxigraph term as a plain `Term` (what every store returns)."""
    term = _term(node)
    assert term is not None
    return term


# ---------------------------------------------------------------- Oxigraph


@dataclass(frozen=True, slots=True)
class Dataset:
    """An RDF dataset named by a request (default-graph-uri / named-graph-uri)."""

    default: tuple[str, ...] = ()
    named: tuple[str, ...] = ()


def _graph_name(iri: str) -> ox.NamedNode:
    try:
        return ox.NamedNode(iri)
    except ValueError as err:
        raise QueryError(f"graph name {iri!r} is not an absolute IRI ({err})") from None


@dataclass(frozen=True, slots=True)
class Written:
    """What `Answer.write` wrote: the row count when it counted them, and whether the
    client's explicit request for a partial answer cut it."""

    rows: int | None
    truncated: bool = False


class Answer:
    """An evaluated query whose answer has not been read yet (read it once)."""

    def __init__(self, inner: ox.QueryBoolean | ox.QuerySolutions | ox.QueryTriples
                 | list[ox.Triple]) -> None:
        self._inner = inner
        self.kind: QueryKind = ("ask" if isinstance(inner, ox.QueryBoolean) else
                                "select" if isinstance(inner, ox.QuerySolutions) else "graph")

    @classmethod
    def from_result(cls, result: QueryResult) -> Answer:
        """An answer read elsewhere (a SPARQL server's), so that Oxigraph's writers serve it
        in every format exactly as they serve the embedded store's."""
        if result.kind == "graph":
            return cls(list(ox.parse(result.to_ntriples().encode("utf-8"),
                                     format=ox.RdfFormat.N_TRIPLES)))
        inner = ox.parse_query_results(result.to_json().encode("utf-8"),
                                       format=ox.QueryResultsFormat.JSON)
        assert not isinstance(inner, ox.QueryTriples)
        return cls(inner)

    def result(self, max_rows: int | None = None) -> QueryResult:
        """The answer as plain terms; at most `max_rows` rows, `truncated` if cut."""
        inner = self._inner
        if isinstance(inner, ox.QueryBoolean):
            return QueryResult("ask", boolean=bool(inner))
        cap = None if max_rows is None else max_rows + 1  # one past: cut or exact fit?
        if isinstance(inner, ox.QuerySolutions):
            names = [v.value for v in inner.variables]
            width = range(len(names))
            rows = [tuple(_term(solution[i]) for i in width) for solution in islice(inner, cap)]
            cut = max_rows is not None and len(rows) > max_rows
            return QueryResult("select", variables=names, rows=rows[:max_rows], truncated=cut)
        triples = [(term_of(t.subject), term_of(t.predicate), term_of(t.object))
                   for t in islice(inner, cap)]
        cut = max_rows is not None and len(triples) > max_rows
        return QueryResult("graph", triples=triples[:max_rows], truncated=cut)

    def values(self) -> Iterator[tuple[str, ...]]:
        """A SELECT answer's rows as plain strings ("" where unbound, a blank node as
        `_:label`), for bulk reads (`Store.values`). Oxigraph writes them as SPARQL CSV,
        in Rust and letting go of the GIL, and the csv module reads that: a Python term per
        value holds the GIL, so reads could not run side by side (the four mention scans
        in four threads: 6.1 s that way, 2.2 s this way)."""
        inner = self._inner
        if not isinstance(inner, ox.QuerySolutions):
            raise QueryError(f"plain values come from SELECT queries, not a {self.kind} query")
        data = inner.serialize(format=ox.QueryResultsFormat.CSV)  # bytes, without a file:
        assert data is not None  # a file would take it in chunks, each taking the GIL
        rows = csv.reader(io.StringIO(data.decode("utf-8"), newline=""))
        next(rows, None)  # the header: the variables' names
        return (tuple(row) for row in rows)

    def write(self, fmt: str, out: BinaryIO, row_cap: int | None = None,
              partial: bool = False) -> Written:
        """Serialise the answer into `out` with Oxigraph's writers, streaming.

        Without `row_cap` the whole answer streams out. With one, at most that many rows
        are read first: more is ResultTooLarge (nothing written), unless `partial` asks
        for the first `row_cap` rows (then `truncated` says so).
        """
        inner = self._inner
        formats = GRAPH_FORMATS if self.kind == "graph" else RESULT_FORMATS
        if fmt not in formats:
            raise UsageError(f"cannot write a {self.kind} answer as {fmt!r}; choose one of "
                             f"{list(formats)}")
        if isinstance(inner, ox.QueryBoolean):
            inner.serialize(out, RESULT_FORMATS[fmt])
            return Written(1)
        if row_cap is None:
            if isinstance(inner, ox.QuerySolutions):
                inner.serialize(out, RESULT_FORMATS[fmt])
            else:
                _write_graph(inner, fmt, out)
            return Written(None)
        if isinstance(inner, ox.QuerySolutions):
            table = self.result(row_cap)
            _check_cap(table.truncated, row_cap, partial)
            out.write(table.serialize(fmt).encode("utf-8"))
            return Written(len(table), table.truncated)
        triples = list(islice(inner, row_cap + 1))
        cut = len(triples) > row_cap
        _check_cap(cut, row_cap, partial)
        _write_graph(triples[:row_cap], fmt, out)
        return Written(min(len(triples), row_cap), cut)


def _check_cap(cut: bool, row_cap: int, partial: bool) -> None:
    if cut and not partial:
        raise ResultTooLarge(
            f"the answer has more than {row_cap} rows, this server's row cap; narrow the "
            "query (LIMIT, OFFSET to page, more specific patterns), or ask explicitly for "
            f"the first {row_cap} rows only with partial=true")


def _write_graph(triples: Iterable[ox.Triple], fmt: str, out: BinaryIO) -> None:
    rdf = GRAPH_FORMATS[fmt]
    items: Iterable[ox.Triple] | Iterable[ox.Quad] = triples
    if rdf.supports_datasets:  # N-Quads, TriG: the triples in the default graph
        items = (ox.Quad(t.subject, t.predicate, t.object) for t in triples)
    prefixes = PREFIXES if rdf in (ox.RdfFormat.TURTLE, ox.RdfFormat.TRIG) else None
    ox.serialize(items, out, rdf, prefixes=prefixes)


def graph_bytes(result: QueryResult, fmt: str) -> bytes:
    """A small graph built in Python (a QueryResult of kind "graph") in one of
    GRAPH_FORMATS, written by Oxigraph like every query answer."""
    if fmt not in GRAPH_FORMATS:
        raise UsageError(f"cannot write a graph as {fmt!r}; choose one of {list(GRAPH_FORMATS)}")
    triples = ox.parse(result.to_ntriples().encode("utf-8"), ox.RdfFormat.N_TRIPLES)
    out = io.BytesIO()
    _write_graph((q.triple for q in triples), fmt, out)
    return out.getvalue()


class OxigraphStore:
    """An on-disk Oxigraph store holding the KG in its default graph."""

    def __init__(self, inner: ox.Store, path: Path, read_only: bool,
                 allow_service: bool = False) -> None:
        self._inner: ox.Store | None = inner
        self.path = path
        self.read_only = read_only
        self.allow_service = allow_service

    @classmethod
    def open(cls, path: str | os.PathLike[str], read_only: bool = True) -> OxigraphStore:
        """Open an existing store (read-only by default: many readers, no lock fights)."""
        path = Path(path)
        if not path.is_dir() or not any(path.iterdir()):
            raise KGNotFound(f"{path}: no Oxigraph store here; build the KG first")
        inner = ox.Store.read_only(str(path)) if read_only else ox.Store(str(path))
        return cls(inner, path, read_only)

    @classmethod
    def create(
        cls, path: str | os.PathLike[str], triples: Iterable[tuple[Node, Node, Node]],
        batch: int = _BULK_BATCH,
    ) -> OxigraphStore:
        """A new store at `path` (must not exist or be empty) bulk-loaded with `triples`
        (an rdflib Graph, or `rdf.iter_triples(...)` to skip building a Graph)."""
        path = Path(path)
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise FileExistsError(f"{path}: already exists; create() only writes new stores")
        path.mkdir(parents=True, exist_ok=True)
        inner = ox.Store(str(path))
        # one bulk load per batch: Oxigraph's loader holds a whole load in memory (1.2 GB
        # for the full ICLR KG in one call, 0.18 GB in batches of 100k, a few % slower)
        for chunk in ntriples_batches(triples, batch, hold_bnodes=True):
            inner.bulk_load(chunk, format=ox.RdfFormat.N_TRIPLES)
        inner.optimize()
        inner.flush()
        return cls(inner, path, read_only=False)

    @property
    def _store(self) -> ox.Store:
        if self._inner is None:
            raise RuntimeError(f"the store at {self.path} is closed")
        return self._inner

    def query(self, sparql: str, max_rows: int | None = None,
              dataset: Dataset | None = None, base_iri: str | None = None) -> QueryResult:
        """Run a read query and read its whole answer (see `evaluate` for the dataset).

        With `max_rows`, stop reading after that many rows/triples (Oxigraph streams
        solutions, so a huge answer is never built) and mark the result `truncated`.
        """
        return self.evaluate(sparql, dataset, base_iri).result(max_rows)

    @cached_property
    def _has_named_graphs(self) -> bool:
        return next(iter(self._store.named_graphs()), None) is not None

    def evaluate(self, sparql: str, dataset: Dataset | None = None,
                 base_iri: str | None = None) -> Answer:
        """Start a read query; its answer is read once, as a QueryResult or written out.

        The dataset is the protocol's `dataset` if it names graphs, else the query's own
        FROM / FROM NAMED, else the union of every graph in the store. Relative IRIs in
        the query resolve against `base_iri`.
        """
        screened = screen(sparql, self.allow_service)
        options: dict[str, Any] = {"base_iri": base_iri}
        if dataset is not None and (dataset.default or dataset.named):
            options["default_graph"] = [_graph_name(g) for g in dataset.default]
            options["named_graphs"] = [_graph_name(g) for g in dataset.named]
        elif not screened.has_dataset and self._has_named_graphs:
            # the union of all graphs; with no named graph that is the default graph,
            # and the union option costs Oxigraph up to 25 % (bench_sparql_overhead.py)
            options["use_default_graph_as_union"] = True
        try:
            answer = self._store.query(sparql, **options)
        except SyntaxError as err:
            raise QueryError(f"SPARQL syntax error: {err}") from err
        except ValueError as err:  # a base IRI or graph name pyoxigraph cannot use
            raise QueryError(str(err)) from err
        return Answer(answer)

    def values(self, sparql: str) -> Iterator[tuple[str, ...]]:
        return self.evaluate(sparql).values()

    def triple_count(self) -> int:
        return len(self._store)

    def export(self, path: str | os.PathLike[str], fmt: str) -> Path:
        """Write the KG as ttl / nt / jsonld (Oxigraph's serialisers); atomic replace."""
        if fmt not in RDF_EXPORTS:
            raise UsageError(f"unknown export format {fmt!r}; choose one of {list(RDF_EXPORTS)}")
        target = Path(path)
        tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
        prefixes = PREFIXES if fmt == "ttl" else None
        try:
            self._store.dump(str(tmp), RDF_EXPORTS[fmt], from_graph=ox.DefaultGraph(),
                             prefixes=prefixes)
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        return target

    def close(self) -> None:
        """Flush (if writable) and release the database; later calls raise."""
        if self._inner is not None and not self.read_only:
            self._inner.flush()
        self._inner = None

    def __enter__(self) -> OxigraphStore:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        mode = "read-only" if self.read_only else "read-write"
        state = "closed" if self._inner is None else mode
        return f"OxigraphStore({str(self.path)!r}, {state})"
