"""rdflib terms as N-Triples bytes, streamed in batches: what the stores are loaded from.

Hand-written because the triples come from rdflib (`build.rdf`), whose own N-Triples
serializer is ~3x slower and needs a whole Graph; escaping is `results.literal_n3`, the
one escaper of the project.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator

from rdflib.term import BNode, Literal, Node, URIRef

from paperkg.results import literal_n3

__all__ = ["ntriples_batches", "ntriples_stream"]


def _nt(node: Node) -> str:
    if isinstance(node, URIRef):
        return f"<{node}>"
    if isinstance(node, Literal):
        return literal_n3(str(node), node.language,
                          None if node.datatype is None else str(node.datatype))
    if isinstance(node, BNode):
        return f"_:{node}"
    raise TypeError(f"cannot write {type(node).__name__} {node!r} as N-Triples")


def ntriples_batches(
    triples: Iterable[tuple[Node, Node, Node]], batch: int = 20_000, hold_bnodes: bool = False
) -> Iterator[bytes]:
    """`triples` as N-Triples, `batch` lines at a time. With `hold_bnodes`, lines with a
    blank node come last, all in one batch: a parser names blank nodes per document, so
    those lines must be parsed together to keep linking each other."""
    lines: list[str] = []
    held: list[str] = []
    for s, p, o in triples:
        line = f"{_nt(s)} {_nt(p)} {_nt(o)} .\n"
        if hold_bnodes and (isinstance(s, BNode) or isinstance(o, BNode)):
            held.append(line)
            continue
        lines.append(line)
        if len(lines) >= batch:
            yield "".join(lines).encode("utf-8")
            lines = []
    if lines:
        yield "".join(lines).encode("utf-8")
    if held:
        yield "".join(held).encode("utf-8")


def ntriples_stream(
    triples: Iterable[tuple[Node, Node, Node]], batch: int = 20_000
) -> io.BufferedReader:
    """A binary file object reading `triples` (an rdflib Graph works) as N-Triples.

    Streams batch by batch, so parsing never holds the whole ~200 MB document; and
    it is ~3x faster than rdflib's own N-Triples serializer.
    """
    return io.BufferedReader(_ChunkReader(ntriples_batches(triples, batch)),
                             buffer_size=1 << 20)


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
