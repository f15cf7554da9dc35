"""SHACL validation of a KG as it streams by, in small pieces, never as one rdflib graph.

The shapes are flat: each one looks at one focus node, its own triples and the types of
the nodes it links to (`sh:class`). So the KG can be checked piece by piece with the same
verdict as a whole-graph run: each piece is a set of focus nodes with all their triples
(a batch of papers with their mentions and first-named authors; a batch of concept-scheme
nodes), plus the `rdf:type` triples of the nodes they link to, and pySHACL validates only
those focus nodes (`focus_nodes`). Memory is bounded by the batch, not by the KG: the
whole-graph run of the full corpus held 1.4M triples in rdflib.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

import pyshacl
from rdflib import Graph, URIRef
from rdflib.term import Node

from paperkg.build.rdf import ValidationReport, _describe, _report_names, _shapes
from paperkg.vocab import PKG, RDF, SH

__all__ = ["validate_stream"]

Triple = tuple[Node, Node, Node]
_TYPE, _PAPER = RDF.type, PKG.Paper


def validate_stream(triples: Iterable[Triple], papers_per_batch: int = 1000,
                    nodes_per_batch: int = 20_000, max_listed: int = 20) -> ValidationReport:
    """Validate the KG triples of `rdf.iter_triples` (scheme first, then paper by paper)."""
    types: dict[Node, list[Node]] = defaultdict(list)  # of nodes other pieces link to
    scheme: dict[Node, list[Triple]] = defaultdict(list)
    batch: list[Triple] = []
    lines: list[str] = []
    count = 0
    papers = 0
    prefix = None
    for t in triples:
        s, p, o = t
        if p == _TYPE and o == _PAPER:
            if papers and papers % papers_per_batch == 0:
                count += _check(batch, types, lines)
                batch = []
            papers += 1
            prefix = f"{s}/"
        if prefix is None:  # the concept scheme, before the first paper
            scheme[s].append(t)
            if p == _TYPE:
                types[s].append(o)
            continue
        batch.append(t)
        if p == _TYPE and not str(s).startswith(prefix) and o != _PAPER:
            types[s].append(o)  # authors, venues: linked from later papers too
    count += _check(batch, types, lines)
    nodes = list(scheme)
    for start in range(0, len(nodes), nodes_per_batch):
        count += _check((t for n in nodes[start:start + nodes_per_batch] for t in scheme[n]),
                        types, lines)
    lines.sort()
    shown = lines[:max_listed]
    if len(lines) > len(shown):
        shown.append(f"… and {len(lines) - len(shown)} more violation(s)")
    summary = "conforms" if not count else f"{count} violation(s)"
    return ValidationReport(not count, count, "\n".join([summary, *shown]))


def _check(piece: Iterable[Triple], types: dict[Node, list[Node]], lines: list[str]) -> int:
    """Validate the subjects of `piece`; returns the number of violations, described in
    `lines`."""
    graph = Graph()
    for t in piece:
        graph.add(t)
    focus = set(graph.subjects())
    if not focus:
        return 0
    for o in set(graph.objects()):
        if isinstance(o, URIRef) and o not in focus:
            for kind in types.get(o, ()):
                graph.add((o, _TYPE, kind))
    conforms, results, _ = pyshacl.validate(
        graph, shacl_graph=_shapes(), inference="none", inplace=True, advanced=False,
        abort_on_first=False, focus_nodes=[str(n) for n in focus])
    if conforms:
        return 0
    assert isinstance(results, Graph)
    found = 0
    for result in _violations(results):
        found += 1
        lines.append(_describe(results, result, _report_names()))
    return found


def _violations(results: Graph) -> Iterator[Node]:
    for result in results.subjects(RDF.type, SH.ValidationResult):
        if results.value(result, SH.resultSeverity) == SH.Violation:
            yield result
