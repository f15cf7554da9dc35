"""Where the KG is queried: a small `Store` protocol and its embedded Oxigraph implementation.

Callers see only `Store.query() -> QueryResult` (plain Python terms), so a remote SPARQL
endpoint can implement the same protocol later. Stores here are for reading: updates are
refused, and so is SERVICE (a query must not make this process fetch URLs).
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from types import TracebackType
from typing import Final, Protocol, runtime_checkable

import pyoxigraph as ox
from rdflib.term import BNode, Literal, Node, URIRef

from paperkg.errors import KGNotFound, QueryError, QueryRefused, UsageError
from paperkg.results import QueryResult, Term
from paperkg.vocab import PREFIXES

__all__ = [
        "RDF_EXPORTS",
    "OxigraphStore",
    "QueryResult",
    "Store",
    "Term",
    "ntriples_stream",
]

#: RDF serialisations a store exports, by file extension (Oxigraph's own serialisers).
RDF_EXPORTS: Final = {
    "ttl": ox.RdfFormat.TURTLE,
    "nt": ox.RdfFormat.N_TRIPLES,
    "jsonld": ox.RdfFormat.JSON_LD,
}
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


@runtime_checkable
class Store(Protocol):
    """What the CLI, server and notebooks need from a KG store."""

    def query(self, sparql: str) -> QueryResult:
        """Run SELECT / ASK / CONSTRUCT / DESCRIBE; raise QueryError otherwise."""
        ...

    def triple_count(self) -> int: ...

    def close(self) -> None: ...


# ---------------------------------------------------------------- query screening

_UNICODE_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_OPAQUE = re.compile(  # tokens whose content is not SPARQL keywords
    r'"""(?:[^"\\]|\\.|"(?!""))*"""'
    r"|'''(?:[^'\\]|\\.|'(?!''))*'''"
    r'|"(?:[^"\\\n]|\\.)*"'
    r"|'(?:[^'\\\n]|\\.)*'"
    r'|<[^<>"{}|^`\\\s]*>'
    r"|#[^\n]*",
    re.DOTALL,
)
_KEYWORD = re.compile(
    r"(?<![\w?$:.-])(SELECT|ASK|CONSTRUCT|DESCRIBE|INSERT|DELETE|LOAD|CLEAR|CREATE|DROP"
    r"|COPY|MOVE|ADD|WITH|SERVICE)(?![\w:-])",
    re.IGNORECASE,
)
_READ_FORMS: Final = frozenset({"SELECT", "ASK", "CONSTRUCT", "DESCRIBE"})


def _screen(sparql: str, allow_service: bool) -> None:
    """Refuse updates and SERVICE before parsing: pyoxigraph would call an update a
    syntax error ("expected CONSTRUCT"), and would run SERVICE as an HTTP request."""
    text = _UNICODE_ESCAPE.sub(lambda m: chr(int(m[1] or m[2], 16)), sparql)
    keywords = [k.upper() for k in _KEYWORD.findall(_OPAQUE.sub(" ", text))]
    if keywords and keywords[0] not in _READ_FORMS:
        raise QueryRefused(
            f"{keywords[0]} is a SPARQL update: this store only answers SELECT, ASK, "
            "CONSTRUCT and DESCRIBE queries"
        )
    if "SERVICE" in keywords and not allow_service:
        raise QueryRefused("SERVICE (federated query) is disabled for this store")


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


def _required(node: object) -> Term:
    term = _term(node)
    assert term is not None
    return term


# ---------------------------------------------------------------- N-Triples streaming

_NT_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})


def _nt(node: Node) -> str:
    if isinstance(node, URIRef):
        return f"<{node}>"
    if isinstance(node, Literal):
        text = '"' + str(node).translate(_NT_ESCAPES) + '"'
        if node.language:
            return f"{text}@{node.language}"
        dt = node.datatype
        if dt is not None and str(dt) not in (_XSD_STRING, _RDF_LANG_STRING):
            return f"{text}^^<{dt}>"
        return text
    if isinstance(node, BNode):
        return f"_:{node}"
    raise TypeError(f"cannot write {type(node).__name__} {node!r} as N-Triples")


def ntriples_stream(
    triples: Iterable[tuple[Node, Node, Node]], batch: int = 20_000
) -> io.BufferedReader:
    """A binary file object reading `triples` (an rdflib Graph works) as N-Triples.

    Streams batch by batch, so bulk loading never holds the whole ~200 MB document; and
    it is ~3x faster than rdflib's own N-Triples serializer.
    """
    def chunks() -> Iterator[bytes]:
        lines: list[str] = []
        for s, p, o in triples:
            lines.append(f"{_nt(s)} {_nt(p)} {_nt(o)} .\n")
            if len(lines) >= batch:
                yield "".join(lines).encode("utf-8")
                lines = []
        if lines:
            yield "".join(lines).encode("utf-8")

    return io.BufferedReader(_ChunkReader(chunks()), buffer_size=1 << 20)


class _ChunkReader(io.RawIOBase):
    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self._pending:
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._pending = chunk
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


# ---------------------------------------------------------------- Oxigraph


def _cap(max_rows: int | None) -> int | None:
    """Read one row past the cap, so a cut answer can be told from an exact fit."""
    return None if max_rows is None else max_rows + 1


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
        cls, path: str | os.PathLike[str], triples: Iterable[tuple[Node, Node, Node]]
    ) -> OxigraphStore:
        """A new store at `path` (must not exist or be empty) bulk-loaded with `triples`
        (an rdflib Graph, or `rdf.iter_triples(...)` to skip building a Graph)."""
        path = Path(path)
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise FileExistsError(f"{path}: already exists; create() only writes new stores")
        path.mkdir(parents=True, exist_ok=True)
        inner = ox.Store(str(path))
        inner.bulk_load(ntriples_stream(triples), format=ox.RdfFormat.N_TRIPLES)
        inner.optimize()
        inner.flush()
        return cls(inner, path, read_only=False)

    @property
    def _store(self) -> ox.Store:
        if self._inner is None:
            raise RuntimeError(f"the store at {self.path} is closed")
        return self._inner

    def query(self, sparql: str, max_rows: int | None = None) -> QueryResult:
        """Run a read query over the default graph (union of all graphs).

        With `max_rows`, stop reading after that many rows/triples (Oxigraph streams
        solutions, so a huge answer is never built) and mark the result `truncated`.
        """
        _screen(sparql, self.allow_service)
        try:
            answer = self._store.query(sparql, use_default_graph_as_union=True)
        except SyntaxError as err:
            raise QueryError(f"SPARQL syntax error: {err}") from err
        if isinstance(answer, ox.QueryBoolean):
            return QueryResult("ask", boolean=bool(answer))
        if isinstance(answer, ox.QuerySolutions):
            names = [v.value for v in answer.variables]
            width = range(len(names))
            rows = [tuple(_term(solution[i]) for i in width)
                    for solution in islice(answer, _cap(max_rows))]
            cut = max_rows is not None and len(rows) > max_rows
            return QueryResult("select", variables=names, rows=rows[:max_rows], truncated=cut)
        triples = [(_required(t.subject), _required(t.predicate), _required(t.object))
                   for t in islice(answer, _cap(max_rows))]
        cut = max_rows is not None and len(triples) > max_rows
        return QueryResult("graph", triples=triples[:max_rows], truncated=cut)

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
