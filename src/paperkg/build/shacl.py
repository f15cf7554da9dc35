"""SHACL validation of a KG as it streams by, in pieces, never as one rdflib graph.

The shapes are flat: each one looks at a node of its target class, that node's own triples
and the types of the nodes it links to (`sh:class`). So the KG is checked in pieces with
the verdict of a whole-graph run:
- the concept scheme (everything `rdf.iter_triples` yields before the first paper: the
  scheme, the extractor, concepts, topics, merge decisions), when the first paper comes:
  its nodes grouped by their classes and cut into pieces of about 50,000 triples, each
  node with all its own triples and the types of the nodes it links to, checked with the
  shapes of its classes on its own nodes only (the scheme of the full ICLR KG, 0.5M
  triples, held in one rdflib graph took 0.65 GB with pySHACL's working set);
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
SCHEME_PIECE = 50_000  # triples of the concept scheme checked at a time
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
                    scheme_piece: int = SCHEME_PIECE) -> ValidationReport:
    """Validate the KG triples of `rdf.iter_triples` (scheme first, then paper by paper).
    `context`: the types of nodes the triples link to but do not describe (a part of the
    KG, as an update writes it): they satisfy the links' `sh:class`, and are not judged.
    `scheme_piece`: about how many triples of the scheme are checked at a time.

    The cyclic garbage collector is paused while the pieces' graphs are built, and run
    once after each piece is let go: its passes over millions of new rdflib objects, which
    reference counting frees anyway, cost the full ICLR KG 66 s → 54 s."""
    with paused_gc():
        try:
            return _validate_stream(triples, papers_per_batch, max_listed, context or {},
                                    scheme_piece)
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
                     scheme_piece: int) -> ValidationReport:
    # of scheme nodes (and of the context's)
    types: dict[Node, list[Node]] = defaultdict(list, {n: list(k) for n, k in context.items()})
    shared: dict[Node, list[Triple]] = defaultdict(list)  # authors, venues
    # the scheme's triples by subject, checked when the first paper comes (all its types
    # are known by then); its merge decisions (a fifth of it) are a piece of their own
    scheme: dict[Node, list[Triple]] | None = defaultdict(list)
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
                count += _check_scheme(scheme, types, lines, context, scheme_piece)
                scheme = None
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
            (merges if _MERGE in types.get(s, ()) else scheme[s]).append(t)
            continue
        batch.append(t)
        if prefix is not None and not str(s).startswith(prefix) and s != _paper_of(prefix):
            shared[s].append(t)
    if scheme is not None:  # no papers
        count += _check_scheme(scheme, types, lines, context, scheme_piece)
        scheme = None
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


def _check_scheme(scheme: dict[Node, list[Triple]], types: dict[Node, list[Node]],
                  lines: list[str], context: Mapping[URIRef, Sequence[Node]],
                  piece: int) -> int:
    """The concepts, topics and fields, in pieces of about `piece` triples: the nodes of
    one set of classes, each with all its triples (its narrower links come after the
    concepts), the nodes they link to by their types only, and the shapes of those classes
    run on the piece's own nodes (pySHACL's `focus_nodes`), so a linked node is never
    judged by the triples it lacks there. The shapes are flat (`ontology/shapes.ttl`): a
    node's verdict depends only on its own triples and its links' types, so pieces give the
    one graph's verdict. A node of `context` is described elsewhere and not judged."""
    by_classes: dict[frozenset[Node], list[Node]] = defaultdict(list)
    for node in scheme:
        if node not in context:
            by_classes[frozenset(types.get(node, ()))].append(node)
    found = 0
    for classes, nodes in by_classes.items():
        shapes = [sh for c in classes for sh in _shapes_by_target().get(c, ())]
        if not shapes:
            continue
        focus: list[Node] = []
        size = 0
        for i, node in enumerate(nodes):
            focus.append(node)
            size += len(scheme[node])
            if size >= piece or i == len(nodes) - 1:
                found += _check_nodes(scheme, focus, types, shapes, lines)
                focus, size = [], 0
    return found


def _check_nodes(scheme: dict[Node, list[Triple]], nodes: list[Node],
                 types: dict[Node, list[Node]], shapes: list[Node], lines: list[str]) -> int:
    """`nodes` of the scheme with their own triples and their links' types, judged."""
    graph = Graph()
    for node in nodes:
        for t in scheme[node]:
            graph.add(t)
    own = set(nodes)
    for o in set(graph.objects()):
        if isinstance(o, URIRef) and o not in own:
            for kind in types.get(o, ()):
                graph.add((o, _TYPE, kind))
    found = _judge(graph, own, shapes, lines, nodes)
    del graph
    _collect_piece()
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
