"""SHACL validation of a KG as it streams by, in pieces, never as one rdflib graph.

The shapes are flat: each one looks at a node of its target class, that node's own triples
and the types of the nodes it links to (`sh:class`). So the KG is checked in pieces with
the verdict of a whole-graph run:
- the concept scheme (everything `rdf.iter_triples` yields before the first paper: the
  scheme, the extractor, concepts, topics, merge decisions), once, when the first paper
  comes, with the shapes whose target classes occur in it, and then let go;
- the papers in batches of 1,000 (each with its mentions and source records, and the
  authors and venues it names first), with the other shapes, plus the `rdf:type` triples
  of the concepts and extractor they link to and all triples of the authors and venues
  named by an earlier batch (so those are checked again, never missing).
The whole-graph run of the full corpus held 1.9M triples in rdflib at once.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import cache

import pyshacl
from rdflib import Graph, URIRef
from rdflib.term import Node

from paperkg.build.gcpause import paused_gc
from paperkg.build.rdf import ValidationReport, _describe, _report_names, _shapes
from paperkg.vocab import PKG, RDF, SH

__all__ = ["validate_stream", "warm_shapes"]

Triple = tuple[Node, Node, Node]
_TYPE, _PAPER, _MERGE = RDF.type, PKG.Paper, PKG.MergeDecision


def warm_shapes() -> None:
    """Parse the shapes now, once per process: a resident process does it before it forks
    the children that validate its updates, which then inherit them."""
    _shapes_by_target()
    _report_names()


@cache
def _shapes_by_target() -> dict[Node, list[Node]]:
    """Shape nodes per target class."""
    out: dict[Node, list[Node]] = defaultdict(list)
    shapes = _shapes()
    for shape, target in shapes.subject_objects(SH.targetClass):
        out[target].append(shape)
    return dict(out)


def validate_stream(triples: Iterable[Triple], papers_per_batch: int = 1000,
                    max_listed: int = 20, context: Mapping[URIRef, Sequence[Node]] | None = None,
                    ) -> ValidationReport:
    """Validate the KG triples of `rdf.iter_triples` (scheme first, then paper by paper).
    `context`: the types of nodes the triples link to but do not describe (a part of the
    KG, as an update writes it): they satisfy the links' `sh:class`, and are not judged.

    The cyclic garbage collector is paused while the pieces' graphs are built, and run
    once after each piece is let go: its passes over millions of new rdflib objects, which
    reference counting frees anyway, cost the full ICLR KG 66 s → 54 s."""
    with paused_gc():
        try:
            return _validate_stream(triples, papers_per_batch, max_listed, context or {})
        finally:
            _collect_piece()


def _collect_piece() -> None:
    """Free a piece's graphs (rdflib and pyshacl leave them in reference cycles) once it
    is let go. Only the young generations: everything made since the last piece is
    there, while a full collection also walks the caller's long-lived data, which in an
    update (the whole corpus's papers and scheme, a small piece) cost 0.4 s each time."""
    gc.collect(1)


def _validate_stream(triples: Iterable[Triple], papers_per_batch: int,
                     max_listed: int, context: Mapping[URIRef, Sequence[Node]],
                     ) -> ValidationReport:
    # of scheme nodes (and of the context's)
    types: dict[Node, list[Node]] = defaultdict(list, {n: list(k) for n, k in context.items()})
    shared: dict[Node, list[Triple]] = defaultdict(list)  # authors, venues
    # the scheme goes straight into its graph (a list besides would hold it twice) and is
    # checked, then let go, when the first paper comes: all its types are known by then;
    # its merge decisions (a fifth of it) are a piece of their own, checked after it
    scheme: Graph | None = Graph()
    merges: list[Triple] = []
    batch: list[Triple] = []
    lines: list[str] = []
    count = 0
    papers = 0
    prefix: str | None = None
    paper_shapes: list[Node] = []
    for t in triples:
        s, p, o = t
        if p == _TYPE and o == _PAPER:
            if scheme is not None:
                count += _check_scheme(scheme, types, lines, context)
                scheme = None
                _collect_piece()  # the scheme's graph: freed before the next piece
                count += _check_merges(merges, types, lines)
                merges = []
                paper_shapes = _other_shapes(types)
            elif papers % papers_per_batch == 0:
                count += _check(batch, paper_shapes, lines, types, shared)
                batch = []
            papers += 1
            prefix = f"{s}/"
        if scheme is not None:
            if p == _TYPE:
                types[s].append(o)
            if _MERGE in types.get(s, ()):
                merges.append(t)
                if p != _TYPE:
                    continue  # the scheme keeps its type: a concept's pkg:merge points to it
            scheme.add(t)
            continue
        batch.append(t)
        if prefix is not None and not str(s).startswith(prefix) and s != _paper_of(prefix):
            shared[s].append(t)
    if scheme is not None:  # no papers
        count += _check_scheme(scheme, types, lines, context)
        scheme = None
        _collect_piece()
        count += _check_merges(merges, types, lines)
        paper_shapes = _other_shapes(types)
    count += _check(batch, paper_shapes, lines, types, shared)
    lines.sort()
    shown = lines[:max_listed]
    if len(lines) > len(shown):
        shown.append(f"… and {len(lines) - len(shown)} more violation(s)")
    summary = "conforms" if not count else f"{count} violation(s)"
    return ValidationReport(not count, count, "\n".join([summary, *shown]))


def _paper_of(prefix: str) -> URIRef:
    return URIRef(prefix[:-1])


def _other_shapes(scheme_types: dict[Node, list[Node]]) -> list[Node]:
    """The shapes for the papers' side: those whose target class the scheme lacks."""
    in_scheme = {o for v in scheme_types.values() for o in v}
    return [sh for c, shapes in _shapes_by_target().items() if c not in in_scheme
            for sh in shapes]


def _check_scheme(graph: Graph, types: dict[Node, list[Node]], lines: list[str],
                  context: Mapping[URIRef, Sequence[Node]]) -> int:
    """The concepts, topics and fields in one piece: in pieces, every node a piece links
    to (a topic's member concepts) would be judged there too, failing, then dropped
    (measured on the full KG at 50k-200k triples a piece: 2-4x slower, at most 0.1 GB
    less memory). The merge decisions, which only link outwards, are a piece of their
    own (`_check`), checked after this graph is let go."""
    kinds = {o for v in types.values() for o in v} - {_MERGE}
    own = {s for s in graph.subjects() if _MERGE not in types.get(s, ()) and s not in context}
    if not context:
        return _judge(graph, own, [sh for c in kinds for sh in _shapes_by_target().get(c, ())],
                      lines)
    # the context's nodes get their types, so that links to them hold; typed, they would
    # be targets too (and fail, being described elsewhere), so the shapes of each class
    # are run on the piece's own nodes of that class only
    for node, kinds_of in context.items():
        if (node, None, None) in graph or (None, None, node) in graph:
            for kind in kinds_of:
                graph.add((node, _TYPE, kind))
    found = 0
    for c in kinds:
        focus = [n for n in own if c in types.get(n, ())]
        if focus and c in _shapes_by_target():
            found += _judge(graph, own, _shapes_by_target()[c], lines, focus)
    return found


def _check_merges(merges: list[Triple], types: dict[Node, list[Node]], lines: list[str]
                  ) -> int:
    """The merge decisions, a piece of their own: they only link outwards."""
    return _check(merges, _shapes_by_target().get(_MERGE, []), lines, types, {})


def _check(piece: list[Triple], shapes: list[Node], lines: list[str],
           types: dict[Node, list[Node]], shared: dict[Node, list[Triple]]) -> int:
    """Validate `piece` (plus what it links to) against `shapes`; returns the number of
    violations, described in `lines`."""
    if not piece or not shapes:
        return 0
    graph = Graph()
    for t in piece:
        graph.add(t)
    own = set(graph.subjects())
    for o in set(graph.objects()):
        if isinstance(o, URIRef) and o not in own:
            for kind in types.get(o, ()):
                graph.add((o, _TYPE, kind))
            for t in shared.get(o, ()):
                graph.add(t)
    found = _judge(graph, own, shapes, lines)
    del graph
    _collect_piece()
    return found


def _judge(graph: Graph, own: set[Node], shapes: list[Node], lines: list[str],
           focus: list[Node] | None = None) -> int:
    """pyshacl over `graph` (on the nodes `focus` only, when given: pyshacl then runs
    every shape on each of them, whatever its class); the violations whose focus node is
    one of `own`."""
    if not len(graph) or not shapes:
        return 0
    conforms, results, _ = pyshacl.validate(
        graph, shacl_graph=_shapes(), inference="none", inplace=True, advanced=False,
        abort_on_first=False, use_shapes=[str(s) for s in shapes],
        focus_nodes=None if focus is None else [str(n) for n in focus])
    if conforms:
        return 0
    assert isinstance(results, Graph)
    found = 0
    for result in results.subjects(RDF.type, SH.ValidationResult):
        # a linked node is here only by its type (or as an earlier piece's author): it is
        # judged in its own piece, not by what this piece lacks of it
        if results.value(result, SH.focusNode) not in own:
            continue
        if results.value(result, SH.resultSeverity) == SH.Violation:
            found += 1
            lines.append(_describe(results, result, _report_names()))
    return found
